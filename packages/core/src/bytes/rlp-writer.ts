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
 * Bytes of the canonical big-endian form of a non-negative integer (see {@link quantityBytes}): 0 for 0.
 * @example quantityLength(1024n) // 2
 */
export function quantityLength(value: bigint): number {
  if (value < 0n) throw new RangeError(`quantity must be non-negative, got ${value}`);
  if (value <= 0xffffffffn) {
    const n = Number(value);
    return n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : n > 0 ? 1 : 0;
  }
  let length = 4;
  for (let rest = value >> 32n; rest > 0n; rest >>= 8n) length++;
  return length;
}

/** Writes the `length` ({@link quantityLength}) canonical bytes of `value` at `offset`; returns the offset after them. */
function writeQuantityBytes(buf: Uint8Array, offset: number, value: bigint, length: number): number {
  if (length <= 4) {
    for (let i = offset + length - 1, v = Number(value); i >= offset; i--, v >>>= 8) buf[i] = v & 0xff;
  } else {
    for (let i = offset + length - 1, v = value; i >= offset; i--, v >>= 8n) buf[i] = Number(v & 0xffn);
  }
  return offset + length;
}

/**
 * Canonical big-endian bytes of a non-negative integer: no leading zeros, 0 is empty.
 * @example quantityBytes(1024n) // Uint8Array [0x04, 0x00]
 */
export function quantityBytes(value: bigint): Uint8Array {
  const length = quantityLength(value);
  if (length === 0) return EMPTY;
  const out = new Uint8Array(length);
  writeQuantityBytes(out, 0, value, length);
  return out;
}

/** Encoded size of the RLP string of `value`'s canonical bytes (`length` of them: {@link quantityLength}). */
export function quantityStringLength(value: bigint, length: number): number {
  if (length === 1 && value < 0x80n) return 1;
  return length + (length < 56 ? 1 : longHeaderLength(length));
}

/**
 * Writes `value`'s canonical bytes (`length` of them: {@link quantityLength}) as an RLP string, with no array made for
 * them (a receipt's cumulative gas, on the hot path); returns the offset after it.
 */
export function writeQuantityString(buf: Uint8Array, offset: number, value: bigint, length: number): number {
  const start = length === 1 && value < 0x80n ? offset : writeStringHeader(buf, offset, length);
  return writeQuantityBytes(buf, start, value, length);
}
