/**
 * A chunk's rows: taken by a worker, retried, parked, or done with its lines. A result is written
 * whole in one transaction, replacing the lines of any earlier run of the chunk: running a chunk
 * twice (a lease expired, a duplicate delivery, a re-audit after a broken link) leaves one set of lines.
 * The failing lines of every attempt are kept apart, as judged (keepFailingLine): findings all the same.
 */
import type pg from 'pg';
import type { JobWithMetadata } from 'pg-boss';
import { isReorg, type AuditReorg, type BlockAudit } from 'evm-integrity/audit';
import type { AuditPlan } from './audit-plan.js';
import { CHUNK_QUEUE, inTransaction, type AuditQueue, type ChunkJob } from './audit-queue.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import type { ChunkAudit } from './chunk-audit.js';
import { formatAuditLine } from './audit-lines.js';
import { transaction } from '../postgres/transaction.js';
import { sendChunkJobs } from './enqueue.js';

/** The plan of audit `id`; a cache keeps it for the worker's next chunks of the same audit. */
export async function loadPlan(pool: pg.Pool, id: string): Promise<AuditPlan | null> {
  const { rows } = await pool.query(`SELECT plan FROM ${AUDIT_SCHEMA}.audits WHERE id = $1`, [id]);
  return rows.length === 0 ? null : (rows[0] as { plan: AuditPlan }).plan;
}

/**
 * Who holds a chunk now: the worker that took it and its attempt. A worker writes the chunk's rows only while it holds
 * it, so that a handler that outran its lease (paused, or slower than `--chunk-timeout`) and ran on after another
 * worker took the chunk, or after the join pass sent it back, never puts its stale lines over the newer ones.
 */
export interface ChunkHold {
  worker: string;
  attempt: number;
  /** When it was taken, as PostgreSQL writes it (to the microsecond): attempts restart at 0 when parked chunks are sent again. */
  since: string;
}

/** The condition that a job of generation `$n` is the chunk's current one (a job without one is taken as current). */
const current = (n: number) => `($${n}::int IS NULL OR join_attempts = $${n}::int)`;

/**
 * A worker took the chunk: its attempt is counted, and the hold returned. Null when the delivery is stale: the chunk is
 * done or parked, or the join pass sent it back since this job was sent (a retry of the job it replaced).
 */
export async function markRunning(pool: pg.Pool, job: ChunkJob, worker: string): Promise<ChunkHold | null> {
  const { rows } = await pool.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'running', attempts = attempts + 1, worker = $3, started_at = now()
     WHERE audit_id = $1 AND first_block = $2 AND state IN ('queued', 'running', 'retrying') AND ${current(4)}
     RETURNING attempts, started_at::text AS since`,
    [job.audit_id, job.first, worker, job.generation ?? null],
  );
  if (rows.length === 0) return null;
  const { attempts, since } = rows[0] as { attempts: number; since: string };
  return { worker, attempt: attempts, since };
}

/** The condition of a chunk row's update, on `$1` audit, `$2` first block and `$3`-`$5` the hold: still held. */
const HELD = `audit_id = $1 AND first_block = $2 AND state = 'running'
  AND worker = $3 AND attempts = $4 AND started_at::text = $5`;

/** The parameters `$1`-`$5` of {@link HELD}. */
const held = (job: ChunkJob, hold: ChunkHold) => [job.audit_id, job.first, hold.worker, hold.attempt, hold.since];

/**
 * The chunk's node was unreachable: retried later (`retrying`) or given up (`parked`), with the reason. Whether it was
 * written (false: the hold was lost).
 */
export async function markUnfinished(
  pool: pg.Pool,
  job: ChunkJob,
  hold: ChunkHold,
  state: 'retrying' | 'parked',
  reason: string,
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET state = $6, reason = $7, finished_at = now() WHERE ${HELD}`,
    [...held(job, hold), state, reason],
  );
  return rowCount === 1;
}

/**
 * Keeps a failing line the attempt of `hold` judged (attempt_failures), at once, so that it stays a finding whatever
 * becomes of the attempt: not stored (its node failed later in the chunk, its worker was stopped or killed), the chunk
 * audited again may be served the block unaltered, where one machine's output keeps the line. Each block and hash once
 * per chunk. Whether the hold held (false, with nothing written, when it was lost).
 */
export async function keepFailingLine(
  pool: pg.Pool,
  job: ChunkJob,
  hold: ChunkHold,
  line: BlockAudit,
): Promise<boolean> {
  const { rows } = await pool.query(
    `WITH held AS (SELECT 1 FROM ${AUDIT_SCHEMA}.chunks WHERE ${HELD}),
     kept AS (
       INSERT INTO ${AUDIT_SCHEMA}.attempt_failures (audit_id, chunk_first, block_number, block_hash, line)
       SELECT $1, $2, $6, $7, $8 FROM held ON CONFLICT DO NOTHING)
     SELECT count(*)::int AS held FROM held`,
    [...held(job, hold), line.block_number, line.block_hash, formatAuditLine(line)],
  );
  return (rows[0] as { held: number }).held === 1;
}

/** Rolls back a hand-back whose job pg-boss failed meanwhile (its lease expired): that job is pg-boss's to retry. */
class JobNotHeld extends Error {}

/**
 * The worker stopped before the chunk was done: the chunk goes back to the queue as it was before this attempt, in one
 * transaction: `queued`, the attempt not counted, its job completed and sent again with the retries it had left (a
 * stop is no failure of the chunk's). Whether it was handed back; false, with nothing written, when the hold was lost
 * (the chunk done, or sent back by the join pass, or taken by another worker) or the job is no longer this worker's
 * (its lease expired: pg-boss retries it, or it is parked as lost).
 */
