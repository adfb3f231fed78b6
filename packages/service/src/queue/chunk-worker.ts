/**
 * A worker of the audit queue: takes chunk jobs from pg-boss, `concurrency` at a time, audits each
 * with the engine, stores its lines and joins it to the chunks beside it. The chunks in hand fetch in
 * turn (fetch-turns.ts) from one source per audit, asked as one machine's audit asks its node
 * (nodeFetching): a chunk is fetched while the one before is verified and stored. A node that does not
 * answer fails the job, which pg-boss retries with backoff; past the plan's retries the chunk is
 * parked with its reason. A worker that dies mid-chunk loses its lease when the chunk's timeout
 * expires, and pg-boss hands the chunk to another worker (past its retries, to the lost-chunk
 * queue, whose jobs a worker parks); a graceful stop finishes the chunks in hand or, at its
 * deadline, cuts their fetches short and hands them back (queued again, the attempt not counted).
 * A worker writes a chunk's rows only while it still holds the chunk: one that outran its lease
 * finds it taken again and writes nothing (`superseded`). Each failing line is kept as it is judged
 * (keepFailingLine), so that an attempt not stored, or killed, leaves its findings behind.
 */
import { hostname } from 'node:os';
import type { Job, JobWithMetadata } from 'pg-boss';
import {
  FAILED_LINES_LISTED,
  inlineBlockVerifier,
  type AuditVerdict,
  type BlockAudit,
  type UncountedFailures,
} from 'evm-integrity/audit';
import { nodeSource } from 'evm-integrity/node';
import type { AuditPlan } from './audit-plan.js';
import { CHUNK_QUEUE, LOST_CHUNK_QUEUE, queueFailure, type AuditQueue, type ChunkJob } from './audit-queue.js';
import { auditChunk, WrongChainError, type ChunkAudit, type ChunkSource } from './chunk-audit.js';
import {
  handBack,
  keepFailingLine,
  loadPlan,
  markRunning,
  markUnfinished,
  parkLost,
  storeChunk,
} from './chunk-results.js';
import { FetchTurns } from './fetch-turns.js';
import { joinAround } from './join-pass.js';

/** What became of one chunk job, for the metrics and the log. */
export interface ChunkOutcome {
  audit_id: string;
  first: number;
  last: number;
  /**
   * done: lines stored; retried: the node (or the queue's database) failed, tried again later; parked: given up, with
   * `reason`; superseded: no lines written, as the chunk was done (its links then judged), parked, sent back or taken
   * by another worker (this one outran its lease); handed_back: the worker stopped before the chunk was done, and put
   * it back on the queue without counting the attempt.
   */
  outcome: 'done' | 'retried' | 'parked' | 'superseded' | 'handed_back';
  verdicts?: Record<AuditVerdict, number>;
  failed_checks?: Record<string, number>;
  reason?: string;
  /**
   * An attempt not stored (retried, parked, handed_back, superseded): the failing lines it judged, kept in the queue as
   * findings all the same (the first {@link FAILED_LINES_LISTED} named); absent when none.
   */
  kept_failures?: UncountedFailures;
}

/**
 * Chunks a worker holds at once by default (`audit-worker --concurrency`): one fetching, one being verified and stored
 * and the next taken meanwhile, so that the node is never idle between chunks.
 */
export const DEFAULT_CHUNKS_IN_HAND = 3;

/** How a worker runs. */
export interface ChunkWorkerOptions {
  /** Chunks held at once by this process (they fetch in turn). */
  concurrency: number;
  onOutcome?: (outcome: ChunkOutcome) => void;
}

