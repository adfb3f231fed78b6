import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import type { Receipt } from '../receipts/receipt.js';
import type { RuleSetName } from '../receipts/rules.js';
import { isSystemReceipt } from './claims.js';
import { describeSpan, type Verifiability } from './registry.js';

/**
 * Polygon PoS before Madhugiri: Bor runs state sync outside the block's transactions
 * and stores its logs as an extra receipt that is in neither the receipts root nor
 * the logs bloom. Nodes return it from eth_getBlockReceipts after every transaction
 * of the block (transactionIndex n-1), under a derived transaction hash
 * (0xPolygon/bor core/types/bor_receipt.go, internal/ethapi/api.go).
 */

const BOR_RECEIPT_PREFIX = new TextEncoder().encode('matic-bor-receipt-');

/**
 * The transaction hash bor gives a block's state-sync receipt:
 * keccak256("matic-bor-receipt-" ‖ block number as 8-byte big-endian ‖ block hash).
 */
export function borStateSyncTxHash(blockNumber: bigint, blockHash: Uint8Array, options: HashOptions = {}): Uint8Array {
  const key = new Uint8Array(BOR_RECEIPT_PREFIX.length + 8 + blockHash.length);
  key.set(BOR_RECEIPT_PREFIX);
  new DataView(key.buffer).setBigUint64(BOR_RECEIPT_PREFIX.length, blockNumber);
  key.set(blockHash, BOR_RECEIPT_PREFIX.length + 8);
  return (options.keccak ?? defaultKeccak256)(key);
}

/**
 * Where a block's state-sync receipt stands: out of the root and the bloom (a Polygon era before Madhugiri), or unknown
 * (Polygon's rules on a chain no era of which says: an added chain, `--rules polygon`), where the root and the bloom
 * are computed both with it left out and with it in ({@link placedReading}).
 */
export type StateSyncPlacement = 'outside-root' | 'unknown';

/**
 * The placement of Bor's state-sync receipt in a block of `verifiability` verified under `rules` (the caller's rule
 * set, for a chain outside the registry or none named); undefined where the block has no such receipt to set aside.
 */
export function stateSyncPlacement(
  verifiability: Verifiability | undefined,
  rules?: RuleSetName,
): StateSyncPlacement | undefined {
  if (verifiability?.status === 'verifiable') {
    if (verifiability.stateSync === 'receipt-outside-root') return 'outside-root';
    return verifiability.stateSync === null && verifiability.rules.name === 'polygon' ? 'unknown' : undefined;
  }
  // A chain the registry does not know (or none named), verified on the caller's word for its rules.
  const unknownChain =
    verifiability === undefined || (verifiability.status === 'not_verifiable' && verifiability.chain === undefined);
  return unknownChain && rules === 'polygon' ? 'unknown' : undefined;
}

/** A receipt that was sent but is not part of the block's commitments (or, placement unknown, may not be). */
export interface ExcludedReceipt {
  index: number;
  txHash: Uint8Array;
  reason: string;
  placement: StateSyncPlacement;
}

/** What a block's state-sync rule makes of its receipts. */
export type StateSyncOutcome =
  /** Nothing is left out: another era or chain, or no receipt names its transaction (nor, placed nowhere, has its shape). */
  | { kind: 'none' }
  | { kind: 'excluded'; excluded: ExcludedReceipt }
  /** The state-sync receipt is there, but not after every transaction, where bor puts it. */
  | { kind: 'misplaced'; index: number; expected: string }
  /**
   * Receipts name their transactions (or, placed nowhere, the last has the state-sync receipt's shape), but the block
   * hash (or number) that derives the state-sync hash is unknown.
   */
  | { kind: 'needs_block_hash'; expected: string };

/**
 * Whether the last of a block's receipts (in transaction order) has the shape of Bor's state-sync receipt: untyped and
 * of no gas (isSystemReceipt, the kind the built-in Polygon eras have not shown in the root), after receipts that used
 * gas. Cumulative gas never falls within a block, so no receipt in the root can be it.
 */
export function stateSyncShaped(
  receipts: ReadonlyArray<Pick<Receipt, 'type' | 'cumulativeGasUsed'> | undefined>,
): boolean {
  const last = receipts.at(-1);
  const before = receipts.at(-2);
  return last !== undefined && before !== undefined && isSystemReceipt(last) && before.cumulativeGasUsed > 0n;
}

/**
 * Applies a block's state-sync rule to the transaction hashes of its receipts, in index order: in a Polygon era whose
 * state sync stands outside the root, the receipt carrying Bor's derived hash of the block is left out; under Polygon's
 * rules where no era says where it stands (`rules`: the caller's rule set, for a chain outside the registry), it is set
 * aside, its placement unknown, and so is a last receipt no transaction hash names but of its shape (`shaped`:
 * {@link stateSyncShaped}), which no receipt in the root can have: its two readings are then what the receipts can mean.
 */
