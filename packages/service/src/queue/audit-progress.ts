/**
 * Where a distributed audit stands (`audit-status`): its chunks by state, the links joined, the
 * blocks audited and their rate, the ETA (none while a chunk is parked: the audit then waits for an
 * operator), the failures so far and the reasons of the chunks retrying and parked; all
 * read from the audit tables.
 */
import type pg from 'pg';
import { FAILED_LINES_LISTED, type UncountedFailures } from 'evm-integrity/audit';
import type { AuditPlan } from './audit-plan.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import { crossingChunks, doneVerdicts } from './audit-verdicts.js';

/** A chunk given up (parked) or to be tried again (retrying), with why. */
export interface UnfinishedChunk {
  first: number;
  last: number;
  attempts: number;
  reason: string | null;
}

/** A block that failed, and its checks. */
export interface FailedBlock {
  block_number: number;
  checks: string[];
}

/** The state of an audit. */
export interface AuditProgress {
  id: string;
  chain_id: number;
  from: number;
  to: number;
  chunks: { total: number; queued: number; running: number; retrying: number; done: number; parked: number };
  /**
   * Links between done chunks judged. The first chunk's, to the head hash, is the engine's to judge: it counts once that
   * chunk is done (before any chunk ran, "1 of 4 links joined" said one was).
   */
  joined: number;
  blocks: { total: number; audited: number };
  /** Each block of the done chunks once, by its last line, as the export's summary counts it. */
  verdicts: Record<string, number>;
  blocks_per_second: number;
  /** Seconds left at that rate (null: no rate yet, nothing left, or `needs_operator`). */
  eta_seconds: number | null;
  /**
   * A chunk, or a link, is parked: no worker tries it again, so the audit cannot finish until an operator enqueues it
   * again (which hands them back); there is no ETA to give.
   */
  needs_operator: boolean;
  /** Every chunk done and every link joined: the export is the whole audit. */
  complete: boolean;
  failures: FailedBlock[];
  /**
   * The blocks whose failing line a reorg then replaced (not in `verdicts` nor `failures`, which count the last line),
   * as the export's summary names them; absent when none.
   */
  replaced_failures?: UncountedFailures;
  /**
   * The blocks whose failing line an attempt of their chunk judged, and that no done chunk's stored line fails as it
   * did (the attempt was not stored: the chunk audited again, or not yet), as the export's summary names them; absent
   * when none.
   */
  retried_failures?: UncountedFailures;
  /**
   * The chunks whose last attempt failed and that are to be tried again, with the failure; and the chunks done whose
   * link to the chunk before could not be judged, tried again alone (their lines stand, counted as a done chunk's).
   */
  retrying: UnfinishedChunk[];
  /** As `retrying`, given up past the plan's retries: to be handed back by enqueuing the audit again. */
  parked: UnfinishedChunk[];
}

/**
 * The lines of audit `$1`'s chunks that are done: a chunk parked, or sent back to be audited again, keeps its earlier
 * lines until it is stored again, and they would count beside the blocks audited, which are the done chunks'.
 */
const OF_DONE_CHUNKS = `JOIN ${AUDIT_SCHEMA}.chunks c ON c.audit_id = b.audit_id AND c.first_block = b.chunk_first
  WHERE b.audit_id = $1 AND c.state = 'done'`;

/**
 * A line `b` that is not its block's last: the same chunk has a later one, or a chunk after it holds a reorg that
 * audited the block again (`$3`, the holders of crossingChunks).
 */
const SUPERSEDED = `(EXISTS (SELECT 1 FROM ${AUDIT_SCHEMA}.blocks later WHERE later.audit_id = b.audit_id
      AND later.chunk_first = b.chunk_first AND later.block_number = b.block_number AND later.seq > b.seq)
    OR EXISTS (SELECT 1 FROM ${AUDIT_SCHEMA}.blocks later WHERE later.audit_id = b.audit_id
      AND later.chunk_first = ANY($3::bigint[]) AND later.chunk_first > b.chunk_first
      AND later.block_number = b.block_number))`;

