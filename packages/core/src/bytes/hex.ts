/**
 * Hex codec for the hot path. Outputs are lowercase without `0x` (the spec's form).
 * Parsing is strict: `null` for anything that is not an even-length hex string,
 * so callers can report *which* field was wrong instead of catching exceptions.
 */

const HEX_CHARS = '0123456789abcdef';
const BYTE_TO_HEX: string[] = Array.from({ length: 256 }, (_, b) => HEX_CHARS[b >> 4]! + HEX_CHARS[b & 15]!);

/** Nibble value of a char code, or -1 when it is not a hex digit. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i;
  NIBBLE[97 + i] = 10 + i;
}

/** Lowercase hex of `bytes`, without `0x`. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]!];
  return out;
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
  const end = offset + hexByteLength(hex);
  for (let i = offset, j = prefixLength(hex); i < end; i++, j += 2) {
    const hiCode = hex.charCodeAt(j);
    const loCode = hex.charCodeAt(j + 1);
    const hi = hiCode < 128 ? NIBBLE[hiCode]! : -1;
    const lo = loCode < 128 ? NIBBLE[loCode]! : -1;
    if ((hi | lo) < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
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
  if (bytes === null) throw new TypeError(`${what}: expected even-length hex, got ${JSON.stringify(hex.slice(0, 80))}`);
  return bytes;
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
