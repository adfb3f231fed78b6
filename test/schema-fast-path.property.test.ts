import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Problems, readRpcReceipts, RULE_SETS, type Receipt } from '../packages/core/src/index.js';
import { receiptArb } from './helpers/arbitraries.js';
import { quantityValue, readQuantity } from '../packages/core/src/input/values/json-values.js';
import { logList } from '../packages/core/src/input/values/log-list.js';
import { VERIFY_LOG } from '../packages/core/src/input/requests/receipt-root-request.js';
import { arrayOf, type Spec } from '../packages/core/src/input/values/schema.js';
import { runs } from './helpers/runs.js';

/**
 * The readers' fast path (`valid`, no paths built) against their slow path (`read`, which names
 * every problem): the fast path may only give what `read` gives without a problem, and must give
 * it for every valid value it has a shortcut for.
 */

const hexOf = (minLength: number, maxLength: number) =>
  fc
    .tuple(fc.uint8Array({ minLength, maxLength }), fc.constantFrom('0x', '0X', ''), fc.boolean())
    .map(
      ([bytes, prefix, upper]) => prefix + Buffer.from(bytes).toString('hex')[upper ? 'toUpperCase' : 'toLowerCase'](),
    );
/** Right length, one character that is no hex digit. */
const notHex = (bytes: number) => hexOf(bytes, bytes).map((hex) => `${hex.slice(0, -1)}g`);
const wrong = fc.constantFrom<unknown>(null, 7, 'zz', '0x123', 'abc', [], {}, true, '');
const mostlyValid = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: invalid });
const address = mostlyValid(hexOf(20, 20), fc.oneof(hexOf(19, 21), notHex(20), wrong));
const topic = mostlyValid(hexOf(32, 32), fc.oneof(hexOf(31, 33), notHex(32), wrong));
const topics = mostlyValid(fc.array(topic, { maxLength: 5 }), wrong);
const data = mostlyValid(hexOf(0, 80), fc.oneof(notHex(3), wrong));
const extra = mostlyValid(
  fc.constant({}),
  fc.constantFrom<Record<string, unknown>>({ removed: 1 }, { contract_adress: 'aa' }, { Data: '0x' }),
);
const dropped = mostlyValid(fc.constant(''), fc.constantFrom('contract_address', 'topics', 'data'));
const log = fc
  .record({ contract_address: address, topics, data, extra, dropped })
  .map(({ extra: members, dropped: name, ...rest }) => {
    const value: Record<string, unknown> = { ...rest, ...(members as object) };
    delete value[name as string];
    return value;
  });
const LOGS = arrayOf(VERIFY_LOG, { description: 'logs', expected: 'an array of logs' });
/** A receipt's logs decoded into one buffer. */
const LOG_LIST = logList(LOGS);

/** The rules of a log, written out independently of the readers. */
const isHex = (value: unknown, bytes?: number) =>
  typeof value === 'string' &&
  /^(0[xX])?([0-9a-fA-F]{2})*$/.test(value) &&
  (bytes === undefined || value.replace(/^0[xX]/, '').length === 2 * bytes);
const LOG_MEMBERS = ['contract_address', 'topics', 'data'];
const spelling = (name: string) => name.toLowerCase().replaceAll('_', '').replaceAll('-', '');
/** Whether a member not of `LOG_MEMBERS` is one of them spelled another way (`Data` beside `data`): two claims. */
const spelledTwice = (value: object) =>
  Object.keys(value).some(
    (name) => !LOG_MEMBERS.includes(name) && LOG_MEMBERS.some((known) => spelling(known) === spelling(name)),
  );
const isValidLog = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { contract_address, topics, data } = value as Record<string, unknown>;
  return (
    !spelledTwice(value) &&
    isHex(contract_address, 20) &&
    Array.isArray(topics) &&
    topics.length <= 4 &&
    topics.every((t) => isHex(t, 32)) &&
    isHex(data)
  );
};

/**
 * `read` follows the rules; `valid` gives only what `read` gives without a problem, and gives it whenever it has a
 * shortcut.
 */