/** A line's failed checks, each once, in the order the line gives them. */
const CHECKS = `array(SELECT e.v->>'check' FROM json_array_elements(b.line->'failures') WITH ORDINALITY e(v, i)
  GROUP BY e.v->>'check' ORDER BY min(e.i))`;

/**
 * The failing lines `selected` gives (SQL from FROM on, a line `b` of audit `$1`, ordered by block number and then which
 * line of a block counts; `params` from `$3` on), each block once by its first such line: how many blocks, and the first
 * {@link FAILED_LINES_LISTED} by block number; undefined when none.
 */
async function failingLines(
  db: pg.Pool | pg.PoolClient,
  id: string,
  selected: string,
  params: unknown[] = [],
): Promise<UncountedFailures | undefined> {
  const { rows } = await db.query(
    `SELECT block_number, block_hash, checks, count(*) OVER ()::int AS blocks FROM (
       SELECT DISTINCT ON (b.block_number) b.block_number, b.block_hash, ${CHECKS} AS checks ${selected}) f
     ORDER BY block_number LIMIT $2`,
    [id, FAILED_LINES_LISTED, ...params],
  );
  const lines = rows as Array<{ block_number: string; block_hash: string | null; checks: string[]; blocks: number }>;
  if (lines.length === 0) return undefined;
  return {
    blocks: lines[0]!.blocks,
    listed: lines.map((l) => ({ block_number: Number(l.block_number), block_hash: l.block_hash, checks: l.checks })),
  };
}

/** The failing lines of audit `$1`'s done chunks that `which` selects (SQL over the line `b` and its chunk `c`). */
const doneFailing = (which: string) =>
  `FROM ${AUDIT_SCHEMA}.blocks b ${OF_DONE_CHUNKS} AND b.verdict = 'fail' AND ${which}
   ORDER BY b.block_number, b.chunk_first, b.seq`;

/**
 * The failing lines the export holds out (`auditLines`): those of chunks done whose link to the chunk before is not
 * judged yet. A finding all the same: audit-status lists them, and the export's exit status is 1.
 */
export const heldOutFailures = (db: pg.Pool | pg.PoolClient, id: string): Promise<UncountedFailures | undefined> =>
  failingLines(db, id, doneFailing('NOT c.joined'));

/**
 * The failing lines an attempt of a chunk judged (attempt_failures) that no done chunk's stored line fails at the same
 * block and hash: the attempt was not stored (its node failed later in the chunk, its worker was stopped or killed, the
 * join pass sent the chunk back), and the chunk audited again (or not yet) says otherwise. One machine's output keeps
 * such a line; a finding all the same: audit-status lists them, and the export names them and exits 1.
 */
export const retriedFailures = (db: pg.Pool | pg.PoolClient, id: string): Promise<UncountedFailures | undefined> =>
  failingLines(
    db,
    id,
    `FROM ${AUDIT_SCHEMA}.attempt_failures b WHERE b.audit_id = $1 AND NOT EXISTS (
       SELECT 1 FROM ${AUDIT_SCHEMA}.blocks s
       JOIN ${AUDIT_SCHEMA}.chunks c ON c.audit_id = s.audit_id AND c.first_block = s.chunk_first AND c.state = 'done'
       WHERE s.audit_id = b.audit_id AND s.block_number = b.block_number AND s.verdict = 'fail'
         AND s.block_hash IS NOT DISTINCT FROM b.block_hash)
     ORDER BY b.block_number, b.kept_at`,
  );

