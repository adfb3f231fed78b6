import { availableParallelism } from 'node:os';
import type { ChainInfo } from 'evm-integrity';
import type { VerifyJob, VerifyOutcome } from './job.js';
import { WorkerPool } from './worker-pool.js';

/** The pool that verifies large bodies off the event loop. */
export type VerifyPool = WorkerPool<VerifyJob, VerifyOutcome>;

/**
 * The worker's script: beside this module once built (dist/server/pool/, or dist/cli-bundle/,
 * where the CLI's bundle puts its own `worker.js` beside the chunk that holds this code). Run
 * from the TypeScript sources (the tests do), it is the built one in dist/, since a worker thread
 * loads JavaScript only.
 */
function workerScript(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../../dist/server/pool/worker.js', here) : new URL('./worker.js', here);
}

/** A pool of `workers` threads (null: one per core) that know the configured `chains`. */
export function createVerifyPool(workers: number | null, chains: readonly ChainInfo[]): VerifyPool {
  return new WorkerPool(workerScript(), workers ?? availableParallelism(), { chains });
}
