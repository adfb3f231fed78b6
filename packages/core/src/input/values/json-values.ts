import { parseHex, strip0x } from '../../bytes/hex.js';
import { didYouMean, loose, spelledAnotherWay, spellingRefusal } from '../../json/member-names.js';
import type { Problems } from './problems.js';

/**
 * Readers for untrusted JSON fields. Each returns the value, or `undefined` after
 * recording exactly one problem at `path`, so a body yields all its problems at once.
 */

export type JsonObject = Record<string, unknown>;

/**
 * Whether a member of the service's answers claims anything: absent or null claims nothing (docs/lineage.md), so a
 * check of it is not listed, and whatever reads it reads it as not given. One rule, so that null and absent are never
 * judged two ways (a lineage's checks, a member spelled two ways).
 */
export const claims = (value: unknown): boolean => value !== undefined && value !== null;

/** Whether a value is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
export const MAX_UINT64 = (1n << 64n) - 1n;
/** The largest quantity a header field holds (a block number is read up to it, as any header quantity). */
export const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * Whether `value` is a JSON number beyond 2^53-1 (either sign): a JSON reader rounds it to the nearest double, so the
 * integer read may not be the one written, and no check can tell.
 */
export const isInexactNumber = (value: unknown): boolean => typeof value === 'number' && !(Math.abs(value) <= MAX_SAFE);
/** Why an integer beyond 2^53-1 must be sent as a string, in the words of every message that refuses such a number. */
export const INEXACT_NUMBER = 'JSON numbers above 2^53-1 lose precision';

/**
 * A number as a message quotes it. One beyond 2^53-1 is not the number written but the double it was rounded to
 * (9007199254740993 reads as 9007199254740992, 100000000000000000000000000001 as 1e+29), and its text is gone with
 * `JSON.parse`: the message says how far it is, never a value the client did not send.
 */
export const numberText = (value: number): string =>
  !isInexactNumber(value) ? String(value) : value > 0 ? 'a number beyond 2^53-1' : 'a number below -(2^53-1)';

/** A value as a message names it: its text when short, else its kind (`a string of 66 characters`, `an array`). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 24 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'object') return isJsonRpcResponse(value) ? jsonRpcResponseText(value) : 'an object';
  if (typeof value === 'function') return 'a function';
  // A number past 2^53-1 is named by how far it is (numberText), never by the double it was rounded to (Infinity).
  if (isInexactNumber(value)) return numberText(value as number);
  const primitive = value as number | boolean | bigint | symbol | undefined;
  return `${typeof value} ${String(primitive)}`;
}

/**
 * Whether `value` is a whole JSON-RPC response (`{jsonrpc, id, result}`) where what it answers was expected: a node's
 * answer saved as it came.
 */
export const isJsonRpcResponse = (value: object): boolean =>
  'jsonrpc' in value && ('result' in value || 'error' in value);

/**
 * A JSON-RPC response as a message names it: an error response with the node's message (quoted, at most 200
 * characters), else the response whose `result` was wanted.
 */
function jsonRpcResponseText(response: object): string {
  const { error } = response as { error?: unknown };
  if (error === undefined) return 'a JSON-RPC response (give its "result")';
  const message = isObject(error) && typeof error.message === 'string' ? error.message : undefined;
  if (message === undefined) return 'a JSON-RPC error response, not an answer';
  const shown = message.length > 200 ? `${message.slice(0, 200)}…` : message;
  return `a JSON-RPC error response (the node answered ${JSON.stringify(shown)}), not an answer`;
}

/** A missing value is reported as `missing` with what was expected; a wrong one also says what it was. */
function wrongValue(path: string, problems: Problems, value: unknown, what: string): undefined {
  if (value === undefined) problems.add(path, 'missing', what);
  else problems.add(path, 'invalid_format', `${what}, got ${describe(value)}`);
  return undefined;
}

/** The value when it is a JSON object; else a problem at `path` (`missing` when absent) and undefined. */
export function readObject(
  value: unknown,
  path: string,
  problems: Problems,
  what = 'an object',
): JsonObject | undefined {
  return isObject(value) ? value : wrongValue(path, problems, value, what);
}

