import { describe, expect, it } from 'vitest';
import {
  bloomContains,
  bytesToHex,
  encodeReceipt,
  hexToBytes,
  InvalidReceiptError,
  receiptsRoot,
  RULE_SETS,
  UnknownReceiptTypeError,
  type Log,
  type Receipt,
} from '../packages/core/src/index.js';
import { oracleEncode } from './helpers/oracle.js';

const ZERO_BLOOM = '00'.repeat(256);
const log: Log = {
  address: new Uint8Array(20).fill(0x11),
  topics: [new Uint8Array(32).fill(0x22)],
  data: Uint8Array.of(0xab),
};
const base: Receipt = { type: 0, status: 1, cumulativeGasUsed: 21000n, logs: [] };

describe('receipt consensus encoding', () => {
  it('legacy with status 1: rlp([0x01, gas, bloom, []]) with no type byte', () => {
    expect(bytesToHex(encodeReceipt(base))).toBe(`f9010801825208b90100${ZERO_BLOOM}c0`);
  });

  it('status 0 is the empty string (0x80), not 0x00', () => {
    expect(bytesToHex(encodeReceipt({ ...base, status: 0 }))).toBe(`f9010880825208b90100${ZERO_BLOOM}c0`);
  });

  it('pre-Byzantium: the 32-byte post-state root in place of status', () => {
    const root = new Uint8Array(32).fill(0xee);
    const { status: _status, ...withoutStatus } = base;
    expect(bytesToHex(encodeReceipt({ ...withoutStatus, root }))).toBe(
      `f90128a0${'ee'.repeat(32)}825208b90100${ZERO_BLOOM}c0`,
    );
  });

  it('quantities are canonical: 0 is empty, no leading zeros, up to 2^64-1', () => {
    const gasField = (gas: bigint) => bytesToHex(encodeReceipt({ ...base, cumulativeGasUsed: gas })).slice(8, 8 + 20);
    expect(gasField(0n).startsWith('80b90100')).toBe(true);
    expect(gasField(127n).startsWith('7fb90100')).toBe(true);
    expect(gasField(128n).startsWith('8180b90100')).toBe(true);
    expect(gasField((1n << 64n) - 1n).startsWith(`88${'ff'.repeat(8)}`)).toBe(true);
  });

  it.each([1, 2, 3, 4])('type %i: the type byte, then the same list', (type) => {
    const encoded = encodeReceipt({ ...base, type, logs: [log] });
    expect(encoded[0]).toBe(type);
    expect(bytesToHex(encoded.subarray(1))).toBe(bytesToHex(encodeReceipt({ ...base, logs: [log] })));
  });

  it('a log is [address, [topics], data], and its address and topic are in the receipt bloom', () => {
    const encoded = encodeReceipt({ ...base, logs: [log] });
    expect(bytesToHex(encoded)).toContain(`f83bf83994${'11'.repeat(20)}e1a0${'22'.repeat(32)}81ab`);
    const bloom = encoded.subarray(10, 10 + 256);
    expect(bloomContains(bloom, log.address)).toBe(true);
    expect(bloomContains(bloom, log.topics[0]!)).toBe(true);
    expect(encoded).toEqual(oracleEncode({ ...base, logs: [log] }, 'untyped'));
  });
});

describe('chain rule sets', () => {
  const deposit: Receipt = { ...base, type: 0x7e, logs: [log], depositNonce: 7n };

  it('OP-stack deposit before Canyon: nonce alone is not hashed', () => {
    const { depositNonce: _nonce, ...noNonce } = deposit;
    const rules = RULE_SETS.optimism;
    expect(encodeReceipt(deposit, { rules })).toEqual(encodeReceipt(noNonce, { rules }));
    expect(encodeReceipt(deposit, { rules })[0]).toBe(0x7e);
  });

  it('OP-stack deposit since Canyon: nonce and version appended', () => {
    const rules = RULE_SETS.optimism;
    const canyon = encodeReceipt({ ...deposit, depositReceiptVersion: 1n }, { rules });
    expect(bytesToHex(canyon).endsWith('0701')).toBe(true);
    expect(canyon).toEqual(oracleEncode({ ...deposit, depositReceiptVersion: 1n }, 'op-deposit'));
    expect(canyon).not.toEqual(encodeReceipt(deposit, { rules }));
  });

  it("Scroll's 0x7e L1 message has a plain body, whatever deposit fields say", () => {
    const scroll = encodeReceipt({ ...deposit, depositReceiptVersion: 1n }, { rules: RULE_SETS.scroll });
    expect(scroll[0]).toBe(0x7e);
    expect(scroll.subarray(1)).toEqual(encodeReceipt({ ...base, logs: [log] }));
  });

  it('Arbitrum: 0x64-0x6a are typed, 0x78 (ArbitrumLegacy) hashes as an untyped receipt', () => {
    const rules = RULE_SETS.arbitrum;
    for (const type of [0x64, 0x65, 0x66, 0x68, 0x69, 0x6a])
      expect(encodeReceipt({ ...base, type }, { rules })[0]).toBe(type);
    expect(encodeReceipt({ ...base, type: 0x78 }, { rules })).toEqual(encodeReceipt(base));
  });

  it('Polygon: 0x7f state-sync receipts are typed', () => {
    expect(encodeReceipt({ ...base, type: 0x7f }, { rules: RULE_SETS.polygon })[0]).toBe(0x7f);
  });

  it.each([
    ['ethereum', 0x7e],
    ['ethereum', 0x64],
    ['optimism', 3],
    ['arbitrum', 0x67],
    ['arbitrum', 0x7e],
    ['scroll', 3],
    ['polygon', 0x7e],
  ] as const)('%s does not know type %i: a typed error, never a guess', (rules, type) => {
    const attempt = () => encodeReceipt({ ...base, type }, { rules: RULE_SETS[rules] });
    expect(attempt).toThrow(UnknownReceiptTypeError);
    try {
      attempt();
    } catch (error) {
      expect((error as UnknownReceiptTypeError).details).toMatchObject({ type, rules });
    }
    expect(() => receiptsRoot([{ ...base, type }], { rules: RULE_SETS[rules] })).toThrow(UnknownReceiptTypeError);
  });
});

