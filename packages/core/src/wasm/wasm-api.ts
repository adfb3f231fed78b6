/**
 * The part of the WebAssembly JavaScript API the library's modules use (the Keccak, the JSON scanner): declared here
 * because the DOM's types, where it is declared, are not in our tsconfig.
 */

/** `WebAssembly`'s constructors of a module and of an instance. */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** An instance's exported memory. */
export interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The host's `WebAssembly`; undefined where it has none (or a policy hides it). */
export const webAssembly = (): WasmApi | undefined => (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
