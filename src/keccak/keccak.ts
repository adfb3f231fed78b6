import { keccak_256 } from '@noble/hashes/sha3.js';
import { fastKeccak256 } from './fast-keccak.js';

/**
 * The one hashing interface of the core: Keccak-256 of a byte string, 32 bytes out.
 * Every core function takes an optional `keccak` so that a faster implementation
 * (WASM, native) can be plugged in without touching the algorithms.
 */
export type Keccak256 = (data: Uint8Array) => Uint8Array;

/** Keccak-256 from @noble/hashes: the audited reference implementation. */
export const nobleKeccak256: Keccak256 = (data) => keccak_256(data);

/**
 * The default implementation: our unrolled Keccak-256, several times faster than
 * the reference on trie nodes and bloom items, and checked against it in the tests.
 */
export const defaultKeccak256: Keccak256 = fastKeccak256;

/** Options shared by every core function that hashes. */
export interface HashOptions {
  /** Keccak-256 implementation; {@link defaultKeccak256} when absent. */
  keccak?: Keccak256;
}
