/**
 * Keccak-256 (Ethereum's: Keccak padding 0x01..0x80, rate 136, 32-byte digest; not SHA3-256's 0x06 padding) in
 * WebAssembly. It exists for speed: the module (keccak-module.ts generates it) runs the permutation on native 64-bit
 * lanes, an order of magnitude cheaper than JavaScript's 32-bit halves.
 *
 * Its bytes are ./wasm-module.ts (written by scripts/gen-keccak.ts, compared by a test), compiled synchronously: at
 * about 1 KiB they are well under the 4 KiB that browsers allow for synchronous compilation on the main thread.
 * Loading the library neither runs the emitter (that took about 2 ms, a tenth of a CLI process's start) nor carries
 * it. An engine without bulk memory (memory.fill, in every engine since 2021) rejects the module, and
 * createWasmKeccak256 returns undefined. test/keccak-wasm.test.ts checks it against @noble/hashes' keccak_256.
 */
import { RATE } from './keccak-tables.js';
import { IN_OFF, OUT_OFF, writeRoundConstants } from './keccak-layout.js';
import { KECCAK_MODULE, KECCAK_PAIR_MODULE } from './wasm-module.js';
import { webAssembly, type WasmMemory } from '../wasm/wasm-api.js';
import { bytesToHex } from '../bytes/hex.js';

const PAGE = 65536;

/** keccak256(""), to check an instance before trusting it. */
const EMPTY_DIGEST = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

/** A module instance's two ways to hash: a digest of its own, and one in the instance's memory (see below). */
interface WasmHashers {
  keccak256: (data: Uint8Array) => Uint8Array;
  /** The digest as one view of the instance's memory, the same each call: its next call (either way) overwrites it. */
  transient: (data: Uint8Array) => Uint8Array;
}

