/**
 * Byte arguments held to their contract where a public function is entered, once a call (a list's items in one pass
 * there), never again in the loops below it: a hot path pays an `instanceof` an argument. Hex text in place of bytes is
 * the mistake this catches first: a string's characters are no bytes (hashed or compared as bytes, a bloom said
 * "certainly absent" of an address it held). The messages stay short: `verifyBlock`'s browser bundle carries them, and
 * docs/library.md states its size.
 */
import { kindOf } from '../json/show.js';

/** Bytes a hash is: a block hash, a receipts root, a beacon block root. */
export const HASH_BYTES = 32;

/** Whether `value` is bytes: a Uint8Array (a Node Buffer is one). */
export const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array;

/**
 * Whether `value` is bytes of `length` (one of `length`'s; any length when absent): what {@link checkBytes} holds, for a
 * loop that names an item only when it fails (`logs[3].address`), so that it builds no name for every item that holds.
 */
export const isBytesOf = (value: unknown, length?: number | readonly number[]): value is Uint8Array =>
  isBytes(value) &&
  (length === undefined || length === value.length || (typeof length !== 'number' && length.includes(value.length)));

/**
 * Holds argument `name` to bytes, of `length` bytes (or one of `length`'s) where given.
 * @throws TypeError naming it and what it must be when it is not a Uint8Array (a hex string among others); RangeError
 * naming it when its length is another.
 * @example
 * checkBytes('0xdac17f…', 'item', [20, 32]) // TypeError: item must be a Uint8Array of 20 or 32 bytes, got a string
 * checkBytes(new Uint8Array(31), 'root', 32) // RangeError: root must be 32 bytes, got 31
 */
export function checkBytes(
  value: unknown,
  name: string,
  length?: number | readonly number[],
): asserts value is Uint8Array {
  if (isBytesOf(value, length)) return;
  const sizes = [length].flat().join(' or '); // "32", "20 or 32"
  if (!isBytes(value))
    throw new TypeError(
      `${name} must be a Uint8Array${length === undefined ? '' : ` of ${sizes} bytes`}, got ${kindOf(value)}`,
    );
  throw new RangeError(`${name} must be ${sizes} bytes, got ${value.length}`);
}

/**
 * Holds argument `name` to a list of bytes, each of `length` bytes where given, naming the first that is not
 * (`proof[2]`).
 * @throws TypeError when the list is not an array or an item is not a Uint8Array; RangeError for an item's length.
 * @example checkBytesList([node, '0xf851…'], 'proof') // TypeError: proof[1] must be a Uint8Array, got a string
 */
export function checkBytesList(
  value: unknown,
  name: string,
  length?: number | readonly number[],
): asserts value is readonly Uint8Array[] {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of Uint8Arrays, got ${kindOf(value)}`);
  for (let i = 0; i < value.length; i++)
    if (!isBytesOf(value[i], length)) checkBytes(value[i], `${name}[${i}]`, length);
}
