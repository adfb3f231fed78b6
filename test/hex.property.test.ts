import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesEqual, bytesToHex, parseHex } from '../packages/core/src/index.js';
import { hexKey, parseHexInto } from '../packages/core/src/bytes/hex.js';
import { Slab } from '../packages/core/src/bytes/slab.js';
import { runs } from './helpers/runs.js';

/**
 * The hex decoder (a table lookup per pair of digits, long text copied as ASCII first) against the
 * simplest reading of the rule: optional 0x or 0X, then pairs of hex digits in any case.
 */
function reference(text: string): Uint8Array | null {
  if (!/^(0[xX])?([0-9a-fA-F]{2})*$/.test(text)) return null;
  const digits = text.replace(/^0[xX]/, '');
  return Uint8Array.from({ length: digits.length / 2 }, (_, i) => Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16));
}

/** Long enough to be copied in pieces (16,384 characters a piece). */
const LONG = 'ab'.repeat(20_000);

describe('hex decoding', () => {
  it.each([
    ['0xCAFE', [0xca, 0xfe]],
    ['cafe', [0xca, 0xfe]],
    ['0X00ff', [0x00, 0xff]],
    ['', []],
    ['0x', []],
    ['0x0', null],
    ['abc', null],
    ['0xgg', null],
    ['0x0g', null],
    ['x0', null],
    ['0x 0', null],
    ['0xé0', null],
    ['0x\u0130\u0030', null],
    ['0x\u30300', null],
    ['0x00ÿ0', null],
  ])('%j → %j', (text, bytes) => {
    const parsed = parseHex(text);
    expect(parsed === null ? null : [...parsed]).toEqual(bytes);
  });

  it('reads text longer than a piece, and finds a bad digit or a character that is not ASCII in any piece', () => {
    expect(parseHex(`0x${LONG}`)).toEqual(new Uint8Array(20_000).fill(0xab));
    expect(parseHex(LONG.toUpperCase())).toEqual(new Uint8Array(20_000).fill(0xab));
    for (const at of [2, 16_383, 16_384, 16_385, 32_768, 40_001]) {
      expect(parseHex(`0x${LONG}`.slice(0, at) + 'g' + `0x${LONG}`.slice(at + 1))).toBeNull();
      expect(parseHex(`0x${LONG}`.slice(0, at) + 'é' + `0x${LONG}`.slice(at + 1))).toBeNull();
    }
  });

  it('writes only its bytes, at the offset', () => {
    const out = new Uint8Array(6).fill(7);
    expect(parseHexInto('0xa1b2', out, 3)).toBe(true);
    expect([...out]).toEqual([7, 7, 7, 0xa1, 0xb2, 7]);
  });

  it(`agrees with the rule on text of hex digits with a few other characters, short and long (${runs(2000)} runs)`, () => {
    const char = fc.oneof(
      { weight: 30, arbitrary: fc.constantFrom(...'0123456789abcdefABCDEF') },
      { weight: 1, arbitrary: fc.constantFrom('g', 'x', 'X', ' ', 'é', 'ÿ', '\u0130', '\u3030', '\uD83D', '\u0000') },
    );
    const text = fc.tuple(
      fc.constantFrom('', '0x', '0X'),
      fc.oneof(
        { weight: 5, arbitrary: fc.array(char, { maxLength: 90 }) },
        { weight: 1, arbitrary: fc.array(char, { minLength: 16_000, maxLength: 40_000 }) },
      ),
    );
    fc.assert(
      fc.property(text, ([prefix, chars]) => {
        const hex = prefix + chars.join('');
        expect(parseHex(hex)).toEqual(reference(hex));
      }),
      { numRuns: runs(2000) },
    );
  });
});

