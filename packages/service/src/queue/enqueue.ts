/**
 * Enqueuing an audit: its row, one row per chunk, and one job per new chunk, in one transaction, so
 * that a crash leaves either all or nothing and a second run for the same audit adds nothing (the
 * chunk rows' primary key). A second run does hand parked chunks back to the queue, and parked links (a done chunk
 * whose link the node could not help judge) back to the join, the chunk's lines kept.
 */
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { auditIdOf, chunksOf, type AuditPlan } from './audit-plan.js';
import { CHUNK_QUEUE, inTransaction, type AuditQueue, type ChunkJob } from './audit-queue.js';
import { transaction } from '../postgres/transaction.js';
import { AUDIT_SCHEMA } from './audit-schema.js';

/** A chunk row as enqueuing reads it back. */
interface ChunkRow {
  first_block: string;
  last_block: string;
  anchor: string | null;
  anchored?: boolean;
  join_attempts: number;
}

/** What enqueuing did: the audit's id, and how many chunks it put on the queue now (0 on a second run). */
export interface Enqueued {
  id: string;
  chunks: number;
  queued: number;
  /** The plan the audit keeps: the first enqueuing's, whose options of how it runs a later one does not change. */
  plan: AuditPlan;
}

/**
 * The chunk size of an audit in the queue that differs from `plan` in its chunk size alone (the latest enqueued where
 * several do); undefined when there is none, or when `plan` itself, at its own size, is in the queue. Enqueuing without
 * `--chunk-size` goes on with that audit rather than start the same one a second time (one enqueued before the queue's
 * default grew from 100).
 */
export async function enqueuedChunkSize(queue: AuditQueue, plan: AuditPlan): Promise<number | undefined> {
  const { rows } = await queue.pool.query(
    `SELECT id, chunk_size FROM ${AUDIT_SCHEMA}.audits WHERE chain_id = $1 AND from_block = $2 AND to_block = $3
     ORDER BY created_at DESC`,
    [plan.chain_id, plan.from, plan.to],
  );
  const same = (rows as Array<{ id: string; chunk_size: number }>).filter(
    (row) => row.id === auditIdOf({ ...plan, chunk_size: row.chunk_size }),
  );
  if (same.length === 0 || same.some((row) => row.chunk_size === plan.chunk_size)) return undefined;
  return same[0]!.chunk_size;
}

/** Sends chunk jobs inside the transaction of `client`, with the plan's lease and retries, after `delaySeconds` if given. */
export async function sendChunkJobs(
  boss: PgBoss,
  client: pg.PoolClient,
  plan: Pick<AuditPlan, 'chunk_timeout_s' | 'chunk_retries'>,
  jobs: readonly ChunkJob[],
  delaySeconds?: number,
): Promise<void> {
  if (jobs.length === 0) return;
  await boss.insert(
    CHUNK_QUEUE,
    jobs.map((data) => ({
      data,
      expireInSeconds: plan.chunk_timeout_s,
      retryLimit: plan.chunk_retries,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 60,
      ...(delaySeconds !== undefined && { startAfter: delaySeconds }),
    })),
    { db: inTransaction(client) },
  );
}

/**
 * Enqueues the audit of `plan` (with `header`, its first line) and returns its id; idempotent. The first chunk carries
 * the head hash as its anchor, so that the engine judges block `from`'s link as a single-machine audit does.
 */
export async function enqueueAudit(queue: AuditQueue, plan: AuditPlan, header: string): Promise<Enqueued> {
  const id = auditIdOf(plan);
  const chunks = chunksOf(plan);
  return transaction(queue.pool, async (client) => {
    await client.query(
      `INSERT INTO ${AUDIT_SCHEMA}.audits (id, chain_id, from_block, to_block, chunk_size, plan, header)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
      [id, plan.chain_id, plan.from, plan.to, plan.chunk_size, JSON.stringify(plan), header],
    );
    const head = plan.head_hash;
    const inserted = await client.query(
      `INSERT INTO ${AUDIT_SCHEMA}.chunks (audit_id, first_block, last_block, state, anchored, anchor, joined)
       SELECT $1, f, l, 'queued', f = $4 AND $5::text IS NOT NULL, CASE WHEN f = $4 THEN $5::text END, f = $4
       FROM unnest($2::bigint[], $3::bigint[]) AS c(f, l)
       ON CONFLICT (audit_id, first_block) DO NOTHING
       RETURNING first_block, last_block, anchor, join_attempts`,
      [id, chunks.map((c) => c.first), chunks.map((c) => c.last), plan.from, head ?? null],
    );
    const parked = await client.query(
      `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'queued', reason = NULL, attempts = 0
       WHERE audit_id = $1 AND state = 'parked' RETURNING first_block, last_block, anchor, anchored, join_attempts`,
      [id],
    );
    // Only the link is tried again: the chunk's job finds it done and joins it (its lines stand).
    const parkedLinks = await client.query(
      `UPDATE ${AUDIT_SCHEMA}.chunks SET link_unjudged = 'retrying', attempts = 0
       WHERE audit_id = $1 AND state = 'done' AND link_unjudged = 'parked'
       RETURNING first_block, last_block, anchor, anchored, join_attempts`,
      [id],
    );
    const rows = [
      ...(inserted.rows as ChunkRow[]),
      ...(parked.rows as ChunkRow[]),
      ...(parkedLinks.rows as ChunkRow[]),
    ];
    const jobs: ChunkJob[] = rows.map((row) => {
      const first = Number(row.first_block);
      const anchored = row.anchored === true || (first === plan.from && head !== undefined);
      return {
        audit_id: id,
        first,
        last: Number(row.last_block),
        ...(anchored && { anchor: row.anchor }),
        generation: row.join_attempts,
      };
    });
    await sendChunkJobs(queue.boss, client, plan, jobs);
    const kept = await client.query(`SELECT plan FROM ${AUDIT_SCHEMA}.audits WHERE id = $1`, [id]);
    return { id, chunks: chunks.length, queued: jobs.length, plan: (kept.rows[0] as { plan: AuditPlan }).plan };
  });
}
