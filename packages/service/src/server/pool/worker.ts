/**
 * A worker of the verify pool: it runs one job at a time and posts back
 * `{ ok: true, value }` or `{ ok: false, message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ChainInfo, ChainRegistry } from 'evm-integrity';
import { runVerifyJob, type VerifyJob } from './job.js';

const registry = new ChainRegistry((workerData as { chains: ChainInfo[] }).chains);

parentPort!.on('message', (job: VerifyJob) => {
  runVerifyJob(job, registry).then(
    (value) => parentPort!.postMessage({ ok: true, value }),
    (error: unknown) => parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
