/**
 * A worker of the verify pool: it runs one job at a time (a request body for an endpoint, or a
 * block) and posts back `{ ok: true, value }` or `{ ok: false, message }`.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { registryOf } from '../evidence/registry-setup.js';
import { runBlockJob } from './block-job.js';
import { runVerifyJob } from './endpoint-job.js';
import { lowerThreadPriority } from './thread-priority.js';
import type { PoolJob, PoolOutcome, PoolWorkerData } from './verify-pool.js';

const { setup, nice } = workerData as PoolWorkerData;
if (nice !== undefined) lowerThreadPriority(nice);
const registry = registryOf(setup);

const run = async (job: PoolJob): Promise<PoolOutcome> =>
  job.kind === 'block' ? runBlockJob(job, registry, threadId) : runVerifyJob(job, registry);

parentPort!.on('message', (job: PoolJob) => {
  run(job).then(
    (value) => parentPort!.postMessage({ ok: true, value }),
    (error: unknown) =>
      parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
