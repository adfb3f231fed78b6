/**
 * Hex codec for the hot path. Outputs are lowercase without `0x` (the spec's form).
 * Parsing is strict: `null` for anything that is not an even-length hex string,
 * so callers can report *which* field was wrong instead of catching exceptions.
 */

/**
 * Hex is decoded two digits at a time: each pair, as one 16-bit word of its two character codes
 * (the first in the low byte on a little-endian machine, as a Uint16Array reads it), is looked up
 * in a table of the 484 valid pairs (-1 elsewhere). Longer text is first copied as ASCII into a
 * scratch buffer (TextEncoder.encodeInto, native) and read a word at a time: that costs a fixed
 * ~35 ns a call and ~1 ns a byte, reading character codes ~3 ns a byte (measured on the topics,
 * addresses and raw receipts of real blocks): 2.3x faster on 320 KB of raw receipts, 1.5x on a
 * 32-byte topic, no faster on a 20-byte address.
 */
const DIGITS = '0123456789abcdefABCDEF';
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
/** Where a Uint16Array over two ASCII bytes reads the first and the second. */
const [FIRST_SHIFT, SECOND_SHIFT] = LITTLE_ENDIAN ? [0, 8] : [8, 0];
/** The word of two character codes, as a Uint16Array over their ASCII bytes reads it. */
const word = (first: number, second: number) => (first << FIRST_SHIFT) | (second << SECOND_SHIFT);
/**
 * Filled in a function, without calls in its loop: a loop in a module's top-level code has V8 compile all that code
 * for Sparkplug as it runs, and a function called for each of the 484 pairs has V8 compile that function with Maglev
 * on the spot, about 1 ms and 0.3 ms of a CLI process's start, whose bundle holds the core in one top level.
 */
const PAIR = (() => {
  const pair = new Int16Array(65536).fill(-1);
  for (let hi = 0; hi < DIGITS.length; hi++) {
    const first = DIGITS.charCodeAt(hi) << FIRST_SHIFT;
    // DIGITS[16..21] are A-F.
    const high = (hi < 16 ? hi : hi - 6) << 4;
    for (let lo = 0; lo < DIGITS.length; lo++)
      pair[first | (DIGITS.charCodeAt(lo) << SECOND_SHIFT)] = high | (lo < 16 ? lo : lo - 6);
  }
  return pair;
})();
/** Bytes up to which reading character codes is the faster way. */
const SHORT = 20;
/** Characters copied at a time (even, so that no pair of digits is split): longer text goes in pieces. */
const CHUNK = 16384;
const ascii = new Uint8Array(CHUNK);
const pairs = new Uint16Array(ascii.buffer);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const HEX_CHARS = '0123456789abcdef';
/** The two lowercase digits of each byte, as the word {@link word} makes of them. */
const DIGIT_PAIR = Uint16Array.from({ length: 256 }, (_, b) =>
  word(HEX_CHARS.charCodeAt(b >> 4), HEX_CHARS.charCodeAt(b & 15)),
);

/**
 * Lowercase hex of `bytes`, without `0x`: the digits written as ASCII into the scratch buffer, a pair a word, and
 * decoded as one string (CHUNK digits at a time). Appending each byte's two digits to a string made a string of each:
 * a 256-byte bloom took 2.7 us and 256 strings for the garbage collector, now 0.8 us and one (a 32-byte hash 0.3 us
 * either way).
 */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let start = 0; start < bytes.length; start += CHUNK >> 1) {
    const end = Math.min(bytes.length, start + (CHUNK >> 1));
    for (let i = start; i < end; i++) pairs[i - start] = DIGIT_PAIR[bytes[i]!]!;
    out += decoder.decode(ascii.subarray(0, 2 * (end - start)));
  }
  return out;
}

/** Bytes as 0x-prefixed lower-case hex, as JSON-RPC and the anchor proof file write them. */
export function prefixedHex(bytes: Uint8Array): string {
  return `0x${bytesToHex(bytes)}`;
}

/** Strips one leading `0x`/`0X`. */
export function strip0x(hex: string): string {
  return prefixLength(hex) === 2 ? hex.slice(2) : hex;
}

/**
 * Hex text as the hosted service may spell it, for comparison: without `0x`, lower case; null when
 * the value is not text.
 * @example hexText('0xAB') // 'ab'
 */
export function hexText(value: unknown): string | null {
  return typeof value === 'string' ? strip0x(value).toLowerCase() : null;
}

/**
 * Hex text as one key whatever its spelling (with `0x`, `0X` or neither; any case): lower case, with `0x`. Where the text
 * is as nodes write it (lower case, `0x`), that is the text itself, no prefix cut off: a block's sets of transaction
 * hashes take one a receipt.
 * @example hexKey('AB') // '0xab'
 */
