/**
 * The join pass of the audit queue on real PostgreSQL, with the interleavings the worker tests meet only by chance: a
 * link whose node question is answered while another worker joins the link before it is still decided, never left
 * waiting with both chunks done.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlockJson, BlockSource } from 'evm-integrity/audit';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { openAuditQueue, type AuditQueue } from '../packages/service/src/queue/audit-queue.js';
import { enqueueAudit } from '../packages/service/src/queue/enqueue.js';
import { joinAround } from '../packages/service/src/queue/join-pass.js';
import type { AuditPlan } from '../packages/service/src/queue/audit-plan.js';

/** Chunks [1, 9], [10, 19], [20, 29] and [30, 30]. */
const PLAN: AuditPlan = {
  chain_id: 1,
  from: 1,
  to: 30,
  rpc: 'http://127.0.0.1:9/never-asked',
  chunk_size: 10,
  concurrency: 1,
  chunk_timeout_s: 60,
  chunk_retries: 0,
};
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

let db: FreshDatabase;
let queue: AuditQueue;
let id: string;
beforeEach(async () => {
  db = await freshDatabase();
  queue = await openAuditQueue(db.url);
  ({ id } = await enqueueAudit(queue, PLAN, '{}'));
});
afterEach(async () => {
  await queue.close();
  await db.drop();
});

/** Marks chunk `first` done as a worker stores it, with its first parentHash and last hash. */
async function done(first: number, firstParent: string, last: string, joined = false): Promise<void> {
  await queue.pool.query(
    `UPDATE evm_integrity_audit.chunks SET state = 'done', first_parent_hash = $3, last_hash = $4, joined = $5
     WHERE audit_id = $1 AND first_block = $2`,
    [id, first, firstParent, last, joined],
  );
}

async function chunk(first: number): Promise<Record<string, unknown>> {
  const { rows } = await queue.pool.query(
    'SELECT state, joined, anchored, anchor FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND first_block = $2',
    [id, first],
  );
  return rows[0] as Record<string, unknown>;
}

describe('the join pass', () => {
  it('a broken link is decided even when the link before it is joined while the node is asked', async () => {
    await done(1, hash(0), hash(9), true);
    await done(10, hash(9), hash(19));
    await done(20, `0x${'44'.repeat(32)}`, hash(29)); // not block 19's hash: a broken link
    // Another worker's join (of chunk 1, stored late) joins link 1 → 10 while this join waits for the node.
    let before: Awaited<ReturnType<typeof joinAround>> | undefined;
    const source: BlockSource = {
      async block(_chain, number) {
        expect(number).toBe(19);
        before = await joinAround(queue.pool, queue.boss, PLAN, id, 1, source);
        return { header: { number: '0x13', hash: hash(19) }, receipts: [] } as unknown as BlockJson;
      },
    };
    const outcomes = await joinAround(queue.pool, queue.boss, PLAN, id, 20, source);
    expect(before).toEqual(['joined']);
    expect(await chunk(10)).toMatchObject({ state: 'done', joined: true });
    // The node still gives block 19 the hash chunk 10 ended with: chunk 20 goes back, to be judged against it.
    expect(outcomes).toEqual(['waiting', 'broken_link']); // link 20 → 30 waits for chunk 30
    expect(await chunk(20)).toMatchObject({ state: 'queued', joined: false, anchored: true, anchor: hash(19) });
  });
});
