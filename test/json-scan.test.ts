import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanJson, type JsonTape } from '../packages/core/src/json/scan/json-tape.js';
import { MAX_SCAN_DEPTH, TOKEN, TOKEN_WORDS } from '../packages/core/src/json/scan/scan-layout.js';
import { TapeReader } from '../packages/core/src/json/scan/tape-value.js';
import { generateScanWasm } from '../scripts/gen-scanner.js';
import { runs } from './helpers/runs.js';

/**
 * The WebAssembly JSON scanner against JSON.parse, its oracle: every text it reads, it reads as JSON.parse does (the
 * value rebuilt from its tape is JSON.parse's, each hex string's bytes Node's decoding of its digits); every text
 * JSON.parse refuses, it refuses; and it refuses, for JSON.parse to read, only what it says it leaves out (an escape, a
 * character above U+007F, nesting deeper than MAX_SCAN_DEPTH).
 */

/** Node's decoding of hex digits, an odd count read with a leading zero: independent of the scanner's tables. */
const decodeDigits = (digits: string) => Buffer.from(digits.length % 2 === 0 ? digits : `0${digits}`, 'hex');

/** Throws `message` unless `holds`: a check per token, cheaper than an expect per token over every fixture. */
function check(holds: boolean, message: string): void {
  if (!holds) throw new Error(message);
}

/** The value a tape holds, rebuilt token by token; checks each hex token's bytes and each container's count and end. */
function rebuild(tape: JsonTape): unknown {
  const { text, words, bytes } = tape;
  let i = 0;
  const word = (token: number, n: number) => words[token * TOKEN_WORDS + n]!;
  const value = (): unknown => {
    const token = i++;
    const [kind, a, b, c] = [0, 1, 2, 3].map((n) => word(token, n));
    switch (kind) {
      case TOKEN.objectStart:
      case TOKEN.arrayStart: {
        const isObject = kind === TOKEN.objectStart;
        const out: Record<string, unknown> | unknown[] = isObject ? {} : [];
        let count = 0;
        while (word(i, 0) !== (isObject ? TOKEN.objectEnd : TOKEN.arrayEnd)) {
          if (isObject) {
            check(word(i, 0) === TOKEN.key, `token ${i} is not a member's name`);
            const name = text.slice(word(i, 1), word(i, 1) + word(i, 2));
            i++;
            // Defined, not set: a member named __proto__ is JSON.parse's own member, as here.
            Object.defineProperty(out, name, { value: value(), enumerable: true, writable: true, configurable: true });
          } else (out as unknown[]).push(value());
          count++;
        }
        check(a === i && word(i, 1) === token, `token ${token} and its end ${i} do not name each other`);
        check(c === count, `token ${token} counts ${c} members or elements, not ${count}`);
        check(
          `${text[b!]}${text[word(i, 2)]}` === (isObject ? '{}' : '[]'),
          `tokens ${token} and ${i} are not at brackets`,
        );
        i++;
        return out;
      }
      case TOKEN.string: {
        const string = text.slice(a, a! + b!);
        check(!/^0x[0-9a-fA-F]*$/.test(string), `token ${token}, ${string}, is hex but not read as hex`);
        return string;
      }
      case TOKEN.hex: {
        const digits = text.slice(a, a! + b!);
        check(/^[0-9a-fA-F]*$/.test(digits), `token ${token}, 0x${digits}, is read as hex`);
        check(text.slice(a! - 2, a) === '0x', `hex token ${token} is not after 0x`);
        const decoded = Buffer.from(bytes.subarray(c, c! + Math.ceil(b! / 2)));
        check(decoded.equals(decodeDigits(digits)), `hex token ${token} has ${decoded.toString('hex')} for ${digits}`);
        return `0x${digits}`;
      }
      case TOKEN.number:
        return JSON.parse(text.slice(a, a! + b!));
      case TOKEN.true:
        return text.startsWith('true', a) && true;
      case TOKEN.false:
        return text.startsWith('false', a) ? false : 'not false';
      case TOKEN.null:
        return text.startsWith('null', a) ? null : 'not null';
      default:
        throw new Error(`token ${token} has kind ${kind}`);
    }
  };
  const result = value();
  check(i === tape.count, `${tape.count} tokens, ${i} read`);
  return result;
}

/** JSON.parse's value, or a mark that it refused the text. */
function parsed(text: string): unknown {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return 'refused';
  }
}

/** How deep `value` nests, itself level 1 (0 for a scalar). */
const depthOf = (value: unknown): number =>
  typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

/** Whether the scanner says it reads `text`, by its own account: ASCII, no escape, not too deep. */
const readable = (text: string, value: unknown) =>
  [...text].every((char) => char.charCodeAt(0) < 0x80) && !text.includes('\\') && depthOf(value) <= MAX_SCAN_DEPTH;

