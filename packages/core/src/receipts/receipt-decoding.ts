import { bytesEqual } from '../bytes/hex.js';
import { readRlp, readRlpItem, rlpItem, type RlpItem } from '../bytes/rlp-reader.js';
import { InvalidReceiptError } from '../errors.js';
import { BLOOM_BYTES } from '../bloom/bloom.js';
import { encodeReceipt, receiptLayout, type EncodeReceiptOptions } from './receipt-encoding.js';
import { checkRuleSet, RULE_SETS } from './rules.js';
import { checkBytes } from '../bytes/check-bytes.js';
import type { Log, Receipt } from './receipt.js';

const invalid = (field: string, expected: string, got: string) =>
  new InvalidReceiptError(`Receipt ${field}: expected ${expected}, got ${got}.`, { field, expected });

/**
 * The fields of one encoding, read in place (src/bytes/rlp-reader.ts, checked as RLP first): each
 * byte string is copied out once, where @ethereumjs/rlp copied every list at each level.
 */
class Fields {
  constructor(readonly bytes: Uint8Array) {}

  /** The items of the list `item`, after a check that it is one. */
  list(item: RlpItem | undefined, field: string): RlpItem[] {
    if (item === undefined || !item.list)
      throw invalid(field, 'a list', item === undefined ? 'nothing' : 'a byte string');
    const items: RlpItem[] = [];
    for (let at = item.start; at < item.end;) {
      const next = rlpItem();
      readRlpItem(this.bytes, at, item.end, next);
      items.push(next);
      at = next.end;
    }
    return items;
  }

  /** The byte string `item` (of `size` bytes when given), copied out. */
  string(item: RlpItem | undefined, field: string, size?: number): Uint8Array {
    if (item === undefined || item.list)
      throw invalid(field, 'a byte string', item === undefined ? 'nothing' : 'a list');
    const length = item.end - item.start;
    if (size !== undefined && length !== size) throw invalid(field, `${size} bytes`, `${length}`);
    return this.bytes.slice(item.start, item.end);
  }

  /** The unsigned integer `item` (its encoding is held canonical by the check that the receipt encodes back). */
  quantity(item: RlpItem | undefined, field: string): bigint {
    if (item === undefined || item.list)
      throw invalid(field, 'a byte string', item === undefined ? 'nothing' : 'a list');
    let value = 0n;
    for (let at = item.start; at < item.end; at++) value = (value << 8n) | BigInt(this.bytes[at]!);
    return value;
  }

  /** Log `i` of the receipt: [address, topics, data]. */
  log(item: RlpItem, i: number): Log {
    const fields = this.list(item, `logs[${i}]`);
    if (fields.length !== 3) throw invalid(`logs[${i}]`, '3 items (address, topics, data)', `${fields.length}`);
    return {
      address: this.string(fields[0], `logs[${i}].address`, 20),
      topics: this.list(fields[1], `logs[${i}].topics`).map((t, j) => this.string(t, `logs[${i}].topics[${j}]`, 32)),
      data: this.string(fields[2], `logs[${i}].data`),
    };
  }
}

/**
 * Reads a receipt's consensus encoding back into a {@link Receipt}, under a rule set (Ethereum's
 * when absent) that says which type bytes exist and how each is laid out. The receipt must encode
 * back to exactly these bytes, so the bloom is its logs' and every integer is canonical. An
 * untyped encoding reads as type 0 (Arbitrum's 0x78 is hashed untyped, so it reads back as 0).
 *
 * @throws TypeError naming `encoded` when it is not a Uint8Array (hex text among others), or `options.rules` when it
 * is not a rule set object; InvalidReceiptError when the bytes are no receipt, UnknownReceiptTypeError for a type the
 * rules do not know.
 * @example
 * decodeReceipt(encodeReceipt(receipt)) // a receipt equal to `receipt`
 */
export function decodeReceipt(encoded: Uint8Array, options: EncodeReceiptOptions = {}): Receipt {
  // Held here, where the library's user enters, not in decodeReceiptWithBloom, which a range's check calls per receipt.
  checkBytes(encoded, 'encoded');
  if (options.rules !== undefined) checkRuleSet(options.rules, 'options.rules');
  return decodeReceiptWithBloom(encoded, options).receipt;
}

/**
 * {@link decodeReceipt}, with the receipt's bloom as its encoding holds it (shown to be its logs'):
 * a block's bloom is then the OR of these, with no item hashed again.
 *
 * @throws as {@link decodeReceipt}.
 */
export function decodeReceiptWithBloom(
  encoded: Uint8Array,
  options: EncodeReceiptOptions = {},
): { receipt: Receipt; logsBloom: Uint8Array } {
  const rules = options.rules ?? RULE_SETS.ethereum;
  if (encoded.length === 0) throw invalid('encoding', 'a receipt', 'no bytes');
  // EIP-2718: a type byte is 0x00-0x7f; an untyped receipt starts with its list header (0xc0 and up).
  const typed = encoded[0]! < 0x80;
  const type = typed ? encoded[0]! : 0;
  const layout = receiptLayout({ type, cumulativeGasUsed: 0n, logs: [] }, rules);
  if (typed && layout === 'untyped') throw invalid('type', 'a type hashed with its type byte', `${type}`);
  const inner = typed ? encoded.subarray(1) : encoded;
  const body = rlpItem();
  try {
    readRlp(inner, body);
  } catch (error) {
    throw invalid('encoding', 'RLP', `bytes that do not decode (${(error as Error).message})`);
  }
  const read = new Fields(inner);
  const fields = read.list(body, 'body');
  const withDeposit = layout === 'op-deposit' && fields.length === 6;
  if (fields.length !== 4 && !withDeposit)
    throw invalid('body', layout === 'op-deposit' ? '4 or 6 items' : '4 items', `${fields.length}`);
  const outcome = read.string(fields[0], 'status');
  const receipt: Receipt = {
    type,
    ...(outcome.length === 32
      ? { root: outcome }
      : { status: outcome.length === 0 ? 0 : outcome.length === 1 && outcome[0] === 1 ? 1 : invalidStatus(outcome) }),
    cumulativeGasUsed: read.quantity(fields[1], 'cumulativeGasUsed'),
    logs: [],
  };
  const logsBloom = read.string(fields[2], 'logsBloom', BLOOM_BYTES);
  receipt.logs = read.list(fields[3], 'logs').map((log, i) => read.log(log, i));
  if (withDeposit) {
    receipt.depositNonce = read.quantity(fields[4], 'depositNonce');
    receipt.depositReceiptVersion = read.quantity(fields[5], 'depositReceiptVersion');
  }
  if (!bytesEqual(encodeReceipt(receipt, options), encoded))
    throw invalid(
      'encoding',
      'the canonical encoding of its fields',
      'other bytes (a bloom not its logs’, or an integer with leading zeros)',
    );
  return { receipt, logsBloom };
}

function invalidStatus(outcome: Uint8Array): never {
  throw invalid('status', 'empty (0), 0x01 (1) or a 32-byte post-state root', `${outcome.length} bytes`);
}
