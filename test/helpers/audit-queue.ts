/**
 * The audit queue's commands run as real processes against a loopback node and a real PostgreSQL:
 * `audit --queue`, `audit-worker` (kept running, to be signalled), `audit-status --json`,
 * `audit-export`, and a wait for an audit to finish.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const BIN = fileURLToPath(new URL('../../packages/service/bin/evm-integrity.js', import.meta.url));

/** A finished command: its exit status, signal and output. */
export interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A command run to its end (asynchronously: the node answering it lives in this process). */
export function runCli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** A worker process left running; `ended` resolves when it exits. */
export interface WorkerProcess {
  child: ChildProcess;
  stderr: () => string;
  ended: Promise<Run>;
}

/** Starts `audit-worker` with `args`. */
export function startWorker(args: string[]): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'audit-worker', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<Run>((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })),
  );
  return { child, stderr: () => stderr, ended };
}

/** Kills the workers still running in `workers` (SIGKILL) and waits for every one to end; the list is left empty. */
export async function killWorkers(workers: WorkerProcess[]): Promise<void> {
  const running = workers.splice(0);
  for (const w of running) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await Promise.all(running.map((w) => w.ended));
}

/** Stops a worker with SIGTERM and waits for it. */
export async function stopWorker(worker: WorkerProcess): Promise<Run> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  return worker.ended;
}

/** The audit id: the last line `audit --queue` printed. */
export const auditIdOf = (run: Run): string => run.stdout.trim().split('\n').at(-1)!;

/** `audit-status ID --json`, parsed. */
export async function statusOf(id: string, queue: string): Promise<Record<string, any>> {
  const run = await runCli(['audit-status', id, '--queue', queue, '--json']);
  if (run.status !== 0) throw new Error(`audit-status failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, any>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 100 ms until it holds; fails naming `what` after `limitMs` (a hang, not a speed check). */
export async function until<T>(what: string, condition: () => Promise<T | undefined>, limitMs = 90_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await condition().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${limitMs} ms`);
    await sleep(100);
  }
}

/** One query on the queue's database. */
export async function query(url: string, sql: string, params: unknown[] = []): Promise<any[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Waits until the audit is complete (every chunk done, every link joined); a timeout names the last status seen, so
 * that a hang says where it stopped.
 */
export async function untilComplete(id: string, queue: string, limitMs?: number): Promise<Record<string, any>> {
  let last: Record<string, any> | undefined;
  try {
    return await until(
      `audit ${id} to complete`,
      async () => {
        last = await statusOf(id, queue);
        return last.complete ? last : undefined;
      },
      limitMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; its last status: ${JSON.stringify(last)}`);
  }
}

/** NDJSON text as objects. */
export const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);

/** The lines without the run's own timing, which differs from run to run. */
export const comparable = (text: string) =>
  parseLines(text).map((line) =>
    line.summary === undefined
      ? line
      : { summary: { ...line.summary, blocks_per_second: 0, time_share: 0, timings: 0 } },
  );
