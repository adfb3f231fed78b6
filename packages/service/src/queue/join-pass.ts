/**
 * The join pass of docs/audit.md, run by the worker that finished a chunk: each chunk's first
 * parentHash against the previous chunk's last hash. A mismatch is followed back as the engine
 * follows it within a range, by the engine's own walk (auditReorgBack) over the lines stored before
 * the link: the blocks the node now gives another hash are a reorg, written as one machine writes
 * it (a reorg line, then those blocks audited again, after the chunk before's lines), and every
 * other stored line stands, a failing one too; no block replaced is a broken link, and the chunk is
 * audited again with that hash as its anchor, so that the engine itself fails `parent_link` (the
 * lines are a single-machine audit's). A chunk whose first line refutes its own block keeps that
 * line, never audited again into a pass. A reorg's first block audited again before the chunk before it was done
 * awaits its link, which the join of that chunk judges (linkParent), as one machine judges it with the block before in
 * hand: that chunk is never audited again, so no line of the reorg is lost. Joins of one audit decide one at a time (a lock on its
 * row), so that two workers never judge the same link at once; the node is asked outside that lock. A link the
 * node cannot help judge (asked again, it gives no block, or no answer) stays unjudged, and only the link is tried
 * again: the chunk after it stays done with its lines (a failing one, a reorg's, stand and count meanwhile), its link
 * retrying, and past the plan's retries parked with that reason, as a chunk whose node stays unreachable is (enqueuing
 * the audit again hands it back).
 */
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import {
  auditReorgBack,
  AuditTally,
  DEFAULT_MAX_REORG_DEPTH,
  isReorg,
  linkParent,
  parentHashOf,
  vouchedHash,
  type AuditEvent,
  type AuditReorg,
  type AuditSummary,
  type BlockAudit,
  type BlockSource,
  type BlockVerifier,
} from 'evm-integrity/audit';
import { anchorsWithin, type AuditPlan } from './audit-plan.js';
import type { ChunkJob } from './audit-queue.js';
import { AUDIT_SCHEMA } from './audit-schema.js';
import { formatAuditLine, HEAD_HASH_NAME } from './audit-lines.js';
import { transaction } from '../postgres/transaction.js';
import { sendChunkJobs } from './enqueue.js';

/** After this many mismatches of one link, the chunk is audited with the anchor at once, the node not asked again. */
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
  /** Times a worker took the chunk since it was enqueued (or handed back by enqueuing again). */
  attempts: number;
  summary: unknown;
  /** The chunk's last line of its first block, and of its last block (null: none stored). */
  first_line: BlockAudit | null;
  last_line: BlockAudit | null;
}

/**
 * What the join did to a link: nothing yet, joined, a broken link (the chunk after sent back), a reorg followed back,
 * or not judged as the node could not be asked (the link retrying, or parked past the plan's retries; its chunks done).
 */
export type JoinOutcome = 'waiting' | 'joined' | 'broken_link' | 'reorg' | 'retrying' | 'parked';

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
    `UPDATE ${AUDIT_SCHEMA}.chunks SET state = 'queued', joined = false, link_unjudged = NULL, anchored = $3,
       anchor = $4, join_attempts = join_attempts + 1
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

/** Joins chunk `first`'s link to the chunk before: judged, so no longer retried. */
async function markJoined(client: pg.PoolClient, auditId: string, first: string): Promise<void> {
  await client.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET joined = true, link_unjudged = NULL, reason = NULL
     WHERE audit_id = $1 AND first_block = $2`,
    [auditId, first],
  );
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

/** Whether a line awaiting its link (its chunk's first block's, from a reorg) links to the chunk before's last hash. */
const linkedBy = (before: ChunkRow, awaiting: AwaitingLine): boolean =>
  before.last_hash !== null && awaiting.parent_hash === before.last_hash;

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
 * The hashes the done chunks' lines vouch for (vouchedHash), of the blocks up to `boundary` a reorg may be followed back
 * into and of the block before them: each block's last line, as the engine keeps the hashes of the blocks it audited.
 */
