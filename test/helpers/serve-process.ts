/**
 * `evm-integrity serve` as an operator starts it: the built CLI in a child process, with an
 * environment of the test's choosing, its output and exit status, and the URLs it logs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../packages/service/bin/evm-integrity.js', import.meta.url));

/** The 'listening' log line's members the tests read. */
export interface Listening {
  url: string;
  /** Present when the metrics listener runs. */
  metrics_url?: string;
}

/** A started `serve`. */
export interface ServeProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The exit status once the process has ended. */
  exited: Promise<number | null>;
  /** The 'listening' log line; rejects when the process ends first. */
  listening: Promise<Listening>;
  /** SIGTERM, then the exit status. */
  stop: () => Promise<number | null>;
}

/** The variables of this process's environment that configure the server: none reaches the child unless the test sets it. */
const configuring = (name: string) =>
  name.startsWith('EVM_INTEGRITY_') || ['PORT', 'HOST', 'DATABASE_URL'].includes(name);

/** Starts `evm-integrity serve ARGS` with `env` over this environment, less its configuring variables. */
export function serveProcess(args: string[], env: Record<string, string> = {}): ServeProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !configuring(name)));
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += String(chunk)));
  child.stdout.on('data', (chunk) => (out += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<Listening>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line !== undefined) resolve(JSON.parse(line) as Listening);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${err}`)));
  });
  listening.catch(() => undefined); // awaited by the tests that expect a start
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    listening,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
