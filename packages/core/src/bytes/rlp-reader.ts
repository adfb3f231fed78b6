/**
 * Canonical RLP read in place: where each item's payload lies in the bytes, with no copy. It exists
 * for speed: @ethereumjs/rlp's `decode` copies every list's payload, then every item of it again at
 * each level of nesting, which was half the time of verifying a receipt proof. It refuses what that
 * decoder refuses (a single byte below 0x80 given a prefix, a long form for a length under 56, a
 * length with leading zeros, an item past the end of its list), so a proof or receipt reads the same
 * way through either; test/rlp-reader.property.test.ts holds it to that. It also refuses lists nested
 * deeper than {@link MAX_RLP_DEPTH}, where that decoder (which recurses) overflows the stack.
 */
import { RlpShapeError } from '../errors.js';

/** One item: whether it is a list, and its payload, `start` to `end` (where the item ends too). */
export interface RlpItem {
  list: boolean;
  start: number;
  end: number;
}

/**
 * A length read from an RLP prefix, for a message: up to 8 bytes of it make numbers past 2^53, which a double holds
 * only roughly (no input is that long).
 */
export const rlpLengthText = (length: number): string =>
  length > Number.MAX_SAFE_INTEGER ? 'over 2^53' : String(length);

/** How many bytes are left after an item's header, for a message: `1 is left`, `0 are left`. */
const leftText = (left: number): string => `${left} ${left === 1 ? 'is' : 'are'} left`;

/** A fresh item to read into, so that a loop over many items allocates none. */
export const rlpItem = (): RlpItem => ({ list: false, start: 0, end: 0 });

/** The big-endian length of `count` bytes at `at`, refusing leading zeros, as canonical RLP must. */
function longLength(bytes: Uint8Array, at: number, count: number, limit: number): number {
  if (at + count > limit)
    throw new RlpShapeError(
      `the item at byte ${at - 1} runs past the end: its length takes ${count} bytes, and ${leftText(limit - at)}`,
    );
  if (bytes[at] === 0) throw new RlpShapeError(`the length at byte ${at} has leading zeros`);
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[at + i]!;
  if (length < 56) throw new RlpShapeError(`the long form at byte ${at - 1} holds ${length} bytes, under 56`);
  return length;
}

/**
 * Reads the header of the item at `at` (which must be below `limit`) into `item`; its payload must
 * end by `limit`, the end of the list or bytes that hold it. Nested items are not read: see
 * {@link checkRlpList}.
 *
 * @throws RlpShapeError when the header is not canonical RLP or the payload runs past `limit`.
 */
export function readRlpItem(bytes: Uint8Array, at: number, limit: number, item: RlpItem): void {
  const first = bytes[at]!;
  let start: number;
  let length: number;
  if (first < 0x80) {
    item.list = false;
    item.start = at;
    item.end = at + 1;
    return;
  } else if (first < 0xb8) {
    start = at + 1;
    length = first - 0x80;
    if (length === 1 && start < limit && bytes[start]! < 0x80)
      throw new RlpShapeError(`the byte at ${start} is below 0x80 and has a prefix`);
  } else if (first < 0xc0) {
    length = longLength(bytes, at + 1, first - 0xb7, limit);
    start = at + 1 + (first - 0xb7);
  } else if (first < 0xf8) {
    start = at + 1;
    length = first - 0xc0;
  } else {
    length = longLength(bytes, at + 1, first - 0xf7, limit);
    start = at + 1 + (first - 0xf7);
  }
  if (start + length > limit)
    throw new RlpShapeError(
      `the item at byte ${at} runs past the end: it holds ${rlpLengthText(length)} bytes, and ${leftText(Math.max(0, limit - start))}`,
    );
  item.list = first >= 0xc0;
  item.start = start;
  item.end = start + length;
}

/**
 * How deep lists may nest, the outermost list being level 1. Nothing the library reads nests deeper:
 * a receipt is 4 levels (body, logs, log, topics) and a trie node at most 32, since a node embedded
 * in its parent is under 32 bytes and each list inside it costs a header byte. The bound keeps the
 * check's recursion far from the stack's limit, so bytes nested thousands deep are refused by name.
 */
export const MAX_RLP_DEPTH = 32;

/**
 * Checks every item inside the list payload `start` to `end`, nested lists included, as
 * {@link readRlpItem} does. `depth` is the level of the list that holds the payload.
 *
 * @throws RlpShapeError at the first item that is not canonical RLP, or a list nested deeper than {@link MAX_RLP_DEPTH}.
 */
export function checkRlpList(bytes: Uint8Array, start: number, end: number, depth = 1): void {
  const item = rlpItem();
  for (let at = start; at < end; at = item.end) {
    readRlpItem(bytes, at, end, item);
    if (!item.list) continue;
    if (depth >= MAX_RLP_DEPTH)
      throw new RlpShapeError(`the list at byte ${at} nests deeper than ${MAX_RLP_DEPTH} levels`);
    checkRlpList(bytes, item.start, item.end, depth + 1);
  }
}

/**
 * Reads `bytes` as exactly one item (nested items checked) into `item`.
 *
 * @throws RlpShapeError when they are empty, not canonical RLP, nest deeper than {@link MAX_RLP_DEPTH}, or hold more after the item.
 */
export function readRlp(bytes: Uint8Array, item: RlpItem): void {
  if (bytes.length === 0) throw new RlpShapeError('no bytes');
  readRlpItem(bytes, 0, bytes.length, item);
  if (item.end !== bytes.length) throw new RlpShapeError(`${bytes.length - item.end} bytes after the item`);
  if (item.list) checkRlpList(bytes, item.start, item.end);
}