/** The scanner's answer on `text` against JSON.parse's, as the module's comment says it must be. */
function expectAsJsonParse(text: string): void {
  const tape = scanJson(text);
  const oracle = parsed(text);
  if (oracle === 'refused') return void expect(tape).toBeUndefined();
  const { value } = oracle as { value: unknown };
  if (!readable(text, value)) return void expect(tape).toBeUndefined();
  expect(tape).toBeDefined();
  expect(rebuild(tape!)).toEqual(value);
  expect(tape!.marks).toEqual(marksOf(text));
}

/** The marks a body's budget counts in `text`, in strings or not, counted a character at a time (the scanner's oracle). */
function marksOf(text: string) {
  let [brackets, separators] = [0, 0];
  for (const char of text) {
    if (char === '[' || char === '{') brackets++;
    if (char === ',' || char === ':') separators++;
  }
  return { brackets, separators };
}

describe('the JSON scanner', () => {
  it('reads a block text into tokens and the bytes of its hex', () => {
    const tape = scanJson('{"a":"0x0102","b":["0x1",7]}')!;
    const kinds = Array.from({ length: tape.count }, (_, i) => tape.words[i * TOKEN_WORDS]);
    expect(kinds).toEqual([
      TOKEN.objectStart,
      TOKEN.key,
      TOKEN.hex,
      TOKEN.key,
      TOKEN.arrayStart,
      TOKEN.hex,
      TOKEN.number,
      TOKEN.arrayEnd,
      TOKEN.objectEnd,
    ]);
    expect([...tape.bytes]).toEqual([1, 2, 1]);
    // The object's start knows its end (token 8) and its two members; the array its end (7) and two elements.
    expect([tape.words[1], tape.words[3]]).toEqual([8, 2]);
    expect([tape.words[4 * TOKEN_WORDS + 1], tape.words[4 * TOKEN_WORDS + 3]]).toEqual([7, 2]);
  });

  it.each([
    '0',
    '-0',
    '1.5e+3',
    '-12.25E-2',
    '"0x"',
    '"0X12"',
    '"0x12g"',
    '"x"',
    '""',
    'true',
    'false',
    'null',
    '[]',
    '{}',
    ' \t\n\r[ 1 , { "a" : [ ] } ]\n',
    '{"a":1,"a":2}',
    '{"0x12":"0x12"}',
    '"\x7f"',
  ])('reads %j as JSON.parse does', (text) => {
    expect(scanJson(text)).toBeDefined();
    expectAsJsonParse(text);
  });

  it.each([
    '',
    ' ',
    '01',
    '-',
    '1.',
    '.5',
    '1e',
    '1e+',
    '+1',
    '0x12',
    'tru',
    'nul',
    'True',
    '[1,]',
    '[,1]',
    '{"a":1,}',
    '{,}',
    '{"a" 1}',
    '{"a"::1}',
    '{1:2}',
    '{"a"}',
    '[1 2]',
    '[1]]',
    '{"a":1}}',
    '[}',
    '{]',
    '1 2',
    '"a',
    '"\x01"',
    '"\t"',
    '[',
  ])('refuses %j, which JSON.parse refuses', (text) => {
    expect(parsed(text)).toBe('refused');
    expect(scanJson(text)).toBeUndefined();
  });

  it.each(['"a\\"b"', '"\\u0041"', '"é"', '"\ud800"', '["x\u2028"]'])('leaves %j to JSON.parse', (text) => {
    expect(parsed(text)).not.toBe('refused');
    expect(scanJson(text)).toBeUndefined();
  });

  it('reads as hex only the digits, a character past either end of their ranges being no digit', () => {
    // Each of eight places of a chunk of eight, read at once: the characters next to 0-9, a-f and A-F.
    for (const char of '/:@G`g')
      for (let at = 0; at < 8; at++) {
        const digits = 'abcdef09'.slice(0, at) + char + 'abcdef09'.slice(at + 1);
        const tape = scanJson(`["0x${digits}","0x${digits.toUpperCase()}"]`)!;
        expect([tape.words[TOKEN_WORDS], tape.words[2 * TOKEN_WORDS]]).toEqual([TOKEN.string, TOKEN.string]);
      }
    expect(rebuild(scanJson('["0x0123456789abcdefABCDEF","0x9aF"]')!)).toEqual(['0x0123456789abcdefABCDEF', '0x9aF']);
  });

  it(`reads nesting to ${MAX_SCAN_DEPTH} levels and leaves deeper to JSON.parse`, () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(rebuild(scanJson(nested(MAX_SCAN_DEPTH))!)).toEqual(JSON.parse(nested(MAX_SCAN_DEPTH)));
    expect(scanJson(nested(MAX_SCAN_DEPTH + 1))).toBeUndefined();
    expect(scanJson(`{"a":${nested(MAX_SCAN_DEPTH)}}`)).toBeUndefined();
  });

  it('reads a text of more tokens than its first room (a token a byte or two)', () => {
    const dense = `[${'[],'.repeat(5_000)}0]`;
    expect(rebuild(scanJson(dense)!)).toEqual(JSON.parse(dense));
  });

  it('reads every JSON fixture as JSON.parse does, as written and compact', () => {
    const files = readdirSync('fixtures', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const text = readFileSync(`fixtures/${file}`, 'utf8');
      expectAsJsonParse(text);
      expectAsJsonParse(JSON.stringify(JSON.parse(text)));
    }
  });

  it('refuses every truncation of a block, and reads it again after', () => {
    const text = JSON.stringify(JSON.parse(readFileSync('fixtures/blocks/mainnet-1000001.json', 'utf8')));
    for (let end = 0; end < text.length; end += 7) expectAsJsonParse(text.slice(0, end));
    expectAsJsonParse(text);
  });

  it('agrees with JSON.parse on JSON values, with whitespace of any kind', () => {
    // Hex of any length and case, and strings a character from it: one of the characters around the digits' ranges.
    const hexString = fc
      .uint8Array({ maxLength: 40 })
      .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`)
      .chain((hex) =>
        fc.oneof(
          fc.constantFrom(hex, hex.replace(/^0x0/, '0x'), hex.toUpperCase().replace('0X', '0x')),
          fc
            .tuple(fc.nat(), fc.constantFrom(...'/:@G`gx .,[{'))
            .map(
              ([at, char]) => hex.slice(0, 2 + (at % (hex.length - 1))) + char + hex.slice(2 + (at % (hex.length - 1))),
            ),
        ),
      );
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        hexString,
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(fc.oneof(fc.string(), hexString), tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    const space = fc.constantFrom(undefined, 0, 1, 2, '\t', '\r\n', ' \n');
    fc.assert(
      fc.property(value, space, (v, indent) => expectAsJsonParse(JSON.stringify(v, null, indent as string))),
      { numRuns: runs(2_000) },
    );
  });

  it('agrees with JSON.parse on JSON texts changed a character at a time', () => {
    const alphabet = fc.constantFrom(...'{}[],:"0123456789abcdefxX-+.eE tn\\\t\x01\x7fé'.split(''));
    const texts = fc.array(
      fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.array(fc.tuple(fc.nat(), fc.nat(2), alphabet), { maxLength: 3 })),
    );
    fc.assert(
      fc.property(texts, (cases) => {
        for (const [value, edits] of cases) {
          let text = JSON.stringify(value) ?? 'null';
          for (const [at, how, char] of edits) {
            const i = text.length === 0 ? 0 : at % (text.length + 1);
            text =
              how === 0
                ? text.slice(0, i) + char + text.slice(i) // insert
                : how === 1
                  ? text.slice(0, i) + text.slice(i + 1) // delete
                  : text.slice(0, i) + char + text.slice(i + 1); // replace
          }
          expectAsJsonParse(text);
        }
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('is the module scan-module.ts writes: scan-wasm.ts is generated (run `npm run gen:scanner` after changing it)', () => {
    const committed = readFileSync('packages/core/src/json/scan/scan-wasm.ts', 'utf8');
    expect(committed, 'scan-wasm.ts differs from the generator output: run `npm run gen:scanner`').toBe(
      generateScanWasm(),
    );
  });

  it('can fail: a tape whose hex bytes are altered is caught', () => {
    const tape = scanJson('["0x0102"]')!;
    tape.bytes[1] = 3;
    expect(() => rebuild(tape)).toThrow();
  });
});

describe('the tape reader', () => {
  /** The value JSON.parse gives `text`, read off its tape by TapeReader. */
  const readBack = (text: string) => new TapeReader(scanJson(text)!).value(0);

  it('reads member names that share a slot of its table of names, in turn, as JSON.parse does', () => {
    // Of one length and the same first and last characters: the table's slot is the same, the names differ.
    const text = JSON.stringify(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? { axb: i, ayb: [{ azb: i }] } : { ayb: i, axb: { azb: [i] } })),
    );
    expect(readBack(text)).toEqual(JSON.parse(text));
  });

  it('agrees with JSON.parse on objects of names drawn from a few, some alike', () => {
    const name = fc.oneof(
      fc.constantFrom('', 'a', 'b', 'ab', 'ba', 'axb', 'ayb', 'aab', 'abab', 'logs', 'Logs'),
      fc.string(),
    );
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(name, tie('value'), { maxKeys: 6 }),
      ),
    })).value;
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        // What the scanner leaves to JSON.parse (an escape, a character above U+007F) and __proto__ are not the reader's.
        fc.pre(scanJson(text) !== undefined && !text.includes('"__proto__"'));
        expect(readBack(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: runs(1_000) },
    );
  });
});
