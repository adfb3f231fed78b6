/**
 * A member that repeats a value the input already gives (a header's hash in each receipt, `extraData` in Arbitrum's
 * `sendRoot`): it must say the same, else it is a `conflict` named at its path, saying what it repeats. The common case,
 * a member written as a node writes it, is told by string compares, without a path or a value built.
 */
import { hexText, sameHex } from '../../bytes/hex.js';
import { readHex, readQuantity } from '../values/json-values.js';
import type { Problems } from '../values/problems.js';

const isAbsent = (value: unknown) => value === undefined || value === null;

const HEX_DIGITS = '0123456789abcdef';

/**
 * Whether `value` is `n` as a node writes it (`0x`, lower-case digits, no leading zero) or as a JSON number: the common
 * case, told without reading it. Any other spelling is read by readQuantity, the one reader of quantities.
 */
function isPlainQuantity(value: unknown, n: number): boolean {
  if (typeof value === 'number') return value === n;
  return typeof value === 'string' && plainQuantityText(value, 0, value.length, n);
}

/**
 * Whether the characters of `text` from `start` to `end` spell `n` as a node writes a quantity (`0x`, lower-case
 * digits, no leading zero): {@link isPlainQuantity} of a string, also of one left on a scanner's tape.
 */
export function plainQuantityText(text: string, start: number, end: number, n: number): boolean {
  if (end - start < 3 || text.charCodeAt(start) !== 48 || text.charCodeAt(start + 1) !== 120) return false;
  let rest = n;
  for (let i = end - 1; i >= start + 2; i--) {
    if (text.charCodeAt(i) !== HEX_DIGITS.charCodeAt(rest % 16)) return false;
    rest = Math.floor(rest / 16);
  }
  return rest === 0 && (end - start === 3 || text.charCodeAt(start + 2) !== 48);
}

/** A quantity of the block, and the number the common case compares with (-1, never matched, beyond 2^53-1). */
export interface Quantity {
  value: bigint;
  plain: number;
}

/** `value` as a {@link Quantity}; undefined when there is none. */
export const quantity = (value: bigint | number | undefined): Quantity | undefined =>
  value === undefined
    ? undefined
    : { value: BigInt(value), plain: value <= Number.MAX_SAFE_INTEGER ? Number(value) : -1 };

/** A value members repeat: a hash (as its source gave it, already read) or a quantity, and what it is. */
export interface Repeated<T> {
  of: T;
  what: string;
}

/** What members repeat, `of`, and how a message names it, `what`; undefined when there is nothing to repeat. */
export const repeated = <T>(of: T | undefined, what: string): Repeated<T> | undefined =>
  of === undefined ? undefined : { of, what };

/** Whether `given` is absent or the hash `expected` repeats, spelled as its source spelled it: no need to read it. */
export const plainHash = (given: unknown, expected: Repeated<string> | undefined) =>
  isAbsent(given) || given === expected?.of;

/** Whether `given` is absent or `expected` as a node writes it (see isPlainQuantity): no need to read it. */
export const plainQuantity = (given: unknown, expected: number) => isAbsent(given) || isPlainQuantity(given, expected);

/** `given`, the hash at `path`, must be a 32-byte hash that says what it repeats. */
export function compareHash(
  given: unknown,
  path: string,
  expected: Repeated<string> | undefined,
  problems: Problems,
): void {
  if (expected === undefined || plainHash(given, expected)) return;
  if (readHex(given, path, problems, 32) !== undefined && !sameHex(given, expected.of))
    problems.add(
      path,
      'conflict',
      `0x${hexText(expected.of)}, ${expected.what}, which it repeats, got ${given as string}`,
    );
}

/**
 * `given`, the quantity at `path`, must say what it repeats; a value `saysNothing` holds (a `chainId` of 0) repeats
 * nothing and is not compared.
 */
export function compareQuantity(
  given: unknown,
  path: string,
  expected: Repeated<Quantity> | undefined,
  problems: Problems,
  saysNothing?: (value: bigint) => boolean,
): void {
  if (expected === undefined || plainQuantity(given, expected.of.plain)) return;
  const read = readQuantity(given, path, problems);
  if (read !== undefined && read !== expected.of.value && saysNothing?.(read) !== true)
    problems.add(path, 'conflict', `${expected.of.value}, ${expected.what}, which it repeats, got ${read}`);
}
