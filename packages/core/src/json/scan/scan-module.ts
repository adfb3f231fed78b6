/**
 * The JSON scanner in WebAssembly: one pass over a JSON text's bytes that checks the grammar (RFC 8259: objects,
 * arrays, strings, numbers, literals, whitespace), writes one token a value, member name and bracket to a tape,
 * decodes every `"0x…"` string whose digits are all hex into one arena of bytes, and counts the marks a body's budget
 * counts (api/json-body.ts: `[` and `{`, `,` and `:`, in strings or not). It exists for speed: `JSON.parse`
 * builds an object and a string for everything a block holds, where a reader of the block's hex wants its bytes, and a
 * scanner in JavaScript, one character code at a time, was measured slower than `JSON.parse` itself (docs/speed.md, "A
 * block from a node's JSON text").
 *
 * It takes only what it can read plainly, and answers 0 for anything else, so that its caller reads that text with
 * `JSON.parse`, which gives the messages: a text that is not JSON, and JSON it does not read (an escape in a string,
 * a byte above 0x7f, nesting deeper than scan-layout.ts' MAX_SCAN_DEPTH). Its bytes are written by the emitter of the Keccak
 * module (wasm/emitter.ts) from the listing below, and kept with its tables in scan-wasm.ts (scripts/gen-scanner.ts,
 * compared by test/json-scan.test.ts): emitting them took a process some 20 ms.
 */
import { Code, emitModule, I32, I64, type ValType } from '../../wasm/emitter.js';
import { LAYOUT, TAPE_FULL, TOKEN, TOKEN_WORDS } from './scan-layout.js';

const TOKEN_BYTES = TOKEN_WORDS * 4;

/**
 * A byte's class inside a string: the marks a body's budget counts (api/json-body.ts) apart, `[` and `{`, then `,` and
 * `:`, so that the scanner counts those a string holds, as it counts those outside one.
 */
const STRING_CLASS = { hexDigit: 0, other: 1, bracket: 2, separator: 3, quote: 4, refused: 5 } as const;
/** A byte's class where a token may start: the order of the dispatch below. */
const TOKEN_CLASS = {
  refused: 0,
  objectOpen: 1,
  objectClose: 2,
  arrayOpen: 3,
  arrayClose: 4,
  comma: 5,
  colon: 6,
  quote: 7,
  number: 8,
  t: 9,
  f: 10,
  n: 11,
  whitespace: 12,
} as const;

const code = (char: string) => char.charCodeAt(0);
const isHexDigit = (byte: number) => /^[0-9a-fA-F]$/.test(String.fromCharCode(byte));

/** The three tables the module reads, laid out at LAYOUT.stringClass, .nibble and .tokenClass. */
export function scanTables(): Uint8Array {
  const tables = new Uint8Array(768);
  for (let byte = 0; byte < 256; byte++) {
    // A string holds any character from U+0020 but `"` and `\`; an escape and a byte above 0x7f go to JSON.parse.
    tables[LAYOUT.stringClass + byte] = isHexDigit(byte)
      ? STRING_CLASS.hexDigit
      : byte === code('"')
        ? STRING_CLASS.quote
        : byte === code('[') || byte === code('{')
          ? STRING_CLASS.bracket
          : byte === code(',') || byte === code(':')
            ? STRING_CLASS.separator
            : byte >= 0x20 && byte < 0x80 && byte !== code('\\')
              ? STRING_CLASS.other
              : STRING_CLASS.refused;
    tables[LAYOUT.nibble + byte] = isHexDigit(byte) ? parseInt(String.fromCharCode(byte), 16) : 0;
  }
  const starts: Array<[string, number]> = [
    ['{', TOKEN_CLASS.objectOpen],
    ['}', TOKEN_CLASS.objectClose],
    ['[', TOKEN_CLASS.arrayOpen],
    [']', TOKEN_CLASS.arrayClose],
    [',', TOKEN_CLASS.comma],
    [':', TOKEN_CLASS.colon],
    ['"', TOKEN_CLASS.quote],
    ['-0123456789', TOKEN_CLASS.number],
    ['t', TOKEN_CLASS.t],
    ['f', TOKEN_CLASS.f],
    ['n', TOKEN_CLASS.n],
    [' \t\n\r', TOKEN_CLASS.whitespace],
  ];
  for (const [chars, tokenClass] of starts)
    for (const char of chars) tables[LAYOUT.tokenClass + code(char)] = tokenClass;
  return tables;
}

