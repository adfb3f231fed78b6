import { keccak_256 } from '@noble/hashes/sha3.js';
import { fastKeccak256 } from './fast-keccak.js';
import { wasmKeccak256 } from './wasm-keccak.js';

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

/** Options shared by every core function that hashes. */
export interface HashOptions {
  /** Keccak-256 implementation; {@link defaultKeccak256} when absent. */
  keccak?: Keccak256;
}
