/**
 * What the JSON scanner (scan-module.ts) and its readers share: the tape's tokens and the module's memory.
 */

/** What a token of the tape is: its first word. */
export const TOKEN = {
  /** `{`: its end's token index, the text offset of `{`, its member count. */
  objectStart: 1,
  /** `}`: its start's token index, the text offset of `}`. */
  objectEnd: 2,
  /** `[`: its end's token index, the text offset of `[`, its element count. */
  arrayStart: 3,
  /** `]`: its start's token index, the text offset of `]`. */
  arrayEnd: 4,
  /** A member's name: the text offset of its first character (after the quote), its length. */
  key: 5,
  /** A string that is not hex: as a key. */
  string: 6,
  /** A string `"0x"` and hex digits: the text offset of the first digit, the digit count, the arena offset of its bytes. */
  hex: 7,
  /** A number: its text offset, its length. */
  number: 8,
  /** `true`, `false`, `null`: the text offset. */
  true: 9,
  false: 10,
  null: 11,
} as const;

/** Words (32-bit, little-endian) a token takes on the tape: its kind, then up to three operands. */
export const TOKEN_WORDS = 4;

/**
 * The deepest nesting the scanner reads (the value itself is level 1): the library's bound on any JSON it reads
 * (json/depth.ts' MAX_JSON_DEPTH), past which the text goes to `JSON.parse` and the reader that names the path.
 */
export const MAX_SCAN_DEPTH = 64;

/**
 * The memory's layout: three tables of 256 bytes, the arena's length and the marks' counts when a scan ends, the stack,
 * then the caller's.
 */
export const LAYOUT = {
  /** A byte's class inside a string (scan-module.ts' STRING_CLASS). */
  stringClass: 0,
  /** A hex digit's value. */
  nibble: 256,
  /** A byte's class where a token starts (scan-module.ts' TOKEN_CLASS). */
  tokenClass: 512,
  /** Where a successful scan leaves the count of arena bytes it wrote. */
  arenaLength: 768,
  /** Where a successful scan leaves the text's count of `[` and `{`, then of `,` and `:` (in strings or not). */
  marks: 772,
  /** One entry of 16 bytes an open object or array: its start's token index, its count so far, its kind. */
  stack: 1024,
  /** The first byte the caller lays out (text, tape, arena). */
  free: 1024 + MAX_SCAN_DEPTH * 16,
} as const;

/** A value of the `scan` export that is no token count: the tape was full, so the caller gives it room and scans again. */
export const TAPE_FULL = -1;
