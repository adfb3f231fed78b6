/**
 * The hashes a range audit is given to hold its blocks to (`anchor`, `anchors`), held to their contract where the audit
 * is made. The audit compares them with the blocks' hashes as text: a hash in another form than the blocks' (no `0x`,
 * bytes) would fail a block that is right, and an anchor keyed by no block of the range would hold none, the caller
 * never told.
 */
import { kindOf, show } from '../json/show.js';

const HASH = /^(?:0[xX])?([0-9a-fA-F]{64})$/;

/**
 * A block hash given as text, with or without `0x` and in any case, as the audit compares it: `0x` and 64 lower-case hex
 * digits.
 * @throws TypeError naming `name` when it is not a string (bytes among others); RangeError when it is not 32 bytes of hex.
 * @example auditHash('3F…', 'anchor') // '0x3f…'
 */
export function auditHash(value: unknown, name: string): string {
  if (typeof value !== 'string')
    throw new TypeError(
      `${name} must be a block hash as hex text (64 hex digits, with or without 0x), got ${kindOf(value)}`,
    );
  const digits = HASH.exec(value)?.[1];
  if (digits === undefined)
    throw new RangeError(`${name} must be a block hash (64 hex digits, with or without 0x), got ${show(value, 80)}`);
  return `0x${digits.toLowerCase()}`;
}

/**
 * The anchors of blocks `from` to `to`, each hash as {@link auditHash} reads it.
 * @throws TypeError when `anchors` is not a Map, or a key is not a number (`'1000030'` among others); RangeError naming
 * a key that is no block of the range, or the hash of one ({@link auditHash}).
 */
export function auditAnchors(anchors: unknown, from: number, to: number): Map<number, string> {
  if (!(anchors instanceof Map))
    throw new TypeError(`anchors must be a Map of block numbers to their hashes, got ${kindOf(anchors)}`);
  const read = new Map<number, string>();
  for (const [block, hash] of anchors as Map<unknown, unknown>) {
    if (typeof block !== 'number')
      throw new TypeError(
        `anchors must be keyed by block numbers (numbers), got the key ${show(block, 40)} (${kindOf(block)})`,
      );
    if (!Number.isSafeInteger(block) || block < from || block > to)
      throw new RangeError(`anchors: block ${block} is no block of the range ${from} to ${to}`);
    read.set(block, auditHash(hash, `anchors[${block}]`));
  }
  return read;
}