/** The hashers of a fresh instance of the module `bytes`; undefined as {@link createWasmKeccak256} says. */
function instantiate(bytes: Uint8Array): WasmHashers | undefined {
  const wasm = webAssembly();
  if (wasm === undefined) return undefined;
  try {
    const instance = new wasm.Instance(new wasm.Module(bytes), {});
    const memory = instance.exports['memory'] as WasmMemory;
    const hash = instance.exports['hash'] as (ptr: number, len: number) => void;
    writeRoundConstants(memory.buffer);
    // Cached views of the memory: growth replaces memory.buffer, and then the views.
    let mem = new Uint8Array(memory.buffer);
    let digest = mem.subarray(OUT_OFF, OUT_OFF + 32);
    const transient = (data: Uint8Array): Uint8Array => {
      const len = data.length;
      if (IN_OFF + len + RATE > mem.length) {
        memory.grow(Math.ceil((IN_OFF + len + RATE - mem.length) / PAGE));
        mem = new Uint8Array(memory.buffer);
        digest = mem.subarray(OUT_OFF, OUT_OFF + 32);
      }
      mem.set(data, IN_OFF);
      hash(IN_OFF, len);
      return digest;
    };
    const keccak256 = (data: Uint8Array): Uint8Array => transient(data).slice();
    return bytesToHex(keccak256(new Uint8Array(0))) === EMPTY_DIGEST ? { keccak256, transient } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Keccak-256 function backed by a fresh instance of the module, or undefined
 * where WebAssembly is missing or refuses the module (no WebAssembly global, a
 * Content-Security-Policy without 'wasm-unsafe-eval', ...) or, defensively,
 * where the instance gets the empty-input digest wrong.
 *
 * The input is copied into the instance's memory, which grows to fit the
 * largest input seen (and, WebAssembly memory being unable to shrink, stays at
 * that size); an input too large for 32-bit memory (about 4 GiB) throws.
 * `bytes`, another module of keccak-module.ts's (other options), are for tests and measurements; the default is
 * the fastest.
 */
export function createWasmKeccak256(bytes: Uint8Array = KECCAK_MODULE): ((data: Uint8Array) => Uint8Array) | undefined {
  return instantiate(bytes)?.keccak256;
}

const hashers = instantiate(KECCAK_MODULE);

/** Keccak-256 in WebAssembly; undefined where WebAssembly is unavailable. */
export const wasmKeccak256: ((data: Uint8Array) => Uint8Array) | undefined = hashers?.keccak256;

/**
 * {@link wasmKeccak256} whose digest is not copied out: one view of the instance's memory, which the next call of
 * either overwrites. For a caller that reads the digest at once (a bloom's three bits) and keeps none of it: a copy was
 * an allocation per item hashed, the most of a block's bloom. Undefined where WebAssembly is unavailable.
 */
export const wasmKeccak256Transient: ((data: Uint8Array) => Uint8Array) | undefined = hashers?.transient;

/**
 * Keccak-256 of two inputs at once: their digests, the first's then the second's, as one 64-byte view of a module
 * instance's memory that its next call overwrites.
 */
export type Keccak256Pair = (a: Uint8Array, b: Uint8Array) => Uint8Array;

/**
 * A {@link Keccak256Pair} backed by a fresh instance of the two-lane module (keccak-module.ts's keccakPairModuleBytes,
 * kept in ./wasm-module.ts), or undefined where WebAssembly is missing, refuses the module (an engine without its
 * 128-bit SIMD) or, defensively, gets two known digests wrong. Each input is copied into the instance's memory, which
 * grows to fit the largest pair seen. It exists for speed: two inputs' permutations run in one vector each step, the
 * pair in about 1.6 times one input's time (docs/speed.md).
 */
export function createWasmKeccak256Pair(bytes: Uint8Array = KECCAK_PAIR_MODULE): Keccak256Pair | undefined {
  const wasm = webAssembly();
  if (wasm === undefined) return undefined;
  try {
    const instance = new wasm.Instance(new wasm.Module(bytes), {});
    const memory = instance.exports['memory'] as WasmMemory;
    const hash2 = instance.exports['hash2'] as (ptrA: number, lenA: number, ptrB: number, lenB: number) => void;
    writeRoundConstants(memory.buffer);
    let mem = new Uint8Array(memory.buffer);
    let digests = mem.subarray(OUT_OFF, OUT_OFF + 64);
    const pair: Keccak256Pair = (a, b) => {
      // Each input with the rate's bytes after it for its padding, the second on an 8-byte boundary.
      const second = IN_OFF + ((a.length + RATE + 7) & ~7);
      const end = second + b.length + RATE;
      if (end > mem.length) {
        memory.grow(Math.ceil((end - mem.length) / PAGE));
        mem = new Uint8Array(memory.buffer);
        digests = mem.subarray(OUT_OFF, OUT_OFF + 64);
      }
      mem.set(a, IN_OFF);
      mem.set(b, second);
      hash2(IN_OFF, a.length, second, b.length);
      return digests;
    };
    // The empty input beside one of two blocks: both lanes, and the longer input's block after the shared one.
    const check = pair(new Uint8Array(0), new Uint8Array(RATE));
    return bytesToHex(check.subarray(0, 32)) === EMPTY_DIGEST && bytesToHex(check.subarray(32)) === RATE_ZEROS_DIGEST
      ? pair
      : undefined;
  } catch {
    return undefined;
  }
}

/** keccak256 of 136 zero bytes (one whole block, then a block of padding), the pair's second check. */
const RATE_ZEROS_DIGEST = '3a5912a7c5faa06ee4fe906253e339467a9ce87d533c65be3c15cb231cdb25f9';

/** The process's pair hasher: made at its first use, so that a process that never hashes two at once never compiles it. */
let sharedPair: Keccak256Pair | undefined | null = null;

/** The process's {@link createWasmKeccak256Pair} (one instance, made at the first call); undefined where there is none. */
export function wasmKeccak256Pair(): Keccak256Pair | undefined {
  if (sharedPair === null) sharedPair = createWasmKeccak256Pair();
  return sharedPair;
}
