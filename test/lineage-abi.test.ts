import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToHex, parseHex } from '../packages/core/src/bytes/hex.js';
import {
  checkFunctionResult,
  decodeFunctionOutput,
  isKnownFunction,
  KNOWN_FUNCTIONS,
  type KnownFunction,
} from '../packages/core/src/lineage/abi.js';
import { encodeFunctionOutput } from './helpers/abi-encode.js';
import { runs } from './helpers/runs.js';

const PATH = 'genesis.function_results[0]';
const WETH = 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const USDC = 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const bytes = (hex: string): Uint8Array => parseHex(hex)!;
const word = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, '0');

/** A function result as the service publishes it. */
function entry(name: string, output: string, decoded: unknown, selector?: string): Record<string, unknown> {
  const known = isKnownFunction(name) ? KNOWN_FUNCTIONS[name].selector : '00000000';
  return { contract: WETH, selector: selector ?? known, decoded_name: name, output, decoded_output: decoded };
}
const statuses = (result: unknown) => checkFunctionResult(result, PATH).map((c) => c.status);
const byCheck = (result: unknown, check: 'selector' | 'decoded_output') =>
  checkFunctionResult(result, PATH).find((c) => c.check === `function_result.${check}`)!;

// Real-world encodings, written out (not produced by our encoder).
const GET_RESERVES_OUTPUT =
  '000000000000000000000000000000000000000000000000000022ac4f197a14' + // reserve0 38123456789012
  '00000000000000000000000000000000000000000000029d42b64e76714244cb' + // reserve1 12345678901234567890123
  '0000000000000000000000000000000000000000000000000000000066669980'; //  blockTimestampLast 1718000000
const GET_RESERVES_DECODED = {
  reserve0: '38123456789012',
  reserve1: '12345678901234567890123',
  block_timestamp_last: 1718000000,
};
const WRAPPED_ETHER_OUTPUT = // WETH's name(): offset 0x20, length 13, "Wrapped Ether" zero-padded
  '0000000000000000000000000000000000000000000000000000000000000020' +
  '000000000000000000000000000000000000000000000000000000000000000d' +
  '5772617070656420457468657200000000000000000000000000000000000000';
const MKR_SYMBOL_OUTPUT = '4d4b520000000000000000000000000000000000000000000000000000000000'; // MKR's symbol(): bytes32 "MKR"
const MAKER_NAME_OUTPUT = '4d616b6572000000000000000000000000000000000000000000000000000000'; // MKR's name(): bytes32 "Maker"
const DECIMALS_18_OUTPUT = '0000000000000000000000000000000000000000000000000000000000000012';

describe('known functions', () => {
  it('selectors are the well-known ones (computed from the signatures at load)', () => {
    const selectors = Object.fromEntries(Object.values(KNOWN_FUNCTIONS).map((f) => [f.signature, f.selector]));
    expect(selectors).toEqual({
      'getReserves()': '0902f1ac',
      'token0()': '0dfe1681',
      'token1()': 'd21220a7',
      'name()': '06fdde03',
      'symbol()': '95d89b41',
      'decimals()': '313ce567',
      'totalSupply()': '18160ddd',
      'balanceOf(address)': '70a08231',
    });
  });

  it('only own names are known (no prototype members)', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'GetReserves', ''])
      expect(isKnownFunction(name)).toBe(false);
    expect(isKnownFunction('getReserves')).toBe(true);
  });
});