export function hexKey(hex: string): string {
  const lowered = hex.toLowerCase();
  return prefixLength(lowered) === 2 ? lowered : `0x${lowered}`;
}

/** Whether two values are the same hex text (see {@link hexText}); false when either is not text. */
export function sameHex(a: unknown, b: unknown): boolean {
  const left = hexText(a);
  return left !== null && left === hexText(b);
}

/** Length of the `0x`/`0X` prefix of `hex`: 2 or 0. */
function prefixLength(hex: string): number {
  return hex.length >= 2 && hex.charCodeAt(0) === 48 && (hex.charCodeAt(1) | 32) === 120 ? 2 : 0;
}

/**
 * Bytes that `hex` (with or without `0x`) stands for when its digits are even in number, else -1; the digits are not
 * checked.
 */
export function hexByteLength(hex: string): number {
  const digits = hex.length - prefixLength(hex);
  return digits & 1 ? -1 : digits >> 1;
}

/**
 * Parses `hex` (with or without `0x`, of {@link hexByteLength} bytes) into `out` at `offset`,
 * so that many fields can share one buffer.
 * @returns false when a character is not a hex digit (`out` is then partly written).
 */
export function parseHexInto(hex: string, out: Uint8Array, offset: number): boolean {
  const length = hex.length;
  const prefix = prefixLength(hex);
  let at = offset;
  let bad = 0;
  if (length - prefix <= 2 * SHORT) {
    for (let j = prefix; j < length; j += 2) {
      const first = hex.charCodeAt(j);
      const second = hex.charCodeAt(j + 1);
      const byte = (first | second) > 255 ? -1 : PAIR[word(first, second)]!;
      bad |= byte;
      out[at++] = byte;
    }
    return bad >= 0;
  }
  for (let start = 0; start < length; start += CHUNK) {
    const piece = length <= CHUNK ? hex : hex.substring(start, Math.min(length, start + CHUNK));
    const { read, written } = encoder.encodeInto(piece, ascii);
    // A character that is not ASCII is no hex digit (its UTF-8 bytes would also shift the pairs).
    if (read !== piece.length || written !== piece.length) return false;
    for (let p = start === 0 ? prefix >> 1 : 0, end = piece.length >> 1; p < end; p++) {
      const byte = PAIR[pairs[p]!]!;
      bad |= byte;
      out[at++] = byte;
    }
  }
  return bad >= 0;
}

/**
 * Parses hex with or without `0x`, in any case.
 * @returns the bytes, or `null` when the text is not even-length hex.
 * @example parseHex('0xCAFE') // Uint8Array [0xca, 0xfe]
 */
export function parseHex(hex: string): Uint8Array | null {
  const length = hexByteLength(hex);
  if (length < 0) return null;
  const out = new Uint8Array(length);
  return parseHexInto(hex, out, 0) ? out : null;
}

/** Parses hex that must be valid; throws a plain error naming `what` otherwise. */
export function hexToBytes(hex: string, what = 'hex string'): Uint8Array {
  const bytes = parseHex(hex);
  if (bytes === null)
    throw new TypeError(
      `${what}: expected hex (an even number of the digits 0-9 and a-f, in any case, with or without 0x), got ${JSON.stringify(hex.slice(0, 80))}`,
    );
  return bytes;
}

/** Bytes from which {@link bytesEqual} compares four at a time. */
const WORDWISE = 64;

/**
 * Byte-wise equality. Long arrays are compared four bytes at a time: a block's raw receipts against their encodings
 * cost a fifth of the hashing compared byte by byte, 1.6x less through DataViews (which read at any offset), and
 * where both start on a word, as a receipt's bloom and the one its source gave do, through Int32Arrays, 2.8x less
 * again (56 against 156 ns a bloom).
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  const length = a.length;
  if (length !== b.length) return false;
  let i = 0;
  if (length >= WORDWISE && ((a.byteOffset | b.byteOffset) & 3) === 0) {
    const x = new Int32Array(a.buffer, a.byteOffset, length >> 2);
    const y = new Int32Array(b.buffer, b.byteOffset, length >> 2);
    for (let w = 0; w < x.length; w++) if (x[w] !== y[w]) return false;
    i = x.length << 2;
  } else if (length >= WORDWISE) {
    const x = new DataView(a.buffer, a.byteOffset, length);
    const y = new DataView(b.buffer, b.byteOffset, length);
    for (; i + 4 <= length; i += 4) if (x.getInt32(i) !== y.getInt32(i)) return false;
  }
  for (; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}