function agrees<T>(spec: Spec<T>, value: unknown, isValid: boolean, hasUnknownMember: boolean): void {
  const problems = new Problems();
  const slow = spec.read(value, 'p', problems);
  expect(problems.count === 0).toBe(isValid);
  const fast = spec.valid!(value);
  if (fast !== undefined) {
    expect(isValid).toBe(true);
    expect(fast).toEqual(slow);
  } else if (isValid && !hasUnknownMember) {
    throw new Error(`the fast path refused a valid value: ${JSON.stringify(value)}`);
  }
}

const unknownMember = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).some((k) => !LOG_MEMBERS.includes(k));

describe('request readers: the fast path agrees with the slow path', () => {
  it(`on logs and lists of logs (one buffer per list), valid and not (${runs(1000)} runs)`, () => {
    fc.assert(
      fc.property(fc.array(log, { maxLength: 6 }), (logs) => {
        for (const one of logs) agrees(VERIFY_LOG, one, isValidLog(one), unknownMember(one));
        agrees(LOGS, logs, logs.every(isValidLog), logs.some(unknownMember));
        agrees(LOG_LIST, logs, logs.every(isValidLog), logs.some(unknownMember));
      }),
      { numRuns: runs(1000) },
    );
  });

  it(`on lists of logs that repeat addresses and topics (shared with the log before), valid and not (${runs(300)} runs)`, () => {
    // Few distinct values, so that logs repeat them, in either case and with or without 0x.
    const pick = <T>(values: T[]) => fc.nat().map((i) => values[i % values.length]!);
    const repeating = fc
      .record({
        addresses: fc.array(address, { minLength: 1, maxLength: 2 }),
        topics: fc.array(topic, { minLength: 1, maxLength: 3 }),
      })
      .chain(({ addresses, topics: pool }) =>
        fc.array(
          fc.record({ contract_address: pick(addresses), topics: fc.array(pick(pool), { maxLength: 4 }), data }),
          { maxLength: 12 },
        ),
      );
    fc.assert(
      fc.property(repeating, (logs) => {
        agrees(LOG_LIST, logs, logs.every(isValidLog), false);
        const decoded = LOG_LIST.valid!(logs);
        if (decoded === undefined) return;
        // A log that writes the address, or a topic at the same place, as the log before it shares its bytes: decoded
        // once.
        for (let i = 1; i < logs.length; i++) {
          if (logs[i]!.contract_address === logs[i - 1]!.contract_address)
            expect(decoded[i]!.address).toBe(decoded[i - 1]!.address);
          logs[i]!.topics.forEach((topic, t) => {
            if (topic === logs[i - 1]!.topics[t]) expect(decoded[i]!.topics[t]).toBe(decoded[i - 1]!.topics[t]);
          });
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it(`on quantities: quantityValue gives a value exactly when readQuantity records no problem, and the same one (${runs(1000)} runs)`, () => {
    const quantity = fc.oneof(
      fc.integer({ min: -5, max: 1000 }),
      fc.double({ noNaN: true }),
      fc.constantFrom(
        2 ** 53 - 1,
        2 ** 53,
        2 ** 64,
        '18446744073709551615',
        '18446744073709551616',
        '0x',
        '0xffffffffffffffff',
        '0x10000000000000000',
        '01',
        '',
      ),
      fc.bigInt({ min: 0n, max: 1n << 70n }).map((n) => n.toString()),
      fc.bigInt({ min: 0n, max: 1n << 70n }).map((n) => `0x${n.toString(16)}`),
      wrong,
    );
    fc.assert(
      fc.property(quantity, fc.constantFrom(1n, 255n, (1n << 64n) - 1n), (value, max) => {
        const problems = new Problems();
        const slow = readQuantity(value, 'q', problems, max);
        expect(quantityValue(value, max)).toBe(slow);
        expect(slow === undefined).toBe(problems.count === 1);
      }),
      { numRuns: runs(1000) },
    );
  });
});

describe('quantityValue on short hex', () => {
  const DECIMAL = /^(0|[1-9][0-9]*)$/;
  const HEX_QUANTITY = /^0[xX][0-9a-fA-F]+$/;
  it(`reads a short hex quantity digit by digit as the pattern and BigInt read it (${runs(1000)} runs)`, () => {
    const char = fc.constantFrom(...'0123456789abcdefABCDEFgGxX-+ \u0660'.split(''));
    const text = fc.oneof(
      fc.array(char, { maxLength: 17 }).map((c) => `0x${c.join('')}`),
      fc.array(char, { maxLength: 17 }).map((c) => `0X${c.join('')}`),
      fc.array(char, { maxLength: 17 }).map((c) => c.join('')),
      // Around the 13 digits read as a Number, and with leading zeros.
      fc
        .tuple(fc.integer({ min: 11, max: 16 }), fc.constantFrom('f', 'F', '0', '9'))
        .map(([n, digit]) => `0x${digit.repeat(n)}`),
      fc.integer({ min: 0, max: 15 }).map((n) => `0x${'0'.repeat(n)}1`),
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

describe('JSON-RPC receipts: the fast path gives what the receipts are, and refuses what is not valid', () => {
  /** A receipt as a node returns it, in any case and with members the reader ignores. */
  const rpcOf = (receipt: Receipt, index: number, upper: boolean) => {
    const hex = (bytes: Uint8Array) => {
      const digits = Buffer.from(bytes).toString('hex');
      return `0x${upper ? digits.toUpperCase() : digits}`;
    };
    const quantity = (n: bigint | number) => `0x${n.toString(16)}`;
    return {
      transactionHash: hex(new Uint8Array(32).fill(index)),
      transactionIndex: quantity(index),
      blockNumber: '0x1',
      ...(receipt.type !== 0 && { type: quantity(receipt.type) }),
      ...(receipt.root !== undefined ? { root: hex(receipt.root) } : { status: quantity(receipt.status!), root: '0x' }),
      cumulativeGasUsed: quantity(receipt.cumulativeGasUsed),
      logs: receipt.logs.map((log, i) => ({
        address: hex(log.address),
        topics: log.topics.map(hex),
        data: hex(log.data),
        logIndex: quantity(i),
        removed: false,
      })),
      ...(receipt.depositNonce !== undefined && { depositNonce: quantity(receipt.depositNonce) }),
      ...(receipt.depositReceiptVersion !== undefined && {
        depositReceiptVersion: quantity(receipt.depositReceiptVersion),
      }),
    };
  };
  /** One member of one receipt made invalid, and the path its problem is named at. */
  const breakages: Array<[string, (r: any) => void]> = [
    ['type', (r) => (r.type = '0x100')],
    ['status', (r) => ('status' in r ? (r.status = '0x2') : (r.root = '0x12'))],
    ['cumulativeGasUsed', (r) => (r.cumulativeGasUsed = '0x10000000000000000')],
    ['logs', (r) => (r.logs = {})],
    ['logs[0].address', (r) => r.logs[0] && (r.logs[0].address = r.logs[0].address.slice(0, -2))],
    ['logs[0].topics', (r) => r.logs[0] && (r.logs[0].topics = ['0x', '0x', '0x', '0x', '0x'])],
    ['logs[0].data', (r) => r.logs[0] && (r.logs[0].data = '0x0g')],
    ['transactionHash', (r) => (r.transactionHash = '0x1234')],
    ['transactionIndex', (r) => (r.transactionIndex = 'one')],
  ];

  it(`valid lists read as the receipts they were made from; one broken member refuses the list (${runs(500)} runs)`, () => {
    const cases = fc.record({
      receipts: fc.array(receiptArb(RULE_SETS.optimism), { maxLength: 6 }),
      upper: fc.boolean(),
      broken: fc.option(fc.tuple(fc.nat(), fc.nat({ max: breakages.length - 1 })), { nil: undefined }),
    });
    fc.assert(
      fc.property(cases, ({ receipts, upper, broken }) => {
        const list = receipts.map((receipt, i) => rpcOf(receipt, i, upper));
        let brokenAt: number | undefined;
        if (broken !== undefined && list.length > 0) {
          brokenAt = broken[0] % list.length;
          const before = JSON.stringify(list[brokenAt]);
          breakages[broken[1]]![1](list[brokenAt]);
          if (JSON.stringify(list[brokenAt]) === before) brokenAt = undefined;
        }
        const problems = new Problems();
        const read = readRpcReceipts(list, 'receipts', problems);
        if (brokenAt === undefined) {
          expect(problems.count).toBe(0);
          expect(read).toEqual(receipts);
        } else {
          expect(read).toBeUndefined();
          expect(problems.list.some((p) => p.name.startsWith(`receipts[${brokenAt}]`))).toBe(true);
        }
      }),
      { numRuns: runs(500) },
    );
  });
});
