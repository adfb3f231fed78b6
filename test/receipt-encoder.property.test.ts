/**
 * The JSON-RPC receipt encoder (input/json-rpc/receipt-encoder.ts) writes a receipt's encoding straight from its JSON,
 * for verifyBlock's streamed path. It must write exactly what the reader then the core's encoder write (readRpcReceipt,
 * receiptsRootAndBloomOf), and refuse whatever that reader refuses: a block it refuses is read again whole, so a refusal
 * of more is only slower, but an acceptance of more could give a verdict on input the reader names as invalid. Held
 * here on every receipt of every real block, and on random receipts with hex of every form and length.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Problems, RULE_SETS, bytesToHex, type Receipt, type RuleSet } from '../packages/core/src/index.js';
import { readRpcReceipt } from '../packages/core/src/input/json-rpc/json-rpc.js';
import { JsonReceiptEncoder } from '../packages/core/src/input/json-rpc/receipt-encoder.js';
import { quantityValue } from '../packages/core/src/input/values/json-values.js';
import { receiptsRootAndBloomOf, receiptsRootAndBloomWritten } from '../packages/core/src/receipts/root.js';
import { Slab } from '../packages/core/src/bytes/slab.js';
import { fixtureNames, loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';

/**
 * What a commitment gives, as text: the root (the hash of each encoding, through the trie), the bloom, each receipt's
 * bloom; or that the block is read whole, as verifyBlock reads it after a receipt refused or of a type the rules lack.
 */
type Answer = { root: string; bloom: string; blooms: string[] } | 'read whole';

function commitment(run: (blooms: string[]) => { receiptsRoot: Uint8Array; logsBloom: Uint8Array }): Answer {
  const blooms: string[] = [];
  try {
    const { receiptsRoot, logsBloom } = run(blooms);
    return { root: bytesToHex(receiptsRoot), bloom: bytesToHex(logsBloom), blooms };
  } catch (error) {
    if ((error as Error).name === 'UnknownReceiptTypeError') return 'read whole';
    throw error;
  }
}

/** The reader's answer: each receipt read by readRpcReceipt (refused when it names a problem), then the core's. */
function readerAnswer(receipts: unknown[], rules: RuleSet): Answer {
  const read: Receipt[] = [];
  for (const [i, value] of receipts.entries()) {
    const problems = new Problems();
    const receipt = readRpcReceipt(value, `receipts[${i}]`, problems);
    if (receipt === undefined || !problems.empty) return 'read whole';
    read.push(receipt);
  }
  return commitment((blooms) =>
    receiptsRootAndBloomOf(read.length, (i) => read[i]!, {
      rules,
      onReceiptBloom: (i, bloom) => (blooms[i] = bytesToHex(bloom)),
    }),
  );
}

/** The encoder's answer, one encoder for the list (as a block's). */
function encoderAnswer(receipts: unknown[], rules: RuleSet): Answer {
  const encoder = new JsonReceiptEncoder(new Slab());
  const refused = new Error('refused');
  try {
    return commitment((blooms) =>
      receiptsRootAndBloomWritten(
        receipts.length,
        (i, room) => {
          const end = encoder.write(receipts[i], room);
          if (end === undefined) throw refused;
          return end;
        },
        { rules, onReceiptBloom: (i, bloom) => (blooms[i] = bytesToHex(bloom)) },
      ),
    );
  } catch (error) {
    if (error === refused) return 'read whole';
    throw error;
  }
}

