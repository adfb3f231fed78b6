/**
 * The verdicts of an audit's done chunks, each block once by its last line, as the export's summary counts them
 * (`AuditTally`). A chunk's summary counts its own lines so; but a reorg the join pass follows back past the chunk
 * before the link (`--chunk-size` under 65) is stored among that chunk's lines and audits again blocks of the chunks
 * before it, whose summaries count them too. The chunks such a reorg touches are tallied again from their lines, in the
 * export's order, and the rest summed from their summaries: an audit of millions of blocks is not read line by line.
 */
import type pg from 'pg';
import { AuditTally, type AuditEvent, type AuditVerdict } from 'evm-integrity/audit';
import type { AuditPlan } from './audit-plan.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import { linesOfChunks } from './audit-export.js';

/** The done chunks a reorg stored in one chunk audited again blocks of another. */
export interface CrossingChunks {
  /** The first blocks of the chunks holding such a reorg, whose lines are the last of blocks before them. */
  holders: string[];
  /** The first blocks of every chunk holding such a reorg or holding blocks it replaced (the holders among them). */
  touched: string[];
}

/** The done chunks of audit `id` that a reorg replacing blocks before its own chunk touches (none on most audits). */
export async function crossingChunks(db: pg.Pool | pg.PoolClient, id: string): Promise<CrossingChunks> {
  const { rows } = await db.query(
    `WITH deep AS (
       SELECT r.chunk_first AS holder,
         (SELECT min((x->>'block_number')::bigint) FROM json_array_elements(r.line->'reorg'->'replaced') x) AS replaced
       FROM ${AUDIT_SCHEMA}.reorgs r
       JOIN ${AUDIT_SCHEMA}.chunks h ON h.audit_id = r.audit_id AND h.first_block = r.chunk_first AND h.state = 'done'
       WHERE r.audit_id = $1)
     SELECT c.first_block::text AS first, EXISTS (SELECT 1 FROM deep d
         WHERE d.holder = c.first_block AND d.replaced < d.holder) AS holds
     FROM ${AUDIT_SCHEMA}.chunks c
     WHERE c.audit_id = $1 AND c.state = 'done' AND EXISTS (SELECT 1 FROM deep d
       WHERE d.replaced < d.holder AND c.first_block <= d.holder AND c.last_block >= d.replaced)
     ORDER BY c.first_block`,
    [id],
  );
  const chunks = rows as Array<{ first: string; holds: boolean }>;
  return { holders: chunks.filter((c) => c.holds).map((c) => c.first), touched: chunks.map((c) => c.first) };
}

/** The verdicts of audit `id`'s done chunks, each block once by its last line; `touched` from {@link crossingChunks}. */
export async function doneVerdicts(
  db: pg.Pool | pg.PoolClient,
  plan: AuditPlan,
  id: string,
  touched: string[],
): Promise<Record<AuditVerdict, number>> {
  const tally = new AuditTally(plan.chain_id, plan.from, plan.to);
  for (const line of await linesOfChunks(db, id, touched)) tally.add(JSON.parse(line) as AuditEvent);
  const { verdicts } = tally.summary({ elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 }, 0);
  const summed = await db.query(
    `SELECT v.key AS verdict, sum(v.value::int)::int AS n
     FROM ${AUDIT_SCHEMA}.chunks c, json_each_text(c.summary->'verdicts') v
     WHERE c.audit_id = $1 AND c.state = 'done' AND NOT c.first_block = ANY($2::bigint[]) GROUP BY v.key`,
    [id, touched],
  );
  for (const row of summed.rows as Array<{ verdict: AuditVerdict; n: number }>) verdicts[row.verdict] += row.n;
  return verdicts;
}
