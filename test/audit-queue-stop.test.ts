/**
 * A worker stopped while its chunks outlast the stop's deadline (a slow node), on a real PostgreSQL and a loopback
 * node: at the deadline the chunks in hand are cut short and handed back (queued, their attempt not counted, their
 * jobs sent again with the retries they had left), the stop returns at once with nothing left running, and another
 * worker process then audits them; a failing line a chunk handed back had judged stays a finding. The CLI keeps 30 s;
 * the worker takes the deadline, here 1 s. Tests that spawn the CLI use the built bundle. A worker in this process given no onOutcome audits its chunks too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { fixtureChain, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { query, startWorker, stopWorker, until, untilComplete } from './helpers/audit-queue.js';
import { retriedFailures } from '../packages/service/src/queue/audit-progress.js';
import { CHUNK_QUEUE, openAuditQueue, type AuditQueue } from '../packages/service/src/queue/audit-queue.js';
import { enqueueAudit } from '../packages/service/src/queue/enqueue.js';
import { startChunkWorker, type ChunkOutcome } from '../packages/service/src/queue/chunk-worker.js';
import type { AuditPlan } from '../packages/service/src/queue/audit-plan.js';

const FROM = 1_000_001;
const TO = 1_000_030;

/** Chunks from 1000001, 1000010, 1000020 and 1000030; `rpc` is the test's node. */
const PLAN: AuditPlan = {
  chain_id: 1,
  from: FROM,
  to: TO,
  rpc: '',
  chunk_size: 10,
  concurrency: 4,
  chunk_timeout_s: 120,
  chunk_retries: 2,
};

let db: FreshDatabase | undefined;
let node: LoopbackNode | undefined;
const queues: AuditQueue[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.close();
  await node?.close();
  node = undefined;
  await db?.drop();
  db = undefined;
});

/** The chunks' rows, by first block. */
async function chunks(queue: AuditQueue, id: string) {
  const { rows } = await queue.pool.query(
    `SELECT first_block::int AS first, state, attempts FROM evm_integrity_audit.chunks WHERE audit_id = $1
     ORDER BY first_block`,
    [id],
  );
  return rows as Array<{ first: number; state: string; attempts: number }>;
}

describe('a worker in this process', () => {
  it('audits its chunks when given no onOutcome (it completed every job unaudited)', async () => {
    db = await freshDatabase();
    node = await startLoopbackNode(1, fixtureChain(FROM, TO));
    const queue = await openAuditQueue(db.url);
    queues.push(queue);
    const { id } = await enqueueAudit(queue, { ...PLAN, rpc: node.url }, '{}');
    const worker = await startChunkWorker(queue, { concurrency: 2 });
    try {
      await until(
        'the chunks to be done',
        async () => ((await chunks(queue, id)).every((c) => c.state === 'done') ? true : undefined),
        20_000,
      );
    } finally {
      await worker.stop(1000);
    }
  });
});

describe('audit-worker stopped past its deadline', () => {
  it('hands the chunks in hand back at the deadline, the attempt not counted, and stops at once', async () => {
    db = await freshDatabase();
    node = await startLoopbackNode(1, fixtureChain(FROM, TO));
    node.delayMs = 20_000; // each answer outlasts the deadline
    const queue = await openAuditQueue(db.url);
    queues.push(queue);
    const { id } = await enqueueAudit(queue, { ...PLAN, rpc: node.url }, '{}');
    const outcomes: ChunkOutcome[] = [];
    const worker = await startChunkWorker(queue, { concurrency: 2, onOutcome: (o) => outcomes.push(o) });
    await until('two chunks in hand, asking the node', async () => {
      const running = (await chunks(queue, id)).filter((c) => c.state === 'running');
      return running.length === 2 && node!.requests > 0 ? true : undefined;
    });
    const started = Date.now();
    await worker.stop(1000);
    const took = Date.now() - started;

    // Both chunks were handed back before the stop returned: no handler runs on, none writes after the pool closes.
    expect(outcomes.map((o) => o.outcome)).toEqual(['handed_back', 'handed_back']);
    expect(took).toBeLessThan(5000);
    const rows = await chunks(queue, id);
    expect(rows.map((c) => [c.state, c.attempts])).toEqual(Array(4).fill(['queued', 0]));
    // One job a chunk, waiting, with its retries whole: the stop used none (and the lost-chunk queue has none).
    const { rows: jobs } = await queue.pool.query(
      `SELECT name, state, retry_count, retry_limit, (data->>'first')::int AS first FROM pgboss.job
       WHERE state NOT IN ('completed') ORDER BY (data->>'first')::int`,
    );
    expect(jobs).toEqual(
      rows.map((c) => ({ name: CHUNK_QUEUE, state: 'created', retry_count: 0, retry_limit: 2, first: c.first })),
    );
    await queue.close();
    queues.splice(0);

    // Another worker (a process, as in use) audits them, each in one attempt.
    node.delayMs = 0;
    const next = startWorker(['--queue', db.url]);
    try {
      await until('the audit to complete', async () => {
        const rows = await query(db!.url, 'SELECT state, joined, attempts FROM evm_integrity_audit.chunks');
        return rows.every((c) => c.state === 'done' && c.joined) ? true : undefined;
      });
      expect((await query(db.url, 'SELECT attempts FROM evm_integrity_audit.chunks')).map((c) => c.attempts)).toEqual([
        1, 1, 1, 1,
      ]);
    } finally {
      await stopWorker(next);
    }
  }, 60_000);

  it('a chunk handed back keeps the failing line it judged: audited again clean, the block is still named as failed', async () => {
    db = await freshDatabase();
    const blocks = fixtureChain(FROM, TO);
    const original = blocks.get(1_000_012)!;
    // Its receipt's cumulativeGasUsed altered, the header (and hash) the real one's: it fails receipts_root alone.
    const receipts = original.receipts.map((r, i) =>
      i === 0 ? { ...(r as Record<string, string>), cumulativeGasUsed: '0x1' } : r,
    );
    blocks.set(1_000_012, { ...original, receipts });
    node = await startLoopbackNode(1, blocks);
    let hanging = true; // block 1000018 is not answered: its chunk is in hand at the stop's deadline
    node.fault = (call) => (hanging && call.params[0] === '0xf4252' ? { hang: true } : undefined);
    const queue = await openAuditQueue(db.url);
    queues.push(queue);
    const { id } = await enqueueAudit(queue, { ...PLAN, rpc: node.url, concurrency: 1, batch: 2 }, '{}');
    const outcomes: ChunkOutcome[] = [];
    const worker = await startChunkWorker(queue, { concurrency: 1, onOutcome: (o) => outcomes.push(o) });
    await until('the failing line of 1000012 to be kept', async () => retriedFailures(queue.pool, id));
    await worker.stop(1000);
    const hash = String(original.header.hash);
    const named = { blocks: 1, listed: [{ block_number: 1_000_012, block_hash: hash, checks: ['receipts_root'] }] };
    expect(outcomes.find((o) => o.first === 1_000_010)).toMatchObject({
      outcome: 'handed_back',
      kept_failures: named,
    });
    await queue.close();
    queues.splice(0);

    blocks.set(1_000_012, original);
    hanging = false;
    const next = startWorker(['--queue', db.url]);
    try {
      const done = await untilComplete(id, db.url);
      expect(done).toMatchObject({ verdicts: { pass: 30, fail: 0 }, retried_failures: named });
    } finally {
      await stopWorker(next);
    }
  }, 60_000);
});
