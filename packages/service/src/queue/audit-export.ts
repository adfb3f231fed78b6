/**
 * The lines of a distributed audit, in the order a single-machine audit writes them: its header,
 * then chunk by chunk (in block order) each chunk's lines in the order its worker wrote them, a
 * reorg the join pass saw between two chunks after the lines of the chunk before. Read a batch of
 * chunks at a time, so that an audit of millions of blocks exports in bounded memory. Each reader
 * takes a pool or one connection: an export reads them all in one snapshot (`exportSnapshot`).
 */
import type pg from 'pg';
import type { AuditTimings } from 'evm-integrity/audit';
import type { AuditPlan } from './audit-plan.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import { transaction } from '../postgres/transaction.js';

/**
 * Runs `read` in one read-only snapshot of the queue's tables (REPEATABLE READ), so that an export's lines, its summary
 * and whether the audit is finished are of one moment: a chunk stored while the export reads is in none or in all.
 */
export function exportSnapshot<T>(pool: pg.Pool, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return transaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return read(client);
  });
}

/** Chunks read per query. */
const BATCH = 50;

/** An audit as stored: its plan, its header line, and the time its chunks took. */
export interface StoredAudit {
  plan: AuditPlan;
  header: string;
  /**
   * Summed over its chunks (fetching, verifying), which overlap in time: the sums may exceed elapsed, which is from the
   * first chunk started to the last finished.
   */
  timings: AuditTimings;
}

/** Audit `id` as stored; null when there is no such audit. */
export async function storedAudit(db: pg.Pool | pg.PoolClient, id: string): Promise<StoredAudit | null> {
  const { rows } = await db.query(
    `SELECT a.plan, a.header::text AS header,
       coalesce(extract(epoch FROM max(c.finished_at) - min(c.started_at)) * 1000, 0)::float AS elapsed_ms,
       coalesce(sum((c.summary->'timings'->>'fetching_ms')::float), 0)::float AS fetching_ms,
       coalesce(sum((c.summary->'timings'->>'verifying_ms')::float), 0)::float AS verifying_ms
     FROM ${AUDIT_SCHEMA}.audits a LEFT JOIN ${AUDIT_SCHEMA}.chunks c ON c.audit_id = a.id AND c.state = 'done'
     WHERE a.id = $1 GROUP BY a.id`,
    [id],
  );
  if (rows.length === 0) return null;
  const row = rows[0] as {
    plan: AuditPlan;
    header: string;
    elapsed_ms: number;
    fetching_ms: number;
    verifying_ms: number;
  };
  return {
    plan: row.plan,
    header: row.header,
    timings: {
      elapsed_ms: row.elapsed_ms,
      fetching_ms: row.fetching_ms,
      verifying_ms: row.verifying_ms,
      cross_checking_ms: 0,
    },
  };
}

/**
 * The text of each line of audit `id` after its header, in order: the lines of every chunk done whose first link is
 * joined, those after a gap too. A chunk not done, or whose link to the chunk before is not judged yet, is a gap (no
 * line for its blocks); so is the done chunk right after a chunk not done, whose link cannot be judged before that
 * chunk is. The summary counts these lines only (audit-status counts every done chunk) and says where the audit stands
 * (not complete, its next block the first gap's first), and `audit --resume`, which keeps the lines only up to a gap,
 * audits again from there.
 */
export async function* auditLines(db: pg.Pool | pg.PoolClient, id: string): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const chunks = await db.query(
      `SELECT first_block, last_block FROM ${AUDIT_SCHEMA}.chunks
       WHERE audit_id = $1 AND first_block > $2 AND state = 'done' AND joined
       ORDER BY first_block LIMIT $3`,
      [id, after, BATCH],
    );
    if (chunks.rows.length === 0) return;
    const firsts = (chunks.rows as Array<{ first_block: string }>).map((r) => r.first_block);
    yield* await linesOfChunks(db, id, firsts);
    after = Number(firsts.at(-1));
  }
}

/**
 * The first block of the first chunk whose lines {@link auditLines} holds out (not done, or its link not joined): where
 * the audit is to go on from. Null when there is none: the export is the whole audit, as audit-status's `complete`.
 */
export async function firstGap(db: pg.Pool | pg.PoolClient, id: string): Promise<number | null> {
  const { rows } = await db.query(
    `SELECT min(first_block)::text AS first FROM ${AUDIT_SCHEMA}.chunks
     WHERE audit_id = $1 AND NOT (state = 'done' AND joined)`,
    [id],
  );
  const { first } = rows[0] as { first: string | null };
  return first === null ? null : Number(first);
}

/**
 * The text of each line of the chunks of audit `id` starting at `firsts`, in the export's order: chunk by chunk (in
 * block order), each chunk's lines in the order they were stored, a reorg the join pass saw after the chunk before's.
 */
export async function linesOfChunks(db: pg.Pool | pg.PoolClient, id: string, firsts: string[]): Promise<string[]> {
  const lines = await db.query(
    `SELECT line::text AS line FROM (
       SELECT chunk_first, seq, line FROM ${AUDIT_SCHEMA}.blocks WHERE audit_id = $1 AND chunk_first = ANY($2::bigint[])
       UNION ALL
       SELECT chunk_first, seq, line FROM ${AUDIT_SCHEMA}.reorgs WHERE audit_id = $1 AND chunk_first = ANY($2::bigint[])
     ) l ORDER BY chunk_first, seq`,
    [id, firsts],
  );
  return (lines.rows as Array<{ line: string }>).map((row) => row.line);
}
