/**
 * The members a node adds to a block's receipts and logs that repeat the block (its hash, number and timestamp, the
 * transaction's hash and place, the log's place in the block, and that it is not removed) are not hashed: on every
 * real block they agree with what they repeat, and one altered is a conflict named at its path, never a block
 * reported identical, whichever reader reads it.
 */
import { describe, expect, it } from 'vitest';
import { verifyBlock } from '../packages/core/src/index.js';
import { fixtureNames, loadFixture, unverifiableNames } from './helpers/fixtures.js';

type Json = Record<string, any>;
const fixture = loadFixture('op-mainnet-154497277') as Json;
const HASH = fixture.header.hash as string;
const TX2 = fixture.header.transactions[2] as string;

/** The fixture with `change` made to a deep copy of it. */
function altered(change: (block: Json) => void, base: Json = fixture): Json {
  const block = structuredClone(base);
  change(block);
  return block;
}
const problemsOf = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.verdict;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
};

describe("the members of a block's receipts and logs that repeat the block", () => {
  it('every real block that carries them says what they repeat: the logs counted from 0 across the block', () => {
    const withLogIndex = [...fixtureNames, ...unverifiableNames].filter((name) =>
      loadFixture(name).receipts.some((r: Json) => r.logs?.some((l: Json) => l.logIndex !== undefined)),
    );
    // Ethereum, Polygon PoS, OP Mainnet (deposits), Arbitrum One, a devnet, Cronos and Tempo.
    expect(withLogIndex.length).toBeGreaterThanOrEqual(15);
    for (const name of withLogIndex) {
      const block = loadFixture(name) as Json;
      const logIndexes = block.receipts.flatMap((r: Json) => r.logs.map((l: Json) => Number(l.logIndex)));
      expect(logIndexes, name).toEqual(logIndexes.map((_: number, i: number) => i));
    }
    expect(problemsOf(fixture)).toBe('identical');
  });

  const log = 'receipts[2].logs[0]';
  it.each([
    [
      'receipts[2].blockHash',
      (b: Json) => (b.receipts[2].blockHash = `0x${'11'.repeat(32)}`),
      `${HASH}, the header's hash`,
    ],
    ['receipts[2].blockNumber', (b: Json) => (b.receipts[2].blockNumber = '0x1'), "154497277, the header's number"],
    [
      'receipts[2].transactionHash',
      (b: Json) => {
        b.receipts[2].transactionHash = `0x${'22'.repeat(32)}`;
        for (const l of b.receipts[2].logs) l.transactionHash = `0x${'22'.repeat(32)}`;
      },
      `${TX2}, the block's transactions[2]`,
    ],
    [
      `${log}.blockHash`,
      (b: Json) => (b.receipts[2].logs[0].blockHash = `0x${'11'.repeat(32)}`),
      `${HASH}, the header's hash`,
    ],
    [`${log}.blockNumber`, (b: Json) => (b.receipts[2].logs[0].blockNumber = '0x1'), "154497277, the header's number"],
    [
      `${log}.blockTimestamp`,
      (b: Json) => (b.receipts[2].logs[0].blockTimestamp = '0x1'),
      `${Number(fixture.header.timestamp)}, the header's timestamp`,
    ],
    [
      `${log}.transactionHash`,
      (b: Json) => (b.receipts[2].logs[0].transactionHash = `0x${'22'.repeat(32)}`),
      `${TX2}, its receipt's transactionHash`,
    ],
    [
      `${log}.transactionIndex`,
      (b: Json) => (b.receipts[2].logs[0].transactionIndex = '0x7'),
      "2, its receipt's place among the block's transactions",
    ],
    [
      `${log}.logIndex`,
      (b: Json) => (b.receipts[2].logs[0].logIndex = '0x999'),
      "its position among the block's logs, counted from 0 in transaction order",
    ],
  ])('%s altered: a conflict named at its path, saying what it repeats', (path, change, expected) => {
    const problems = problemsOf(altered(change));
    expect(problems).toContainEqual([path, 'conflict', expect.stringContaining(`${expected}`)]);
    expect(problems).toContainEqual([path, 'conflict', expect.stringContaining('which it repeats, got')]);
  });

  it('a log said to be removed is a conflict: a log of the receipts of a block is in the block', () => {
    expect(problemsOf(altered((b) => (b.receipts[2].logs[0].removed = true)))).toEqual([
      [`${log}.removed`, 'conflict', 'false or absent: a log of the receipts of a block is in the block, got true'],
    ]);
  });

  it('the log index is its position across the block, not in its receipt', () => {
    // The first receipt with logs after one that has some.
    const first = fixture.receipts.findIndex(
      (r: Json, i: number) => r.logs.length > 0 && fixture.receipts.slice(0, i).some((p: Json) => p.logs.length > 0),
    );
    expect(Number(fixture.receipts[first].logs[0].logIndex)).toBeGreaterThan(0);
    expect(problemsOf(altered((b) => (b.receipts[first].logs[0].logIndex = '0x0')))).toEqual([
      [`receipts[${first}].logs[0].logIndex`, 'conflict', expect.stringMatching(/^\d+, its position .* got 0$/)],
    ]);
  });

  it('the same values spelled otherwise (upper-case hex, decimal, a JSON number, leading zeros) are the same', () => {
    const block = altered((b) => {
      const r = b.receipts[2];
      r.blockHash = HASH.toUpperCase().replace('0X', '0x');
      r.blockNumber = '154497277';
      r.transactionHash = TX2.toUpperCase().replace('0X', '0x');
      r.logs[0].blockNumber = 154497277;
      r.logs[0].logIndex = `0x000${r.logs[0].logIndex.slice(2)}`;
      r.logs[0].removed = null;
      delete r.logs[1].transactionIndex;
    });
    expect(problemsOf(block)).toBe('identical');
  });

  it('the listed transactions may be objects: the receipt repeats their hash', () => {
    const objects = (b: Json) => (b.header.transactions = b.header.transactions.map((hash: string) => ({ hash })));
    expect(problemsOf(altered(objects))).toBe('identical');
    const other = altered((b) => {
      objects(b);
      b.header.transactions[2].hash = `0x${'33'.repeat(32)}`;
    });
    expect(problemsOf(other)).toEqual([
      [
        'receipts[2].transactionHash',
        'conflict',
        `0x${'33'.repeat(32)}, the block's transactions[2].hash, which it repeats, got ${TX2}`,
      ],
    ]);
  });

  it.each([
    ['receipts[2].blockHash', (b: Json) => (b.receipts[2].blockHash = '0x1234')],
    [`${log}.blockNumber`, (b: Json) => (b.receipts[2].logs[0].blockNumber = 'one')],
    [`${log}.logIndex`, (b: Json) => (b.receipts[2].logs[0].logIndex = -1)],
    [`${log}.removed`, (b: Json) => (b.receipts[2].logs[0].removed = 'false')],
    ['header.transactions[2]', (b: Json) => (b.header.transactions[2] = '0xzz')],
  ])('%s not a value of its kind: named as such', (path, change) => {
    expect(problemsOf(altered(change))).toEqual([
      [path, expect.stringMatching(/^(invalid_format|out_of_range)$/), expect.any(String)],
    ]);
  });

  it('absent or null members are not asked for (not every node gives them)', () => {
    const block = altered((b) => {
      for (const r of b.receipts) {
        r.blockHash = null;
        delete r.blockNumber;
        for (const l of r.logs)
          for (const m of ['blockHash', 'blockNumber', 'transactionHash', 'logIndex', 'removed']) delete l[m];
      }
    });
    expect(problemsOf(block)).toBe('identical');
  });

  it('a range of receipts listed out of order is counted in transaction order', () => {
    const block = altered((b) => b.receipts.reverse());
    expect(problemsOf(block)).toBe('identical');
  });
});