describe('the JSON-RPC receipt encoder', () => {
  it.each(fixtureNames)('%s: every receipt written as the reader and the core write it', (name) => {
    const { receipts } = loadFixture(name);
    // The chain's own rules where they define more types than Ethereum's.
    const rules = Object.values(RULE_SETS).find((set) =>
      (receipts as Array<{ type?: string }>).every((r) => set.layouts.has(Number(r.type ?? 0))),
    )!;
    const answer = encoderAnswer(receipts, rules);
    expect(answer).toEqual(readerAnswer(receipts, rules));
  });

  // Hex of every form the reader takes: each length the encoding treats apart (empty, one byte below and above 0x80,
  // under and over 55 bytes), the 0x prefix in either case or absent, upper-case digits.
  const hexOf = (bytes: fc.Arbitrary<number>) =>
    fc
      .tuple(
        bytes.chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        fc.constantFrom('0x', '0X', ''),
        fc.boolean(),
      )
      .map(([b, prefix, upper]) => {
        const digits = Buffer.from(b).toString('hex');
        return prefix + (upper ? digits.toUpperCase() : digits);
      });
  // A few addresses and topics, so that logs repeat the previous log's items (across receipts too).
  const address = fc.oneof(fc.constantFrom(`0x${'ab'.repeat(20)}`, `0x${'0c'.repeat(20)}`), hexOf(fc.constant(20)));
  const topic = fc.oneof(fc.constantFrom(`0x${'11'.repeat(32)}`, `0X${'EE'.repeat(32)}`), hexOf(fc.constant(32)));
  const data = fc.oneof(
    hexOf(fc.constantFrom(0, 1, 2, 31, 32, 55, 56, 200, 300)),
    fc.constantFrom('0x00', '0x7f', '0x80', '0xff'),
  );
  const log = fc.record({ address, topics: fc.array(topic, { maxLength: 4 }), data });
  const receipt = fc.record({
    type: fc.constantFrom<unknown>('0x0', '0x1', '0x2', '0x3', '0x4', '0x7e', undefined, null),
    status: fc.constantFrom<unknown>('0x1', '0x0', 1, 0),
    cumulativeGasUsed: fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((n) => `0x${n.toString(16)}`),
      fc.constantFrom<unknown>('0x0', '0X5208', '21000', 21000),
    ),
    logs: fc.array(log, { maxLength: 6 }),
    depositNonce: fc.constantFrom<unknown>(undefined, null, '0x5'),
    depositReceiptVersion: fc.constantFrom<unknown>(undefined, '0x1'),
  });
  // What may be put in place of a member: wrong forms and lengths, one digit more or less, a digit that is not.
  const wrong = fc.oneof(
    fc.constantFrom<unknown>(
      null,
      undefined,
      0,
      1,
      '',
      '0x',
      '0x0',
      '0x1',
      '0x2',
      '0xz1',
      '0x' + 'g'.repeat(40),
      [],
      {},
    ),
    fc.constantFrom<unknown>(
      `0x${'aa'.repeat(32)}`,
      `0x${'aa'.repeat(31)}`,
      `0x${'ab'.repeat(20)}0`,
      `0x${'ab'.repeat(20)}`,
    ),
    fc.constantFrom<unknown>('0x00', '0x7f', '0x80', `0x${'12'.repeat(20)}z`, `0x${'12'.repeat(32).slice(0, -1)}`),
  );
  /** A path into a receipt (a member, a log's member, a topic) and the value put there. */
  const alteration = fc.tuple(
    fc.constantFrom(
      'type',
      'status',
      'root',
      'cumulativeGasUsed',
      'logs',
      'depositNonce',
      'depositReceiptVersion',
      'log',
      'address',
      'topics',
      'topic',
      'data',
    ),
    fc.nat(),
    fc.nat(),
    wrong,
  );
  function alter(
    receipts: Array<Record<string, unknown>>,
    [member, at, inner, value]: [string, number, number, unknown],
  ): unknown[] {
    const copy = structuredClone(receipts);
    const r = copy[at % copy.length]!;
    const logs = r.logs as Array<Record<string, unknown>>;
    const inLog = ['log', 'address', 'topics', 'topic', 'data'].includes(member);
    if (!inLog) r[member] = value;
    else if (logs.length > 0) {
      const i = inner % logs.length;
      if (member === 'log') logs[i] = value as Record<string, unknown>;
      else if (member === 'topic') {
        const topics = logs[i]!.topics as unknown[];
        if (topics.length > 0) topics[inner % topics.length] = value;
      } else logs[i]![member] = value;
    }
    return copy;
  }

  it(`writes what the reader and the core write, and refuses what the reader refuses (${runs(1000)} runs)`, () => {
    let written = 0;
    fc.assert(
      fc.property(
        fc.array(receipt, { minLength: 1, maxLength: 4 }),
        fc.option(alteration, { freq: 2 }),
        fc.constantFrom(RULE_SETS.ethereum, RULE_SETS.optimism),
        (valid, change, rules) => {
          const receipts = change === null ? valid : alter(valid, change);
          const answer = encoderAnswer(receipts, rules);
          expect(answer).toEqual(readerAnswer(receipts, rules));
          if (answer !== 'read whole') written++;
        },
      ),
      { numRuns: runs(1000) },
    );
    // Most lists are written, not merely refused by both.
    expect(written).toBeGreaterThan(runs(1000) / 4);
  });
});

describe('quantityValue', () => {
  const DECIMAL = /^(0|[1-9][0-9]*)$/;
  const HEX_QUANTITY = /^0[xX][0-9a-fA-F]+$/;
  it(`reads a short hex quantity digit by digit as the pattern and BigInt read it (${runs(1000)} runs)`, () => {
    const char = fc.constantFrom(...'0123456789abcdefABCDEFgGxX-+ \u0660'.split(''));
    const text = fc.oneof(
      fc.array(char, { maxLength: 17 }).map((c) => `0x${c.join('')}`),
      fc.array(char, { maxLength: 17 }).map((c) => `0X${c.join('')}`),
      fc.array(char, { maxLength: 17 }).map((c) => c.join('')),
    );
    fc.assert(
      fc.property(text, fc.constantFrom(1n, 255n, (1n << 52n) - 1n, (1n << 64n) - 1n), (value, max) => {
        const expected = DECIMAL.test(value) || HEX_QUANTITY.test(value) ? BigInt(value) : undefined;
        expect(quantityValue(value, max)).toBe(expected === undefined || expected > max ? undefined : expected);
      }),
      { numRuns: runs(1000) },
    );
  });
});
