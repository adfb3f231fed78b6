import {
  listLength,
  quantityLength,
  quantityStringLength,
  stringLength,
  writeListHeader,
  writeQuantityString,
  writeString,
} from '../bytes/rlp-writer.js';
import { InvalidReceiptError, UnknownReceiptTypeError } from '../errors.js';
import { kindOf } from '../json/show.js';
import { bloomOfLogs, BLOOM_BYTES } from '../bloom/bloom.js';
import type { HashOptions } from '../keccak/keccak.js';
import {
  checkReceiptOptions,
  describeRuleSet,
  describeTypes,
  RULE_SETS,
  type ReceiptLayout,
  type RuleSet,
} from './rules.js';
import type { Log, Receipt } from './receipt.js';

const STATUS_SUCCESS = Uint8Array.of(1);
const STATUS_FAILURE = new Uint8Array(0);

/** The layout of `receipt` under `rules`, or a typed error for a type the chain does not know. */
export function receiptLayout(receipt: Receipt, rules: RuleSet): ReceiptLayout {
  const layout = rules.layouts.get(receipt.type);
  if (layout === undefined) {
    const known = describeTypes(rules);
    throw new UnknownReceiptTypeError(
      `Receipt type ${receipt.type} is not known to ${describeRuleSet(rules)} (known: ${known}).`,
      {
        type: receipt.type,
        rules: rules.name,
        known,
      },
    );
  }
  return layout;
}

/** First field of the receipt body: the pre-Byzantium state root, or the EIP-658 status (0 is the empty string). */
function outcomeBytes(receipt: Receipt): Uint8Array {
  if (receipt.root !== undefined) {
    if (receipt.status !== undefined) {
      throw new InvalidReceiptError('A receipt has either a status or a post-state root, not both.', {
        field: 'status',
        expected: 'exactly one of status and root',
      });
    }
    if (receipt.root.length !== 32) {
      throw new InvalidReceiptError(`A post-state root is 32 bytes, got ${receipt.root.length}.`, {
        field: 'root',
        expected: '32 bytes',
      });
    }
    return receipt.root;
  }
  if (receipt.status === 1) return STATUS_SUCCESS;
  if (receipt.status === 0) return STATUS_FAILURE;
  throw new InvalidReceiptError('A receipt needs a status (0 or 1) or a post-state root.', {
    field: 'status',
    expected: '0 or 1, or a 32-byte root',
  });
}

/** The most topics a log has: the EVM's LOG0 to LOG4. */
const MAX_TOPICS = 4;

/**
 * A quantity field as the bigint the encoding writes: a bigint, or a JavaScript caller's safe integer (exact, so taken
 * as its value). Anything else is refused, naming the field: a fraction, a number past 2^53-1, a string or null had been
 * encoded by a guess (1.5 as 1, null as a zero byte) or thrown as a bare TypeError; and so is a negative value.
 */
function quantityOf(field: string, value: bigint): bigint {
  const quantity = typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (quantity === undefined)
    throw new InvalidReceiptError(
      `Receipt ${field}: expected a non-negative quantity (a bigint), got ${kindOf(value)}.`,
      { field, expected: 'a non-negative quantity (a bigint)' },
    );
  if (quantity < 0n)
    throw new InvalidReceiptError(`Receipt ${field}: expected a non-negative quantity, got ${value}.`, {
      field,
      expected: 'a non-negative quantity',
    });
  return quantity;
}

/** A quantity field (see {@link quantityOf}), with the length of its bytes. */
interface Quantity {
  value: bigint;
  length: number;
}

/** A deposit's nonce or version as the encoding writes it (see {@link quantityOf}). */
function depositQuantity(field: string, value: bigint): Quantity {
  const quantity = quantityOf(field, value);
  return { value: quantity, length: quantityLength(quantity) };
}

/** Payload bytes of `rlp([address, topics, data])`: cheap enough to compute in each pass rather than keep. */
function logPayload(log: Log): number {
  return 21 + listLength(33 * log.topics.length) + stringLength(log.data);
}

/** A receipt's encoding measured before it is written: the fields computed once, the list payloads, the size. */
export interface ReceiptPlan {
  typed: boolean;
  outcome: Uint8Array;
  /** The cumulative gas and the length of its bytes (not an object of its own: a plan is made for every receipt). */
  gas: bigint;
  gasLength: number;
  /** The deposit nonce and version, when they are hashed. */
  deposit: { nonce: Quantity; version: Quantity } | undefined;
  logsPayload: number;
  payload: number;
  /** Bytes of the whole encoding. */
  size: number;
}

/**
 * Measures the consensus encoding of `receipt`, so that it can be written straight into a
 * buffer shared with others (see receiptsCommitment). Throws for a receipt that has no encoding.
 */