/** The value when it is an array; else a problem at `path` (`missing` when absent) and undefined. */
export function readArray(value: unknown, path: string, problems: Problems, what: string): unknown[] | undefined {
  return Array.isArray(value) ? value : wrongValue(path, problems, value, what);
}

/** The value when it is a JSON string; else a problem at `path` (`missing` when absent) and undefined. */
export function readString(value: unknown, path: string, problems: Problems, what: string): string | undefined {
  return typeof value === 'string' ? value : wrongValue(path, problems, value, what);
}

/**
 * Hex with or without `0x`, in any case; `size` is the exact byte length when given.
 * @example readHex('0xABCD', 'data', problems) // Uint8Array [0xab, 0xcd]
 */
export function readHex(
  value: unknown,
  path: string,
  problems: Problems,
  size?: number,
  what?: string,
): Uint8Array | undefined {
  const bytes = typeof value === 'string' ? parseHex(value) : null;
  if (bytes !== null && (size === undefined || bytes.length === size)) return bytes;
  // The problem path: only now is the message worth building.
  const expected =
    what ?? (size === undefined ? 'even-length hex string' : `${size}-byte hex string (${size * 2} hex characters)`);
  if (value === undefined) {
    problems.add(path, 'missing', expected);
  } else if (typeof value !== 'string') {
    problems.add(path, 'invalid_format', `${expected}, got ${describe(value)}`);
  } else if (bytes === null) {
    const digits = strip0x(value);
    const why = /^[0-9a-fA-F]*$/.test(digits) ? `odd length (${digits.length} hex characters)` : 'non-hex characters';
    problems.add(path, 'invalid_format', `${expected}, got ${why}`);
  } else {
    problems.add(path, 'invalid_format', `${expected}, got ${bytes.length} byte${bytes.length === 1 ? '' : 's'}`);
  }
  return undefined;
}

