import { ChainMismatchError } from '../errors.js';
import { isObject, MAX_UINT256, quantityValue } from '../input/values/json-values.js';
import { kindOf } from '../json/show.js';

/** A block in the fixtures' JSON-RPC format: `{chain_id, header, receipts}` (see fixtures/README.md). */
export type BlockJson = { chain_id: number; header: Record<string, unknown>; receipts: unknown[] } & Record<
  string,
  unknown
>;

/** Where a block check gets a block's header and complete receipts, by chain and number. */
export interface BlockSource {
  /** Header and complete receipts of a block, or null when the source does not have it. */
  block(chainId: number, blockNumber: number): Promise<BlockJson | null>;
  /**
   * Where a block it gave stands in the input (a bundle's `blocks[3]`), to name a faulty member; absent for a live
   * source.
   */
  pathOf?(chainId: number, blockNumber: number): string | undefined;
  /**
   * Who gives the blocks, for messages about a block it gave that has no place in the input (no `pathOf`): `the
   * JSON-RPC node at http://127.0.0.1:8545`. Absent: `the block source`.
   */
  readonly name?: string;
  /**
   * Checks that the source serves chain `chainId` (a node's `eth_chainId`): ChainMismatchError when it serves another.
   */
  checkChain?(chainId: number): Promise<void>;
}

/**
 * A block that names no chain (`chain_id` absent or null) as a block of the chain it was asked for: a source answers
 * for the chain it is asked (a bundle's block, a store's record, may leave the chain out).
 */
export function withChainAsked(block: BlockJson, chainId: number): BlockJson {
  if (!isObject(block)) return block; // no block: notTheBlockAsked names it
  return block.chain_id === undefined || block.chain_id === null ? { ...block, chain_id: chainId } : block;
}

/**
 * Holds a block a source gave to the chain and number asked for, whatever the source: a block of another number,
 * judged as the one asked for, would pair that number with another block's hash. Returns why it is not the block
 * asked for (its header.number is another), or null; throws ChainMismatchError when its chain_id names another chain.
 * A number or chain id that does not read is left to the block's verification, which names it; an answer that is no
 * object (undefined, a string) is no block.
 * @example notTheBlockAsked(await source.block(1, 1000001), 1, 1000001) // null, or 'the source answered block 1000001 with block 1000040 (its header.number)'
 */
export function notTheBlockAsked(block: BlockJson, chainId: number, blockNumber: number): string | null {
  // A source of the library's user may answer anything; a block is an object (null is "does not have it").
  if (!isObject(block)) return `the source answered block ${blockNumber} with ${kindOf(block)}, not a block object`;
  const served = quantityValue(block.chain_id, BigInt(Number.MAX_SAFE_INTEGER));
  if (served !== undefined && served !== BigInt(chainId))
    throw new ChainMismatchError(
      `the block source (its block ${blockNumber} gives chain_id ${served})`,
      served,
      chainId,
    );
  const header = block.header as unknown;
  const given = isObject(header) ? quantityValue(header.number, MAX_UINT256) : undefined;
  return given === undefined || given === BigInt(blockNumber)
    ? null
    : `the source answered block ${blockNumber} with block ${given} (its header.number)`;
}