export function planReceipt(receipt: Receipt, layout: ReceiptLayout): ReceiptPlan {
  const outcome = outcomeBytes(receipt);
  // The gas's bytes are written straight from its value (writeReceipt): no array is made for them.
  const gas = quantityOf('cumulativeGasUsed', receipt.cumulativeGasUsed);
  const gasLength = quantityLength(gas);
  const deposit =
    layout === 'op-deposit' && receipt.depositReceiptVersion !== undefined
      ? {
          nonce: depositQuantity('depositNonce', receipt.depositNonce ?? 0n),
          version: depositQuantity('depositReceiptVersion', receipt.depositReceiptVersion),
        }
      : undefined;
  const logs = receipt.logs;
  let logsPayload = 0;
  for (let i = 0; i < logs.length; i++) {
    const topics = logs[i]!.topics.length;
    if (topics > MAX_TOPICS)
      throw new InvalidReceiptError(`logs[${i}].topics: expected at most ${MAX_TOPICS} topics, got ${topics}.`, {
        field: `logs[${i}].topics`,
        expected: `at most ${MAX_TOPICS} topics (LOG0 to LOG4)`,
      });
    logsPayload += listLength(logPayload(logs[i]!));
  }
  let payload =
    stringLength(outcome) + quantityStringLength(gas, gasLength) + 3 + BLOOM_BYTES + listLength(logsPayload);
  if (deposit !== undefined)
    payload +=
      quantityStringLength(deposit.nonce.value, deposit.nonce.length) +
      quantityStringLength(deposit.version.value, deposit.version.length);
  const typed = layout !== 'untyped';
  return { typed, outcome, gas, gasLength, deposit, logsPayload, payload, size: (typed ? 1 : 0) + listLength(payload) };
}

/**
 * Writes the encoding that `plan` measured, given the receipt's logs bloom, into `out` at
 * `offset` (`plan.size` bytes); returns the offset after it.
 */
export function writeReceipt(
  out: Uint8Array,
  offset: number,
  receipt: Receipt,
  plan: ReceiptPlan,
  bloom: Uint8Array,
): number {
  let o = offset;
  if (plan.typed) out[o++] = receipt.type;
  o = writeListHeader(out, o, plan.payload);
  o = writeString(out, o, plan.outcome);
  o = writeQuantityString(out, o, plan.gas, plan.gasLength);
  o = writeString(out, o, bloom);
  o = writeListHeader(out, o, plan.logsPayload);
  const logs = receipt.logs;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    if (log.address.length !== 20) throw invalidLog(i, 'address', '20 bytes', log.address.length);
    o = writeListHeader(out, o, logPayload(log));
    out[o++] = 0x94;
    out.set(log.address, o);
    o += 20;
    o = writeListHeader(out, o, 33 * log.topics.length);
    for (const topic of log.topics) {
      if (topic.length !== 32) throw invalidLog(i, 'topics', '32 bytes each', topic.length);
      out[o++] = 0xa0;
      out.set(topic, o);
      o += 32;
    }
    o = writeString(out, o, log.data);
  }
  if (plan.deposit !== undefined) {
    const { nonce, version } = plan.deposit;
    o = writeQuantityString(out, o, nonce.value, nonce.length);
    o = writeQuantityString(out, o, version.value, version.length);
  }
  return o;
}

/** The consensus encoding of one receipt given its logs bloom, in a buffer of its own. */
export function encodeReceiptWithBloom(receipt: Receipt, layout: ReceiptLayout, bloom: Uint8Array): Uint8Array {
  const plan = planReceipt(receipt, layout);
  const out = new Uint8Array(plan.size);
  writeReceipt(out, 0, receipt, plan, bloom);
  return out;
}

function invalidLog(index: number, field: string, expected: string, got: number): InvalidReceiptError {
  return new InvalidReceiptError(`logs[${index}].${field}: expected ${expected}, got ${got} bytes.`, {
    field: `logs[${index}].${field}`,
    expected,
  });
}

export interface EncodeReceiptOptions extends HashOptions {
  /** Rule set of the receipt's chain; Ethereum's when absent. */
  rules?: RuleSet;
}

/**
 * Consensus encoding of a receipt: `rlp([...])` for legacy receipts,
 * `type || rlp([...])` for typed ones, as hashed into the receipts trie.
 *
 * @throws TypeError naming `options` when it is null or a rule set in its place; TypeError or RangeError naming
 * `options.rules` when it is not a rule set object (`RULE_SETS.optimism`, not
 * `'optimism'`).
 * @example
 * encodeReceipt({ type: 2, status: 1, cumulativeGasUsed: 21000n, logs: [] })
 * // Uint8Array [0x02, 0xf9, 0x01, 0x09, 0x01, 0x82, 0x52, 0x08, 0xb9, 0x01, 0x00, …]
 */
export function encodeReceipt(receipt: Receipt, options: EncodeReceiptOptions = {}): Uint8Array {
  checkReceiptOptions(options);
  const layout = receiptLayout(receipt, options.rules ?? RULE_SETS.ethereum);
  return encodeReceiptWithBloom(receipt, layout, bloomOfLogs(receipt.logs, options));
}
