import { keccak_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastKeccak256 } from '../packages/core/src/keccak/fast-keccak.js';
import { wasmKeccak256 } from '../packages/core/src/keccak/wasm-keccak.js';
import { pseudoRandomBytes } from './helpers/bytes.js';
import { runs } from './helpers/runs.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe.each([
  ['fastKeccak256 (JavaScript)', fastKeccak256],
  ['wasmKeccak256 (WebAssembly)', wasmKeccak256!],
] as const)('%s', (_name, keccak) => {
  it('matches known Ethereum keccak256 vectors', () => {
    expect(hex(keccak(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak(new TextEncoder().encode('abc')))).toBe(
      '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
  });

  it('is Keccak padding, not NIST SHA3-256 padding', () => {
    // sha3-256("") = a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a
    expect(hex(keccak(new Uint8Array(0)))).not.toBe('a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a');
  });

  it('returns a fresh 32-byte Uint8Array and does not modify the input', () => {
    const input = pseudoRandomBytes(200, 7);
    const copy = input.slice();
    const a = keccak(input);
    const b = keccak(input);
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a.length).toBe(32);
    expect(a).not.toBe(b);
    expect(a).toEqual(b);
    expect(input).toEqual(copy);
  });

  it('matches @noble/hashes for every length 0..600', () => {
    for (let n = 0; n <= 600; n++) {
      const data = pseudoRandomBytes(n, n + 1);
      expect(hex(keccak(data)), `length ${n}`).toBe(hex(keccak_256(data)));
    }
  });

  it('matches @noble/hashes for all-0x00 and all-0xff inputs around block boundaries', () => {
    for (const n of [0, 1, 7, 8, 9, 134, 135, 136, 137, 271, 272, 273, 408]) {
      for (const fill of [0x00, 0xff]) {
        const data = new Uint8Array(n).fill(fill);
        expect(hex(keccak(data)), `length ${n} fill ${fill}`).toBe(hex(keccak_256(data)));
      }
    }
  });

  it('handles subarray views (non-zero byteOffset) and Buffers', () => {
    const backing = pseudoRandomBytes(1000, 99);
    for (const [start, end] of [
      [1, 33],
      [3, 140],
      [5, 999],
    ] as const) {
      const view = backing.subarray(start, end);
      expect(hex(keccak(view))).toBe(hex(keccak_256(view)));
    }
    const buf = Buffer.from(backing.subarray(0, 300));
    expect(hex(keccak(buf))).toBe(hex(keccak_256(buf)));
  });

  it('matches @noble/hashes on random inputs (property)', () => {
    // size: 'max' spreads lengths over the whole 0..5000 range (the default
    // 'small' size would only generate arrays of up to ~10 bytes).
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 5000, size: 'max' }), (data) => {
        expect(hex(keccak(data))).toBe(hex(keccak_256(data)));
      }),
      { numRuns: runs(500) },
    );
  });

  it('matches @noble/hashes on a 1 MiB input', () => {
    const data = pseudoRandomBytes(1 << 20, 12345);
    expect(hex(keccak(data))).toBe(hex(keccak_256(data)));
  });
});