async function storedHashes(client: pg.PoolClient, auditId: string, boundary: number): Promise<Map<number, string>> {
  const { rows } = await client.query(
    `SELECT b.block_number, b.line FROM ${AUDIT_SCHEMA}.blocks b
     JOIN ${AUDIT_SCHEMA}.chunks c ON c.audit_id = b.audit_id AND c.first_block = b.chunk_first AND c.state = 'done'
     WHERE b.audit_id = $1 AND b.block_number BETWEEN $2 AND $3 ORDER BY b.chunk_first, b.seq`,
    [auditId, boundary - DEFAULT_MAX_REORG_DEPTH, boundary],
  );
  const hashes = new Map<number, string>();
  for (const row of rows as Array<{ block_number: string; line: BlockAudit }>) {
    const hash = vouchedHash(row.line);
    if (hash === null) hashes.delete(Number(row.block_number));
    else hashes.set(Number(row.block_number), hash);
  }
  return hashes;
}

/** The parentHash of each block the walk back was given, by number: what the blocks a reorg brings link to. */
type WalkParents = Map<number, string | null>;

/** `source`, noting in `parents` the parentHash of each block it gives. */
function notingParents(source: BlockSource, parents: WalkParents): BlockSource {
  return {
    block: async (chainId, number) => {
      const block = await source.block(chainId, number);
      if (block !== null) parents.set(number, parentHashOf(block));
      return block;
    },
  };
}

/**
 * The line of the block `number` that stands last (the export's order), when it awaits its link to the block before it:
 * a chunk's first block that a reorg audited again while the chunk before was not done (storeReorg).
 */
interface AwaitingLine {
  chunk_first: string;
  seq: number;
  line: BlockAudit;
  /** The block's parentHash. */
  parent_hash: string | null;
}

/** The last line of block `number` among the done chunks', when it awaits its link (null: it does not). */
async function awaitingLine(client: pg.PoolClient, auditId: string, number: string): Promise<AwaitingLine | null> {
  const { rows } = await client.query(
    `SELECT b.chunk_first, b.seq, b.line, b.awaits_link, b.parent_hash FROM ${AUDIT_SCHEMA}.blocks b
     JOIN ${AUDIT_SCHEMA}.chunks c ON c.audit_id = b.audit_id AND c.first_block = b.chunk_first AND c.state = 'done'
     WHERE b.audit_id = $1 AND b.block_number = $2 ORDER BY b.chunk_first DESC, b.seq DESC LIMIT 1`,
    [auditId, number],
  );
  const last = rows[0] as (AwaitingLine & { awaits_link: boolean }) | undefined;
  return last?.awaits_link === true ? last : null;
}

/** Counts chunk `first`'s stored lines in its summary again, as the engine's tally does (its timings kept). */
async function retally(client: pg.PoolClient, plan: AuditPlan, auditId: string, first: string): Promise<void> {
  const key = [auditId, first];
  const { rows } = await client.query(
    `SELECT line FROM (
       SELECT seq, line FROM ${AUDIT_SCHEMA}.blocks WHERE audit_id = $1 AND chunk_first = $2
       UNION ALL SELECT seq, line FROM ${AUDIT_SCHEMA}.reorgs WHERE audit_id = $1 AND chunk_first = $2
     ) l ORDER BY seq`,
    key,
  );
  const chunk = await client.query(
    `SELECT last_block, summary FROM ${AUDIT_SCHEMA}.chunks WHERE audit_id = $1 AND first_block = $2`,
    key,
  );
  const { last_block, summary } = chunk.rows[0] as { last_block: string; summary: AuditSummary };
  const tally = new AuditTally(plan.chain_id, Number(first), Number(last_block));
  for (const { line } of rows as Array<{ line: AuditEvent }>) tally.add(line);
  const { verdicts, failed_checks, reorgs } = tally.summary({ ...summary.timings }, 0);
  await client.query(`UPDATE ${AUDIT_SCHEMA}.chunks SET summary = $3 WHERE audit_id = $1 AND first_block = $2`, [
    ...key,
    JSON.stringify({ verdicts, failed_checks, reorgs, timings: summary.timings }),
  ]);
}

