/**
 * A minimal two-pass RLP writer (measure, then write into one preallocated buffer).
 * Why not @ethereumjs/rlp here: receipts and trie nodes are the hot path, and
 * building nested arrays for a generic encoder, then concatenating, costs several
 * allocations per log. Header RLP, which is not hot, uses @ethereumjs/rlp.
 */

/** Bytes taken by the RLP header of a string or list whose payload has `payloadLength` bytes (long form). */
function longHeaderLength(payloadLength: number): number {
  let lengthBytes = 1;
  for (let n = payloadLength; n > 0xff; n = Math.floor(n / 256)) lengthBytes++;
  return 1 + lengthBytes;
}

/** Encoded size of a list whose payload has `payloadLength` bytes. */
export function listLength(payloadLength: number): number {
  return payloadLength + (payloadLength < 56 ? 1 : longHeaderLength(payloadLength));
}

/** Encoded size of the byte string `bytes`. */
export function stringLength(bytes: Uint8Array): number {
  const n = bytes.length;
  if (n === 1 && bytes[0]! < 0x80) return 1;
  return n + (n < 56 ? 1 : longHeaderLength(n));
}

function writeHeader(buf: Uint8Array, offset: number, payloadLength: number, shortBase: number): number {
  if (payloadLength < 56) {
    buf[offset] = shortBase + payloadLength;
    return offset + 1;
  }
  const lengthBytes = longHeaderLength(payloadLength) - 1;
  buf[offset] = shortBase + 55 + lengthBytes;
  for (let i = lengthBytes, n = payloadLength; i > 0; i--, n = Math.floor(n / 256)) buf[offset + i] = n & 0xff;
  return offset + 1 + lengthBytes;
}

/** Writes a list header; returns the offset after it. */
export function writeListHeader(buf: Uint8Array, offset: number, payloadLength: number): number {
  return writeHeader(buf, offset, payloadLength, 0xc0);
}

/**
 * Writes the header of a string of `length` bytes (not a single byte below 0x80, which has none); returns the offset
 * after it.
 */
export function writeStringHeader(buf: Uint8Array, offset: number, length: number): number {
  return writeHeader(buf, offset, length, 0x80);
}

/** Writes `bytes` as an RLP string; returns the offset after it. */
export function writeString(buf: Uint8Array, offset: number, bytes: Uint8Array): number {
  if (bytes.length === 1 && bytes[0]! < 0x80) {
    buf[offset] = bytes[0]!;
    return offset + 1;
  }
  const start = writeStringHeader(buf, offset, bytes.length);
  buf.set(bytes, start);
  return start + bytes.length;
}

const EMPTY = new Uint8Array(0);

/**
 * Canonical big-endian bytes of a non-negative integer: no leading zeros, 0 is empty.
 * @example quantityBytes(1024n) // Uint8Array [0x04, 0x00]
 */
export function quantityBytes(value: bigint): Uint8Array {
  if (value === 0n) return EMPTY;
  if (value < 0n) throw new RangeError(`quantity must be non-negative, got ${value}`);
  if (value <= 0xffffffffn) {
    const n = Number(value);
    const len = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
    const out = new Uint8Array(len);
    for (let i = len - 1, v = n; i >= 0; i--, v >>>= 8) out[i] = v & 0xff;
    return out;
  }
  let hex = value.toString(16);
  if (hex.length & 1) hex = '0' + hex;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}