describe('slab', () => {
  it('hands out views that do not overlap, a long one in a buffer of its own', () => {
    const slab = new Slab(64);
    const views = [slab.take(20), slab.take(32), slab.take(20), slab.take(64), slab.take(0)];
    for (const view of views) view.fill(1);
    expect(views.map((v) => v.length)).toEqual([20, 32, 20, 64, 0]);
    expect(views[1]!.buffer).toBe(views[0]!.buffer);
    // 20 + 32 + 20 is past 64 bytes: a new buffer.
    expect(views[2]!.buffer).not.toBe(views[0]!.buffer);
    expect(views[3]!.byteLength).toBe(views[3]!.buffer.byteLength);
    const ends = views.slice(0, 3).map((v) => [v.buffer, v.byteOffset, v.byteOffset + v.length] as const);
    for (const [buffer, start, end] of ends)
      for (const [other, s, e] of ends) if (buffer === other && start !== s) expect(end <= s || e <= start).toBe(true);
  });

  it('starts with a 4 KiB buffer and doubles each next one up to 64 KiB, where one take gets its own', () => {
    const slab = new Slab();
    const sizes = [slab.take(4000), slab.take(100), slab.take(8000), slab.take(20_000), slab.take(40_000)].map(
      (view) => view.buffer.byteLength,
    );
    expect(sizes).toEqual([4096, 8192, 8192, 32768, 65536]);
    expect(slab.take(70_000).buffer.byteLength).toBe(70_000);
    expect(slab.take(65_536).buffer.byteLength).toBe(65_536);
    expect(slab.take(10).buffer.byteLength).toBe(65536);
  });

  it(`hands out zeroed views that never overlap, whatever the lengths taken (${runs(200)} runs)`, () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat({ max: 64 }), fc.nat({ max: 70_000 })), { maxLength: 40 }), (lengths) => {
        const slab = new Slab();
        const views = lengths.map((length) => slab.take(length));
        expect(views.map((v) => v.length)).toEqual(lengths);
        for (const view of views) {
          expect(view.every((b) => b === 0)).toBe(true);
          expect(view.buffer.byteLength <= 65536 || view.byteLength === view.buffer.byteLength).toBe(true);
        }
        views.forEach((view) => view.fill(1));
        for (const [i, a] of views.entries())
          for (const b of views.slice(i + 1))
            if (a.buffer === b.buffer && a.length > 0 && b.length > 0)
              expect(a.byteOffset + a.length <= b.byteOffset || b.byteOffset + b.length <= a.byteOffset).toBe(true);
      }),
      { numRuns: runs(200) },
    );
  });

  it('decodes hex of the size asked for, and nothing else', () => {
    const slab = new Slab();
    expect(slab.hex('0xcafe')).toEqual(Uint8Array.of(0xca, 0xfe));
    expect(slab.hex('0xcafe', 2)).toEqual(Uint8Array.of(0xca, 0xfe));
    expect(slab.hex('0xcafe', 3)).toBeUndefined();
    expect(slab.hex('0xcaf')).toBeUndefined();
    expect(slab.hex('0xcafg')).toBeUndefined();
    expect(slab.hex(7)).toBeUndefined();
    // What failed leaves the next view zeroed and whole.
    expect(slab.hex('0x0102')).toEqual(Uint8Array.of(1, 2));
  });
});

describe('bytesEqual', () => {
  it(`agrees with a byte-by-byte comparison, short and long, at any offsets (${runs(1000)} runs)`, () => {
    const pair = fc
      .tuple(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat({ max: 7 }),
        fc.nat({ max: 7 }),
        fc.option(fc.nat(), { nil: undefined }),
      )
      .map(([bytes, left, right, flip]) => {
        const a = new Uint8Array(left + bytes.length).subarray(left);
        const b = new Uint8Array(right + bytes.length).subarray(right);
        a.set(bytes);
        b.set(bytes);
        if (flip !== undefined && bytes.length > 0) b[flip % bytes.length]! ^= 1 << (flip % 8);
        return [a, b, flip === undefined || bytes.length === 0] as const;
      });
    fc.assert(
      fc.property(pair, ([a, b, equal]) => {
        expect(bytesEqual(a, b)).toBe(equal);
        if (b.length > 0) expect(bytesEqual(a, b.subarray(1))).toBe(false);
      }),
      { numRuns: runs(1000) },
    );
  });
});

describe('hexKey', () => {
  it('keeps a node\'s spelling as it is: the very text, "0x" and lower case', () => {
    expect(hexKey('0xab01')).toBe('0xab01');
    expect(hexKey('AB01')).toBe('0xab01');
    expect(hexKey('0XaB01')).toBe('0xab01');
    expect(hexKey('')).toBe('0x');
  });

  it(`gives two hex texts one key exactly when they are the same bytes (${runs(1000)} runs)`, () => {
    const spelled = fc
      .tuple(
        fc.uint8Array({ maxLength: 8 }),
        fc.constantFrom('0x', '0X', ''),
        fc.array(fc.boolean(), { maxLength: 16 }),
      )
      .map(([bytes, prefix, upper]) => ({
        bytes,
        text:
          prefix +
          [...bytesToHex(bytes)]
            .map((digit, i) => (upper[i % Math.max(upper.length, 1)] ? digit.toUpperCase() : digit))
            .join(''),
      }));
    fc.assert(
      fc.property(spelled, spelled, (a, b) => {
        expect(hexKey(a.text) === hexKey(b.text)).toBe(bytesEqual(a.bytes, b.bytes));
      }),
      { numRuns: runs(1000) },
    );
  });
});