/**
 * Links a line that awaited its link to the block before it, now judged: against `expected`, the hash that block's line
 * stands for (linkParent), as one machine judges it with that block in hand; its chunk's summary counts it so.
 */
async function linkAwaiting(
  client: pg.PoolClient,
  plan: AuditPlan,
  auditId: string,
  awaiting: AwaitingLine,
  expected: string | null,
): Promise<void> {
  const line = linkParent(awaiting.line, awaiting.parent_hash, expected);
  await client.query(
    `UPDATE ${AUDIT_SCHEMA}.blocks SET line = $4, verdict = $5, awaits_link = false, parent_hash = NULL
     WHERE audit_id = $1 AND chunk_first = $2 AND seq = $3`,
    [auditId, awaiting.chunk_first, awaiting.seq, formatAuditLine(line), line.verdict],
  );
  await retally(client, plan, auditId, awaiting.chunk_first);
}

/** A reorg line a chunk's engine wrote, where its walk back stopped at the chunk's first block. */
interface FirstBlockReorg {
  chunk_first: string;
  seq: number;
  line: AuditReorg;
}

/**
 * The reorg line of chunk `first` right before the line its first block stands by (its last): the engine followed the
 * reorg back to the chunk's first block, and no further (null: none).
 */
async function firstBlockReorg(client: pg.PoolClient, auditId: string, first: string): Promise<FirstBlockReorg | null> {
  const { rows } = await client.query(
    `SELECT chunk_first, seq, line FROM ${AUDIT_SCHEMA}.reorgs
     WHERE audit_id = $1 AND chunk_first = $2 AND seq + 1 = (SELECT max(seq) FROM ${AUDIT_SCHEMA}.blocks
       WHERE audit_id = $1 AND chunk_first = $2 AND block_number = $2)`,
    [auditId, first],
  );
  return (rows[0] as FirstBlockReorg | undefined) ?? null;
}

/**
 * Where in chunk `key` (audit id, first block) storeReorg writes its lines: after the chunk's lines, or, merging into the
 * chunk's reorg line `into`, right after it, the later lines moved on by the `room` its blocks take (through negative
 * places, as the key (seq) is unique at each row's update).
 */
async function firstPlace(
  client: pg.PoolClient,
  key: string[],
  into: FirstBlockReorg | null,
  room: number,
): Promise<number> {
  if (into === null) {
    const { rows } = await client.query(
      `SELECT coalesce(max(seq), -1) AS last FROM (
         SELECT seq FROM ${AUDIT_SCHEMA}.blocks WHERE audit_id = $1 AND chunk_first = $2
         UNION ALL SELECT seq FROM ${AUDIT_SCHEMA}.reorgs WHERE audit_id = $1 AND chunk_first = $2
       ) l`,
      key,
    );
    return (rows[0] as { last: number }).last + 1;
  }
  for (const table of ['blocks', 'reorgs']) {
    await client.query(
      `UPDATE ${AUDIT_SCHEMA}.${table} SET seq = -(seq + $3) WHERE audit_id = $1 AND chunk_first = $2 AND seq > $4`,
      [...key, room, into.seq],
    );
    await client.query(
      `UPDATE ${AUDIT_SCHEMA}.${table} SET seq = -seq WHERE audit_id = $1 AND chunk_first = $2 AND seq < 0`,
      key,
    );
  }
  return into.seq + 1;
}

/**
 * Writes a reorg's lines after the lines of chunk `before` (where one machine writes them: after the blocks it audited
 * up to the link), counts them in its summary as the engine's tally does, and gives each chunk whose last block they
 * replaced its new last hash, and each whose first block they replaced that block's parentHash (from `parents`). The
 * walk went over `hashes`: where it stopped at a chunk not done, the first block it audited again is a chunk's first
 * judged without its parent link, and awaits the join of that link (awaits_link). The first blocks of the chunks whose
 * first link it changed: their links are the joining worker's to judge again, as a concurrent decision on them stands
 * back (its snapshot changed). Where the chunk after's engine stopped its own walk back at that chunk's first block
 * (`into`), this walk goes on with it, and one machine writes one reorg: its line is that one, naming the blocks
 * replaced before it too, and those blocks audited again go right after it, before the chunk's new first block (a
 * second reorg line after the chunk before's lines put the old first block after new-chain lines: a user check).
 */
