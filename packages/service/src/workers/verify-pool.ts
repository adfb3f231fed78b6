import { availableParallelism } from 'node:os';
import type { RegistrySetup } from '../evidence/registry-setup.js';
import type { BlockJob, BlockOutcome } from './block-job.js';
import type { VerifyJob } from './endpoint-job.js';
import type { VerifyOutcome } from '../endpoints/verify-outcome.js';
import { WorkerPool } from './worker-pool.js';

/** What the pool's workers do: verify a request body for an endpoint (the server), or a block (the CLI, lineage). */
export type PoolJob = VerifyJob | BlockJob;

/** What each kind of job answers: the worker runs each kind with its own function (worker.ts). */
interface Outcomes {
  endpoint: VerifyOutcome;
  block: BlockOutcome;
}

export type PoolOutcome = Outcomes[PoolJob['kind']];

/**
 * What each worker is started with: the registry's setup, and how much nicer than the process its thread runs (none:
 * as nice as the process).
 */
export interface PoolWorkerData {
  setup: RegistrySetup;
  nice?: number;
}

/** The pool that verifies large bodies, and many blocks, off the event loop. */
export type VerifyPool = WorkerPool<PoolJob, PoolOutcome>;

/**
 * Runs `job` on a worker, its bytes transferred: the answer of its kind. It waits in `queue` (the
 * server's: the account's), which takes turns with the others. An abort of `signal` while it waits
 * drops it.
 */
export function runOnPool<J extends PoolJob>(
  pool: VerifyPool,
  job: J,
  signal?: AbortSignal,
  queue?: string,
): Promise<Outcomes[J['kind']]> {
  // The worker answers a job of each kind with that kind's outcome.
  return pool.run(job, [job.bytes.buffer], signal, queue) as Promise<Outcomes[J['kind']]>;
}

/**
 * The worker's script: beside this module once built (dist/workers/, or dist/cli-bundle/,
 * where the CLI's bundle puts its own `worker.js` beside the chunk that holds this code). Run
 * from the TypeScript sources (the tests do), it is the built one in dist/, since a worker thread
 * loads JavaScript only.
 */
function workerScript(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../dist/workers/worker.js', here) : new URL('./worker.js', here);
}

/**
 * A pool of `workers` threads (null: one per core) whose registry is `setup`'s (the configured chains, an operator's
 * evidence); a worker whose job's bytes reached `replaceAfterBytes` is replaced once it answers (see WorkerPool). With
 * `nice`, each worker lowers its thread's priority by that much niceness (lowerThreadPriority), so that the event
 * loop's thread, left at the process's, is never the one that waits for a core.
 */
export function createVerifyPool(
  workers: number | null,
  setup: RegistrySetup,
  replaceAfterBytes?: number,
  nice?: number,
): VerifyPool {
  const data: PoolWorkerData = { setup, ...(nice !== undefined && { nice }) };
  return new WorkerPool(workerScript(), workers ?? availableParallelism(), data, replaceAfterBytes);
}
