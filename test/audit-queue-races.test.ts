/**
 * The audit queue's rows on real PostgreSQL, in the interleavings the worker tests meet only by chance: a link whose
 * node question is answered while another worker joins the link before it, or stores a reorg that changes the link, is
 * still decided, never left waiting with both chunks done; a worker that outran its lease, or whose job the join pass replaced, writes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditSummary, BlockAudit, BlockJson, BlockSource } from 'evm-integrity/audit';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import {
  CHUNK_QUEUE,
  LOST_CHUNK_QUEUE,
  openAuditQueue,
  type AuditQueue,
} from '../packages/service/src/queue/audit-queue.js';
import { enqueueAudit } from '../packages/service/src/queue/enqueue.js';
import { joinAround } from '../packages/service/src/queue/join-pass.js';
import type { AuditPlan } from '../packages/service/src/queue/audit-plan.js';
import type { ChunkJob } from '../packages/service/src/queue/audit-queue.js';
import type { ChunkAudit } from '../packages/service/src/queue/chunk-audit.js';
import {
  handBack,
  markRunning,
  markUnfinished,
  parkLost,
  storeChunk,
} from '../packages/service/src/queue/chunk-results.js';
import { auditLines, exportSnapshot } from '../packages/service/src/queue/audit-export.js';
import { auditProgress, heldOutFailures } from '../packages/service/src/queue/audit-progress.js';
import { runCli } from './helpers/audit-queue.js';

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

/**
 * Marks chunk `first` done as a worker stores it, with its first parentHash and last hash, and its last block's line
 * (a pass, unless `failures` say otherwise).
 */
async function done(
  first: number,
  firstParent: string,
  last: string,
  joined = false,
  failures: BlockAudit['failures'] = [],
): Promise<void> {
  const { rows } = await queue.pool.query(
    `UPDATE evm_integrity_audit.chunks SET state = 'done', first_parent_hash = $3, last_hash = $4, joined = $5
     WHERE audit_id = $1 AND first_block = $2 RETURNING last_block`,
    [id, first, firstParent, last, joined],
  );
  const lastBlock = Number((rows[0] as { last_block: string }).last_block);
  const verdict = failures.length === 0 ? 'pass' : 'fail';
  const line = { block_number: lastBlock, block_hash: last, verdict, failures };
  await queue.pool.query(
    `INSERT INTO evm_integrity_audit.blocks (audit_id, chunk_first, seq, block_number, block_hash, verdict, line)
     VALUES ($1, $2, 0, $3, $4, $5, $6)`,
    [id, first, lastBlock, last, verdict, JSON.stringify(line)],
  );
}

/**
 * Marks chunk `first` done as a worker stores it, with a passing line for each of its blocks, hashed by `hashOf`, and
 * its first parentHash `firstParent`.
 */
async function doneWithLines(
  first: number,
  firstParent: string,
  hashOf: (n: number) => string,
  joined = false,
): Promise<void> {
  const { rows } = await queue.pool.query(
    `SELECT last_block::int AS last FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND first_block = $2`,
    [id, first],
  );
  const last = (rows[0] as { last: number }).last;
  await queue.pool.query(
    `UPDATE evm_integrity_audit.chunks SET state = 'done', first_parent_hash = $3, last_hash = $4, joined = $5,
       summary = $6
     WHERE audit_id = $1 AND first_block = $2`,
    [
      id,
      first,
      firstParent,
      hashOf(last),
      joined,
      JSON.stringify({ verdicts: {}, failed_checks: {}, reorgs: 0, timings: {} }),
    ],
  );
  for (let n = first; n <= last; n++) {
    const line = { block_number: n, block_hash: hashOf(n), verdict: 'pass', failures: [] };
    await queue.pool.query(
      `INSERT INTO evm_integrity_audit.blocks (audit_id, chunk_first, seq, block_number, block_hash, verdict, line)
       VALUES ($1, $2, $3, $4, $5, 'pass', $6)`,
      [id, first, n - first, n, hashOf(n), JSON.stringify(line)],
    );
  }
}

