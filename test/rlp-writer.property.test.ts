/**
 * The RLP writer's quantities and the trie's keys, written in place (core/bytes/rlp-writer.ts, core/trie/ordered-trie.ts),
 * against @ethereumjs/rlp's encoder: a quantity's length, its bytes and its string as the encoder writes a bigint, at
 * every size (one byte below 0x80, short strings, a long string past 55 bytes), and a list position's key as the
 * encoder writes the number.
 */
import { encode } from '@ethereumjs/rlp';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  quantityBytes,
  quantityLength,
  quantityStringLength,
  writeQuantityString,
} from '../packages/core/src/bytes/rlp-writer.js';
import { indexKey } from '../packages/core/src/trie/ordered-trie.js';
import { runs } from './helpers/runs.js';

/** Non-negative integers of every size the writer tells apart: 0, one byte, up to 32 bits, up to 256, past 55 bytes. */
const quantityArb = fc.oneof(
  fc.constantFrom(0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xffffffffn, 0x100000000n, (1n << 256n) - 1n),
  fc.bigInt({ min: 0n, max: 0xffffffffn }),
  fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  fc.bigInt({ min: 1n << 400n, max: (1n << 600n) - 1n }),
);

/** Checks that `value` is measured and written as the encoder writes it, at `offset`, and nothing outside its place. */
function writesAsEncoder(value: bigint, offset: number): void {
  const expected = encode(value);
  const length = quantityLength(value);
  expect(length).toBe(value === 0n ? 0 : Math.ceil(value.toString(16).length / 2));
  // The string's payload is its last `length` bytes (the whole of a single byte below 0x80).
  expect(quantityBytes(value)).toEqual(expected.subarray(expected.length - length));
  expect(quantityStringLength(value, length)).toBe(expected.length);
  const out = new Uint8Array(offset + expected.length + 3).fill(0xee);
  expect(writeQuantityString(out, offset, value, length)).toBe(offset + expected.length);
  expect(out.subarray(offset, offset + expected.length)).toEqual(expected);
  expect(out.subarray(0, offset).every((b) => b === 0xee)).toBe(true);
  expect(out.subarray(offset + expected.length).every((b) => b === 0xee)).toBe(true);
}

describe('quantities written in place, against @ethereumjs/rlp', () => {
  it(`a quantity's length, bytes and RLP string are the encoder's (${runs(2000)} runs)`, () => {
    fc.assert(
      fc.property(quantityArb, fc.nat({ max: 7 }), (value, offset) => writesAsEncoder(value, offset)),
      { numRuns: runs(2000) },
    );
  });

  it('every length from 0 to 75 bytes, at its ends (all bytes 0xff, and one bit above them)', () => {
    for (let bytes = 0; bytes <= 75; bytes++) {
      writesAsEncoder((1n << BigInt(8 * bytes)) - 1n, bytes % 4);
      writesAsEncoder(1n << BigInt(8 * bytes), bytes % 4);
    }
  });

  it('a negative quantity has no length', () => {
    expect(() => quantityLength(-1n)).toThrow(/non-negative/);
    expect(() => quantityBytes(-1n)).toThrow(/non-negative/);
  });
});

describe("a list position's trie key, against @ethereumjs/rlp", () => {
  it(`indexKey(i) is rlp(i), at every length of a safe integer (${runs(1000)} runs)`, () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat({ max: 300 }), fc.nat({ max: 70_000 }), fc.maxSafeNat()), (index) => {
        const key = indexKey(index);
        expect(key).toEqual(encode(index));
        expect(key.buffer.byteLength).toBe(key.length);
      }),
      { numRuns: runs(1000) },
    );
  });
});
