/**
 * `evm-integrity serve` in child processes, each from a configuration file, as an operator runs it (the built dist/), and clients
 * that load it: for the fault tests of the shared store (leases, replicas) and its benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChainRegistry, Problems, readRpcBlock } from '../../packages/core/src/index.js';
import { receiptRootBody } from '../../packages/core/src/api/index.js';
import { fixtureNames, loadFixture } from './fixtures.js';

const BIN = fileURLToPath(new URL('../../packages/service/bin/evm-integrity.js', import.meta.url));

/** A key the configured test account accepts. */
export const PROCESS_KEY = 'evmi_store-process-test-key-0123456789abcdefghij';

export interface ServeProcess {
  child: ChildProcess;
  /** The server's URL once it logged "listening"; rejects when the process ends first. */
  url: Promise<string>;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<number | string | null>;
  stderr: () => string;
  stdout: () => string;
}

/** Starts `evm-integrity serve --config FILE` with `config` written to `dir/NAME.json`; no PORT/HOST from here. */
export function serveProcess(
  dir: string,
  name: string,
  config: unknown,
  env: Record<string, string> = {},
): ServeProcess {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  for (const variable of ['PORT', 'HOST', 'EVM_INTEGRITY_CONFIG', 'DATABASE_URL'])
    if (!(variable in env)) delete childEnv[variable];
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += String(chunk)));
  child.stderr.on('data', (chunk) => (err += String(chunk)));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${String(code)} before listening: ${err}`)));
  });
  url.catch(() => undefined); // awaited by the callers that expect a start
  return { child, url, exited, stderr: () => err, stdout: () => out };
}

/** The configuration of a test server: port 0, one account with PROCESS_KEY and `cuLimit`, inline verification. */
export function processConfig(cuLimit: number, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    host: '127.0.0.1',
    port: 0,
    pool_workers: 0,
    max_in_flight: 256,
    max_in_flight_per_account: 256,
    accounts: [
      {
        id: 'acme',
        plan: 'pro',
        cu_limit: cuLimit,
        rate_limit_rps: 1_000_000,
        keys: [{ label: 'ci', key: PROCESS_KEY }],
      },
    ],
    ...extra,
  };
}

/**
 * A valid receipt-root body (1 CU): the receipts of fixture block `name`, by default the first Ethereum mainnet
 * fixture block with receipts.
 */
export function receiptBody(name?: string): string {
  const registry = new ChainRegistry([]);
  const block =
    name === undefined
      ? fixtureNames
          .map((fixture) => readRpcBlock(loadFixture(fixture), new Problems(), { registry })!)
          .find((b) => b.chainId === 1 && b.receipts.length > 0)!
      : readRpcBlock(loadFixture(name), new Problems(), { registry })!;
  return JSON.stringify(
    receiptRootBody({
      chainId: block.chainId ?? 1,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
    }),
  );
}

/** What a load run saw: answers by status, and every answer that carried Retry-After by status. */
export interface LoadTally {
  statuses: Record<string, number>;
  retryAfter: Record<string, number>;
  /** The error envelope's `code` of each answer that was not a 2xx, counted. */
  codes: Record<string, number>;
  /** Requests that got no HTTP answer (connection refused or cut). */
  failed: number;
}

/**
 * Sends `body` to the receipt-root endpoint of `urls` (round robin) from `clients` concurrent loops until `stop()`
 * resolves (or `total` requests were sent, when given); resolves with what came back.
 */
export async function load(
  urls: readonly string[],
  body: string,
  options: { clients: number; stop?: Promise<unknown>; total?: number; key?: string },
): Promise<LoadTally> {
  const tally: LoadTally = { statuses: {}, retryAfter: {}, codes: {}, failed: 0 };
  let stopped = false;
  void options.stop?.then(() => (stopped = true));
  let sent = 0;
  const client = async (n: number) => {
    for (let i = n; !stopped && (options.total === undefined || sent < options.total); i += options.clients) {
      sent++;
      try {
        const res = await fetch(`${urls[i % urls.length]}/v1/evm/verify/receipt-root`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${options.key ?? PROCESS_KEY}` },
          body,
        });
        const text = await res.text();
        const status = String(res.status);
        if (!res.ok) {
          const code = String((JSON.parse(text) as { error?: { code?: unknown } }).error?.code);
          tally.codes[code] = (tally.codes[code] ?? 0) + 1;
        }
        tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
        if (res.headers.get('retry-after') !== null) tally.retryAfter[status] = (tally.retryAfter[status] ?? 0) + 1;
      } catch {
        tally.failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, n) => client(n)));
  return tally;
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