describe('decodeFunctionOutput: real-world encodings', () => {
  it('getReserves triple', () => {
    expect(decodeFunctionOutput('getReserves', bytes(GET_RESERVES_OUTPUT))).toEqual({
      ok: true,
      value: GET_RESERVES_DECODED,
    });
  });

  it('string "Wrapped Ether" (dynamic ABI string)', () => {
    expect(decodeFunctionOutput('name', bytes(WRAPPED_ETHER_OUTPUT))).toEqual({
      ok: true,
      value: { value: 'Wrapped Ether' },
    });
  });

  it('bytes32 "MKR" and "Maker" (legacy form)', () => {
    expect(decodeFunctionOutput('symbol', bytes(MKR_SYMBOL_OUTPUT))).toEqual({ ok: true, value: { value: 'MKR' } });
    expect(decodeFunctionOutput('name', bytes(MAKER_NAME_OUTPUT))).toEqual({ ok: true, value: { value: 'Maker' } });
  });

  it('decimals 18, token0 address, totalSupply 10^27', () => {
    expect(decodeFunctionOutput('decimals', bytes(DECIMALS_18_OUTPUT))).toEqual({ ok: true, value: { value: 18 } });
    expect(decodeFunctionOutput('token0', bytes(`000000000000000000000000${USDC}`))).toEqual({
      ok: true,
      value: { address: USDC },
    });
    expect(
      decodeFunctionOutput('totalSupply', bytes('0000000000000000000000000000000000000000033b2e3c9fd0803ce8000000')),
    ).toEqual({
      ok: true,
      value: { value: '1000000000000000000000000000' },
    });
  });

  it('the encoder writes exactly these encodings', () => {
    expect(bytesToHex(encodeFunctionOutput('getReserves', GET_RESERVES_DECODED))).toBe(GET_RESERVES_OUTPUT);
    expect(bytesToHex(encodeFunctionOutput('name', 'Wrapped Ether'))).toBe(WRAPPED_ETHER_OUTPUT);
    expect(bytesToHex(encodeFunctionOutput('symbol', { value: 'MKR' }, { bytes32: true }))).toBe(MKR_SYMBOL_OUTPUT);
    expect(bytesToHex(encodeFunctionOutput('decimals', 18))).toBe(DECIMALS_18_OUTPUT);
    expect(bytesToHex(encodeFunctionOutput('token0', `0x${USDC.toUpperCase()}`))).toBe(
      `000000000000000000000000${USDC}`,
    );
  });

  it('consistent real-world results pass both checks', () => {
    expect(statuses(entry('getReserves', GET_RESERVES_OUTPUT, GET_RESERVES_DECODED))).toEqual(['pass', 'pass']);
    expect(statuses(entry('name', WRAPPED_ETHER_OUTPUT, { value: 'Wrapped Ether' }))).toEqual(['pass', 'pass']);
    expect(statuses(entry('symbol', MKR_SYMBOL_OUTPUT, 'MKR'))).toEqual(['pass', 'pass']); // bare string accepted
    expect(statuses(entry('decimals', DECIMALS_18_OUTPUT, 18))).toEqual(['pass', 'pass']); // bare number accepted
    expect(statuses(entry('token0', `000000000000000000000000${USDC}`, USDC))).toEqual(['pass', 'pass']);
  });

  it('accepts 0x and any case in hex, and numeric strings that denote the same integer', () => {
    const e = entry(
      'getReserves',
      `0x${GET_RESERVES_OUTPUT.toUpperCase()}`,
      { ...GET_RESERVES_DECODED, block_timestamp_last: '1718000000' },
      '0x0902F1AC',
    );
    e.contract = `0x${WETH.toUpperCase()}`;
    expect(statuses(e)).toEqual(['pass', 'pass']);
    expect(
      statuses(entry('token1', `000000000000000000000000${USDC}`, { address: `0x${USDC.toUpperCase()}` })),
    ).toEqual(['pass', 'pass']);
    expect(statuses(entry('decimals', DECIMALS_18_OUTPUT, { value: '18' }))).toEqual(['pass', 'pass']);
  });
});

// Arbitraries for the round trips.
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
const utf8Length = (s: string) => new TextEncoder().encode(s).length;
const bytes32String = fc
  .string({ unit: 'binary', maxLength: 32 })
  .filter((s) => !s.includes('\0') && utf8Length(s) <= 32);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map(bytesToHex);
