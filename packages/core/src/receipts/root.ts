import { BLOOM_BYTES, BloomHasher } from '../bloom/bloom.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { LEAF_HEADROOM, orderedTrieRootInPlace } from '../trie/ordered-trie.js';
import { planReceipt, receiptLayout, writeReceipt, type EncodeReceiptOptions } from './receipt-encoding.js';
import { RULE_SETS } from './rules.js';
import type { Receipt } from './receipt.js';

/** What a block commits to about its receipts. */
export interface ReceiptsCommitment {
  /** Root of the trie keyed by rlp(index). */
  receiptsRoot: Uint8Array;
  /** Block bloom: OR of every receipt's bloom. */
  logsBloom: Uint8Array;
  /** Consensus encoding of each receipt, in order: views into one buffer shared by them all. */
  encodedReceipts: Uint8Array[];
}

/**
 * Receipts root and block bloom of a block's complete receipt list (position i is
 * transaction i). Each address and topic is hashed once for the whole block, and
 * feeds both its receipt's bloom and the block bloom.
 *
 * @throws UnknownReceiptTypeError for a type the rule set does not know.
 * @example
 * const { receiptsRoot, logsBloom } = receiptsCommitment(receipts, { rules: RULE_SETS.optimism })
 */
export function receiptsCommitment(
  receipts: readonly Receipt[],
  options: EncodeReceiptOptions = {},
): ReceiptsCommitment {
  const rules = options.rules ?? RULE_SETS.ethereum;
  const keccak = options.keccak ?? defaultKeccak256;
  const hasher = new BloomHasher(keccak);
  // The block bloom and the scratch bloom in 32-bit words too: OR-ing 64 words per receipt, not 256 bytes.
  const blockWords = new Int32Array(BLOOM_BYTES / 4);
  const block = new Uint8Array(blockWords.buffer);
  // Every encoding is written into one buffer, each with room in front for its trie leaf's
  // headers, so that the leaves are hashed where they lie: no buffer, no copy per receipt. Each
  // receipt is measured once to size the buffer and again to be written: a plan kept per receipt
  // survived to be marked by every full collection, which a million receipts made frequent.
  const plan = (receipt: Receipt) => planReceipt(receipt, receiptLayout(receipt, rules));
  let size = 0;
  for (let i = 0; i < receipts.length; i++) size += LEAF_HEADROOM + plan(receipts[i]!).size;
  const buffer = new Uint8Array(size);
  // One scratch bloom for every receipt: the encoding copies it, so none is allocated per receipt.
  const bloomWords = new Int32Array(BLOOM_BYTES / 4);
  const bloom = new Uint8Array(bloomWords.buffer);
  let offset = 0;
  const encodedReceipts = receipts.map((receipt) => {
    bloom.fill(0);
    for (const log of receipt.logs) hasher.addLog(bloom, log);
    for (let w = 0; w < blockWords.length; w++) blockWords[w]! |= bloomWords[w]!;
    const start = offset + LEAF_HEADROOM;
    offset = writeReceipt(buffer, start, receipt, plan(receipt), bloom);
    return buffer.subarray(start, offset);
  });
  return { receiptsRoot: orderedTrieRootInPlace(encodedReceipts, { keccak }), logsBloom: block, encodedReceipts };
}

/** Receipts root of a block's complete receipt list (position i is transaction i). */
export function receiptsRoot(receipts: readonly Receipt[], options: EncodeReceiptOptions = {}): Uint8Array {
  return receiptsCommitment(receipts, options).receiptsRoot;
}
