/**
 * Transaction hashes for the fixture blocks, whose receipts carry none: the same stand-in for a
 * transaction wherever a loopback server gives it (the JSON-RPC node's blocks and receipts, the
 * hosted service's log records), so that the audit's `tx_hash` comparison has a truth to use.
 */
import { bytesToHex, defaultKeccak256 } from '../../packages/core/src/index.js';
import type { BlockJson } from '../../packages/core/src/sources/block-source.js';

/** `0x` + keccak256 of `"{chainId}/{blockNumber}/{index}"`: deterministic, distinct per transaction. */
export function syntheticTxHash(chainId: number, blockNumber: number, index: number): string {
  return `0x${bytesToHex(defaultKeccak256(new TextEncoder().encode(`${chainId}/${blockNumber}/${index}`)))}`;
}

/** The block as a node gives it: each receipt with its `transactionHash`, and the header's `transactions` (hashes). */
export function withTxHashes(block: {
  chain_id: number | null;
  header: Record<string, unknown>;
  receipts: Array<Record<string, unknown>>;
}): BlockJson {
  const chainId = block.chain_id ?? 0;
  const number = Number(block.header.number);
  const hashes = block.receipts.map((_, i) => syntheticTxHash(chainId, number, i));
  return {
    chain_id: chainId,
    header: { ...block.header, transactions: hashes },
    receipts: block.receipts.map((receipt, i) => ({ ...receipt, transactionHash: hashes[i] })),
  };
}