/** Any known function with a value of its type, and whether to use the bytes32 form. */
const call: fc.Arbitrary<{ name: KnownFunction; value: unknown; bytes32: boolean }> = fc.oneof(
  fc
    .record({ reserve0: uint(112), reserve1: uint(112), ts: fc.integer({ min: 0, max: 2 ** 32 - 1 }) })
    .map(({ reserve0, reserve1, ts }) => ({
      name: 'getReserves' as const,
      value: { reserve0: reserve0.toString(), reserve1: reserve1.toString(), block_timestamp_last: ts },
      bytes32: false,
    })),
  fc
    .tuple(fc.constantFrom('token0', 'token1'), address)
    .map(([name, a]) => ({ name, value: { address: a }, bytes32: false })),
  fc
    .tuple(fc.constantFrom('name', 'symbol'), fc.string({ unit: 'binary' }))
    .map(([name, s]) => ({ name, value: { value: s }, bytes32: false })),
  fc
    .tuple(fc.constantFrom('name', 'symbol'), bytes32String)
    .map(([name, s]) => ({ name, value: { value: s }, bytes32: true })),
  fc.integer({ min: 0, max: 255 }).map((d) => ({ name: 'decimals' as const, value: { value: d }, bytes32: false })),
  fc
    .tuple(fc.constantFrom('totalSupply', 'balanceOf'), uint(256))
    .map(([name, v]) => ({ name, value: { value: v.toString() }, bytes32: false })),
);
const encode = (c: { name: KnownFunction; value: unknown; bytes32: boolean }) =>
  encodeFunctionOutput(c.name, c.value as never, c.bytes32 ? { bytes32: true } : {});

describe('round trips (fast-check)', () => {
  it('getReserves: reserves < 2^112, timestamps < 2^32', () => {
    fc.assert(
      fc.property(uint(112), uint(112), fc.integer({ min: 0, max: 2 ** 32 - 1 }), (r0, r1, ts) => {
        const out = encodeFunctionOutput('getReserves', { reserve0: r0, reserve1: r1, block_timestamp_last: ts });
        expect(out.length).toBe(96);
        expect(decodeFunctionOutput('getReserves', out)).toEqual({
          ok: true,
          value: { reserve0: `${r0}`, reserve1: `${r1}`, block_timestamp_last: ts },
        });
      }),
    );
  });

  it('strings of random Unicode, both forms', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        expect(decodeFunctionOutput('name', encodeFunctionOutput('name', s))).toEqual({
          ok: true,
          value: { value: s },
        });
      }),
    );
    fc.assert(
      fc.property(bytes32String, (s) => {
        const out = encodeFunctionOutput('symbol', s, { bytes32: true });
        expect(out.length).toBe(32);
        expect(decodeFunctionOutput('symbol', out)).toEqual({ ok: true, value: { value: s } });
      }),
    );
  });

  it('decimals 0..255 and uint256', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), (d) => {
        expect(decodeFunctionOutput('decimals', encodeFunctionOutput('decimals', d))).toEqual({
          ok: true,
          value: { value: d },
        });
      }),
    );
    fc.assert(
      fc.property(uint(256), (v) => {
        expect(decodeFunctionOutput('balanceOf', encodeFunctionOutput('balanceOf', v))).toEqual({
          ok: true,
          value: { value: `${v}` },
        });
      }),
    );
  });

  it('every known function: encode → decode → equal, and checkFunctionResult passes', () => {
    fc.assert(
      fc.property(call, fc.boolean(), (c, prefixed) => {
        const out = encode(c);
        expect(decodeFunctionOutput(c.name, out)).toEqual({ ok: true, value: c.value });
        const hex = prefixed ? `0x${bytesToHex(out).toUpperCase()}` : bytesToHex(out);
        const checks = checkFunctionResult(entry(c.name, hex, c.value), PATH);
        expect(checks.map((x) => [x.check, x.status, x.path])).toEqual([
          ['function_result.selector', 'pass', PATH],
          ['function_result.decoded_output', 'pass', PATH],
        ]);
      }),
    );
  });

  it('strict, so never a guess: an altered encoding either fails to decode or is the encoding of what it decodes to', () => {
    const altered = fc
      .tuple(call, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.constantFrom('flip', 'truncate', 'extend'))
      .map(([c, at, x, how]) => {
        const out = encode(c);
        if (how === 'truncate') return { c, out: out.subarray(0, at % out.length) };
        if (how === 'extend') return { c, out: Uint8Array.from([...out, ...new Uint8Array(1 + (at % 64))]) };
        const copy = out.slice();
        const i = at % copy.length;
        copy[i] = copy[i]! ^ x;
        return { c, out: copy };
      });
    fc.assert(
      fc.property(altered, ({ c, out }) => {
        const decoded = decodeFunctionOutput(c.name, out);
        if (!decoded.ok) {
          expect(decoded.error).toMatch(/\S/);
          return;
        }
        const bytes32 = (c.name === 'name' || c.name === 'symbol') && out.length === 32;
        expect(bytesToHex(encodeFunctionOutput(c.name, decoded.value as never, bytes32 ? { bytes32: true } : {}))).toBe(
          bytesToHex(out),
        );
      }),
      { numRuns: runs(500) },
    );
  });
});