describe('receipts that cannot be encoded', () => {
  it.each([
    ['both status and root', { ...base, root: new Uint8Array(32) }, /not both/],
    ['neither status nor root', { type: 0, cumulativeGasUsed: 1n, logs: [] }, /needs a status/],
    ['a 31-byte root', { type: 0, root: new Uint8Array(31), cumulativeGasUsed: 1n, logs: [] }, /32 bytes/],
    ['a 19-byte address', { ...base, logs: [{ ...log, address: new Uint8Array(19) }] }, /logs\[0\]\.address/],
    ['a 31-byte topic', { ...base, logs: [{ ...log, topics: [new Uint8Array(31)] }] }, /logs\[0\]\.topics/],
  ] as Array<[string, Receipt, RegExp]>)('%s is an InvalidReceiptError', (_, receipt, message) => {
    expect(() => encodeReceipt(receipt)).toThrow(InvalidReceiptError);
    expect(() => encodeReceipt(receipt)).toThrow(message);
  });
});

describe('hex', () => {
  it('round-trips and rejects bad input with a named error', () => {
    expect(bytesToHex(hexToBytes('0xABcd'))).toBe('abcd');
    expect(() => hexToBytes('0xabc', 'data')).toThrow(/data: expected hex \(an even number of the digits 0-9 and a-f/);
    // Even-length, but not hex: the message says what hex is, not that the length is odd (a user check).
    expect(() => hexToBytes('0xzz', 'data')).toThrow(
      'data: expected hex (an even number of the digits 0-9 and a-f, in any case, with or without 0x), got "0xzz"',
    );
  });
});

describe("a JavaScript caller's safe integer where a quantity's bigint is typed", () => {
  it("is taken as its value, the encoding the same as the bigint's", () => {
    for (const gas of [0, 21_000, 5e9, Number.MAX_SAFE_INTEGER]) {
      const asNumber = { type: 2, status: 1 as const, cumulativeGasUsed: gas as unknown as bigint, logs: [] };
      expect(encodeReceipt(asNumber)).toEqual(encodeReceipt({ ...asNumber, cumulativeGasUsed: BigInt(gas) }));
    }
    const deposit = { type: 0x7e, status: 1 as const, cumulativeGasUsed: 1n, logs: [] };
    expect(
      encodeReceipt(
        { ...deposit, depositNonce: 7 as unknown as bigint, depositReceiptVersion: 1 as unknown as bigint },
        {
          rules: RULE_SETS.optimism,
        },
      ),
    ).toEqual(
      encodeReceipt({ ...deposit, depositNonce: 7n, depositReceiptVersion: 1n }, { rules: RULE_SETS.optimism }),
    );
  });
});

describe('encodeReceipt refuses what has no consensus encoding, naming the field (a user check: they were a raw RangeError, or accepted)', () => {
  const receipt = { type: 0, status: 1 as const, cumulativeGasUsed: 21_000n, logs: [] };
  const log = { address: new Uint8Array(20), topics: [] as Uint8Array[], data: new Uint8Array(0) };
  /** Quantities of no integer it can take exactly: encoded by a guess (1.5 as 1, null as a zero byte) or a bare TypeError. */
  const notIntegers: Array<[unknown, string]> = [
    [1.5, 'the number 1.5'],
    [2 ** 60, `the number ${2 ** 60}`],
    ['0x10', 'a string'],
    [null, 'null'],
    [undefined, 'nothing'],
  ];
  it.each<[string, Receipt, string, string]>([
    [
      'a negative cumulativeGasUsed',
      { ...receipt, cumulativeGasUsed: -1n },
      'cumulativeGasUsed',
      'Receipt cumulativeGasUsed: expected a non-negative quantity, got -1.',
    ],
    ...notIntegers.map(([gas, got]): [string, Receipt, string, string] => [
      `a cumulativeGasUsed of no integer it can take exactly (${got})`,
      { ...receipt, cumulativeGasUsed: gas as bigint },
      'cumulativeGasUsed',
      `Receipt cumulativeGasUsed: expected a non-negative quantity (a bigint), got ${got}.`,
    ]),
    [
      'a deposit version that is a string',
      { ...receipt, type: 0x7e, depositNonce: 2n, depositReceiptVersion: '1' as unknown as bigint },
      'depositReceiptVersion',
      'Receipt depositReceiptVersion: expected a non-negative quantity (a bigint), got a string.',
    ],
    [
      'a log of 5 topics',
      { ...receipt, logs: [{ ...log, topics: Array.from({ length: 5 }, () => new Uint8Array(32)) }] },
      'logs[0].topics',
      'logs[0].topics: expected at most 4 topics, got 5.',
    ],
    [
      'a negative deposit nonce',
      { ...receipt, type: 0x7e, depositNonce: -2n, depositReceiptVersion: 1n },
      'depositNonce',
      'Receipt depositNonce: expected a non-negative quantity, got -2.',
    ],
  ])('%s', (_name, bad, field, message) => {
    let thrown: unknown;
    try {
      encodeReceipt(bad, { rules: RULE_SETS.optimism });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidReceiptError);
    expect(thrown).toMatchObject({ code: 'RECEIPT_INVALID', message, details: { field } });
  });
});
