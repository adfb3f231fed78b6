/**
 * Reading SSZ containers strictly, as the light client's decoders name what they refuse: the split itself is
 * ssz-schema.ts' `splitContainer`, shared with every other SSZ the anchor reads.
 */
import { err, type Result } from '../../result.js';
import { splitContainer, type FieldSize } from '../ssz-schema.js';
import type { LightClientDecodeProblem } from './containers.js';

/** The bytes of each field of the container `bytes` laid out as `sizes`, or the problem, named `where`. */
export function containerParts(
  bytes: Uint8Array,
  sizes: readonly FieldSize[],
  where: string,
): Result<Uint8Array[], LightClientDecodeProblem> {
  const parts = splitContainer(bytes, sizes);
  return parts.ok ? parts : err({ field: where, expected: parts.error });
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
