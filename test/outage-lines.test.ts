/** A worker's lines of a database outage: one for each kind of error, told again only in a later outage. */
import { describe, expect, it } from 'vitest';
import { OUTAGE_QUIET_MS, outageLines } from '../packages/service/src/queue/outage-lines.js';

describe('outage lines', () => {
  it("tells each kind once per outage, whichever of pg-boss's pollers meets it; again after the outage is over", () => {
    let now = 0;
    const told: string[] = [];
    const lines = outageLines(
      (line) => told.push(line),
      () => now,
    );
    const refused = 'queue: connect ECONNREFUSED 127.0.0.1:5432';
    for (let poll = 0; poll < 20; poll++, now += 500) {
      lines.error(`${refused} (Queue: evm-integrity-audit-chunk, Worker: 9c73fa79-f2eb-4586-a55c-9c06494c194d)`);
      lines.error(`${refused} (Queue: evm-integrity-audit-chunk-lost, Worker: 3dd2763c-7d51-4ba1-b431-0fac88b3ea10)`);
      lines.error(refused);
      if (poll === 10) lines.error('queue: the database system is starting up');
    }
    expect(told).toEqual([refused, 'queue: the database system is starting up']);
    now += OUTAGE_QUIET_MS + 1; // quiet: over
    lines.error(refused);
    lines.recovered(); // a chunk written: over
    lines.error(refused);
    lines.error(refused);
    expect(told.slice(2)).toEqual([refused, refused]);
  });
});
