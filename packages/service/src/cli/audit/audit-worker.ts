/**
 * `audit-worker --queue URL [--concurrency K] [--workers N] [--metrics-port P]`: audits chunks of
 * the queue until stopped. With N > 1 it runs N worker processes (forks of this command), counting
 * their chunks in one set of metrics; each holds K chunks at a time (fetching in turn). SIGTERM or Ctrl-C: the chunks
 * in hand are finished, or handed back to the queue past the stop deadline.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createMetricsRegistry, serveMetrics, type MetricsServer } from '../../metrics/serve-metrics.js';
import { openAuditQueue } from '../../queue/audit-queue.js';
import { DEFAULT_CHUNKS_IN_HAND, startChunkWorker, type ChunkOutcome } from '../../queue/chunk-worker.js';
import { outageLines } from '../../queue/outage-lines.js';
import { auditWorkerMetrics } from '../../queue/worker-metrics.js';
import { MAX_CONCURRENCY, MAX_WORKERS, positiveValue, queueUrl, wholeValue } from '../flags.js';
import { UsageError } from '../io/usage-error.js';
import { namedFailures } from './audit-output.js';

/** Set in the environment of the processes `--workers N` forks: they send their outcomes to the parent. */
const CHILD_ENV = 'EVM_INTEGRITY_AUDIT_WORKER_CHILD';
/** How long a stop waits for the chunks in hand before handing them back. */
const STOP_DEADLINE_MS = 30_000;
/** Seconds between pg-boss's looks for expired leases: a lost chunk is taken again within its timeout plus this. */
const SUPERVISE_SECONDS = 5;

interface WorkerFlags {
  queue: string;
  concurrency: number;
  workers: number;
  metricsPort: number | undefined;
}

function parseFlags(argv: string[]): WorkerFlags {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      queue: { type: 'string' },
      concurrency: { type: 'string' },
      workers: { type: 'string' },
      'metrics-port': { type: 'string' },
    },
  });
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument "${positionals[0]}": audit-worker takes only flags`);
  if (values.queue === undefined) throw new UsageError('--queue is required: the PostgreSQL URL of the audit queue');
  const port = values['metrics-port'];
  const metricsPort = port === undefined ? undefined : wholeValue('--metrics-port', port, 0, 65535);
  return {
    queue: queueUrl('--queue', values.queue),
    concurrency: positiveValue('--concurrency', values.concurrency, DEFAULT_CHUNKS_IN_HAND, MAX_CONCURRENCY),
    workers: positiveValue('--workers', values.workers, 1, MAX_WORKERS),
    metricsPort,
  };
}

/** One line on stderr per chunk, for the operator's log. */
function describe(outcome: ChunkOutcome): string {
  const chunk = `chunk ${outcome.first}-${outcome.last} of ${outcome.audit_id}`;
  if (outcome.outcome === 'done') {
    const v = outcome.verdicts!;
    return `${chunk}: done (${v.pass} pass, ${v.fail} fail, ${v.not_verifiable} not verifiable)`;
  }
  // An attempt not stored: the failing lines it judged stay findings (the export names them), said here as they were.
  const kept = outcome.kept_failures;
  const findings =
    kept === undefined
      ? ''
      : `; ${kept.blocks} failing line${kept.blocks === 1 ? '' : 's'} kept as a finding: ${namedFailures(kept)}`;
  if (outcome.outcome === 'superseded')
    return `${chunk}: superseded, nothing written (taken again or done since this worker took it)${findings}`;
  if (outcome.outcome === 'handed_back')
    return `${chunk}: handed back to the queue, not done at the stop's deadline (the attempt is not counted)${findings}`;
  return `${chunk}: ${outcome.outcome === 'parked' ? 'parked' : 'to be retried'}: ${outcome.reason}${findings}`;
}

/** Resolves on the first SIGTERM or SIGINT. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.removeListener('SIGTERM', on);
      process.removeListener('SIGINT', on);
      resolve(signal);
    };
    process.once('SIGTERM', on);
    process.once('SIGINT', on);
  });
}

/** The metrics listener, when --metrics-port is given (loopback; EVM_INTEGRITY_METRICS_TOKEN, when set, is required). */
async function startMetrics(flags: WorkerFlags, env: NodeJS.ProcessEnv) {
  const registry = createMetricsRegistry();
  const count = auditWorkerMetrics(registry);
  let server: MetricsServer | undefined;
  if (flags.metricsPort !== undefined) {
    const token = env.EVM_INTEGRITY_METRICS_TOKEN;
    server = await serveMetrics(registry, {
      host: '127.0.0.1',
      port: flags.metricsPort,
      token: token === undefined || token === '' ? null : token,
    });
  }
  return { count, server };
}

/** Runs N forked worker processes until stopped; one that ends unasked is started again. */
async function runForked(flags: WorkerFlags, io: { stderr: (text: string) => void }, count: (o: ChunkOutcome) => void) {
  let stopping = false;
  const children = new Set<ChildProcess>();
  const start = () => {
    const child = fork(
      process.argv[1]!,
      ['audit-worker', '--queue', flags.queue, '--concurrency', String(flags.concurrency)],
      { env: { ...process.env, [CHILD_ENV]: '1' } },
    );
    children.add(child);
    child.on('message', (message) => count(message as ChunkOutcome));
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (stopping) return;
      io.stderr(`evm-integrity: audit worker ${child.pid} ended (${signal ?? `exit ${code}`}); starting another\n`);
      setTimeout(() => !stopping && start(), 1000);
    });
  };
  for (let i = 0; i < flags.workers; i++) start();
  await stopSignal();
  stopping = true;
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** `audit-worker …`: exit 0 once stopped. */
export async function runAuditWorker(
  argv: string[],
  io: { stdout: (text: string) => void; stderr: (text: string) => void; env?: NodeJS.ProcessEnv },
): Promise<number> {
  const flags = parseFlags(argv);
  const env = io.env ?? process.env;
  const child = env[CHILD_ENV] === '1' && process.send !== undefined;
  // A forked worker whose parent is gone (killed, even by SIGKILL) stops as if told to: no orphan keeps auditing.
  if (child) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  const metrics = child ? undefined : await startMetrics(flags, env);
  if (metrics?.server) io.stderr(`evm-integrity: audit worker metrics at ${metrics.server.url}\n`);
  try {
    if (flags.workers > 1) {
      await runForked(flags, io, metrics!.count);
      return 0;
    }
    // An outage repeats its errors on every poll of every poller: each kind is told once.
    const outage = outageLines((line) => io.stderr(`evm-integrity: ${line}\n`));
    const queue = await openAuditQueue(flags.queue, {
      superviseSeconds: SUPERVISE_SECONDS,
      poolSize: flags.concurrency + 2,
      onError: (message) => outage.error(message),
    });
    const worker = await startChunkWorker(queue, {
      concurrency: flags.concurrency,
      onOutcome: (outcome) => {
        if (outcome.outcome !== 'retried') outage.recovered(); // the database answered
        io.stderr(`evm-integrity: ${describe(outcome)}\n`);
        if (child) process.send!(outcome);
        else metrics!.count(outcome);
      },
    });
    await stopSignal();
    await worker.stop(STOP_DEADLINE_MS);
    await queue.close();
    return 0;
  } finally {
    await metrics?.server?.close();
    // The channel to the parent would keep a forked worker alive after it stopped.
    if (child && process.connected) process.disconnect();
  }
}