/** A JSON integer in [min, max]. */
export function readInteger(
  value: unknown,
  path: string,
  problems: Problems,
  min: number,
  max: number,
  what: string,
): number | undefined {
  if (value === undefined) {
    problems.add(path, 'missing', what);
    return undefined;
  }
  // A number past the doubles (1e400) reads as an infinity: an integer too large, not a fraction.
  if (typeof value !== 'number' || !(Number.isInteger(value) || Math.abs(value) === Infinity)) {
    problems.add(path, 'invalid_format', `${what}, got ${describe(value)}`);
    return undefined;
  }
  if (value < min || value > max) {
    // `what` names the kind (a JSON integer); the bound it is outside is what is wrong.
    const bound = value < min ? `at least ${min}` : `at most ${max === MAX_SAFE ? '2^53-1' : max}`;
    problems.add(path, 'out_of_range', `${what}, ${bound}, got ${numberText(value)}`);
    return undefined;
  }
  return value;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;
const HEX_QUANTITY = /^0[xX][0-9a-fA-F]+$/;

/** Hex digits up to which a quantity is read digit by digit as a Number: 13 of them (52 bits) are exact. */
const SHORT_HEX_DIGITS = 13;

/**
 * The value of `text` when it is `0x`/`0X` and 1 to {@link SHORT_HEX_DIGITS} hex digits (what HEX_QUANTITY matches,
 * that short), else -1. A block's receipts give several such quantities each (type, status, gas, index): testing each
 * against the pattern and parsing it as a BigInt took 5% of verifying a block of 301 receipts.
 */
function shortHexQuantity(text: string): number {
  const length = text.length;
  if (length < 3 || length > 2 + SHORT_HEX_DIGITS || text.charCodeAt(0) !== 48 || (text.charCodeAt(1) | 32) !== 120)
    return -1;
  let value = 0;
  for (let i = 2; i < length; i++) {
    const c = text.charCodeAt(i);
    // 0-9, then a-f and A-F (| 32 lowers a letter; a digit or other character stays out of 97-102).
    const digit = c >= 48 && c <= 57 ? c - 48 : (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * The quantity `value` stands for when it is a valid one up to `max` (at most 2^53-1), as a number; else undefined.
 * What {@link quantityValue} reads, without a BigInt for the short hex a node writes: a receipt's type, status and index.
 */
export function smallQuantityValue(value: unknown, max: number): number | undefined {
  const short = typeof value === 'string' ? shortHexQuantity(value) : -1;
  if (short >= 0) return short <= max ? short : undefined;
  const quantity = quantityValue(value, BigInt(max));
  return quantity === undefined ? undefined : Number(quantity);
}

/** The quantity `value` stands for when it is a valid one up to `max` (see {@link readQuantity}), else undefined. */
export function quantityValue(value: unknown, max = MAX_UINT64): bigint | undefined {
  let quantity: bigint;
  const short = typeof value === 'string' ? shortHexQuantity(value) : -1;
  if (short >= 0) {
    quantity = BigInt(short);
  } else if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > MAX_SAFE) return undefined;
    quantity = BigInt(value);
  } else if (typeof value === 'string' && (DECIMAL.test(value) || HEX_QUANTITY.test(value))) {
    quantity = BigInt(value);
  } else {
    return undefined;
  }
  return quantity > max ? undefined : quantity;
}

/**
 * A bound as a message writes it: `2^n-1` for a large all-ones bound (2^256-1 has 78 digits), else its digits (255).
 */
function boundText(max: bigint): string {
  const bits = max.toString(2);
  return bits.length >= 16 && !bits.includes('0') ? `2^${bits.length}-1` : max.toString();
}

/**
 * A quantity (docs/api.md "Input conventions"): a JSON integer up to 2^53-1, a decimal
 * string, or a `0x` hex string for anything larger; at most `max`.
 */
export function readQuantity(value: unknown, path: string, problems: Problems, max = MAX_UINT64): bigint | undefined {
  const quantity = quantityValue(value, max);
  if (quantity !== undefined) return quantity;
  // The problem path: only now is the message worth building.
  const expected = `non-negative integer up to ${boundText(max)}: a JSON integer, a decimal string or a 0x hex string`;
  if (value === undefined) {
    problems.add(path, 'missing', expected);
  } else if (typeof value === 'number') {
    if (!(Number.isInteger(value) || value === Infinity) || value < 0)
      problems.add(path, value < 0 ? 'out_of_range' : 'invalid_format', `${expected}, got ${numberText(value)}`);
    else if (isInexactNumber(value))
      problems.add(path, 'out_of_range', `${expected}; ${INEXACT_NUMBER}, send a string, got ${numberText(value)}`);
    else problems.add(path, 'out_of_range', `${expected}, got ${value}`);
  } else if (typeof value === 'string' && (DECIMAL.test(value) || HEX_QUANTITY.test(value))) {
    problems.add(path, 'out_of_range', `${expected}, got ${value}`);
  } else {
    problems.add(path, 'invalid_format', `${expected}, got ${describe(value)}`);
  }
  return undefined;
}

/** Edit distance with adjacent transpositions (optimal string alignment), capped for speed. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Unknown members are ignored (forward compatibility), but one that looks like a
 * misspelling of a known member that is absent is reported rather than guessed at:
 * silently ignoring `typ: 2` would hash the receipt as legacy. One that is a known member
 * spelled another way (case, `_` and `-` aside) is reported even beside it: `fromBlock: 5`
 * beside `from_block: 1` is two claims of one member, and reading either would ignore the
 * other. A near-miss of a refused member (`refusals`: its name, what its 400 expects) is
 * refused as it is (`addresses` as `address`).
 */
export function checkMisspelledMembers(
  obj: JsonObject,
  path: string,
  known: readonly string[],
  problems: Problems,
  refusals: ReadonlyMap<string, string> = new Map(),
): void {
  for (const member of Object.keys(obj)) {
    if (known.includes(member)) continue;
    const spelled = spelledAnotherWay(obj, member, known);
    if (spelled !== undefined) {
      problems.add(
        join(path, member),
        'invalid_format',
        refusals.get(spelled) ?? spellingRefusal(obj, member, spelled),
      );
      continue;
    }
    const l = loose(member);
    if (l.length < 4) continue;
    const near = known.find((k) => !(k in obj) && editDistance(l, loose(k)) <= (l.length >= 8 ? 2 : 1));
    if (near !== undefined)
      problems.add(join(path, member), 'invalid_format', refusals.get(near) ?? didYouMean(member, near));
  }
}

/** `path.member`, or `member` at the root. */
export function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}
