/**
 * The join pass of docs/audit.md, run by the worker that finished a chunk: each chunk's first
 * parentHash against the previous chunk's last hash. A mismatch is asked again of the node, as the
 * engine does within a range: the same hash is a broken link, and the chunk is audited again with
 * that hash as its anchor, so that the engine itself fails `parent_link` (the lines are a
 * single-machine audit's); another hash is a reorg between the chunks, written as a reorg line, and
 * both chunks are audited again on the new chain. A hash the previous chunk's last line refutes
 * (vouchedHash, the rule the engine follows a reorg back by) is no block a reorg replaced: the link
 * is broken, whatever the node would answer now; a chunk whose first line refutes its own block keeps
 * that line, never audited again into a pass. Joins of one audit decide one at a time (a lock on its
 * row), so that two workers never judge the same link at once; the node is asked outside that lock.
 */
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import {
  hashOf,
  vouchedHash,
  type AuditReorg,
  type BlockAudit,
  type BlockJson,
  type BlockSource,
} from 'evm-integrity/audit';
import type { AuditPlan } from './audit-plan.js';
import type { ChunkJob } from './audit-queue.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import { formatAuditLine } from './audit-lines.js';
import { transaction } from '../postgres/transaction.js';
import { sendChunkJobs } from './enqueue.js';

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
  /** The chunk's last line of its first block, and of its last block (null: none stored). */
  first_line: BlockAudit | null;
  last_line: BlockAudit | null;
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
  const { rows } = await client.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'queued', joined = false, anchored = $3, anchor = $4,
       join_attempts = join_attempts + 1
     WHERE audit_id = $1 AND first_block = $2 RETURNING join_attempts`,
    [auditId, row.first_block, anchored, hash],
  );
  const job: ChunkJob = {
    audit_id: auditId,
    first: Number(row.first_block),
    last: Number(row.last_block),
    ...(anchored && { anchor: hash }),
    generation: (rows[0] as { join_attempts: number }).join_attempts,
  };
  await sendChunkJobs(boss, client, plan, [job]);
}

/**
 * The hash the chunk's last line vouches for (vouchedHash): null when the line refutes its hash or gives none. Only such a
 * hash is a block a reorg may have replaced; another never was a block's, as on one machine.
 */
const lastVouched = (row: ChunkRow): string | null => (row.last_line === null ? null : vouchedHash(row.last_line));

/**
 * Whether the chunk's first line refutes its own block (vouchedHash): the parentHash it gives is no evidence of a reorg
 * or of a broken link, and the line fails already; audited again, the node could answer the right block and erase it.
 */
const firstRefuted = (row: ChunkRow): boolean => row.first_line !== null && vouchedHash(row.first_line) === null;

/** Whether the link is judged already: the first parentHash (or the anchor the engine judged) is the previous last hash. */
function linked(before: ChunkRow, after: ChunkRow): boolean {
  const expected = before.last_hash;
  return after.anchored ? after.anchor === expected : expected !== null && after.first_parent_hash === expected;
}

/**
 * What a link's decision reads of its two chunks; unchanged since, the decision still stands. Only what the link itself
 * depends on: the chunk before's state and last hash (and its anchor, should a reorg send it back), the chunk after's
 * whole first link. The chunk before's own first link (its `joined`, its first parentHash) is another link's, changed
 * by a join that never judges this one: counted here, it would leave this link waiting with nobody to decide it.
 */
const snapshotBefore = (row: ChunkRow) =>
  JSON.stringify([row.state, row.last_hash, lastVouched(row), row.anchored, row.anchor]);
const snapshotAfter = (row: ChunkRow) =>
  JSON.stringify([
    row.state,
    row.joined,
    row.anchored,
    row.anchor,
    row.first_parent_hash,
    row.last_hash,
    row.join_attempts,
    firstRefuted(row),
  ]);

/**
 * Decides a link that does not match, from `now` (the block before `after` as the node gives it now; undefined when
 * the link has mismatched too often to ask again, or when the chunk before's last hash is not vouched for): a broken
 * link or a reorg between the chunks.
 */
async function decideMismatch(
  client: pg.PoolClient,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  [before, after]: [ChunkRow, ChunkRow],
  now: BlockJson | null | undefined,
): Promise<JoinOutcome> {
  const expected = before.last_hash;
  const boundary = Number(after.first_block) - 1;
  const old = lastVouched(before);
  const nowHash = now === undefined || now === null ? old : hashOf(now);
  if (old === null || nowHash === old) {
    await requeue(client, boss, plan, auditId, after, { hash: expected });
    return 'broken_link';
  }
  const reorg: AuditReorg = {
    reorg: {
      detected_at: boundary + 1,
      depth: 1,
      replaced: [{ block_number: boundary, old_hash: old, new_hash: nowHash }],
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

/** Takes the audit's join lock (its row), for the transaction of `client`. */
async function lockAudit(client: pg.PoolClient, auditId: string): Promise<void> {
  await client.query(`SELECT 1 FROM ${AUDIT_SCHEMA}.audits WHERE id = $1 FOR UPDATE`, [auditId]);
}

/** The chunks from `first` to `last` block, in order. */
async function chunksBetween(client: pg.PoolClient, auditId: string, first: number, last: number): Promise<ChunkRow[]> {
  const lineOf = (block: string) =>
    `(SELECT line FROM ${AUDIT_SCHEMA}.blocks b WHERE b.audit_id = c.audit_id AND b.chunk_first = c.first_block
        AND b.block_number = c.${block} ORDER BY b.seq DESC LIMIT 1)`;
  const { rows } = await client.query(
    `SELECT c.*, ${lineOf('first_block')} AS first_line, ${lineOf('last_block')} AS last_line
     FROM ${AUDIT_SCHEMA}.chunks c WHERE audit_id = $1 AND last_block >= $2 AND first_block <= $3
     ORDER BY first_block`,
    [auditId, first, last],
  );
  return rows as ChunkRow[];
}

/**
 * Joins the chunk starting at `first` to the chunks beside it, where both are done; what each link came to. A link that
 * does not match is decided after asking the node, outside the lock (a slow node holds back no other join), and only
 * if neither chunk changed meanwhile (else the join of the worker that changed it decides).
 */
export async function joinAround(
  pool: pg.Pool,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  first: number,
  source: BlockSource,
): Promise<JoinOutcome[]> {
  const outcomes: JoinOutcome[] = [];
  const mismatched = await transaction(pool, async (client) => {
    await lockAudit(client, auditId);
    const chunks = await chunksBetween(client, auditId, first - 1, first);
    const me = chunks.find((c) => Number(c.first_block) === first);
    if (me !== undefined)
      chunks.push(...(await chunksBetween(client, auditId, Number(me.last_block) + 1, Number(me.last_block) + 1)));
    const pairs: Array<[ChunkRow, ChunkRow]> = [];
    for (let i = 1; i < chunks.length; i++) {
      const [before, after] = [chunks[i - 1]!, chunks[i]!];
      if (before.state !== 'done' || after.state !== 'done' || after.joined) {
        outcomes.push(after.joined ? 'joined' : 'waiting');
      } else if (linked(before, after) || firstRefuted(after)) {
        await client.query(`UPDATE ${AUDIT_SCHEMA}.chunks SET joined = true WHERE audit_id = $1 AND first_block = $2`, [
          auditId,
          after.first_block,
        ]);
        outcomes.push('joined');
      } else pairs.push([before, after]);
    }
    return pairs;
  });
  for (const [before, after] of mismatched) {
    const boundary = Number(after.first_block) - 1;
    const ask = after.join_attempts < MAX_JOIN_ATTEMPTS && lastVouched(before) !== null;
    const now = ask ? await source.block(plan.chain_id, boundary) : undefined;
    const outcome = await transaction(pool, async (client) => {
      await lockAudit(client, auditId);
      const [b, a] = await chunksBetween(client, auditId, boundary, boundary + 1);
      if (
        b === undefined ||
        a === undefined ||
        snapshotBefore(b) !== snapshotBefore(before) ||
        snapshotAfter(a) !== snapshotAfter(after)
      )
        return 'waiting';
      return decideMismatch(client, boss, plan, auditId, [b, a], now);
    });
    outcomes.push(outcome);
    if (outcome === 'reorg') break; // the chunks beside it go back to the queue: nothing more to judge now
  }
  return outcomes;
}
