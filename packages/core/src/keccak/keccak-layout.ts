/**
 * The memory of the WebAssembly Keccak-256 module, which its generator (keccak-module.ts) and its instances
 * (wasm-keccak.ts) share: the round constants, the digest, then the input, padded in place.
 */

import { RC } from './keccak-tables.js';

/** Where the 24 round constants lie, 8 bytes each, written by each instance before its first hash. */
export const RC_OFF = 0;
/** Where `hash` writes the 32-byte digest. */
export const OUT_OFF = 24 * 8;
/** Where an instance copies an input, with the rate's bytes after it free for the padding. */
export const IN_OFF = 256;

/** Writes the round constants at RC_OFF of a module instance's memory, as each instance must before its first hash. */
export function writeRoundConstants(memory: ArrayBuffer): void {
  const view = new DataView(memory);
  RC.forEach(([low, high], i) => {
    view.setUint32(RC_OFF + 8 * i, low, true);
    view.setUint32(RC_OFF + 8 * i + 4, high, true);
  });
}