async function storeReorg(
  client: pg.PoolClient,
  plan: AuditPlan,
  auditId: string,
  before: ChunkRow,
  lines: AuditEvent[],
  parents: WalkParents,
  hashes: ReadonlyMap<number, string>,
  into: FirstBlockReorg | null,
): Promise<string[]> {
  const chunk = into?.chunk_first ?? before.first_block;
  const key = [auditId, chunk];
  let seq = await firstPlace(client, key, into, lines.filter((event) => !isReorg(event)).length);
  const relinked: string[] = [];
  for (const event of lines) {
    if (isReorg(event)) {
      if (into === null)
        await client.query(
          `INSERT INTO ${AUDIT_SCHEMA}.reorgs (audit_id, chunk_first, seq, detected_at, line) VALUES ($1, $2, $3, $4, $5)`,
          [...key, seq++, event.reorg.detected_at, formatAuditLine(event)],
        );
      else {
        const { detected_at, replaced } = into.line.reorg;
        const merged = [...event.reorg.replaced, ...replaced];
        const line: AuditReorg = { reorg: { detected_at, depth: merged.length, replaced: merged } };
        await client.query(
          `UPDATE ${AUDIT_SCHEMA}.reorgs SET line = $4 WHERE audit_id = $1 AND chunk_first = $2 AND seq = $3`,
          [...key, into.seq, formatAuditLine(line)],
        );
      }
      continue;
    }
    const number = event.block_number;
    const parentHash = parents.get(number) ?? null;
    await client.query(
      `UPDATE ${AUDIT_SCHEMA}.chunks SET last_hash = $3 WHERE audit_id = $1 AND last_block = $2 AND state = 'done'`,
      [auditId, number, event.block_hash],
    );
    // Its link to the chunk before is the new block's from now on, as the block's last line is: judged by the chunk's
    // own first block, a chain the reorg replaced, it would be a broken link, and the chunk audited again would lose
    // the lines this reorg line names (the first chunk's link is the engine's, to the head hash). A first block judged
    // without the block before it unjoins the link, to be judged when that chunk is done.
    const awaits = number !== plan.from && !hashes.has(number - 1);
    const changed = await client.query(
      `UPDATE ${AUDIT_SCHEMA}.chunks SET first_parent_hash = $3, anchored = false, anchor = NULL,
         joined = joined AND NOT $5
       WHERE audit_id = $1 AND first_block = $2 AND first_block <> $4 AND state = 'done' RETURNING first_block`,
      [auditId, number, parentHash, plan.from, awaits],
    );
    relinked.push(...(changed.rows as Array<{ first_block: string }>).map((r) => r.first_block));
    await client.query(
      `INSERT INTO ${AUDIT_SCHEMA}.blocks
         (audit_id, chunk_first, seq, block_number, block_hash, verdict, line, awaits_link, parent_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        ...key,
        seq++,
        number,
        event.block_hash,
        event.verdict,
        formatAuditLine(event),
        awaits && changed.rowCount === 1,
        awaits && changed.rowCount === 1 ? parentHash : null,
      ],
    );
  }
  await retally(client, plan, auditId, chunk);
  return relinked;
}

/** What a link's decision came to, and the chunks whose first link it changed besides (to be joined again). */
interface Decision {
  outcome: JoinOutcome;
  relinked: string[];
}

/**
 * Decides a link that does not match, from `reorg` (the engine's lines for the blocks the node replaced before the
 * link; none when it replaced none, or when it was not asked; `parents`, what the walk's blocks link to, over `hashes`):
 * a reorg, its lines stored, or a broken link. After a reorg the link is judged against the new hash, as the engine
 * judges the block after the blocks it audited again. Where the chunk after's first block stands by a line that awaits
 * its link (`awaiting`), that line is linked, as one machine links it, and the chunk is never audited again: its lines
 * and those of the reorg that wrote it stand. Where it stands by a line its own engine audited again after a reorg line,
 * the walk back is that reorg's, followed on (storeReorg).
 */
async function decideMismatch(
  client: pg.PoolClient,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  [before, after]: [ChunkRow, ChunkRow],
  awaiting: AwaitingLine | null,
  walk: { reorg: AuditEvent[]; parents: WalkParents; hashes: ReadonlyMap<number, string> },
): Promise<Decision> {
  const { reorg, parents, hashes } = walk;
  const join = () => markJoined(client, auditId, after.first_block);
  if (reorg.length === 0) {
    if (awaiting === null) {
      await requeue(client, boss, plan, auditId, after, { hash: before.last_hash });
      return { outcome: 'broken_link', relinked: [] };
    }
    // As the engine judges the first block a reorg audited again: against the hash the block before vouches for.
    await linkAwaiting(client, plan, auditId, awaiting, lastVouched(before));
    await join();
    return { outcome: 'broken_link', relinked: [] };
  }
  const boundary = Number(after.first_block) - 1;
  const now = reorg.filter((e): e is BlockAudit => !isReorg(e) && e.block_number === boundary).at(-1)!;
  // The chunk after's own reorg line, when its walk back stopped at its first block, which links to the walk's: the
  // chunk stands (joined), and the reorg is one. Only once the chunk before's own link is judged (joined): its lines
  // then stand for good, where one audited again would drop the old lines the merged line names as replaced, and keep
  // its new blocks twice (the chunk's and its own).
  const into =
    awaiting === null && before.joined && after.first_parent_hash === now.block_hash
      ? await firstBlockReorg(client, auditId, after.first_block)
      : null;
  const relinked = await storeReorg(client, plan, auditId, before, reorg, parents, hashes, into);
  if (awaiting !== null) {
    await linkAwaiting(client, plan, auditId, awaiting, now.block_hash);
    await join();
  } else if (after.first_parent_hash === now.block_hash) await join();
  else await requeue(client, boss, plan, auditId, after, { hash: now.block_hash });
  return { outcome: 'reorg', relinked: relinked.filter((first) => first !== after.first_block) };
}

/**
 * Leaves a link unjudged for `reason` (the node failed the walk back from it), as `markUnfinished` leaves a chunk whose
 * node is unreachable: retrying, judged again after a backoff, or, past the plan's retries, parked with the reason. Only
 * the link: the chunk after it stays done, its lines kept and counted (audited again, the node's blocks then would
 * replace them, a failing line and a reorg's too, where one machine keeps every line it wrote).
 */
async function retryLink(
  client: pg.PoolClient,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  row: ChunkRow,
  reason: string,
): Promise<JoinOutcome> {
  // Each take of the chunk, and each try of its link, is an attempt: its retries are the plan's.
  const state = row.attempts > plan.chunk_retries ? 'parked' : 'retrying';
  await client.query(
    `UPDATE ${AUDIT_SCHEMA}.chunks SET link_unjudged = $3, reason = $4, attempts = attempts + 1
     WHERE audit_id = $1 AND first_block = $2`,
    [auditId, row.first_block, state, reason],
  );
  if (state === 'parked') return state;
  // Its job finds the chunk done, so takes nothing and joins it (runChunk), the link judged again.
  const job: ChunkJob = {
    audit_id: auditId,
    first: Number(row.first_block),
    last: Number(row.last_block),
    ...(row.anchored && { anchor: row.anchor }),
    generation: row.join_attempts,
  };
  // The backoff of a chunk job's retries (retryDelay 1 s, doubled, at most 60 s).
  await sendChunkJobs(boss, client, plan, [job], Math.min(60, 2 ** Math.max(0, row.attempts - 1)));
  return state;
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
 * if neither chunk changed meanwhile (else the join of the worker that changed it decides). A reorg stored here that
 * changed other chunks' first links makes their links this worker's to judge: it joins around them too.
 */
export async function joinAround(
  pool: pg.Pool,
  boss: PgBoss,
  plan: AuditPlan,
  auditId: string,
  first: number,
  node: { source: BlockSource; verify?: BlockVerifier | undefined; signal?: AbortSignal | undefined },
): Promise<JoinOutcome[]> {
  const outcomes: JoinOutcome[] = [];
  const mismatched = await transaction(pool, async (client) => {
    await lockAudit(client, auditId);
    const chunks = await chunksBetween(client, auditId, first - 1, first);
    const me = chunks.find((c) => Number(c.first_block) === first);
    if (me !== undefined)
      chunks.push(...(await chunksBetween(client, auditId, Number(me.last_block) + 1, Number(me.last_block) + 1)));
    const pairs: Array<{
      before: ChunkRow;
      after: ChunkRow;
      awaiting: AwaitingLine | null;
      hashes: Map<number, string>;
    }> = [];
    for (let i = 1; i < chunks.length; i++) {
      const [before, after] = [chunks[i - 1]!, chunks[i]!];
      if (before.state !== 'done' || after.state !== 'done' || after.joined) {
        outcomes.push(after.joined ? 'joined' : 'waiting');
        continue;
      }
      const awaiting = await awaitingLine(client, auditId, after.first_block);
      if (awaiting === null ? linked(before, after) || firstRefuted(after) : linkedBy(before, awaiting)) {
        if (awaiting !== null) await linkAwaiting(client, plan, auditId, awaiting, lastVouched(before));
        await markJoined(client, auditId, after.first_block);
        outcomes.push('joined');
      } else
        pairs.push({
          before,
          after,
          awaiting,
          hashes: await storedHashes(client, auditId, Number(after.first_block) - 1),
        });
    }
    return pairs;
  });
  const relinked = new Set<string>();
  for (const { before, after, awaiting, hashes } of mismatched) {
    const boundary = Number(after.first_block) - 1;
    const anchors = anchorsWithin(plan, { first: plan.from, last: boundary });
    // The engine's walk back from the link, over the blocks stored before it. A SourceError (the node could not give a
    // block asked again, where one machine writes the block unreachable) leaves the link unjudged: retryLink.
    let reorg: AuditEvent[] | { unjudged: string };
    const parents: WalkParents = new Map();
    try {
      reorg =
        after.join_attempts < MAX_JOIN_ATTEMPTS
          ? await auditReorgBack({
              source: notingParents(node.source, parents),
              chainId: plan.chain_id,
              ...(node.verify && { verify: node.verify }),
              earlier: {
                from: plan.from,
                anchor: plan.head_hash,
                anchorName: HEAD_HASH_NAME,
                hashes,
              },
              ...(anchors && { anchors }),
              at: boundary + 1,
              parentHash: awaiting === null ? after.first_parent_hash : awaiting.parent_hash,
            })
          : [];
    } catch (error) {
      if (node.signal?.aborted === true) throw error; // the worker stopped: its job is pg-boss's to retry
      reorg = { unjudged: `its link to block ${boundary} could not be judged: ${(error as Error).message}` };
    }
    const decision = await transaction(pool, async (client): Promise<Decision> => {
      await lockAudit(client, auditId);
      const [b, a] = await chunksBetween(client, auditId, boundary, boundary + 1);
      if (
        b === undefined ||
        a === undefined ||
        snapshotBefore(b) !== snapshotBefore(before) ||
        snapshotAfter(a) !== snapshotAfter(after) ||
        JSON.stringify(await awaitingLine(client, auditId, a.first_block)) !== JSON.stringify(awaiting)
      )
        return { outcome: 'waiting', relinked: [] };
      if ('unjudged' in reorg)
        return { outcome: await retryLink(client, boss, plan, auditId, a, reorg.unjudged), relinked: [] };
      return decideMismatch(client, boss, plan, auditId, [b, a], awaiting, { reorg, parents, hashes });
    });
    outcomes.push(decision.outcome);
    for (const chunk of decision.relinked) relinked.add(chunk);
  }
  for (const chunk of relinked) await joinAround(pool, boss, plan, auditId, Number(chunk), node);
  return outcomes;
}