/**
 * What the scanner expects next: a value (at the start, after `:`, after `,` in an array), a value or `]` (after `[`),
 * a member's name or `}` (after `{`), a name (after `,` in an object), `:` (after a name), or `,` or the close of the
 * open object or array, or the text's end (after a value).
 */
const EXPECT = { value: 0, valueOrClose: 1, keyOrClose: 2, key: 3, colon: 4, afterValue: 5 } as const;

/** Little-endian words of the literals' letters: `true`, `alse` (after the f), `null`. */
const LITERAL_WORDS = { true: 0x65757274, alse: 0x65736c61, null: 0x6c6c756e } as const;

/**
 * SWAR, SIMD within a register: eight characters tested and decoded as one i64, without a branch or a table a character.
 * A byte b below 0x80 lies in [lo, hi] exactly when the high bit of (b + 0x80 - lo) xor (b + 0x7f - hi) is set (neither
 * sum carries into the next byte); a hex digit's value is its low nibble, plus 9 where bit 6 marks a letter.
 */
const SWAR = {
  /** `byte` in each of the eight bytes. */
  each: (byte: number) => BigInt(byte) * 0x0101010101010101n,
  /** `value` in each of the four 16-bit lanes. */
  lanes16: (value: number) => BigInt(value) * 0x0001000100010001n,
};

/**
 * The module's bytes. It exports its memory and `scan(text, length, tape, capacity, arena)`: the token count of the
 * text's `length` bytes at `text` (at least 8 zero bytes after them), written from `tape`; 0 where it does not read
 * the text; {@link TAPE_FULL} where more than `capacity` tokens would be needed.
 */
