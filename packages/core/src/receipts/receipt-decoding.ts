import { decode, type NestedUint8Array } from '@ethereumjs/rlp';
import { bytesEqual } from '../bytes/hex.js';
import { InvalidReceiptError } from '../errors.js';
import { BLOOM_BYTES } from '../bloom/bloom.js';
import { encodeReceipt, receiptLayout, type EncodeReceiptOptions } from './receipt-encoding.js';
import { RULE_SETS } from './rules.js';
import type { Log, Receipt } from './receipt.js';

type Item = Uint8Array | NestedUint8Array;

const invalid = (field: string, expected: string, got: string) =>
  new InvalidReceiptError(`Receipt ${field}: expected ${expected}, got ${got}.`, { field, expected });

function bytesItem(item: Item | undefined, field: string, size?: number): Uint8Array {
  if (!(item instanceof Uint8Array)) throw invalid(field, 'a byte string', item === undefined ? 'nothing' : 'a list');
  if (size !== undefined && item.length !== size) throw invalid(field, `${size} bytes`, `${item.length}`);
  return item;
}

function listItem(item: Item | undefined, field: string): Item[] {
  if (!Array.isArray(item)) throw invalid(field, 'a list', item === undefined ? 'nothing' : 'a byte string');
  return item;
}

function quantity(item: Item | undefined, field: string): bigint {
  let value = 0n;
  for (const byte of bytesItem(item, field)) value = (value << 8n) | BigInt(byte);
  return value;
}

function decodeLog(item: Item, i: number): Log {
  const fields = listItem(item, `logs[${i}]`);
  if (fields.length !== 3) throw invalid(`logs[${i}]`, '3 items (address, topics, data)', `${fields.length}`);
  return {
    address: bytesItem(fields[0], `logs[${i}].address`, 20),
    topics: listItem(fields[1], `logs[${i}].topics`).map((t, j) => bytesItem(t, `logs[${i}].topics[${j}]`, 32)),
    data: bytesItem(fields[2], `logs[${i}].data`),
  };
}

/**
 * Reads a receipt's consensus encoding back into a {@link Receipt}, under a rule set (Ethereum's
 * when absent) that says which type bytes exist and how each is laid out. The receipt must encode
 * back to exactly these bytes, so the bloom is its logs' and every integer is canonical. An
 * untyped encoding reads as type 0 (Arbitrum's 0x78 is hashed untyped, so it reads back as 0).
 *
 * @throws InvalidReceiptError when the bytes are no receipt, UnknownReceiptTypeError for a type the rules do not know.
 * @example
 * decodeReceipt(encodeReceipt(receipt)) // a receipt equal to `receipt`
 */
export function decodeReceipt(encoded: Uint8Array, options: EncodeReceiptOptions = {}): Receipt {
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
  let body: Item;
  try {
    body = decode(typed ? encoded.subarray(1) : encoded);
  } catch (error) {
    throw invalid('encoding', 'RLP', `bytes that do not decode (${(error as Error).message})`);
  }
  const fields = listItem(body, 'body');
  const withDeposit = layout === 'op-deposit' && fields.length === 6;
  if (fields.length !== 4 && !withDeposit)
    throw invalid('body', layout === 'op-deposit' ? '4 or 6 items' : '4 items', `${fields.length}`);
  const outcome = bytesItem(fields[0], 'status');
  const receipt: Receipt = {
    type,
    ...(outcome.length === 32
      ? { root: outcome }
      : { status: outcome.length === 0 ? 0 : outcome.length === 1 && outcome[0] === 1 ? 1 : invalidStatus(outcome) }),
    cumulativeGasUsed: quantity(fields[1], 'cumulativeGasUsed'),
    logs: [],
  };
  const logsBloom = bytesItem(fields[2], 'logsBloom', BLOOM_BYTES);
  receipt.logs = listItem(fields[3], 'logs').map(decodeLog);
  if (withDeposit) {
    receipt.depositNonce = quantity(fields[4], 'depositNonce');
    receipt.depositReceiptVersion = quantity(fields[5], 'depositReceiptVersion');
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
