import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blockBloom,
  bloomContains,
  defaultKeccak256,
  logsBloom,
  receiptsCommitment,
  RULE_SETS,
  type Log,
} from '../packages/core/src/index.js';
import { BLOOM_BYTES, BloomHasher } from '../packages/core/src/bloom/bloom.js';
import { logArb, receiptArb } from './helpers/arbitraries.js';
import { oracleBloom } from './helpers/oracle.js';
import { runs } from './helpers/runs.js';

export const BLOOM_RUNS = runs(300);

describe('logs bloom properties', () => {
  it(`does not depend on log order, contains every address and topic, and equals the oracle (${BLOOM_RUNS} runs)`, () => {
    const cases = fc.array(logArb, { maxLength: 40 }).chain((logs) =>
      fc.record({
        logs: fc.constant(logs),
        shuffled: fc.shuffledSubarray(logs, { minLength: logs.length, maxLength: logs.length }),
      }),
    );
    fc.assert(
      fc.property(cases, ({ logs, shuffled }) => {
        const bloom = logsBloom(logs);
        expect(logsBloom(shuffled)).toEqual(bloom);
        expect(bloom).toEqual(oracleBloom(logs));
        for (const log of logs) {
          expect(bloomContains(bloom, log.address)).toBe(true);
          for (const topic of log.topics) expect(bloomContains(bloom, topic)).toBe(true);
        }
      }),
      { numRuns: BLOOM_RUNS },
    );
  });

  it("past the cache's 32,768 distinct items it starts over, and every bloom is still right", () => {
    const item = (n: number, size: number) => {
      const bytes = new Uint8Array(size);
      new DataView(bytes.buffer).setUint32(size - 4, n);
      return bytes;
    };
    // 45,000 distinct items; one address, the same object, in every other log, on either side of the start-over.
    const shared = item(0, 20);
    const logs: Log[] = Array.from({ length: 30_000 }, (_, i) => ({
      address: i % 2 === 0 ? shared : item(i, 20),
      topics: [item(i, 32), item(i + 1, 32)],
      data: new Uint8Array(0),
    }));
    const receipts = [0, 10_000, 20_000].map((start) => ({
      type: 0,
      status: 1 as const,
      cumulativeGasUsed: 0n,
      logs: logs.slice(start, start + 10_000),
    }));
    const commitment = receiptsCommitment(receipts);
    const expected = oracleBloom(logs);
    expect(commitment.logsBloom).toEqual(expected);
    expect(blockBloom(receipts)).toEqual(expected);
    expect(logsBloom(logs)).toEqual(expected);
  });

  it(`block after block, each commitment taking the hasher the last one gave back, large and small in turn, every bloom is the oracle's (${runs(100)} runs)`, () => {
    const block = fc.array(receiptArb(RULE_SETS.ethereum), { maxLength: 30 });
    fc.assert(
      fc.property(fc.array(block, { minLength: 2, maxLength: 6 }), (blocks) => {
        for (const receipts of [...blocks, ...blocks.reverse()]) {
          const expected = oracleBloom(receipts.flatMap((r) => r.logs));
          expect(receiptsCommitment(receipts).logsBloom).toEqual(expected);
        }
      }),
      { numRuns: runs(100) },
    );
    // A hasher given back is emptied when borrowed: a block of one item after one of 2,000 holds one entry, not 2,001.
    const many = Array.from({ length: 1_000 }, (_, i) => ({
      address: Uint8Array.from({ length: 20 }, (_, j) => (j < 2 ? i >> (8 * j) : 1)),
      topics: [Uint8Array.from({ length: 32 }, (_, j) => (j < 2 ? i >> (8 * j) : 2))],
      data: new Uint8Array(0),
    }));
    const big = BloomHasher.borrow();
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const log of many) big.addLog(bloom, log);
    big.giveBack();
    const next = BloomHasher.borrow();
    expect(next).toBe(big);
    expect(next.size).toBe(0);
    const one = new Uint8Array(BLOOM_BYTES);
    next.addLog(one, { address: many[0]!.address, topics: [], data: new Uint8Array(0) });
    expect(next.size).toBe(1);
    expect(one).toEqual(oracleBloom([{ address: many[0]!.address, topics: [], data: new Uint8Array(0) }]));
    next.giveBack();
    // Another Keccak is not the default's: its hasher is its own, and not kept.
    const other = BloomHasher.borrow((data) => defaultKeccak256(data));
    expect(other).not.toBe(next);
    other.giveBack();
    expect(BloomHasher.borrow()).toBe(next);
  });

  it('the block bloom is the OR of the receipt blooms and matches receiptsCommitment', () => {
    fc.assert(
      fc.property(fc.array(receiptArb(RULE_SETS.ethereum), { maxLength: 30 }), (receipts) => {
        const expected = oracleBloom(receipts.flatMap((r) => r.logs));
        expect(blockBloom(receipts)).toEqual(expected);
        expect(receiptsCommitment(receipts).logsBloom).toEqual(expected);
      }),
      { numRuns: runs(100) },
    );
  });

  it(`the block-wide cache of distinct items: repeats, items that share a table key, items of any length, and growth past 512 items equal the oracle (${runs(100)} runs)`, () => {
    // Items equal in all but two bytes (the table's key once mixed only the first, middle and last four, so that these
    // fell into one slot chain and only the byte comparison told them apart).
    const sameKey = (variant: number) =>
      Uint8Array.from({ length: 32 }, (_, i) => (i === 8 ? variant : i === 20 ? variant >> 8 : 7));
    const item = fc.oneof(
      fc
        .integer({ min: 0, max: 1500 })
        .map((n) => Uint8Array.from({ length: 32 }, (_, i) => (i < 2 ? n >> (8 * i) : 0))),
      fc.integer({ min: 0, max: 0xffff }).map(sameKey),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      // Any length, zero bytes ending some: the cache pads the last word of an item with zeros,
      // so only the length tells [0, 0, 0, 0, 0] from [0, 0, 0, 0].
      fc.uint8Array({ maxLength: 40 }),
      fc.integer({ min: 0, max: 9 }).map((length) => new Uint8Array(length)),
    );
    const log = fc.record({
      address: fc.uint8Array({ minLength: 20, maxLength: 20 }),
      topics: fc.array(item, { maxLength: 4 }),
      data: fc.constant(new Uint8Array(0)),
    });
    fc.assert(
      fc.property(fc.array(log, { minLength: 100, maxLength: 400 }), (logs) => {
        const repeated = [...logs, ...logs.slice(0, 50)];
        // The cache itself: blockBloom and bloomBits hold items to a log's sizes, and the cache takes any length.
        const bloom = new Uint8Array(BLOOM_BYTES);
        const hasher = new BloomHasher();
        for (const log of repeated) hasher.addLog(bloom, log);
        expect(bloom).toEqual(oracleBloom(repeated));
      }),
      { numRuns: runs(100) },
    );
  });

  it(`an item that is the same object as the previous log's at its place (as the request decoder shares them) gives the bits of a copy, across receipts and table growth (${runs(100)} runs)`, () => {
    // Each log's items are fresh, or the very objects of the log before: at the same place
    // (the fast path), or at another place (which must not take the other place's bits).
    const topic = fc.uint8Array({ minLength: 32, maxLength: 32 });
    const choice = fc.record({
      fresh: fc.record({
        address: logArb.map((log) => log.address),
        topics: fc.array(topic, { minLength: 4, maxLength: 4 }),
        data: fc.constant(new Uint8Array(0)),
      }),
      shareAddress: fc.boolean(),
      topicFrom: fc.array(fc.integer({ min: -1, max: 3 }), { maxLength: 4 }),
    });
    const shared = (choices: Array<{ fresh: Log; shareAddress: boolean; topicFrom: number[] }>): Log[] => {
      const logs: Log[] = [];
      for (const { fresh, shareAddress, topicFrom } of choices) {
        const before = logs.at(-1);
        const topics = topicFrom.map((from, i) =>
          before !== undefined && from >= 0 && from < before.topics.length ? before.topics[from]! : fresh.topics[i]!,
        );
        logs.push({
          address: before !== undefined && shareAddress ? before.address : fresh.address,
          topics,
          data: fresh.data,
        });
      }
      return logs;
    };
    const copied = (logs: Log[]): Log[] =>
      logs.map((log) => ({ address: log.address.slice(), topics: log.topics.map((t) => t.slice()), data: log.data }));
    fc.assert(
      fc.property(
        fc.array(choice, { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 5 }),
        (choices, receiptCount) => {
          const logs = shared(choices);
          const per = Math.ceil(logs.length / receiptCount);
          const receipts = (list: Log[]) =>
            Array.from({ length: receiptCount }, (_, r) => ({
              type: 0,
              status: 1 as const,
              cumulativeGasUsed: 0n,
              logs: list.slice(r * per, (r + 1) * per),
            }));
          const expected = receiptsCommitment(receipts(copied(logs)));
          expect(receiptsCommitment(receipts(logs))).toEqual(expected);
          expect(expected.logsBloom).toEqual(oracleBloom(logs));
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it("items written to share the table's key, as a block's author who knew the process's secret would, cost a Keccak each past 64 probes, and the bloom is still right", () => {
    // The key (bloom.ts, readItem): h = secret ^ length, then for each big-endian word h ^= w and h = imul(rotl(h, 13),
    // 0x9e3779b1). Multiplying by an odd number can be undone, so the last word can steer h to any value: every item
    // below ends in the same state, whatever its first seven words.
    const secret = 0x1234567;
    const multiplier = 0x9e3779b1;
    let inverse = multiplier;
    for (let i = 0; i < 5; i++) inverse = Math.imul(inverse, 2 - Math.imul(multiplier, inverse));
    expect(Math.imul(multiplier, inverse)).toBe(1);
    const target = 0x0badf00d;
    const needed = Math.imul(target, inverse);
    const lastWordTo = (h: number) => h ^ ((needed >>> 13) | (needed << 19));
    const colliding = (n: number): Uint8Array => {
      const view = new DataView(new ArrayBuffer(32));
      let h = secret ^ 32;
      for (let w = 0; w < 7; w++) {
        const word = w === 0 ? n : w * 0x01010101;
        view.setInt32(4 * w, word);
        h ^= word;
        h = Math.imul((h << 13) | (h >>> 19), multiplier);
      }
      view.setInt32(28, lastWordTo(h));
      return new Uint8Array(view.buffer);
    };
    const topics = Array.from({ length: 20_000 }, (_, n) => colliding(n));
    let hashed = 0;
    const counting = (data: Uint8Array) => {
      hashed++;
      return defaultKeccak256(data);
    };
    const known = new BloomHasher(counting, secret);
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const topic of topics) known.add(bloom, topic);
    // The oracle hashes every item it is given, of whatever size: the first as the "address".
    const [first, ...rest] = topics;
    expect(bloom).toEqual(oracleBloom([{ address: first!, topics: rest, data: new Uint8Array(0) }]));
    // At most one chain of 64 kept; every other item hashed once, and never compared with more than 64 entries.
    expect(known.size).toBeLessThanOrEqual(64);
    expect(known.unkept).toBe(topics.length - known.size);
    expect(hashed).toBe(topics.length);
    // The same items against the process's own secret, which they were not written for: each kept, none past the bound.
    const own = new BloomHasher();
    const ownBloom = new Uint8Array(BLOOM_BYTES);
    for (const topic of topics) own.add(ownBloom, topic);
    expect(ownBloom).toEqual(bloom);
    expect(own.size).toBe(topics.length);
    expect(own.unkept).toBeLessThan(topics.length / 100);
  });

  it('an empty bloom contains nothing, and a wrong-size bloom is an error', () => {
    expect(bloomContains(new Uint8Array(256), new Uint8Array(20))).toBe(false);
    expect(() => bloomContains(new Uint8Array(255), new Uint8Array(20))).toThrow(/256 bytes/);
  });
});
