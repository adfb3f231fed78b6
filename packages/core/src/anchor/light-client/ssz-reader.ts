/**
 * Reading SSZ containers strictly: a container's fixed part holds each fixed-size field in place and a
 * 4-byte little-endian offset for each variable-size one, whose bytes follow in order. Every offset must
 * be where the previous part ends (the first right after the fixed part), and nothing may follow the last.
 */
import { err, ok, type Result } from '../../result.js';
import type { LightClientDecodeProblem } from './containers.js';

/** A field's size in a container's fixed part, or `'variable'` for one stored after it behind an offset. */
export type FieldSize = number | 'variable';

/** The bytes of each field of the container `bytes` laid out as `sizes`, or the problem, named `where`. */
export function containerParts(
  bytes: Uint8Array,
  sizes: readonly FieldSize[],
  where: string,
): Result<Uint8Array[], LightClientDecodeProblem> {
  const fixedSize = sizes.reduce<number>((sum, size) => sum + (size === 'variable' ? 4 : size), 0);
  if (bytes.length < fixedSize)
    return err({ field: where, expected: `at least ${fixedSize} bytes, got ${bytes.length}` });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [];
  const variables: number[] = [];
  let at = 0;
  for (const size of sizes) {
    if (size === 'variable') {
      variables.push(parts.length);
      parts.push(new Uint8Array(0));
      at += 4;
    } else {
      parts.push(bytes.subarray(at, at + size));
      at += size;
    }
  }
  // The offsets, read from the fixed part in field order.
  const offsets: number[] = [];
  at = 0;
  for (const size of sizes) {
    if (size === 'variable') offsets.push(view.getUint32(at, true));
    at += size === 'variable' ? 4 : size;
  }
  if (offsets.length === 0) {
    if (bytes.length !== fixedSize) return err({ field: where, expected: `${fixedSize} bytes, got ${bytes.length}` });
    return ok(parts);
  }
  if (offsets[0] !== fixedSize)
    return err({
      field: where,
      expected: `its first offset at ${fixedSize}, the end of its fixed part, not ${offsets[0]}`,
    });
  for (let i = 0; i < offsets.length; i++) {
    const start = offsets[i]!;
    const end = i + 1 < offsets.length ? offsets[i + 1]! : bytes.length;
    if (end < start || end > bytes.length)
      return err({ field: where, expected: `offsets in order within its ${bytes.length} bytes` });
    parts[variables[i]!] = bytes.subarray(start, end);
  }
  return ok(parts);
}

/** A little-endian uint64 of 8 bytes. */
export function readUint64(bytes: Uint8Array): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
}

/** A little-endian uint256 of 32 bytes. */
export function readUint256(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/** `count` 32-byte nodes back to back in `bytes`, copied. */
export function readNodes(bytes: Uint8Array, count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => bytes.slice(32 * i, 32 * i + 32));
}
