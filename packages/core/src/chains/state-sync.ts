import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
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

/** A receipt that was sent but is not part of the block's commitments. */
export interface ExcludedReceipt {
  index: number;
  txHash: Uint8Array;
  reason: string;
}

/** What a block's state-sync rule makes of its receipts. */
export type StateSyncOutcome =
  /** Nothing is left out: another era or chain, or no receipt names its transaction. */
  | { kind: 'none' }
  | { kind: 'excluded'; excluded: ExcludedReceipt }
  /** The state-sync receipt is there, but not after every transaction, where bor puts it. */
  | { kind: 'misplaced'; index: number; expected: string }
  /** Receipts name their transactions, but the block hash that derives the state-sync hash is unknown. */
  | { kind: 'needs_block_hash'; expected: string };

/**
 * Applies a block's state-sync rule to the transaction hashes of its receipts, in
 * index order: in a Polygon era whose state sync stands outside the root, the
 * receipt carrying Bor's derived hash of the block is left out.
 */
export function stateSyncOutcome(
  verifiability: Verifiability | undefined,
  block: { number?: bigint; hash?: Uint8Array | undefined },
  txHashes: ReadonlyArray<Uint8Array | undefined>,
  options: HashOptions = {},
): StateSyncOutcome {
  if (verifiability?.status !== 'verifiable' || verifiability.stateSync !== 'receipt-outside-root')
    return { kind: 'none' };
  if (txHashes.every((hash) => hash === undefined)) return { kind: 'none' };
  const era = verifiability.era!;
  if (block.hash === undefined) {
    const expected = `the block hash: in ${verifiability.chain.name} ${describeSpan(era)} (${era.name}) it derives the transaction hash of Bor's state-sync receipt, which is left out of the root`;
    return { kind: 'needs_block_hash', expected };
  }
  const derived = borStateSyncTxHash(block.number!, block.hash, options);
  const index = txHashes.findIndex((hash) => hash !== undefined && bytesEqual(hash, derived));
  if (index === -1) return { kind: 'none' };
  const last = txHashes.length - 1;
  if (index !== last) {
    return {
      kind: 'misplaced',
      index,
      expected: `Bor's state-sync receipt after every transaction of the block, at index ${last}; its transaction hash is on index ${index}`,
    };
  }
  const reason = `Bor's state-sync receipt: in ${describeSpan(era)} (${era.name}) it is in neither the receipts root nor the logs bloom.`;
  return { kind: 'excluded', excluded: { index, txHash: derived, reason } };
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
