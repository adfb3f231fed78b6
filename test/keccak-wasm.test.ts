import { keccak_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sleb, uleb } from '../packages/core/src/wasm/emitter.js';
import { pseudoRandomBytes as bytes } from './helpers/bytes.js';
import { keccakModuleBytes } from '../packages/core/src/keccak/keccak-module.js';
import { KECCAK_MODULE, KECCAK_PAIR_MODULE } from '../packages/core/src/keccak/wasm-module.js';
import {
  createWasmKeccak256,
  createWasmKeccak256Pair,
  wasmKeccak256,
  wasmKeccak256Pair,
  wasmKeccak256Transient,
} from '../packages/core/src/keccak/wasm-keccak.js';
import { defaultKeccak256, nobleKeccak256, pairKeccak256 } from '../packages/core/src/keccak/keccak.js';
import { runs } from './helpers/runs.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Runs `check` with the global `WebAssembly` removed, as a host without it (or a policy that hides it) has. */
function withoutWebAssembly(check: () => void): void {
  const g = globalThis as { WebAssembly?: unknown };
  const saved = g.WebAssembly;
  try {
    delete g.WebAssembly;
    check();
  } finally {
    g.WebAssembly = saved;
  }
}
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
    withoutWebAssembly(() => expect(createWasmKeccak256()).toBeUndefined());
  });
});

describe('wasm Keccak-256 of two inputs at once (the two-lane module)', () => {
  /** Both digests of `pair(a, b)`, as hex. */
  const both = (pair: (a: Uint8Array, b: Uint8Array) => Uint8Array, a: Uint8Array, b: Uint8Array) => {
    const digests = pair(a, b);
    return [hex(digests.subarray(0, 32)), hex(digests.subarray(32, 64))];
  };

  it('is available on this Node, from a module under 4 KiB', () => {
    expect(wasmKeccak256Pair()).toBeTypeOf('function');
    expect(KECCAK_PAIR_MODULE.length).toBeLessThan(4096);
  });

  it('equals noble on every pair of lengths around the block boundaries, either input the longer', () => {
    const pair = createWasmKeccak256Pair()!;
    const lengths = [0, 1, 20, 32, 135, 136, 137, 271, 272, 273, 700, 1500];
    for (const m of lengths)
      for (const n of lengths) {
        const a = bytes(m, m + 1);
        const b = bytes(n, 3 * n + 2);
        expect(both(pair, a, b), `lengths ${m} and ${n}`).toEqual([hex(keccak_256(a)), hex(keccak_256(b))]);
      }
  });

  it(`equals noble on random pairs of inputs (${runs(200)} runs)`, () => {
    const pair = wasmKeccak256Pair()!;
    const input = fc.uint8Array({ minLength: 0, maxLength: 1200 });
    fc.assert(
      fc.property(input, input, (a, b) => {
        expect(both(pair, a, b)).toEqual([hex(keccak_256(a)), hex(keccak_256(b))]);
      }),
      { numRuns: runs(200) },
    );
  });

  it('grows its memory for large inputs and stays right after, a short pair after a long one included', () => {
    const pair = createWasmKeccak256Pair()!;
    const mib = bytes(1 << 20, 5);
    const three = bytes(3 << 20, 6);
    expect(both(pair, mib, three)).toEqual([hex(keccak_256(mib)), hex(keccak_256(three))]);
    const a = three.subarray(0, 100);
    const b = mib.subarray(0, 33);
    expect(both(pair, a, b)).toEqual([hex(keccak_256(a)), hex(keccak_256(b))]);
  });

  it('gives both digests as one view, which its next call overwrites', () => {
    const pair = createWasmKeccak256Pair()!;
    const first = pair(bytes(10, 1), bytes(20, 2));
    const copy = first.slice();
    expect(pair(bytes(30, 3), bytes(40, 4))).toBe(first);
    expect(first).not.toEqual(copy);
  });

  it('is undefined where WebAssembly is missing or refuses the module', () => {
    expect(createWasmKeccak256Pair(Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 99))).toBeUndefined();
    // A module without hash2 (the one-input module) is refused by the check, not trusted.
    expect(createWasmKeccak256Pair(KECCAK_MODULE)).toBeUndefined();
    withoutWebAssembly(() => expect(createWasmKeccak256Pair()).toBeUndefined());
  });

  it('is what pairKeccak256 gives for the default Keccak only: another Keccak hashes one input at a time', () => {
    expect(pairKeccak256(defaultKeccak256)).toBe(wasmKeccak256Pair());
    expect(pairKeccak256(nobleKeccak256)).toBeUndefined();
    expect(pairKeccak256((data) => defaultKeccak256(data))).toBeUndefined();
  });
});