async function chunk(first: number): Promise<Record<string, unknown>> {
  const { rows } = await queue.pool.query(
    `SELECT state, joined, anchored, anchor, attempts, worker, last_hash, join_attempts,
       (SELECT count(*)::int FROM evm_integrity_audit.blocks b WHERE b.audit_id = c.audit_id AND b.chunk_first = c.first_block) AS lines
     FROM evm_integrity_audit.chunks c WHERE audit_id = $1 AND first_block = $2`,
    [id, first],
  );
  return rows[0] as Record<string, unknown>;
}

/** A chunk's audit of one block as a worker stores it, ending with `last`. */
function chunkAudit(first: number, last: string): ChunkAudit {
  const block = { block_number: first, block_hash: last, verdict: 'pass' } as unknown as BlockAudit;
  const summary = { verdicts: { pass: 1 }, failed_checks: {}, reorgs: 0, timings: {} } as unknown as AuditSummary;
  return { events: [block], summary, firstParentHash: hash(first - 1), lastHash: last };
}

/** Chunk 20's job as enqueued (its first generation). */
const JOB_20: ChunkJob = { audit_id: '', first: 20, last: 29, generation: 0 };

describe('the audit queue, interleaved', () => {
  it('a broken link is decided even when the link before it is joined while the node is asked', async () => {
    await done(1, hash(0), hash(9), true);
    await done(10, hash(9), hash(19));
    await done(20, `0x${'44'.repeat(32)}`, hash(29)); // not block 19's hash: a broken link
    // Another worker's join (of chunk 1, stored late) joins link 1 → 10 while this join waits for the node.
    let before: Awaited<ReturnType<typeof joinAround>> | undefined;
    const source: BlockSource = {
      async block(_chain, number) {
        expect(number).toBe(19);
        before = await joinAround(queue.pool, queue.boss, PLAN, id, 1, { source });
        return { header: { number: '0x13', hash: hash(19) }, receipts: [] } as unknown as BlockJson;
      },
    };
    const outcomes = await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source });
    expect(before).toEqual(['joined']);
    expect(await chunk(10)).toMatchObject({ state: 'done', joined: true });
    // The node still gives block 19 the hash chunk 10 ended with: chunk 20 goes back, to be judged against it.
    expect(outcomes).toEqual(['waiting', 'broken_link']); // link 20 → 30 waits for chunk 30
    expect(await chunk(20)).toMatchObject({ state: 'queued', joined: false, anchored: true, anchor: hash(19) });
  });

  // Chunk 20 was stored on chain N (its link 19 → 20 does not match chain O's block 19), chunk 30 on chain M. While the
  // join of chunk 20 asks the node for block 19, the join of chunk 30 follows M's reorg back to block 19 (the node gives
  // M's blocks 19-29): its lines give chunk 10 a new last hash and chunk 20 a new first link, M's, which link. The
  // first join's decision then stands back (its snapshot changed); a user check: nobody judged link 19 → 20 again, and
  // it stayed unjoined with both chunks done, the audit never complete.
  it('a link whose chunks a reorg stored by another join changes while it is decided is judged again by that join', async () => {
    const chainN = (n: number) => hash(0x1000 + n);
    const chainM = (n: number) => hash(0x2000 + n);
    await done(1, hash(0), hash(9), true);
    await doneWithLines(10, hash(9), hash, true);
    await doneWithLines(20, chainN(19), chainN);
    await queue.pool.query(
      `UPDATE evm_integrity_audit.chunks SET state = 'done', first_parent_hash = $2, last_hash = $3
       WHERE audit_id = $1 AND first_block = 30`,
      [id, chainM(29), chainM(30)],
    );
    const blockOf = (n: number) =>
      ({
        header: {
          number: `0x${n.toString(16)}`,
          hash: n >= 19 ? chainM(n) : hash(n),
          parentHash: n >= 20 ? chainM(n - 1) : hash(n - 1),
        },
        receipts: [],
      }) as unknown as BlockJson;
    const nodeOnM: BlockSource = { block: async (_chain, n) => blockOf(n) };
    // Chunk 30 is still running when chunk 20's join begins: that join judges link 19 → 20 alone.
    await queue.pool.query(
      `UPDATE evm_integrity_audit.chunks SET state = 'running' WHERE audit_id = $1 AND first_block = 30`,
      [id],
    );
    let other: Awaited<ReturnType<typeof joinAround>> | undefined;
    const asked: number[] = [];
    const source: BlockSource = {
      async block(chain, n) {
        asked.push(n);
        if (other === undefined) {
          await queue.pool.query(
            `UPDATE evm_integrity_audit.chunks SET state = 'done' WHERE audit_id = $1 AND first_block = 30`,
            [id],
          );
          other = await joinAround(queue.pool, queue.boss, PLAN, id, 30, { source: nodeOnM });
        }
        return nodeOnM.block(chain, n);
      },
    };
    const outcomes = await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source });
    expect(asked).toEqual([19]);
    expect(other).toEqual(['reorg']);
    expect(outcomes).toEqual(['waiting', 'waiting']); // its decision stood back; link 20 → 30 waited for chunk 30
    const { rows } = await queue.pool.query(
      `SELECT first_block::int AS first, state, joined, first_parent_hash, last_hash FROM evm_integrity_audit.chunks
       WHERE audit_id = $1 ORDER BY first_block`,
      [id],
    );
    expect(rows).toEqual([
      { first: 1, state: 'done', joined: true, first_parent_hash: hash(0), last_hash: hash(9) },
      { first: 10, state: 'done', joined: true, first_parent_hash: hash(9), last_hash: chainM(19) },
      { first: 20, state: 'done', joined: true, first_parent_hash: chainM(19), last_hash: chainM(29) },
      { first: 30, state: 'done', joined: true, first_parent_hash: chainM(29), last_hash: chainM(30) },
    ]);
  });

  it('a link whose chunk before ends on a line refuting its hash is broken, the node not asked (it is no reorg)', async () => {
    await done(1, hash(0), hash(9), true);
    const forged = [{ check: 'header_hash', message: 'the hash of the header does not match', evidence: {} }];
    await done(10, hash(9), hash(0xabab), false, forged);
    await done(20, hash(19), hash(29)); // the right block 19's hash: the node would now answer another than 0xabab
    const source: BlockSource = {
      block() {
        throw new Error('the node was asked for a block whose line refutes its hash');
      },
    };
    expect(await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source })).toEqual(['waiting', 'broken_link']); // 20 → 30 waits
    expect(await chunk(10)).toMatchObject({ state: 'done' });
    expect(await chunk(20)).toMatchObject({ state: 'queued', anchored: true, anchor: hash(0xabab) });
    const { rows } = await queue.pool.query('SELECT count(*)::int AS n FROM evm_integrity_audit.reorgs');
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('a link whose block before the node no longer gives is left unjudged, as one machine calls it unreachable: no broken link, and the chunk after keeps its lines', async () => {
    await done(1, hash(0), hash(9), true);
    await done(10, hash(9), hash(19));
    const failing = [{ check: 'receipts_root', message: 'the receipts do not hash to receiptsRoot', evidence: {} }];
    await done(20, `0x${'44'.repeat(32)}`, hash(29), false, failing);
    const source: BlockSource = { block: async () => null };
    expect(await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source })).toEqual(['waiting', 'retrying']);
    // Only the link is tried again: the chunk after stays done with its lines (a user check: it was audited again,
    // and its failing line, and a reorg's lines, deleted), its link retrying with the reason, never a parent_link
    // failure it did not see.
    const reason = 'its link to block 19 could not be judged: the source does not have block 19';
    expect(await chunk(20)).toMatchObject({
      state: 'done',
      joined: false,
      anchored: false,
      join_attempts: 0,
      lines: 1,
    });
    const jobs = await queue.pool.query(
      `SELECT data FROM pgboss.job WHERE name = $1 AND (data->>'first')::int = 20 AND start_after > now()`,
      [CHUNK_QUEUE],
    );
    expect(jobs.rows.map((r) => (r as { data: unknown }).data)).toEqual([
      { audit_id: id, first: 20, last: 29, generation: 0 },
    ]);
    // Meanwhile its failing line is a finding: audit-status lists it and the chunk retrying, the export names it among
    // the lines it holds out (exit 1).
    const retrying = (await auditProgress(queue.pool, id))!;
    expect(retrying.failures).toEqual([{ block_number: 29, checks: ['receipts_root'] }]);
    expect(retrying.retrying).toEqual([{ first: 20, last: 29, attempts: 1, reason }]);
    expect(retrying.needs_operator).toBe(false);
    expect(await heldOutFailures(queue.pool, id)).toEqual({
      blocks: 1,
      listed: [{ block_number: 29, block_hash: hash(29), checks: ['receipts_root'] }],
    });
    // The retry's job finds the chunk done and joins it (markRunning takes no chunk done); past the plan's retries
    // (its attempts): parked with the reason, its lines still counted, for an operator to enqueue the audit again.
    expect(await markRunning(queue.pool, { audit_id: id, first: 20, last: 29, generation: 0 }, 'host-a:1')).toBeNull();
    expect(await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source })).toEqual(['waiting', 'parked']);
    expect(await chunk(20)).toMatchObject({ state: 'done', joined: false, join_attempts: 0, lines: 1 });
    const parked = (await auditProgress(queue.pool, id))!;
    expect(parked).toMatchObject({ needs_operator: true, complete: false, retrying: [], eta_seconds: null });
    expect(parked.parked).toEqual([{ first: 20, last: 29, attempts: 2, reason }]);
    expect(parked.failures).toEqual([{ block_number: 29, checks: ['receipts_root'] }]);
    const told = (await runCli(['audit-status', id, '--queue', db.url])).stdout;
    expect(told).toContain(`no ETA: 1 chunk parked, the audit cannot finish until it is enqueued again`);
    // The chunk is counted done; its link, parked, is counted apart.
    expect(told).toMatch(
      /, 0 parked, of \d+; \d+ of \d+ links joined \(of the links not joined, 0 retrying and 1 parked\)/,
    );
    // Enqueuing again hands the link back, not the chunk: retrying, its job sent, and judged once the node answers
    // (here the block 19 stored: a broken link, the chunk audited again against it, as any).
    expect((await enqueueAudit(queue, PLAN, '{}')).queued).toBe(1);
    expect(await chunk(20)).toMatchObject({ state: 'done', lines: 1 });
    expect((await auditProgress(queue.pool, id))!.retrying).toEqual([{ first: 20, last: 29, attempts: 0, reason }]);
    const answering: BlockSource = {
      block: async () => ({ header: { number: '0x13', hash: hash(19) }, receipts: [] }) as unknown as BlockJson,
    };
    expect(await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source: answering })).toEqual([
      'waiting',
      'broken_link',
    ]);
    expect(await chunk(20)).toMatchObject({ state: 'queued', anchored: true, anchor: hash(19) });
    const after = (await auditProgress(queue.pool, id))!;
    expect(after).toMatchObject({ retrying: [], parked: [], needs_operator: false });
  });

  it('a worker that outran its lease writes nothing once another took the chunk: its result, its retry, its park', async () => {
    const job = { ...JOB_20, audit_id: id };
    const late = await markRunning(queue.pool, job, 'host-a:1');
    const retry = await markRunning(queue.pool, job, 'host-b:2'); // pg-boss handed the chunk on when the lease expired
    expect(late).toMatchObject({ worker: 'host-a:1', attempt: 1 });
    expect(retry).toMatchObject({ worker: 'host-b:2', attempt: 2 });
    expect(await storeChunk(queue.pool, PLAN, job, late!, chunkAudit(20, hash(0xdead)))).toBe(false);
    expect(await markUnfinished(queue.pool, job, late!, 'parked', 'stale')).toBe(false);
    expect(await chunk(20)).toMatchObject({ state: 'running', worker: 'host-b:2', attempts: 2, lines: 0 });
    expect(await storeChunk(queue.pool, PLAN, job, retry!, chunkAudit(20, hash(29)))).toBe(true);
    expect(await chunk(20)).toMatchObject({ state: 'done', last_hash: hash(29), lines: 1 });
    // A delivery after it is done (a retry of the late attempt) takes nothing, and its loss parks nothing.
    expect(await markRunning(queue.pool, job, 'host-c:3')).toBeNull();
    expect(await parkLost(queue.pool, job)).toBe(false);
    expect(await chunk(20)).toMatchObject({ state: 'done', attempts: 2, lines: 1 });
  });

  it("a stop's hand-back and the chunk's store race on its hold: the first wins, the other writes nothing", async () => {
    const jobs = await queue.boss.fetch<ChunkJob>(CHUNK_QUEUE, { includeMetadata: true, batchSize: 4 });
    const [ten, twenty] = [10, 20].map((first) => jobs.find((j) => j.data.first === first)!);
    // Done as the deadline came: stored once, not handed back as well (its job is its handler's to complete).
    const stored = await markRunning(queue.pool, twenty!.data, 'host-a:1');
    expect(await storeChunk(queue.pool, PLAN, twenty!.data, stored!, chunkAudit(20, hash(29)))).toBe(true);
    expect(await handBack(queue, twenty!, stored!)).toBe(false);
    expect(await chunk(20)).toMatchObject({ state: 'done', attempts: 1, lines: 1 });
    // Handed back first: queued, the attempt not counted, its job sent again; the late result writes nothing.
    const cut = await markRunning(queue.pool, ten!.data, 'host-a:1');
    expect(await handBack(queue, ten!, cut!)).toBe(true);
    expect(await storeChunk(queue.pool, PLAN, ten!.data, cut!, chunkAudit(10, hash(19)))).toBe(false);
    expect(await chunk(10)).toMatchObject({ state: 'queued', attempts: 0, lines: 0 });
    const { rows } = await queue.pool.query(
      `SELECT (data->>'first')::int AS first, state, retry_count FROM pgboss.job
       WHERE (data->>'first')::int IN (10, 20) ORDER BY 1, state::text`,
    );
    expect(rows).toEqual([
      { first: 10, state: 'completed', retry_count: 0 },
      { first: 10, state: 'created', retry_count: 0 },
      { first: 20, state: 'active', retry_count: 0 },
    ]);
  });

  it('a chunk whose lease expired before its hand-back is left to pg-boss: its job is not sent again', async () => {
    const [job] = await queue.boss.fetch<ChunkJob>(CHUNK_QUEUE, { includeMetadata: true });
    const hold = await markRunning(queue.pool, job!.data, 'host-a:1');
    await queue.boss.fail(CHUNK_QUEUE, job!.id); // as the supervisor fails an expired job
    expect(await handBack(queue, job!, hold!)).toBe(false);
    expect(await chunk(job!.data.first)).toMatchObject({ state: 'running', attempts: 1 });
    const { rows } = await queue.pool.query(`SELECT name, state FROM pgboss.job WHERE data->>'first' = $1 ORDER BY 1`, [
      String(job!.data.first),
    ]);
    // No job sent again: its last attempt failed, so it went to the lost chunks, whose worker parks it.
    expect(rows).toEqual([
      { name: CHUNK_QUEUE, state: 'failed' },
      { name: LOST_CHUNK_QUEUE, state: 'created' },
    ]);
  });

  it('audit-status gives the reason of a chunk retrying, as of one parked (--json and text)', async () => {
    const job = { ...JOB_20, audit_id: id };
    const hold = await markRunning(queue.pool, job, 'host-a:1');
    const reason = 'the JSON-RPC node at http://127.0.0.1:9 answered with HTTP 503';
    expect(await markUnfinished(queue.pool, job, hold!, 'retrying', reason)).toBe(true);
    expect((await auditProgress(queue.pool, id))!.retrying).toEqual([{ first: 20, last: 29, attempts: 1, reason }]);
    const text = await runCli(['audit-status', id, '--queue', db.url]);
    expect(text.stdout).toContain(`retrying: chunk 20-29 after 1 attempt: ${reason}\n`);
  });

  it('a job the join pass replaced is stale: its retry takes nothing, its loss parks nothing', async () => {
    await done(1, hash(0), hash(9), true);
    await done(10, hash(9), hash(19));
    await done(20, `0x${'44'.repeat(32)}`, hash(29));
    const node: BlockSource = {
      block: async () => ({ header: { number: '0x13', hash: hash(19) }, receipts: [] }) as unknown as BlockJson,
    };
    expect(await joinAround(queue.pool, queue.boss, PLAN, id, 20, { source: node })).toContain('broken_link');
    const old = { ...JOB_20, audit_id: id };
    expect(await chunk(20)).toMatchObject({ state: 'queued', join_attempts: 1 });
    expect(await markRunning(queue.pool, old, 'host-a:1')).toBeNull();
    const anchored = { ...old, anchor: hash(19), generation: 1 };
    const hold = await markRunning(queue.pool, anchored, 'host-b:2');
    expect(hold).not.toBeNull();
    expect(await parkLost(queue.pool, old)).toBe(false);
    expect(await chunk(20)).toMatchObject({ state: 'running', worker: 'host-b:2', anchored: true, anchor: hash(19) });
    // A job sent before jobs carried their generation is taken as current, as it was.
    expect(await markRunning(queue.pool, { audit_id: id, first: 20, last: 29 }, 'host-c:3')).not.toBeNull();
  });

  it('a hold from before a chunk was parked and sent again is lost, though the attempt count restarted', async () => {
    const job = { ...JOB_20, audit_id: id };
    const before = await markRunning(queue.pool, job, 'host-a:1');
    expect(await parkLost(queue.pool, job)).toBe(true); // its lease expired on the last attempt
    await enqueueAudit(queue, PLAN, '{}'); // the operator hands parked chunks back
    const after = await markRunning(queue.pool, job, 'host-a:1'); // another poller of the same process
    expect(after).toMatchObject({ attempt: before!.attempt });
    expect(await storeChunk(queue.pool, PLAN, job, before!, chunkAudit(20, hash(0xdead)))).toBe(false);
    expect(await storeChunk(queue.pool, PLAN, job, after!, chunkAudit(20, hash(29)))).toBe(true);
    expect(await chunk(20)).toMatchObject({ state: 'done', last_hash: hash(29), lines: 1 });
  });

  it("an export reads one snapshot: a chunk stored while it reads is in none of it; the status counts the done chunks' lines alone", async () => {
    for (const first of [1, 10, 20]) {
      const job = { audit_id: id, first, last: first === 1 ? 9 : first + 9, generation: 0 };
      await storeChunk(
        queue.pool,
        PLAN,
        job,
        (await markRunning(queue.pool, job, 'host-a:1'))!,
        chunkAudit(first, hash(first + 9)),
      );
    }
    // Their links judged (an export holds only the chunks whose link is joined).
    await queue.pool.query(
      `UPDATE evm_integrity_audit.chunks SET joined = true WHERE audit_id = $1 AND first_block IN (10, 20)`,
      [id],
    );
    const last = { audit_id: id, first: 30, last: 30, generation: 0 };
    const hold = (await markRunning(queue.pool, last, 'host-a:1'))!;
    const read = await exportSnapshot(queue.pool, async (db) => {
      const lines: string[] = [];
      for await (const line of auditLines(db, id)) {
        lines.push(line);
        // Chunk 30 is stored, on another connection, after the export has begun to read.
        if (lines.length === 1)
          expect(await storeChunk(queue.pool, PLAN, last, hold, chunkAudit(30, hash(30)))).toBe(true);
      }
      return { lines, progress: await auditProgress(db, id) };
    });
    expect(read.lines).toHaveLength(3);
    expect(read.progress).toMatchObject({ chunks: { done: 3, running: 1 }, verdicts: { pass: 3 }, complete: false });
    expect(await auditProgress(queue.pool, id)).toMatchObject({
      chunks: { done: 4, running: 0 },
      verdicts: { pass: 4 },
    });
    // A chunk sent back keeps its earlier lines until it is stored again: they count in no verdict, as in no block audited.
    await queue.pool.query(
      `UPDATE evm_integrity_audit.chunks SET state = 'queued' WHERE audit_id = $1 AND first_block = 30`,
      [id],
    );
    expect(await auditProgress(queue.pool, id)).toMatchObject({ blocks: { audited: 29 }, verdicts: { pass: 3 } });
  });
});