export function stateSyncOutcome(
  verifiability: Verifiability | undefined,
  block: { number?: bigint; hash?: Uint8Array | undefined },
  txHashes: ReadonlyArray<Uint8Array | undefined>,
  options: HashOptions & { rules?: RuleSetName; shaped?: boolean } = {},
): StateSyncOutcome {
  const placement = stateSyncPlacement(verifiability, options.rules);
  if (placement === undefined) return { kind: 'none' };
  // Where its placement is known, the receipt is told apart by its hash alone (a receipt of its shape is then a kind
  // the era claims or not: chains/claims.ts).
  const byShape = placement === 'unknown' && options.shaped === true;
  if (!byShape && txHashes.every((hash) => hash === undefined)) return { kind: 'none' };
  const known = verifiability?.status === 'verifiable' ? verifiability : undefined;
  const era = known?.era ?? null;
  const where =
    placement === 'outside-root' && era !== null
      ? `in ${known!.chain.name} ${describeSpan(era)} (${era.name})`
      : "under Polygon's rules";
  // Placement unknown: without the block's number and hash a receipt named by its hash cannot be told apart, and is
  // hashed; one of the state-sync receipt's shape is not, as no receipt in the root can have it.
  if (placement === 'unknown' && !byShape && (block.hash === undefined || block.number === undefined))
    return { kind: 'none' };
  if (block.hash === undefined || block.number === undefined) {
    const what = block.number === undefined ? 'the block number and hash' : 'the block hash';
    const expected = byShape
      ? `${what}: ${where} the last receipt, untyped and of no gas after the block's gas, has the shape of Bor's state-sync receipt, which may be left out of the root; the block hash derives its transaction hash`
      : `${what}: ${where} it derives the transaction hash of Bor's state-sync receipt, which is left out of the root`;
    return { kind: 'needs_block_hash', expected };
  }
  const derived = borStateSyncTxHash(block.number, block.hash, options);
  const named = txHashes.findIndex((hash) => hash !== undefined && bytesEqual(hash, derived));
  const last = txHashes.length - 1;
  if (named === -1 && !byShape) return { kind: 'none' };
  if (named !== -1 && named !== last) {
    return {
      kind: 'misplaced',
      index: named,
      expected: `Bor's state-sync receipt after every transaction of the block, at index ${last}; its transaction hash is on index ${named}`,
    };
  }
  const unplaced =
    named === -1
      ? `Bor's state-sync receipt by its shape: the last receipt, untyped, its cumulativeGasUsed 0 after the block's gas, which no receipt in the root can be, and no transaction hash names it as the one Bor derives for the block, under which it is listed. Under Polygon's rules, no era of this chain says whether it is left out of the receipts root and the logs bloom (as before Madhugiri) or in them: its placement is unknown.`
      : "Bor's state-sync receipt: under Polygon's rules, no era of this chain says whether it is left out of the receipts root and the logs bloom (as before Madhugiri) or in them: its placement is unknown.";
  const reason =
    placement === 'outside-root'
      ? `Bor's state-sync receipt: in ${describeSpan(era!)} (${era!.name}) it is in neither the receipts root nor the logs bloom, and no hash of the block commits to it.`
      : unplaced;
  return { kind: 'excluded', excluded: { index: last, txHash: derived, reason, placement } };
}

/** One reading of a block's receipts: the root and the bloom they give. */
export interface ReceiptsReading {
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
}

/**
 * The root with a receipt in or left out, the one rule for it (verifyBlock and the receipt-root operation): of
 * `readings`, in the caller's order, the one whose root is `claimed`, else the first; `matches` whether one's is.
 */
export function placedReading<R extends ReceiptsReading>(
  readings: readonly [R, ...R[]],
  claimed: Uint8Array | undefined,
): { reading: R; matches: boolean } {
  const matching = claimed === undefined ? undefined : readings.find((r) => bytesEqual(r.receiptsRoot, claimed));
  return { reading: matching ?? readings[0], matches: matching !== undefined };
}

/**
 * Why a block whose commitments hold is still not proven where receipts were set aside (Bor's state-sync receipt): no
 * hash it carries covers what they say, so their logs, status, gas and type (and whether the block has them at all) are
 * the node's word. `inRoot`: of receipts whose placement is unknown, whether the root matched with them in it.
 */
export function excludedReceiptsReason(excluded: readonly ExcludedReceipt[], inRoot = false): string {
  const named = excluded
    .map((r) => `the receipt at index ${r.index} (transaction hash 0x${bytesToHex(r.txHash)})`)
    .join(', ');
  const unknown = excluded.some((r) => r.placement === 'unknown');
  // The root matched one of two readings, with it in: no era of the chain says that reading is the chain's own.
  if (unknown && inRoot)
    return `${named}: Bor's state-sync receipt, its placement unknown: the header's root is given with it in the root, a reading no era of the chain says is its own`;
  const placed = unknown ? "; its placement unknown, the header's root is given with it left out" : '';
  return `${named}: Bor's state-sync receipt, which neither the receipts root nor the logs bloom nor the block hash commits to: its logs (deposits through the bridge), status, gas and type are the node's word${placed}`;
}

/** A receipt left out of the root, as answered. */
export interface ExcludedReceiptResult {
  index: number;
  tx_hash: string;
  reason: string;
}

/** An excluded receipt as the results show it. */
export function excludedReceiptResult(receipt: ExcludedReceipt): ExcludedReceiptResult {
  return { index: receipt.index, tx_hash: bytesToHex(receipt.txHash), reason: receipt.reason };
}
