/**
 * A worker of the audit queue: takes chunk jobs from pg-boss, `concurrency` at a time, audits each
 * with the engine, stores its lines and joins it to the chunks beside it. The chunks in hand fetch in
 * turn (fetch-turns.ts) from one source per audit, asked as one machine's audit asks its node
 * (nodeFetching): a chunk is fetched while the one before is verified and stored. A node that does not
 * answer fails the job, which pg-boss retries with backoff; past the plan's retries the chunk is
 * parked with its reason. A worker that dies mid-chunk loses its lease when the chunk's timeout
 * expires, and pg-boss hands the chunk to another worker (past its retries, to the lost-chunk
 * queue, whose jobs a worker parks); a graceful stop finishes the chunks in hand or, past its
 * deadline, hands them back. A worker writes a chunk's rows only while it still holds the chunk: one
 * that outran its lease finds it taken again and writes nothing (`superseded`).
 */
import { hostname } from 'node:os';
import type { Job, JobWithMetadata } from 'pg-boss';
import { inlineBlockVerifier, type AuditVerdict } from 'evm-integrity/audit';
import { nodeFetching, RpcBlockSource } from 'evm-integrity/node';
import type { AuditPlan } from './audit-plan.js';
import { CHUNK_QUEUE, LOST_CHUNK_QUEUE, type AuditQueue, type ChunkJob } from './audit-queue.js';
import { auditChunk, WrongChainError, type ChunkSource } from './chunk-audit.js';
import { loadPlan, markRunning, markUnfinished, parkLost, storeChunk } from './chunk-results.js';
import { FetchTurns } from './fetch-turns.js';
import { joinAround } from './join-pass.js';

/** What became of one chunk job, for the metrics and the log. */
export interface ChunkOutcome {
  audit_id: string;
  first: number;
  last: number;
  /**
   * done: lines stored; retried: the node failed, tried again later; parked: given up, with `reason`; superseded:
   * no lines written, as the chunk was done (its links then judged), parked, sent back or taken by another worker (this
   * one outran its lease).
   */
  outcome: 'done' | 'retried' | 'parked' | 'superseded';
  verdicts?: Record<AuditVerdict, number>;
  failed_checks?: Record<string, number>;
  reason?: string;
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
  /** Stops taking chunks; waits up to `timeoutMs` for those in hand, then hands the rest back to the queue. */
  stop(timeoutMs: number): Promise<void>;
}

/** What a worker keeps per audit: its plan, and its node (one for the chunks in hand) and verifier. */
interface AuditContext extends ChunkSource {
  plan: AuditPlan;
}

/** Audits one chunk job to its outcome; throws to have pg-boss retry it. */
async function runChunk(
  queue: AuditQueue,
  context: AuditContext,
  job: JobWithMetadata<ChunkJob>,
  worker: { name: string; turns: FetchTurns },
): Promise<ChunkOutcome> {
  const { plan, source } = context;
  const data = job.data;
  const base = { audit_id: data.audit_id, first: data.first, last: data.last };
  const superseded: ChunkOutcome = { ...base, outcome: 'superseded' };
  const hold = await markRunning(queue.pool, data, worker.name);
  if (hold === null) {
    // Done, maybe by a worker that died between storing it and joining it (this is its job's retry): its links are
    // judged here, else nobody would. Joining is idempotent; a chunk not done leaves its links waiting.
    await joinAround(queue.pool, queue.boss, plan, data.audit_id, data.first, source);
    return superseded;
  }
  let result;
  const release = await worker.turns.take();
  try {
    result = await auditChunk(plan, data, context, release);
  } catch (error) {
    if (!(error instanceof WrongChainError)) throw error;
    if (!(await markUnfinished(queue.pool, data, hold, 'parked', error.message))) return superseded;
    return { ...base, outcome: 'parked', reason: error.message };
  } finally {
    release(); // a chunk cut short never asked for its last block
  }
  if (result.unreachable !== undefined) {
    const parked = job.retryCount >= job.retryLimit;
    if (!(await markUnfinished(queue.pool, data, hold, parked ? 'parked' : 'retrying', result.unreachable)))
      return superseded;
    if (parked) return { ...base, outcome: 'parked', reason: result.unreachable };
    throw new Error(result.unreachable);
  }
  if (!(await storeChunk(queue.pool, plan, data, hold, result))) return superseded;
  await joinAround(queue.pool, queue.boss, plan, data.audit_id, data.first, source);
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
  const contexts = new Map<string, Promise<AuditContext>>();
  const contextOf = (id: string): Promise<AuditContext> => {
    let context = contexts.get(id);
    if (context === undefined) {
      context = loadPlan(queue.pool, id).then((plan) => {
        if (plan === null) throw new Error(`audit ${id} is not in the queue's tables`);
        // The node is asked as one machine's audit asks it: the plan's --concurrency and --batch, by the same rule.
        const { batch, connections, window } = nodeFetching(plan);
        const source = new RpcBlockSource({ url: plan.rpc, keepMiscountedReceipts: true, batch, connections });
        return {
          plan,
          source,
          window,
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
        try {
          options.onOutcome?.(await runChunk(queue, context, job!, worker));
        } catch (error) {
          options.onOutcome?.({
            audit_id: job!.data.audit_id,
            first: job!.data.first,
            last: job!.data.last,
            outcome: 'retried',
            reason: (error as Error).message,
          });
          throw error; // no look at once: a failing node or database is tried again at the polling pace
        }
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
        const { plan, source } = await contextOf(data.audit_id);
        await joinAround(queue.pool, queue.boss, plan, data.audit_id, data.first, source);
      }
    },
  );
  return {
    stop: async (timeoutMs) => {
      await queue.boss.stop({ graceful: true, close: false, timeout: timeoutMs });
    },
  };
}