/** A running worker. */
export interface ChunkWorker {
  /**
   * Stops taking chunks; waits up to `timeoutMs` for those in hand, then cuts the rest short and hands them back to the
   * queue. Resolves once its handlers have ended (the queue may then be closed), or, a hand-back stuck on the database
   * past HAND_BACK_MS, once pg-boss has failed the jobs still in hand.
   */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * How long a stop waits, past its deadline, for the chunks it cut short to be handed back (a few queries each) before
 * pg-boss fails what is still in hand: bounded by the pool's wait for a connection, as in an outage.
 */
const HAND_BACK_MS = 15_000;

/** Resolves after `ms`, or at once when `done` settles first (its timer then cleared: no process kept alive). */
async function within(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([done.then(() => undefined), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a worker keeps per audit: its plan, and its node (one for the chunks in hand) and verifier. */
interface AuditContext extends ChunkSource {
  plan: AuditPlan;
}

/**
 * Audits one chunk job to its outcome (`retried`: its handler throws, for pg-boss to try it again); throws when the
 * queue's database fails it.
 */
async function runChunk(
  queue: AuditQueue,
  context: AuditContext,
  job: JobWithMetadata<ChunkJob>,
  worker: { name: string; turns: FetchTurns },
): Promise<ChunkOutcome> {
  const { plan } = context;
  const data = job.data;
  const base = { audit_id: data.audit_id, first: data.first, last: data.last };
  const superseded: ChunkOutcome = { ...base, outcome: 'superseded' };
  const hold = await markRunning(queue.pool, data, worker.name);
  if (hold === null) {
    // Done, maybe by a worker that died between storing it and joining it (this is its job's retry): its links are
    // judged here, else nobody would. Joining is idempotent; a chunk not done leaves its links waiting.
    await joinAround(queue.pool, queue.boss, plan, data.audit_id, data.first, context);
    return superseded;
  }
  // Each failing line is kept as it is judged: an attempt that is not stored, or is killed, keeps its findings.
  const kept: UncountedFailures = { blocks: 0, listed: [] };
  const keep = async (line: BlockAudit) => {
    if (!(await keepFailingLine(queue.pool, data, hold, line))) return;
    kept.blocks++;
    if (kept.listed.length < FAILED_LINES_LISTED)
      kept.listed.push({
        block_number: line.block_number,
        block_hash: line.block_hash,
        checks: [...new Set(line.failures.map((f) => f.check))],
      });
  };
  /** An outcome of the attempt without its lines stored: with the failing lines it kept. */
  const unstored = (outcome: ChunkOutcome): ChunkOutcome =>
    kept.blocks === 0 ? outcome : { ...outcome, kept_failures: kept };
  let result: ChunkAudit | undefined;
  const release = await worker.turns.take();
  try {
    result = await auditChunk(plan, data, context, release, keep);
  } catch (error) {
    if (error instanceof WrongChainError) {
      if (!(await markUnfinished(queue.pool, data, hold, 'parked', error.message))) return unstored(superseded);
      return unstored({ ...base, outcome: 'parked', reason: error.message });
    }
    if (context.signal?.aborted !== true) throw error; // else cut short by the stop: handed back below
  } finally {
    release(); // a chunk cut short never asked for its last block
  }
  // Cut short by the stop: handed back. A chunk whose last block was audited before the stop is stored as any other,
  // never handed back as well: one path decides, with the hold.
  if (result === undefined || result.stopped === true) {
    if (!(await handBack(queue, job, hold))) return unstored(superseded);
    return unstored({ ...base, outcome: 'handed_back' });
  }
  if (result.unreachable !== undefined) {
    const parked = job.retryCount >= job.retryLimit;
    if (!(await markUnfinished(queue.pool, data, hold, parked ? 'parked' : 'retrying', result.unreachable)))
      return unstored(superseded);
    return unstored({ ...base, outcome: parked ? 'parked' : 'retried', reason: result.unreachable });
  }
  if (!(await storeChunk(queue.pool, plan, data, hold, result))) return unstored(superseded);
  await joinAround(queue.pool, queue.boss, plan, data.audit_id, data.first, context);
  return {
    ...base,
    outcome: 'done',
    verdicts: result.summary.verdicts,
    failed_checks: result.summary.failed_checks,
  };
}

/** Starts a worker on `queue`. */
export async function startChunkWorker(queue: AuditQueue, options: ChunkWorkerOptions): Promise<ChunkWorker> {
  const worker = { name: `${hostname()}:${process.pid}`, turns: new FetchTurns() };
  // Aborted at the stop's deadline: the node's fetches of the chunks in hand end at once.
  const stopping = new AbortController();
  const { signal } = stopping;
  const contexts = new Map<string, Promise<AuditContext>>();
  const contextOf = (id: string): Promise<AuditContext> => {
    let context = contexts.get(id);
    if (context === undefined) {
      context = loadPlan(queue.pool, id).then((plan) => {
        if (plan === null) throw new Error(`audit ${id} is not in the queue's tables`);
        // The node is asked as one machine's audit asks it: the plan's --concurrency and --batch, by the same rule.
        const { source, window } = nodeSource(plan, { url: plan.rpc, keepMiscountedReceipts: true, signal });
        return {
          plan,
          source,
          window,
          signal,
          verify: plan.rules === undefined ? undefined : inlineBlockVerifier({ rules: plan.rules }),
        };
      });
      context.catch(() => contexts.delete(id)); // a database outage: read the plan again next time
      contexts.set(id, context);
    }
    return context;
  };
  // One poller per chunk in hand, each told to look again at once after a chunk: pg-boss waits out its polling
  // interval after a job shorter than it (a chunk of a fast node takes less than 0.5 s), and the node would idle.
  for (let i = 0; i < options.concurrency; i++) {
    const poller: { id?: string } = {};
    poller.id = await queue.boss.work(
      CHUNK_QUEUE,
      { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: 0.5 },
      async ([job]: JobWithMetadata<ChunkJob>[]) => {
        const context = await contextOf(job!.data.audit_id);
        let outcome: ChunkOutcome;
        try {
          outcome = await runChunk(queue, context, job!, worker);
        } catch (error) {
          options.onOutcome?.({
            audit_id: job!.data.audit_id,
            first: job!.data.first,
            last: job!.data.last,
            outcome: 'retried',
            reason: queueFailure(error, queue),
          });
          throw error; // no look at once: a failing node or database is tried again at the polling pace
        }
        options.onOutcome?.(outcome);
        if (outcome.outcome === 'retried') throw new Error(outcome.reason); // pg-boss tries it again, with backoff
        if (poller.id !== undefined) queue.boss.notifyWorker(poller.id);
      },
    );
  }
  await queue.boss.work(
    LOST_CHUNK_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: 2 },
    async ([job]: Job<ChunkJob>[]) => {
      const data = job!.data;
      if (await parkLost(queue.pool, data))
        options.onOutcome?.({
          audit_id: data.audit_id,
          first: data.first,
          last: data.last,
          outcome: 'parked',
          reason: 'its last attempt was lost',
        });
      else {
        // Done (or sent back) meanwhile: done by a worker that died before joining it, its links are judged here.
        const context = await contextOf(data.audit_id);
        await joinAround(queue.pool, queue.boss, context.plan, data.audit_id, data.first, context);
      }
    },
  );
  return {
    stop: async (timeoutMs) => {
      // No chunk is taken any more; each queue's pollers end once their handler has (offWork waits for it).
      const settled = Promise.allSettled([queue.boss.offWork(CHUNK_QUEUE), queue.boss.offWork(LOST_CHUNK_QUEUE)]);
      await within(settled, timeoutMs);
      stopping.abort(new Error('the worker stopped'));
      await within(settled, HAND_BACK_MS);
      // What is still in hand (its hand-back stuck on the database) pg-boss fails, counting the attempt.
      await queue.boss.stop({ graceful: false, close: false });
    },
  };
}