export async function handBack(queue: AuditQueue, job: JobWithMetadata<ChunkJob>, hold: ChunkHold): Promise<boolean> {
  try {
    return await transaction(queue.pool, async (client) => {
      // First, as it locks the row: a store of the same hold waits for this transaction and then finds it lost.
      const { rowCount } = await client.query(
        `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'queued', attempts = attempts - 1 WHERE ${HELD}`,
        held(job.data, hold),
      );
      if (rowCount !== 1) return false;
      // Fenced to the attempt this worker fetched.
      const db = inTransaction(client);
      const completed = await queue.boss.complete(CHUNK_QUEUE, { id: job.id, retryCount: job.retryCount }, null, {
        db,
      });
      if ((completed as { affected: number }).affected !== 1) throw new JobNotHeld(); // (its type leaves fields out)
      const left = { chunk_timeout_s: job.expireInSeconds, chunk_retries: job.retryLimit - job.retryCount };
      await sendChunkJobs(queue.boss, client, left, [job.data]);
      return true;
    });
  } catch (error) {
    if (error instanceof JobNotHeld) return false;
    throw error;
  }
}

/**
 * Stores a complete chunk's lines and summary, replacing an earlier run's; the links to the chunks beside it are to be
 * joined again (its hashes may have changed). The first chunk's link is the engine's (to the head hash): joined.
 * Whether it was stored: false, with nothing written, when the hold was lost.
 */
export async function storeChunk(
  pool: pg.Pool,
  plan: AuditPlan,
  job: ChunkJob,
  hold: ChunkHold,
  result: ChunkAudit,
): Promise<boolean> {
  // Each line keeps its place (seq) among the chunk's lines, so that the export interleaves blocks and reorgs as written.
  const blocks: Array<{ event: BlockAudit; seq: number }> = [];
  const reorgs: Array<{ event: AuditReorg; seq: number }> = [];
  result.events.forEach((event, seq) => (isReorg(event) ? reorgs.push({ event, seq }) : blocks.push({ event, seq })));
  const { verdicts, failed_checks, reorgs: reorgCount, timings } = result.summary;
  return transaction(pool, async (client) => {
    const key = [job.audit_id, job.first];
    // First, as it locks the row: a hold taken meanwhile by another worker waits for this transaction, or wins.
    const { rowCount } = await client.query(
      `UPDATE ${AUDIT_SCHEMA}.chunks
       SET state = 'done', reason = NULL, link_unjudged = NULL, first_parent_hash = $6, last_hash = $7, summary = $8, finished_at = now(),
           anchored = $9, anchor = $10, joined = (first_block = $11)
       WHERE ${HELD}`,
      [
        ...held(job, hold),
        result.firstParentHash,
        result.lastHash,
        JSON.stringify({ verdicts, failed_checks, reorgs: reorgCount, timings }),
        job.anchor !== undefined,
        job.anchor ?? null,
        plan.from,
      ],
    );
    if (rowCount !== 1) return false;
    await client.query(`DELETE FROM ${AUDIT_SCHEMA}.blocks WHERE audit_id = $1 AND chunk_first = $2`, key);
    await client.query(`DELETE FROM ${AUDIT_SCHEMA}.reorgs WHERE audit_id = $1 AND chunk_first = $2`, key);
    await client.query(
      `INSERT INTO ${AUDIT_SCHEMA}.blocks (audit_id, chunk_first, seq, block_number, block_hash, verdict, line)
       SELECT $1, $2, * FROM unnest($3::int[], $4::bigint[], $5::text[], $6::text[], $7::json[])`,
      [
        ...key,
        blocks.map((b) => b.seq),
        blocks.map((b) => b.event.block_number),
        blocks.map((b) => b.event.block_hash),
        blocks.map((b) => b.event.verdict),
        blocks.map((b) => formatAuditLine(b.event)),
      ],
    );
    if (reorgs.length > 0)
      await client.query(
        `INSERT INTO ${AUDIT_SCHEMA}.reorgs (audit_id, chunk_first, seq, detected_at, line)
         SELECT $1, $2, * FROM unnest($3::int[], $4::bigint[], $5::json[])`,
        [
          ...key,
          reorgs.map((r) => r.seq),
          reorgs.map((r) => r.event.reorg.detected_at),
          reorgs.map((r) => formatAuditLine(r.event)),
        ],
      );
    await client.query(
      `UPDATE ${AUDIT_SCHEMA}.chunks SET joined = false WHERE audit_id = $1 AND first_block = $2 AND first_block <> $3`,
      [job.audit_id, job.last + 1, plan.from],
    );
    return true;
  });
}

/**
 * A chunk whose last attempt failed without an outcome (its lease expired, an error escaped): parked, keeping the node's
 * reason when the attempts before had one. A chunk done meanwhile, or sent back by the join pass since the job was sent,
 * is left as it is. Whether it was parked.
 */
export async function parkLost(pool: pg.Pool, job: ChunkJob): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'parked', finished_at = now(),
       reason = coalesce(reason, 'its last attempt was lost: the worker died, or the chunk ran past --chunk-timeout')
     WHERE audit_id = $1 AND first_block = $2 AND state NOT IN ('done', 'parked', 'queued') AND ${current(3)}`,
    [job.audit_id, job.first, job.generation ?? null],
  );
  return rowCount === 1;
}