describe('failures: each reported as fail with a reason', () => {
  const expectFail = (result: unknown, check: 'selector' | 'decoded_output', reason: RegExp) => {
    const c = byCheck(result, check);
    expect(c.status).toBe('fail');
    expect(c.reason).toMatch(reason);
    expect(c.path).toBe(PATH);
  };

  it('wrong selector', () => {
    const e = entry('getReserves', GET_RESERVES_OUTPUT, GET_RESERVES_DECODED, '0dfe1681');
    expectFail(e, 'selector', /selector 0dfe1681 is not getReserves\(\) \(0902f1ac\): it is token0\(\)/);
    expect(byCheck(e, 'decoded_output').status).toBe('pass'); // the output itself is consistent
    expectFail(entry('decimals', DECIMALS_18_OUTPUT, 18, 'deadbeef'), 'selector', /deadbeef is not decimals\(\)/);
  });

  it('malformed selector or contract', () => {
    expectFail(
      entry('decimals', DECIMALS_18_OUTPUT, 18, '313ce5'),
      'selector',
      /selector is "313ce5", expected 4-byte hex/,
    );
    expectFail(entry('decimals', DECIMALS_18_OUTPUT, 18, '313ce56g'), 'selector', /selector/);
    expectFail(
      { ...entry('decimals', DECIMALS_18_OUTPUT, 18), contract: 'c02a' },
      'selector',
      /contract is "c02a", expected a 20-byte hex address/,
    );
  });

  it('tampered decoded_output: a reserve changed by 1', () => {
    const e = entry('getReserves', GET_RESERVES_OUTPUT, {
      ...GET_RESERVES_DECODED,
      reserve1: '12345678901234567890124',
    });
    expectFail(
      e,
      'decoded_output',
      /decoded_output\.reserve1 is "12345678901234567890124" but output decodes to "12345678901234567890123"/,
    );
    expect(byCheck(e, 'selector').status).toBe('pass');
    fc.assert(
      fc.property(uint(112), fc.bigInt({ min: 1n, max: 1n << 120n }), fc.boolean(), (r, delta, up) => {
        const claimed = up ? r + delta : r - delta;
        fc.pre(claimed >= 0n);
        const out = bytesToHex(
          encodeFunctionOutput('getReserves', { reserve0: r, reserve1: 0n, block_timestamp_last: 0 }),
        );
        expect(
          byCheck(
            entry('getReserves', out, { reserve0: `${claimed}`, reserve1: '0', block_timestamp_last: 0 }),
            'decoded_output',
          ).status,
        ).toBe('fail');
      }),
    );
  });

  it('tampered decoded_output: other members and functions', () => {
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT, { ...GET_RESERVES_DECODED, block_timestamp_last: 1718000001 }),
      'decoded_output',
      /block_timestamp_last is 1718000001 but output decodes to 1718000000/,
    );
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT, { ...GET_RESERVES_DECODED, block_timestamp_last: '1718000000.0' }),
      'decoded_output',
      /not an exact non-negative integer/,
    );
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT, { ...GET_RESERVES_DECODED, reserve0: 38123456789012.5 }),
      'decoded_output',
      /reserve0 is 38123456789012\.5, not an exact/,
    );
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT, {
        reserve0: GET_RESERVES_DECODED.reserve0,
        reserve1: GET_RESERVES_DECODED.reserve1,
      }),
      'decoded_output',
      /block_timestamp_last is missing/,
    );
    // A member the output does not hold: equal means no more than the three.
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT, { ...GET_RESERVES_DECODED, reserve2: '7' }),
      'decoded_output',
      /decoded_output has a member "reserve2", which getReserves\(\) does not return \(it returns reserve0, reserve1, block_timestamp_last\)/,
    );
    expectFail(
      entry('name', WRAPPED_ETHER_OUTPUT, { value: 'Wrapped Ether ' }),
      'decoded_output',
      /decoded_output\.value is "Wrapped Ether " but output decodes to "Wrapped Ether"/,
    );
    expectFail(
      entry('symbol', MKR_SYMBOL_OUTPUT, 'mkr'),
      'decoded_output',
      /decoded_output is "mkr" but output decodes to "MKR"/,
    );
    expectFail(
      entry('decimals', DECIMALS_18_OUTPUT, { value: 6 }),
      'decoded_output',
      /decoded_output\.value is 6 but output decodes to 18/,
    );
    expectFail(
      entry('token0', `000000000000000000000000${USDC}`, { address: WETH }),
      'decoded_output',
      /decoded_output\.address is "c02a.*" but output decodes to "a0b8/,
    );
    expectFail(
      entry('totalSupply', word(10n ** 27n), { value: '1e27' }),
      'decoded_output',
      /not an exact non-negative integer/,
    );
    expectFail(entry('totalSupply', word(10n ** 27n), { value: 1e27 }), 'decoded_output', /not an exact/); // a float cannot be exact
  });

  it('truncated output', () => {
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT.slice(0, -2), GET_RESERVES_DECODED),
      'decoded_output',
      /getReserves\(\) returns \(uint112,uint112,uint32\): expected 96 bytes, got 95/,
    );
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT.slice(0, 128), GET_RESERVES_DECODED),
      'decoded_output',
      /expected 96 bytes, got 64/,
    );
    expectFail(entry('decimals', '', 18), 'decoded_output', /expected 32 bytes, got 0/); // a reverted call or an EOA
    expectFail(
      entry('name', WRAPPED_ETHER_OUTPUT.slice(0, 128), 'Wrapped Ether'),
      'decoded_output',
      /string length 13 runs past the end of the output \(0 bytes after the length word\)/,
    );
    expectFail(
      entry('name', WRAPPED_ETHER_OUTPUT.slice(0, 100), 'Wrapped Ether'),
      'decoded_output',
      /string: expected 32 bytes \(legacy bytes32\) or at least 64/,
    );
  });

  it('trailing bytes (not the one encoding)', () => {
    expectFail(
      entry('decimals', DECIMALS_18_OUTPUT + '00'.repeat(32), 18),
      'decoded_output',
      /expected 32 bytes, got 64/,
    );
    expectFail(
      entry('name', WRAPPED_ETHER_OUTPUT + '00'.repeat(32), 'Wrapped Ether'),
      'decoded_output',
      /expected 96 bytes of output, got 128 \(32 trailing bytes\)/,
    );
  });

  it('high bits set', () => {
    const dirty = `0001${GET_RESERVES_OUTPUT.slice(4)}`; // bit 240 of reserve0
    expectFail(
      entry('getReserves', dirty, GET_RESERVES_DECODED),
      'decoded_output',
      /reserve0 \(word 0\) does not fit uint112: 0x0001/,
    );
    const just = word(1n << 112n) + GET_RESERVES_OUTPUT.slice(64);
    expectFail(
      entry('getReserves', just, GET_RESERVES_DECODED),
      'decoded_output',
      /reserve0 \(word 0\) does not fit uint112/,
    );
    const ts = GET_RESERVES_OUTPUT.slice(0, 128) + word(1n << 32n);
    expectFail(
      entry('getReserves', ts, GET_RESERVES_DECODED),
      'decoded_output',
      /blockTimestampLast \(word 2\) does not fit uint32/,
    );
    expectFail(
      entry('token0', `000000000000000000000001${USDC}`, USDC),
      'decoded_output',
      /address word has nonzero high 12 bytes/,
    );
    expectFail(entry('decimals', word(256), 256), 'decoded_output', /value \(word 0\) does not fit uint8/);
  });

  it('bad offset', () => {
    const outside = word(0x1000) + WRAPPED_ETHER_OUTPUT.slice(64);
    expectFail(
      entry('name', outside, 'Wrapped Ether'),
      'decoded_output',
      /string offset 4096 points outside the 96-byte output/,
    );
    const huge = word((1n << 256n) - 1n) + WRAPPED_ETHER_OUTPUT.slice(64);
    expectFail(entry('name', huge, 'Wrapped Ether'), 'decoded_output', /points outside/);
    const nonCanonical = word(0x40) + word(0) + word(13) + WRAPPED_ETHER_OUTPUT.slice(128);
    expectFail(entry('name', nonCanonical, 'Wrapped Ether'), 'decoded_output', /string offset 64 is not 32/);
    const longLength = word(32) + word((1n << 256n) - 1n) + WRAPPED_ETHER_OUTPUT.slice(128);
    expectFail(entry('name', longLength, 'Wrapped Ether'), 'decoded_output', /runs past the end of the output/);
  });

  it('nonzero padding', () => {
    expectFail(
      entry('name', `${WRAPPED_ETHER_OUTPUT.slice(0, -2)}01`, 'Wrapped Ether'),
      'decoded_output',
      /string of 13 bytes has nonzero padding/,
    );
    expectFail(
      entry('symbol', `4d4b5200${'00'.repeat(27)}01`, 'MKR'),
      'decoded_output',
      /bytes32 string has nonzero bytes after its terminating zero \(byte 3\)/,
    );
  });

  it('invalid UTF-8', () => {
    const bad = word(32) + word(2) + 'c328'.padEnd(64, '0'); // C3 must be followed by a continuation byte
    expectFail(entry('symbol', bad, 'Ã('), 'decoded_output', /string is not valid UTF-8: 0xc328/);
    expectFail(
      entry('symbol', `ff${'00'.repeat(31)}`, '\ufffd'),
      'decoded_output',
      /bytes32 string is not valid UTF-8: 0xff/,
    );
    const surrogate = word(32) + word(3) + 'eda080'.padEnd(64, '0'); // an encoded UTF-16 surrogate is not UTF-8
    expectFail(entry('name', surrogate, '\ud800'), 'decoded_output', /not valid UTF-8/);
  });

  it('keeps a leading byte-order mark as part of the string', () => {
    const out = bytesToHex(encodeFunctionOutput('name', '\ufeffToken'));
    expect(decodeFunctionOutput('name', bytes(out))).toEqual({ ok: true, value: { value: '\ufeffToken' } });
    expectFail(entry('name', out, 'Token'), 'decoded_output', /is "Token" but output decodes to/);
  });

  it('unknown function: skipped on both checks, never passed', () => {
    for (const name of ['allowance', 'constructor', '__proto__']) {
      const checks = checkFunctionResult(entry(name, DECIMALS_18_OUTPUT, { value: 18 }, '313ce567'), PATH);
      expect(checks.map((c) => c.status)).toEqual(['skipped', 'skipped']);
      for (const c of checks) expect(c.reason).toBe(`unknown function ${JSON.stringify(name)}: not decoded`);
    }
    expect(decodeFunctionOutput('allowance', bytes(DECIMALS_18_OUTPUT))).toEqual({
      ok: false,
      error: 'unknown function "allowance"',
    });
  });

  it('malformed entries fail, naming the member', () => {
    for (const value of [null, 'x', 42, [entry('decimals', DECIMALS_18_OUTPUT, 18)]]) {
      expect(statuses(value)).toEqual(['fail', 'fail']);
      expect(byCheck(value, 'selector').reason).toMatch(/function result is .*, expected an object/);
    }
    const good = entry('decimals', DECIMALS_18_OUTPUT, 18);
    const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key));
    expectFail(without('contract'), 'selector', /^contract is missing$/);
    expectFail(without('selector'), 'selector', /^selector is missing$/);
    expectFail(without('decoded_name'), 'selector', /^decoded_name is missing$/);
    expectFail(without('decoded_name'), 'decoded_output', /^decoded_name is missing$/);
    expectFail(without('output'), 'decoded_output', /^output is missing$/);
    expectFail(without('decoded_output'), 'decoded_output', /^decoded_output is missing$/);
    expectFail({ ...good, decoded_name: 7 }, 'decoded_output', /decoded_name is number, expected a string/);
    expectFail({ ...good, output: 18 }, 'decoded_output', /output is number, expected a string/);
    expectFail(
      { ...good, output: 'zz' },
      'decoded_output',
      /output is "zz", expected hex \(an even number of hex digits\)/,
    );
    expectFail(
      { ...good, output: '012' },
      'decoded_output',
      /output is "012", expected hex \(an even number of hex digits\)/,
    );
    expectFail({ ...good, decoded_output: null }, 'decoded_output', /decoded_output is null, not an exact/);
    expectFail(
      entry('getReserves', GET_RESERVES_OUTPUT, [1, 2, 3]),
      'decoded_output',
      /decoded_output is an array, expected an object/,
    );
    // A malformed entry fails even when its function is unknown: the shape does not depend on the function.
    expectFail(
      { ...entry('allowance', DECIMALS_18_OUTPUT, 1), output: 'nothex' },
      'decoded_output',
      /output is "nothex"/,
    );
  });
});

