/**
 * The join pass of docs/audit.md, run by the worker that finished a chunk: each chunk's first
 * parentHash against the previous chunk's last hash. A mismatch is asked again of the node, as the
 * engine does within a range: the same hash is a broken link, and the chunk is audited again with
 * that hash as its anchor, so that the engine itself fails `parent_link` (the lines are a
 * single-machine audit's); another hash is a reorg between the chunks, written as a reorg line, and
 * both chunks are audited again on the new chain. Joins of one audit run one at a time (a lock on
 * its row), so that two workers never judge the same link at once.
 */
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { hashOf, type AuditReorg, type BlockSource } from 'evm-integrity/audit';
import type { AuditPlan } from './audit-plan.js';
import type { ChunkJob } from './audit-queue.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import { formatAuditLine } from './audit-lines.js';
import { sendChunkJobs, transaction } from './enqueue.js';

/** After this many mismatches of one link, the chunk is audited with the anchor at once (a chain that keeps moving). */
const MAX_JOIN_ATTEMPTS = 3;

interface ChunkRow {
  first_block: string;
  last_block: string;
  state: string;
  anchored: boolean;
  anchor: string | null;
  first_parent_hash: string | null;
  last_hash: string | null;
  joined: boolean;
  join_attempts: number;
}

/** What the join did to a link: nothing yet, joined, or chunks sent back to the queue (and whether it saw a reorg). */
export type JoinOutcome = 'waiting' | 'joined' | 'broken_link' | 'reorg';

/** Sends chunk `row` back to the queue, its first link to be judged against `anchor` when given. */
async function requeue(
  client: pg.PoolClient,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  row: ChunkRow,
  anchor: { hash: string | null } | undefined,
): Promise<void> {
  const anchored = anchor !== undefined || (row.anchored && Number(row.first_block) === plan.from);
  const hash = anchor !== undefined ? anchor.hash : anchored ? row.anchor : null;
  await client.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'queued', joined = false, anchored = $3, anchor = $4,
       join_attempts = join_attempts + 1
     WHERE audit_id = $1 AND first_block = $2`,
    [auditId, row.first_block, anchored, hash],
  );
  const job: ChunkJob = {
    audit_id: auditId,
    first: Number(row.first_block),
    last: Number(row.last_block),
    ...(anchored && { anchor: hash }),
  };
  await sendChunkJobs(boss, client, plan, [job]);
}

/** Judges the link between `before` and `after` (both done); may ask the node for the block before `after`. */
async function joinLink(
  client: pg.PoolClient,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  source: BlockSource,
  before: ChunkRow,
  after: ChunkRow,
): Promise<JoinOutcome> {
  const expected = before.last_hash;
  const linked = after.anchored ? after.anchor === expected : expected !== null && after.first_parent_hash === expected;
  if (linked) {
    await client.query(`UPDATE ${AUDIT_SCHEMA}.chunks SET joined = true WHERE audit_id = $1 AND first_block = $2`, [
      auditId,
      after.first_block,
    ]);
    return 'joined';
  }
  const boundary = Number(after.first_block) - 1;
  const now = after.join_attempts >= MAX_JOIN_ATTEMPTS ? null : await source.block(plan.chain_id, boundary);
  const nowHash = now === null ? expected : hashOf(now);
  if (nowHash === expected) {
    await requeue(client, boss, plan, auditId, after, { hash: expected });
    return 'broken_link';
  }
  const reorg: AuditReorg = {
    reorg: {
      detected_at: boundary + 1,
      depth: 1,
      replaced: [{ block_number: boundary, old_hash: expected!, new_hash: nowHash }],
    },
  };
  // Before the previous chunk's new lines, as the engine writes a reorg line before the blocks it audits again.
  await client.query(
    `INSERT INTO ${AUDIT_SCHEMA}.reorgs (audit_id, chunk_first, seq, detected_at, line)
     SELECT $1, $2, coalesce(min(seq) FILTER (WHERE seq < 0), 0) - 1, $3, $4
     FROM ${AUDIT_SCHEMA}.reorgs WHERE audit_id = $1 AND chunk_first = $2`,
    [auditId, before.first_block, boundary + 1, formatAuditLine(reorg)],
  );
  await requeue(client, boss, plan, auditId, before, undefined);
  await requeue(client, boss, plan, auditId, after, undefined);
  return 'reorg';
}

/** Joins the chunk starting at `first` to the chunks beside it, where both are done; what each link came to. */
export async function joinAround(
  pool: pg.Pool,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  first: number,
  source: BlockSource,
): Promise<JoinOutcome[]> {
  return transaction(pool, async (client) => {
    await client.query(`SELECT 1 FROM ${AUDIT_SCHEMA}.audits WHERE id = $1 FOR UPDATE`, [auditId]);
    const { rows } = await client.query(
      `SELECT c.* FROM ${AUDIT_SCHEMA}.chunks c, ${AUDIT_SCHEMA}.chunks me
       WHERE me.audit_id = $1 AND me.first_block = $2 AND c.audit_id = $1
         AND (c.first_block = me.first_block OR c.last_block = me.first_block - 1 OR c.first_block = me.last_block + 1)
       ORDER BY c.first_block`,
      [auditId, first],
    );
    const chunks = rows as ChunkRow[];
    const outcomes: JoinOutcome[] = [];
    for (let i = 1; i < chunks.length; i++) {
      const [before, after] = [chunks[i - 1]!, chunks[i]!];
      if (before.state !== 'done' || after.state !== 'done' || after.joined) {
        outcomes.push(after.joined ? 'joined' : 'waiting');
        continue;
      }
      const outcome = await joinLink(client, boss, plan, auditId, source, before, after);
      outcomes.push(outcome);
      if (outcome === 'reorg') break; // the chunks beside it go back to the queue: nothing more to judge now
    }
    return outcomes;
  });
}
