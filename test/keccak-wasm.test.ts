import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { sleb, uleb } from '../packages/core/src/wasm/emitter.js';
import { pseudoRandomBytes as bytes } from './helpers/bytes.js';
import { keccakModuleBytes } from '../packages/core/src/keccak/keccak-module.js';
import { KECCAK_MODULE } from '../packages/core/src/keccak/wasm-module.js';
import { createWasmKeccak256, wasmKeccak256, wasmKeccak256Transient } from '../packages/core/src/keccak/wasm-keccak.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
describe('wasm emitter LEB128', () => {
  it('encodes unsigned LEB128', () => {
    expect(uleb(0)).toEqual([0x00]);
    expect(uleb(127)).toEqual([0x7f]);
    expect(uleb(128)).toEqual([0x80, 0x01]);
    expect(uleb(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(uleb(2 ** 32 - 1)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(() => uleb(-1)).toThrow(RangeError);
  });

  it('encodes signed LEB128, numbers and i64 bigints', () => {
    expect(sleb(0)).toEqual([0x00]);
    expect(sleb(-1)).toEqual([0x7f]);
    expect(sleb(63)).toEqual([0x3f]);
    expect(sleb(64)).toEqual([0xc0, 0x00]);
    expect(sleb(-64)).toEqual([0x40]);
    expect(sleb(-65)).toEqual([0xbf, 0x7f]);
    expect(sleb(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    expect(sleb(-1n)).toEqual([0x7f]);
    expect(sleb(-(2n ** 63n))).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]);
    expect(sleb(2n ** 63n - 1n)).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]);
  });
});

describe('wasm Keccak-256 (shared checks with the JavaScript one are in keccak.test.ts)', () => {
  it('is available on this Node, from a module under 4 KiB', () => {
    expect(wasmKeccak256).toBeTypeOf('function');
    expect(KECCAK_MODULE.length).toBeLessThan(4096);
  });

  it('equals noble on 1 MiB and 5 MiB inputs (memory growth), and stays right after growth', () => {
    const fresh = createWasmKeccak256()!;
    const mib = bytes(1 << 20, 11);
    expect(hex(fresh(mib))).toBe(hex(keccak_256(mib)));
    const five = bytes(5 << 20, 12);
    expect(hex(fresh(five))).toBe(hex(keccak_256(five)));
    // Small and odd sizes after the memory buffer was replaced by growth.
    for (const n of [0, 1, 32, 135, 136, 137, 1000, 70000]) {
      const data = bytes(n, n + 99);
      expect(hex(fresh(data)), `length ${n}`).toBe(hex(keccak_256(data)));
    }
    // A short input right after a long one: stale bytes beyond it must not leak in.
    expect(hex(fresh(five.subarray(0, 100)))).toBe(hex(keccak_256(five.subarray(0, 100))));
    expect(hex(fresh(mib))).toBe(hex(keccak_256(mib)));
  });

  it('gives its transient digest as one view, right, overwritten by the next call of either way, after growth too', () => {
    const transient = wasmKeccak256Transient!;
    const a = bytes(40, 1);
    const b = bytes(300, 2);
    const first = transient(a);
    expect(hex(first)).toBe(hex(keccak_256(a)));
    // The copying way's digest is a copy of its own: the view then holds b's.
    const copied = wasmKeccak256!(a);
    expect(transient(b)).toBe(first);
    expect(hex(first)).toBe(hex(keccak_256(b)));
    expect(hex(copied)).toBe(hex(keccak_256(a)));
    // Past the memory's size: the memory grows, the view is of the new memory.
    const large = bytes(3 << 20, 3);
    expect(hex(transient(large))).toBe(hex(keccak_256(large)));
    expect(hex(transient(a))).toBe(hex(keccak_256(a)));
    expect(hex(wasmKeccak256!(b))).toBe(hex(keccak_256(b)));
  });

  it('is also correct without lane complementing and with other round unrollings', () => {
    for (const options of [
      { complement: false },
      { roundsPerIteration: 2 },
      { roundsPerIteration: 3, complement: false },
    ]) {
      const f = createWasmKeccak256(keccakModuleBytes(options))!;
      expect(f).toBeTypeOf('function');
      for (const n of [0, 1, 31, 32, 135, 136, 137, 271, 272, 273, 1000]) {
        const data = bytes(n, n + 1);
        expect(hex(f(data)), `${JSON.stringify(options)} length ${n}`).toBe(hex(keccak_256(data)));
      }
    }
  });

  it('is undefined where WebAssembly is missing', () => {
    const g = globalThis as { WebAssembly?: unknown };
    const saved = g.WebAssembly;
    try {
      delete g.WebAssembly;
      expect(createWasmKeccak256()).toBeUndefined();
    } finally {
      g.WebAssembly = saved;
    }
  });
});