describe('decoded_output of a one-value function: one member, whatever its name', () => {
  // The spec leaves the member's name open; seen: the function's name, `value`, and the ABI's return name.
  const ONE_VALUE: Array<[KnownFunction, string, unknown, unknown]> = [
    ['name', WRAPPED_ETHER_OUTPUT, 'Wrapped Ether', 'Wrapped Ethers'],
    ['symbol', MKR_SYMBOL_OUTPUT, 'MKR', 'MKR2'],
    ['decimals', DECIMALS_18_OUTPUT, 18, 6],
    ['totalSupply', word(10n ** 27n), '1000000000000000000000000000', '1000000000000000000000000001'],
    ['balanceOf', word(12345n), '12345', '12346'],
    ['token0', `000000000000000000000000${USDC}`, USDC, WETH],
    ['token1', `000000000000000000000000${WETH}`, `0x${WETH.toUpperCase()}`, USDC],
  ];
  const spellings = (name: string) => [name, 'value', `_${name}`];

  it.each(ONE_VALUE)(
    '%s: the member named after the function, "value" or "_" + the function name all pass',
    (name, output, value) => {
      for (const member of spellings(name))
        expect(statuses(entry(name, output, { [member]: value })), member).toEqual(['pass', 'pass']);
    },
  );

  it.each(ONE_VALUE)(
    '%s: a different value fails whatever the member is called, naming it',
    (name, output, _value, other) => {
      for (const member of spellings(name)) {
        const c = byCheck(entry(name, output, { [member]: other }), 'decoded_output');
        expect(c.status, member).toBe('fail');
        expect(c.reason).toMatch(new RegExp(`^decoded_output\\.${member} is .* but output decodes to`));
      }
    },
  );

  it.each(ONE_VALUE)('%s: an object of no member or of two members fails, saying so', (name, output, value) => {
    const none = byCheck(entry(name, output, {}), 'decoded_output');
    expect(none).toMatchObject({
      status: 'fail',
      reason: expect.stringMatching(/decoded_output has no member, expected exactly one/),
    });
    const two = byCheck(entry(name, output, { value, [name]: value }), 'decoded_output');
    expect(two).toMatchObject({
      status: 'fail',
      reason: expect.stringMatching(/decoded_output has 2 members \(value, \w+\), expected exactly one/),
    });
  });

  it('a bare value is still accepted', () => {
    for (const [name, output, value] of ONE_VALUE)
      expect(statuses(entry(name, output, value)), name).toEqual(['pass', 'pass']);
  });
});

describe('encodeFunctionOutput refuses what the type cannot hold', () => {
  it('throws RangeError', () => {
    expect(() =>
      encodeFunctionOutput('getReserves', { reserve0: 1n << 112n, reserve1: 0n, block_timestamp_last: 0 }),
    ).toThrow(RangeError);
    expect(() => encodeFunctionOutput('decimals', 256)).toThrow(RangeError);
    expect(() => encodeFunctionOutput('totalSupply', -1n)).toThrow(RangeError);
    expect(() => encodeFunctionOutput('token0', 'c02a')).toThrow(RangeError);
    expect(() => encodeFunctionOutput('name', '\ud800')).toThrow(RangeError); // lone surrogate
    expect(() => encodeFunctionOutput('symbol', 'a'.repeat(33), { bytes32: true })).toThrow(RangeError);
    expect(() => encodeFunctionOutput('symbol', 'a\0b', { bytes32: true })).toThrow(RangeError);
    expect(() => encodeFunctionOutput('decimals', 18, { bytes32: true })).toThrow(RangeError);
    const runtimeName: string = 'allowance';
    expect(() => encodeFunctionOutput(runtimeName, 1n)).toThrow(/unknown function "allowance"/);
  });
});
