/**
 * The memory of the WebAssembly Keccak-256 module, which its generator (keccak-module.ts) and its instances
 * (wasm-keccak.ts) share: the round constants, the digest, then the input, padded in place.
 */

/** Where the 24 round constants lie, 8 bytes each, written by each instance before its first hash. */
export const RC_OFF = 0;
/** Where `hash` writes the 32-byte digest. */
export const OUT_OFF = 24 * 8;
/** Where an instance copies an input, with the rate's bytes after it free for the padding. */
export const IN_OFF = 256;
