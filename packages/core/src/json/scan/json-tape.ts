/**
 * A JSON text read by the WebAssembly scanner (scan-module.ts, its bytes in scan-wasm.ts) into a tape of tokens and an arena of the bytes of its hex
 * strings: what a reader of a block's JSON walks instead of the objects `JSON.parse` builds. Where the scanner does not
 * read a text (not JSON, an escape, a byte above 0x7f, too deep, no WebAssembly), {@link scanJson} answers undefined
 * and its caller reads the text with `JSON.parse`, as before: the scanner adds a way in, not a second set of rules.
 */
import { LAYOUT, TAPE_FULL, TOKEN_WORDS } from './scan-layout.js';
import { SCANNER_MODULE, SCANNER_TABLES } from './scan-wasm.js';
import { webAssembly, type WasmMemory } from '../../wasm/wasm-api.js';

/**
 * A scanned text. Token `i` is `words[TOKEN_WORDS * i]` (its kind, one of scan-layout.ts' TOKEN) and the operands after it;
 * offsets into the text count its characters (it is ASCII), offsets into `bytes` its bytes.
 */
export interface JsonTape {
  /** The text scanned. */
  readonly text: string;
  /** The tokens, {@link TOKEN_WORDS} words each, in the text's order. */
  readonly words: Uint32Array;
  /** How many tokens. */
  readonly count: number;
  /** The bytes of every hex string, decoded, each at its token's arena offset. */
  readonly bytes: Uint8Array;
  /** How many `[` and `{` the text holds, and how many `,` and `:`, in strings or not: what a body's budget counts. */
  readonly marks: { readonly brackets: number; readonly separators: number };
}

type Scan = (text: number, length: number, tape: number, capacity: number, arena: number) => number;

interface Scanner {
  memory: WasmMemory;
  scan: Scan;
}

const PAGE = 65536;
/** Zero bytes after the text: the scanner reads past a token's last byte (a literal's four, a number's next) into them. */
const PADDING = 8;
/** Tokens the first scan leaves room for, a text's length over this: a block's JSON takes one token in 20 bytes or more. */
const BYTES_A_TOKEN = 4;

const encoder = new TextEncoder();
/** The scanner, made at the first scan; null where WebAssembly is missing or refuses it, or the host is big-endian. */
let scanner: Scanner | null | undefined;

/** The bytes of base64 `text` (`atob`: in browsers and in Node). */
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

function instantiate(): Scanner | null {
  const wasm = webAssembly();
  // The tape is read as 32-bit words of the host's order; WebAssembly's are little-endian.
  if (wasm === undefined || new Uint8Array(Uint32Array.of(1).buffer)[0] !== 1) return null;
  try {
    const instance = new wasm.Instance(new wasm.Module(fromBase64(SCANNER_MODULE)), {});
    const memory = instance.exports['memory'] as WasmMemory;
    new Uint8Array(memory.buffer).set(fromBase64(SCANNER_TABLES), LAYOUT.stringClass);
    return { memory, scan: instance.exports['scan'] as Scan };
  } catch {
    return null;
  }
}

/** Grows the memory to at least `bytes`; false where it cannot. */
function reserve(memory: WasmMemory, bytes: number): boolean {
  const short = bytes - memory.buffer.byteLength;
  if (short <= 0) return true;
  try {
    memory.grow(Math.ceil(short / PAGE));
    return true;
  } catch {
    return false;
  }
}

const align = (offset: number) => (offset + 15) & ~15;

/**
 * `text` scanned into a {@link JsonTape}; undefined where the scanner does not read it (see the module's comment), so
 * that the caller reads it with `JSON.parse`. The tape and bytes are the caller's: copied out of the scanner's memory,
 * which the next scan reuses.
 * @example
 * const tape = scanJson('{"a":"0x0102"}')!;
 * tape.count // 4: `{`, the name, the hex string, `}`
 * tape.bytes // Uint8Array [1, 2]
 */
export function scanJson(text: string): JsonTape | undefined {
  scanner ??= instantiate();
  if (scanner === null) return undefined;
  const { memory, scan } = scanner;
  const length = text.length;
  const start = LAYOUT.free;
  const tape = align(start + length + PADDING);
  const arenaAfter = (capacity: number) => tape + capacity * TOKEN_WORDS * 4;
  let capacity = Math.ceil(length / BYTES_A_TOKEN) + 16;
  if (!reserve(memory, arenaAfter(capacity) + Math.ceil(length / 2))) return undefined;
  const { read, written } = encoder.encodeInto(text, new Uint8Array(memory.buffer, start, length));
  if (read !== length || written !== length) return undefined; // a character above U+007F
  new Uint8Array(memory.buffer).fill(0, start + length, start + length + PADDING);
  let count = scan(start, length, tape, capacity, arenaAfter(capacity));
  if (count === TAPE_FULL) {
    // A token takes a byte at least: room for a token a byte cannot fall short. Growing keeps the text in place.
    capacity = length + 1;
    if (!reserve(memory, arenaAfter(capacity) + Math.ceil(length / 2))) return undefined;
    count = scan(start, length, tape, capacity, arenaAfter(capacity));
  }
  if (count <= 0) return undefined;
  const bytes = new Uint8Array(memory.buffer);
  const arena = arenaAfter(capacity);
  const [arenaLength, brackets, separators] = new Uint32Array(memory.buffer, LAYOUT.arenaLength, 3);
  return {
    text,
    words: new Uint32Array(bytes.slice(tape, tape + count * TOKEN_WORDS * 4).buffer),
    count,
    bytes: bytes.slice(arena, arena + arenaLength!),
    marks: { brackets: brackets!, separators: separators! },
  };
}