export function scanModuleBytes(): Uint8Array {
  // Parameters, then locals; all i32.
  const [TEXT, LENGTH, TAPE, CAPACITY, ARENA] = [0, 1, 2, 3, 4];
  const [P, END, T, TAPE_END, A, SP, EXPECTED, C, S, Q, HEX_START, X] = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
  /** Eight characters of a string, loaded as one i64. */
  const W = 17;
  /** The text's `[` and `{`, and its `,` and `:`, in strings or not: what a body's budget counts. */
  const [BRACKETS, SEPARATORS] = [18, 19];
  const c = new Code();

  /** Pushes whether all eight bytes of W (each below 0x80: the text is ASCII) are hex digits (see SWAR). */
  const eightDigits = () => {
    c.get(W)
      .i64Const(SWAR.each(0x80 - 0x30))
      .i64Add();
    c.get(W)
      .i64Const(SWAR.each(0x7f - 0x39))
      .i64Add();
    c.i64Xor(); // high bit of each byte: '0' to '9'
    c.get(W)
      .i64Const(SWAR.each(0x20))
      .i64Or()
      .i64Const(SWAR.each(0x80 - 0x61))
      .i64Add();
    c.get(W)
      .i64Const(SWAR.each(0x20))
      .i64Or()
      .i64Const(SWAR.each(0x7f - 0x66))
      .i64Add();
    c.i64Xor(); // 'a' to 'f', either case
    c.i64Or().i64Const(SWAR.each(0x80)).i64And().i64Const(SWAR.each(0x80)).i64Eq();
  };
  /** Pushes the four bytes that W's eight hex digits spell, in the i64's low 32 bits (see SWAR). */
  const decodeEight = () => {
    // Each digit's value in its byte: its low nibble, plus 9 for a letter (bit 6 set).
    c.get(W).i64Const(SWAR.each(0x0f)).i64And();
    c.get(W).i64Const(6n).i64ShrU().i64Const(SWAR.each(0x01)).i64And().i64Const(9n).i64Mul();
    c.i64Add().set(W);
    // Each 16-bit lane's two digits, the first the high nibble, as the lane's low byte.
    c.get(W).i64Const(SWAR.lanes16(0x00ff)).i64And().i64Const(4n).i64Shl();
    c.get(W).i64Const(8n).i64ShrU().i64Const(SWAR.lanes16(0x00ff)).i64And();
    c.i64Or().tee(W);
    // The four low bytes gathered into the low 32 bits.
    c.get(W).i64Const(8n).i64ShrU().i64Or().i64Const(0x0000ffff0000ffffn).i64And().tee(W);
    c.get(W).i64Const(16n).i64ShrU().i64Or();
  };

  /** Pushes the index of the token T points at. */
  const tokenIndex = () => c.get(T).get(TAPE).i32Sub().i32Const(4).i32ShrU();
  /** Writes a token at T, each operand pushed by its function, and moves T on. */
  const emit = (kind: number, ...operands: Array<() => void>) => {
    c.get(T).i32Const(kind).i32Store(0);
    operands.forEach((operand, i) => {
      c.get(T);
      operand();
      c.i32Store(4 * (i + 1));
    });
    c.get(T).i32Const(TOKEN_BYTES).i32Add().set(T);
  };
  const textOffset = (local: number) => () => c.get(local).get(TEXT).i32Sub();
  const advance = (local: number, by: number) => c.get(local).i32Const(by).i32Add().set(local);
  const expect = (state: number) => c.i32Const(state).set(EXPECTED);
  /** Fails unless a value may start here. */
  const valueExpected = () => c.get(EXPECTED).i32Const(EXPECT.keyOrClose).i32GeU().brIf('fail');
  /** Pushes whether the byte at P is a digit. */
  const digitAtP = () => c.get(P).i32Load8U().i32Const(code('0')).i32Sub().i32Const(10).i32LtU();
  /** Moves P over the digits there. */
  const digits = () => {
    c.block('digitsEnd').loop('digits');
    digitAtP();
    c.i32Eqz().brIf('digitsEnd');
    advance(P, 1);
    c.br('digits').end().end();
  };
  const oneOrMoreDigits = () => {
    digitAtP();
    c.i32Eqz().brIf('fail');
    digits();
  };

  c.get(TEXT).set(P);
  c.get(TEXT).get(LENGTH).i32Add().set(END);
  c.get(TAPE).set(T);
  c.get(TAPE).get(CAPACITY).i32Const(4).i32Shl().i32Add().set(TAPE_END); // capacity × TOKEN_BYTES
  c.get(ARENA).set(A);
  c.i32Const(LAYOUT.stack).set(SP);
  expect(EXPECT.value);

  c.block('fail').block('done').loop('main');
  c.get(P).get(END).i32GeU().brIf('done');
  c.get(T).get(TAPE_END).i32GeU().if().i32Const(TAPE_FULL).return().end();
  // One block a token class, the innermost first: br_table leaves the block of the class, and its code follows.
  const cases = Object.keys(TOKEN_CLASS) as Array<keyof typeof TOKEN_CLASS>;
  for (const name of [...cases].reverse()) c.block(name);
  c.get(P).i32Load8U().i32Load8U(LAYOUT.tokenClass).brTable(cases, 'refused');

  c.end(); // refused
  c.br('fail');

  const open = (kind: number, next: number) => {
    valueExpected();
    c.get(SP).i32Const(LAYOUT.free).i32GeU().brIf('fail'); // deeper than MAX_SCAN_DEPTH
    c.get(SP);
    tokenIndex();
    c.i32Store(0);
    c.get(SP).i32Const(0).i32Store(4);
    c.get(SP).i32Const(kind).i32Store(8);
    advance(SP, 16);
    advance(BRACKETS, 1);
    emit(
      kind,
      () => c.i32Const(0),
      textOffset(P),
      () => c.i32Const(0),
    );
    advance(P, 1);
    expect(next);
    c.br('main');
  };
  const close = (startKind: number, endKind: number, empty: number) => {
    c.get(SP).i32Const(LAYOUT.stack).i32Eq().brIf('fail'); // nothing open
    c.get(SP).i32Const(16).i32Sub().tee(X).i32Load(8).i32Const(startKind).i32Ne().brIf('fail');
    // After a value the count takes it in; right after the opening bracket the container is empty.
    c.get(EXPECTED).i32Const(EXPECT.afterValue).i32Eq().if();
    c.get(X).get(X).i32Load(4).i32Const(1).i32Add().i32Store(4);
    c.else();
    c.get(EXPECTED).i32Const(empty).i32Ne().brIf('fail');
    c.end();
    // The start's token learns where it ends and how many it holds.
    c.get(X).i32Load(0).set(C);
    c.get(TAPE).get(C).i32Const(4).i32Shl().i32Add().tee(Q);
    tokenIndex();
    c.i32Store(4);
    c.get(Q).get(X).i32Load(4).i32Store(12);
    emit(endKind, () => c.get(C), textOffset(P));
    c.get(X).set(SP);
    advance(P, 1);
    expect(EXPECT.afterValue);
    c.br('main');
  };

  c.end(); // objectOpen
  open(TOKEN.objectStart, EXPECT.keyOrClose);
  c.end(); // objectClose
  close(TOKEN.objectStart, TOKEN.objectEnd, EXPECT.keyOrClose);
  c.end(); // arrayOpen
  open(TOKEN.arrayStart, EXPECT.valueOrClose);
  c.end(); // arrayClose
  close(TOKEN.arrayStart, TOKEN.arrayEnd, EXPECT.valueOrClose);

  c.end(); // comma
  c.get(EXPECTED).i32Const(EXPECT.afterValue).i32Ne().brIf('fail');
  advance(SEPARATORS, 1);
  c.get(SP).i32Const(LAYOUT.stack).i32Eq().brIf('fail'); // a comma after the top value
  c.get(SP).i32Const(16).i32Sub().tee(X).get(X).i32Load(4).i32Const(1).i32Add().i32Store(4);
  c.get(X).i32Load(8).i32Const(TOKEN.objectStart).i32Eq().if();
  expect(EXPECT.key);
  c.else();
  expect(EXPECT.value);
  c.end();
  advance(P, 1);
  c.br('main');

  c.end(); // colon
  c.get(EXPECTED).i32Const(EXPECT.colon).i32Ne().brIf('fail');
  advance(SEPARATORS, 1);
  expect(EXPECT.value);
  advance(P, 1);
  c.br('main');

  c.end(); // quote
  c.get(EXPECTED).i32Const(EXPECT.colon).i32GeU().brIf('fail'); // a string is a name or a value
  advance(P, 1);
  c.get(P).tee(S).set(Q);
  c.block('plain');
  // A value "0x…" is read as hex, its digits decoded as they are read: eight at a time while eight are digits.
  c.get(EXPECTED).i32Const(EXPECT.keyOrClose).i32GeU().brIf('plain');
  c.get(S)
    .i32Load16U()
    .i32Const(code('0') | (code('x') << 8))
    .i32Ne()
    .brIf('plain');
  c.get(S).i32Const(2).i32Add().tee(X).set(Q);
  c.get(A).set(HEX_START);
  c.loop('eights');
  c.get(Q).i64Load(0, 0).set(W);
  eightDigits();
  c.if();
  c.get(A);
  decodeEight();
  c.i64Store32(0, 0);
  advance(A, 4);
  advance(Q, 8);
  c.br('eights').end();
  c.end();
  c.loop('digits');
  c.get(Q).i32Load8U().i32Load8U(LAYOUT.stringClass).i32Eqz().if();
  advance(Q, 1);
  c.br('digits').end();
  c.end();
  // Not a digit and not the end: a string that is not hex, read again as one from here (all before is characters).
  c.get(Q).i32Load8U().i32Const(code('"')).i32Ne().if();
  c.get(HEX_START).set(A);
  c.br('plain').end();
  // The digits still to decode, a pair a byte: where the eights left off; all of them after a first nibble where
  // their count is odd (the low nibble of the first byte, as a quantity's leading digit is), the eights being a digit off.
  c.get(Q).get(X).i32Sub().i32Const(1).i32And().if();
  c.get(HEX_START).set(A);
  c.get(A).get(X).i32Load8U().i32Load8U(LAYOUT.nibble).i32Store8();
  advance(A, 1);
  c.get(X).i32Const(1).i32Add().set(C);
  c.else();
  c.get(A).get(HEX_START).i32Sub().i32Const(1).i32Shl().get(X).i32Add().set(C);
  c.end();
  c.block('pairsEnd').loop('pairs');
  c.get(C).get(Q).i32GeU().brIf('pairsEnd');
  c.get(A);
  c.get(C).i32Load8U().i32Load8U(LAYOUT.nibble).i32Const(4).i32Shl();
  c.get(C).i32Load8U(1).i32Load8U(LAYOUT.nibble).i32Or();
  c.i32Store8();
  advance(A, 1);
  advance(C, 2);
  c.br('pairs').end().end();
  emit(
    TOKEN.hex,
    textOffset(X),
    () => c.get(Q).get(X).i32Sub(),
    () => c.get(HEX_START).get(ARENA).i32Sub(),
  );
  expect(EXPECT.afterValue);
  c.get(Q).i32Const(1).i32Add().set(P);
  c.br('main');
  c.end(); // plain: a name, or a value that is not hex, read from Q on
  c.loop('chars');
  c.get(Q).i32Load8U().i32Load8U(LAYOUT.stringClass).tee(C).i32Const(STRING_CLASS.quote).i32LtU().if();
  c.get(C).i32Const(STRING_CLASS.bracket).i32GeU().if();
  c.get(C).i32Const(STRING_CLASS.bracket).i32Eq().if();
  advance(BRACKETS, 1);
  c.else();
  advance(SEPARATORS, 1);
  c.end();
  c.end();
  advance(Q, 1);
  c.br('chars').end();
  c.end();
  c.get(C).i32Const(STRING_CLASS.quote).i32Ne().brIf('fail'); // an escape, a control character or a byte above 0x7f
  c.get(EXPECTED).i32Const(EXPECT.keyOrClose).i32GeU().if();
  emit(TOKEN.key, textOffset(S), () => c.get(Q).get(S).i32Sub());
  expect(EXPECT.colon);
  c.else();
  emit(TOKEN.string, textOffset(S), () => c.get(Q).get(S).i32Sub());
  expect(EXPECT.afterValue);
  c.end();
  c.get(Q).i32Const(1).i32Add().set(P);
  c.br('main');

  c.end(); // number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  valueExpected();
  c.get(P).set(S);
  c.get(P).i32Load8U().i32Const(code('-')).i32Eq().if();
  advance(P, 1);
  c.end();
  c.get(P).i32Load8U().i32Const(code('0')).i32Eq().if();
  advance(P, 1);
  c.else();
  oneOrMoreDigits();
  c.end();
  c.get(P).i32Load8U().i32Const(code('.')).i32Eq().if();
  advance(P, 1);
  oneOrMoreDigits();
  c.end();
  c.get(P).i32Load8U().i32Const(0x20).i32Or().i32Const(code('e')).i32Eq().if();
  advance(P, 1);
  c.get(P).i32Load8U().tee(C).i32Const(code('+')).i32Eq().get(C).i32Const(code('-')).i32Eq().i32Or().if();
  advance(P, 1);
  c.end();
  oneOrMoreDigits();
  c.end();
  emit(TOKEN.number, textOffset(S), () => c.get(P).get(S).i32Sub());
  expect(EXPECT.afterValue);
  c.br('main');

  const literal = (kind: number, word: number, at: number, length: number) => {
    valueExpected();
    c.get(P).i32Load(at, 0).i32Const(word).i32Ne().brIf('fail');
    emit(kind, textOffset(P));
    advance(P, length);
    expect(EXPECT.afterValue);
    c.br('main');
  };
  c.end(); // t
  literal(TOKEN.true, LITERAL_WORDS.true, 0, 4);
  c.end(); // f
  literal(TOKEN.false, LITERAL_WORDS.alse, 1, 5);
  c.end(); // n
  literal(TOKEN.null, LITERAL_WORDS.null, 0, 4);

  c.end(); // whitespace
  advance(P, 1);
  c.br('main');

  c.end(); // main
  c.end(); // done: one value read, nothing left open
  c.get(SP).i32Const(LAYOUT.stack).i32Eq().get(EXPECTED).i32Const(EXPECT.afterValue).i32Eq().i32And().if();
  c.i32Const(LAYOUT.arenaLength).get(A).get(ARENA).i32Sub().i32Store(0);
  c.i32Const(LAYOUT.marks).get(BRACKETS).i32Store(0);
  c.i32Const(LAYOUT.marks).get(SEPARATORS).i32Store(4);
  tokenIndex();
  c.return().end();
  c.end(); // fail
  c.i32Const(0);

  return emitModule({
    funcs: [
      {
        params: [I32, I32, I32, I32, I32],
        results: [I32],
        locals: [...Array<ValType>(12).fill(I32), I64, I32, I32],
        code: c,
        export: 'scan',
      },
    ],
    memory: { minPages: 1, export: 'memory' },
  });
}
