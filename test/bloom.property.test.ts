import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockBloom, bloomContains, logsBloom, receiptsCommitment, RULE_SETS } from '../packages/core/src/index.js';
import { logArb, receiptArb } from './helpers/arbitraries.js';
import { oracleBloom } from './helpers/oracle.js';

export const BLOOM_RUNS = 300;

describe('logs bloom properties', () => {
  it(`does not depend on log order, contains every address and topic, and equals the oracle (${BLOOM_RUNS} runs)`, () => {
    const cases = fc
      .array(logArb, { maxLength: 40 })
      .chain((logs) => fc.record({ logs: fc.constant(logs), shuffled: fc.shuffledSubarray(logs, { minLength: logs.length, maxLength: logs.length }) }));
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

  it('the block bloom is the OR of the receipt blooms and matches receiptsCommitment', () => {
    fc.assert(
      fc.property(fc.array(receiptArb(RULE_SETS.ethereum), { maxLength: 30 }), (receipts) => {
        const expected = oracleBloom(receipts.flatMap((r) => r.logs));
        expect(blockBloom(receipts)).toEqual(expected);
        expect(receiptsCommitment(receipts).logsBloom).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('an empty bloom contains nothing, and a wrong-size bloom is an error', () => {
    expect(bloomContains(new Uint8Array(256), new Uint8Array(20))).toBe(false);
    expect(() => bloomContains(new Uint8Array(255), new Uint8Array(20))).toThrow(/256 bytes/);
  });
});
