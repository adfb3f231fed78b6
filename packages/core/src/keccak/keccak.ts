import { keccak_256 } from '@noble/hashes/sha3.js';
import { fastKeccak256 } from './fast-keccak.js';
import { wasmKeccak256, wasmKeccak256Pair, wasmKeccak256Transient, type Keccak256Pair } from './wasm-keccak.js';

/**
 * The one hashing interface of the core: Keccak-256 of a byte string, 32 bytes out.
 * Every core function takes an optional `keccak` so that another implementation
 * (native, a hardware token's) can be plugged in without touching the algorithms.
 */
export type Keccak256 = (data: Uint8Array) => Uint8Array;

/** Keccak-256 from @noble/hashes: the audited reference implementation, and the tests' oracle. */
export const nobleKeccak256: Keccak256 = (data) => keccak_256(data);

/**
 * The default: our WebAssembly Keccak-256 (13-20 times faster than the reference
 * here), or, where WebAssembly is unavailable (a CSP that forbids it), our unrolled
 * JavaScript one (about 6 times faster). Both are checked against @noble/hashes.
 */
export const defaultKeccak256: Keccak256 = wasmKeccak256 ?? fastKeccak256;

/**
 * What a caller that reads a digest at once and keeps none of it (a bloom's bits) hashes with where it was given
 * `keccak`: the default's digest without its copy ({@link wasmKeccak256Transient}, overwritten by the default's next
 * call), any other function itself.
 */
export const transientKeccak256 = (keccak: Keccak256): Keccak256 =>
  keccak === defaultKeccak256 ? (wasmKeccak256Transient ?? keccak) : keccak;

/**
 * How a caller with two inputs to hash at once (sibling trie leaves) hashes them where it was given `keccak`: the
 * default's two-lane module ({@link wasmKeccak256Pair}), where `keccak` is the default and the host runs that module;
 * undefined otherwise, and the caller then hashes them one at a time with `keccak`.
 */
export const pairKeccak256 = (keccak: Keccak256): Keccak256Pair | undefined =>
  keccak === defaultKeccak256 && keccak === wasmKeccak256 ? wasmKeccak256Pair() : undefined;

/** Options shared by every core function that hashes. */
export interface HashOptions {
  /** Keccak-256 implementation; {@link defaultKeccak256} when absent. */
  keccak?: Keccak256;
}