/** The progress of audit `id`; null when there is no such audit. */
export async function auditProgress(db: pg.Pool | pg.PoolClient, id: string): Promise<AuditProgress | null> {
  const audit = await db.query(`SELECT plan FROM ${AUDIT_SCHEMA}.audits WHERE id = $1`, [id]);
  if (audit.rows.length === 0) return null;
  const plan = (audit.rows[0] as { plan: AuditPlan }).plan;
  const states = await db.query(
    `SELECT state, count(*)::int AS chunks, sum(last_block - first_block + 1)::bigint AS blocks,
            count(*) FILTER (WHERE joined AND state = 'done')::int AS joined,
            extract(epoch FROM max(finished_at) - min(started_at))::float AS seconds
     FROM ${AUDIT_SCHEMA}.chunks WHERE audit_id = $1 GROUP BY state`,
    [id],
  );
  const chunks = { total: 0, queued: 0, running: 0, retrying: 0, done: 0, parked: 0 };
  let audited = 0;
  let joined = 0;
  let seconds = 0;
  for (const row of states.rows as Array<{
    state: keyof typeof chunks;
    chunks: number;
    blocks: string;
    joined: number;
    seconds: number | null;
  }>) {
    chunks[row.state] = row.chunks;
    chunks.total += row.chunks;
    joined += row.joined;
    if (row.state === 'done') {
      audited = Number(row.blocks);
      seconds = row.seconds ?? 0;
    }
  }
  // Each block once, by its last line, as the export's summary counts it (31 verdicts for 30 blocks, in a user check,
  // counted line by line where the node reorganised within a chunk; a block replaced in an earlier chunk, by both).
  const crossing = await crossingChunks(db, id);
  const verdicts = await doneVerdicts(db, plan, id, crossing.touched);
  const failed = await db.query(
    `SELECT block_number, array(SELECT f->>'check' FROM json_array_elements(line->'failures') f) AS checks
     FROM ${AUDIT_SCHEMA}.blocks b ${OF_DONE_CHUNKS} AND verdict = 'fail' AND NOT ${SUPERSEDED}
     ORDER BY block_number LIMIT $2`,
    [id, FAILED_LINES_LISTED, crossing.holders],
  );
  // A failing line a reorg replaced is a finding all the same, as the export's summary names it.
  const replaced = await failingLines(db, id, doneFailing(SUPERSEDED), [crossing.holders]);
  const retried = await retriedFailures(db, id);
  const unfinished = await db.query(
    `SELECT coalesce(link_unjudged, state) AS state, first_block, last_block, attempts, reason
     FROM ${AUDIT_SCHEMA}.chunks
     WHERE audit_id = $1 AND (state IN ('retrying', 'parked') OR state = 'done' AND link_unjudged IS NOT NULL)
     ORDER BY first_block`,
    [id],
  );
  const rows = unfinished.rows as Array<{
    state: string;
    first_block: string;
    last_block: string;
    attempts: number;
    reason: string | null;
  }>;
  const inState = (state: string): UnfinishedChunk[] =>
    rows
      .filter((r) => r.state === state)
      .map((r) => ({
        first: Number(r.first_block),
        last: Number(r.last_block),
        attempts: r.attempts,
        reason: r.reason,
      }));
  const total = plan.to - plan.from + 1;
  const rate = seconds > 0 ? audited / seconds : 0;
  const parked = inState('parked');
  return {
    id,
    chain_id: plan.chain_id,
    from: plan.from,
    to: plan.to,
    chunks,
    joined,
    blocks: { total, audited },
    verdicts,
    blocks_per_second: rate,
    eta_seconds: rate > 0 && audited < total && parked.length === 0 ? Math.ceil((total - audited) / rate) : null,
    needs_operator: parked.length > 0,
    complete: chunks.done === chunks.total && joined === chunks.total,
    failures: (failed.rows as Array<{ block_number: string; checks: string[] }>).map((r) => ({
      block_number: Number(r.block_number),
      checks: r.checks,
    })),
    ...(replaced && { replaced_failures: replaced }),
    ...(retried && { retried_failures: retried }),
    retrying: inState('retrying'),
    parked,
  };
}
