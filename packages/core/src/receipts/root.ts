import { BLOOM_BYTES, BloomHasher } from '../bloom/bloom.js';
import { defaultKeccak256, type Keccak256 } from '../keccak/keccak.js';
import { LEAF_HEADROOM, orderedTrieRootInPlace, orderedTrieRootOf } from '../trie/ordered-trie.js';
import {
  planReceipt,
  receiptLayout,
  writeReceipt,
  type EncodeReceiptOptions,
  type ReceiptPlan,
} from './receipt-encoding.js';
import { checkReceiptOptions, RULE_SETS, type RuleSet } from './rules.js';
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

/** The commitments' options: the rules and the Keccak, and who sees each receipt's bloom. */
export interface CommitmentOptions extends EncodeReceiptOptions {
  /**
   * Called with each receipt's index (in transaction order) and logs bloom as it is computed, to compare it with a
   * bloom the source gave: the bloom is a scratch buffer, reused for the next receipt.
   */
  onReceiptBloom?: (index: number, bloom: Uint8Array) => void;
}

/**
 * Writes receipts' encodings, each with its logs bloom, and ORs every bloom into the block's.
 * Each address and topic is hashed once for the whole block, and feeds both its receipt's bloom
 * and the block bloom.
 */
class ReceiptWriter {
  readonly #rules: RuleSet;
  readonly #hasher: BloomHasher;
  // The block bloom and the scratch bloom in 32-bit words too: OR-ing 64 words per receipt, not 256 bytes.
  readonly #blockWords = new Int32Array(BLOOM_BYTES / 4);
  readonly logsBloom = new Uint8Array(this.#blockWords.buffer);
  // One scratch bloom for every receipt: the encoding copies it, so none is allocated per receipt.
  readonly #bloomWords = new Int32Array(BLOOM_BYTES / 4);
  readonly #bloom = new Uint8Array(this.#bloomWords.buffer);
  /** Whether the scratch bloom holds a bit: the last receipt written had logs. */
  #bloomSet = false;

  readonly #onReceiptBloom: CommitmentOptions['onReceiptBloom'];

  constructor(options: CommitmentOptions, keccak: Keccak256) {
    this.#rules = options.rules ?? RULE_SETS.ethereum;
    this.#hasher = BloomHasher.borrow(keccak);
    this.#onReceiptBloom = options.onReceiptBloom;
  }

  /** Measures `receipt`'s encoding; throws for a receipt that has none. */
  plan(receipt: Receipt): ReceiptPlan {
    return planReceipt(receipt, receiptLayout(receipt, this.#rules));
  }

  /**
   * Writes receipt `index` as `plan` measured it into `out`, after LEAF_HEADROOM bytes from `offset` (its trie leaf's
   * room); its view.
   */
  write(index: number, receipt: Receipt, plan: ReceiptPlan, out: Uint8Array, offset: number): Uint8Array {
    const bloom = this.#bloom;
    const logs = receipt.logs;
    // A third of a modern block's receipts have no logs: their bloom is empty, cleared once and OR-ed into nothing.
    if (this.#bloomSet) bloom.fill(0);
    this.#bloomSet = logs.length > 0;
    for (let i = 0; i < logs.length; i++) this.#hasher.addLog(bloom, logs[i]!);
    this.#onReceiptBloom?.(index, bloom);
    if (this.#bloomSet) {
      const blockWords = this.#blockWords;
      const bloomWords = this.#bloomWords;
      for (let w = 0; w < blockWords.length; w++) blockWords[w]! |= bloomWords[w]!;
    }
    const start = offset + LEAF_HEADROOM;
    return out.subarray(start, writeReceipt(out, start, receipt, plan, bloom));
  }

  /** Ends the writing: the bloom's hasher goes to the next block's writer. */
  done(): void {
    this.#hasher.giveBack();
  }
}

/**
 * Receipts root and block bloom of a block's complete receipt list (position i is
 * transaction i), with each receipt's encoding.
 *
 * @throws UnknownReceiptTypeError for a type the rule set does not know; TypeError naming `options` (null, or a
 * rule set in its place: `{ rules: RULE_SETS.optimism }` is what to give), TypeError or RangeError naming `options.rules`
 * when it is not a rule set object (a rule set's name among others: `RULE_SETS.optimism`, not `'optimism'`).
 * @example
 * const { receiptsRoot, logsBloom } = receiptsCommitment(receipts, { rules: RULE_SETS.optimism })
 */
export function receiptsCommitment(receipts: readonly Receipt[], options: CommitmentOptions = {}): ReceiptsCommitment {
  checkReceiptOptions(options);
  const keccak = options.keccak ?? defaultKeccak256;
  const writer = new ReceiptWriter(options, keccak);
  // Every encoding is written into one buffer, each with room in front for its trie leaf's
  // headers, so that the leaves are hashed where they lie: no buffer, no copy per receipt.
  const plans = receipts.map((receipt) => writer.plan(receipt));
  const buffer = new Uint8Array(plans.reduce((size, plan) => size + LEAF_HEADROOM + plan.size, 0));
  let offset = 0;
  const encodedReceipts = receipts.map((receipt, i) => {
    const encoded = writer.write(i, receipt, plans[i]!, buffer, offset);
    offset = encoded.byteOffset + encoded.length;
    return encoded;
  });
  writer.done();
  return {
    receiptsRoot: orderedTrieRootInPlace(encodedReceipts, { keccak }),
    logsBloom: writer.logsBloom,
    encodedReceipts,
  };
}

/**
 * {@link receiptsCommitment} without the encodings, for a caller that needs only the root and the
 * bloom: each receipt is written into one scratch buffer when the trie takes its leaf, which is
 * hashed at once. Holding every encoding (700 bytes a receipt, most of it the bloom) made a million
 * receipts trigger a full collection of the caller's whole heap on its own.
 *
 * @throws UnknownReceiptTypeError for a type the rule set does not know; TypeError naming `options` (null, or a
 * rule set in its place: `{ rules: RULE_SETS.optimism }` is what to give), TypeError or RangeError naming `options.rules`
 * when it is not a rule set object (a rule set's name among others: `RULE_SETS.optimism`, not `'optimism'`).
 */
export function receiptsRootAndBloom(
  receipts: readonly Receipt[],
  options: CommitmentOptions = {},
): Omit<ReceiptsCommitment, 'encodedReceipts'> {
  return receiptsRootAndBloomOf(receipts.length, (i) => receipts[i]!, options);
}

/**
 * {@link receiptsRootAndBloom} of `count` receipts given one at a time: `receiptAt(i)` is asked for each once, when
 * the trie takes its leaf, so that the caller need not hold them all decoded.
 *
 * @throws UnknownReceiptTypeError for a type the rule set does not know; TypeError naming `options` (null, or a
 * rule set in its place: `{ rules: RULE_SETS.optimism }` is what to give), TypeError or RangeError naming `options.rules`
 * when it is not a rule set object (a rule set's name among others: `RULE_SETS.optimism`, not `'optimism'`).
 */
export function receiptsRootAndBloomOf(
  count: number,
  receiptAt: (index: number) => Receipt,
  options: CommitmentOptions = {},
): Omit<ReceiptsCommitment, 'encodedReceipts'> {
  checkReceiptOptions(options);
  const keccak = options.keccak ?? defaultKeccak256;
  const writer = new ReceiptWriter(options, keccak);
  // Each receipt is measured and written when the trie asks for it (in its keys' order: 1..127, 0,
  // 128 and up), so a receipt without an encoding throws when the trie reaches it, not first in index
  // order (verifying a block checks every type before). Into two buffers in turn, each grown to the
  // largest it held: the trie holds two at once, sibling leaves it hashes together (orderedTrieRootOf).
  const scratch = [new Uint8Array(0), new Uint8Array(0)];
  let asked = 0;
  const receiptsRoot = orderedTrieRootOf(
    count,
    (i) => {
      const receipt = receiptAt(i);
      const plan = writer.plan(receipt);
      const size = LEAF_HEADROOM + plan.size;
      const turn = asked++ & 1;
      if (scratch[turn]!.length < size) scratch[turn] = new Uint8Array(Math.max(size, 2 * scratch[turn]!.length));
      return writer.write(i, receipt, plan, scratch[turn]!, 0);
    },
    { keccak },
  );
  writer.done();
  return { receiptsRoot, logsBloom: writer.logsBloom };
}

/** Receipts root of a block's complete receipt list (position i is transaction i). */
export function receiptsRoot(receipts: readonly Receipt[], options: EncodeReceiptOptions = {}): Uint8Array {
  return receiptsCommitment(receipts, options).receiptsRoot;
}
