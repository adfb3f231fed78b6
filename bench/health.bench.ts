/**
 * `/v1/health` under saturation (issue 32, target 5): the server as an operator runs it
 * (`evm-integrity serve`, the SQLite store, a key), four clients in a process of their own
 * (pipelined-flood.ts, one request at a time on each connection) posting block 15537394's receipts
 * (10,041 logs, 3.6 MB) again as each is answered, so every verifying thread is kept busy; a prober
 * in this process asks `/v1/health` one request after another on one keep-alive connection (fetch)
 * and measures p50 and p99, quiet and under that load.
 *
 * Given two or more binaries (another checkout's measures the code before a change), the rounds
 * alternate between them, so a drift of the machine's load falls on each alike; figures are the
 * medians of the rounds.
 *
 * Run: `node bench/health.bench.ts [bin/evm-integrity.js ...]`; `HEALTH_ROUNDS` rounds (3) of
 * `HEALTH_SECONDS` seconds (5) each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Problems, readRpcBlock } from 'evm-integrity';
import { receiptRootBody } from 'evm-integrity/api';
import { startFlood, type Flood } from './flood-process.js';
import { listeningUrl } from './serve-process.js';

const BINS = process.argv.length > 2 ? process.argv.slice(2) : ['packages/service/bin/evm-integrity.js'];
const ROUNDS = Number(process.env.HEALTH_ROUNDS ?? 3);
const PROBE_MS = Number(process.env.HEALTH_SECONDS ?? 5) * 1000;
/** Before probing: long enough for every thread to be verifying and the clients' second bodies to be in. */
const WARM_MS = 1500;
const CLIENTS = 4;
const TARGET_MS = 20;
const KEY = 'evmi_bench-health-key-0123456789abcdefghijklmnopqr';

const block = readRpcBlock(JSON.parse(readFileSync('fixtures/blocks/mainnet-15537394.json', 'utf8')), new Problems())!;
const body = JSON.stringify(
  receiptRootBody({ chainId: 1, receiptRoot: block.header.fields.receiptsRoot!, receipts: block.receipts }),
);

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
/** The middle value; of an even count, the mean of the two in the middle. */
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
};

interface Served {
  url: string;
  port: number;
  stop: () => void;
}

/** `bin serve` on a data directory of its own: the SQLite store, one account and its key, every other member at its default. */
async function serve(bin: string, dir: string): Promise<Served> {
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      port: 0,
      data_dir: join(dir, 'data'),
      accounts: [
        { id: 'load', cu_limit: 1_000_000_000, rate_limit_rps: 1_000_000, keys: [{ label: 'bench', key: KEY }] },
      ],
    }),
  );
  const child = spawn(process.execPath, [bin, 'serve', '--config', join(dir, 'config.json')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child);
  return { url, port: Number(new URL(url).port), stop: () => child.kill('SIGKILL') };
}

/** The load: CLIENTS connections from a process of their own, each posting `body` again as its answer comes. */
function load(port: number, dir: string): Promise<Flood> {
  const file = join(dir, 'request.http');
  writeFileSync(
    file,
    `POST /v1/evm/verify/receipt-root HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    'latin1',
  );
  return startFlood(port, CLIENTS, 1, file);
}

/** Health latencies in milliseconds, one request after another on one keep-alive connection, for PROBE_MS. */
async function probe(url: string): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + PROBE_MS;
  while (performance.now() < end) {
    const started = performance.now();
    const res = await fetch(`${url}/v1/health`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/v1/health answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

interface Round {
  quiet: { p50: number; p99: number };
  busy: { p50: number; p99: number };
  /** Verified answers a second meanwhile. */
  verified: number;
}

async function round(bin: string): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'health-bench-'));
  const server = await serve(bin, dir);
  try {
    // The load's first answer must be a 200: a refusal would keep no thread busy.
    const first = await fetch(`${server.url}/v1/evm/verify/receipt-root`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    });
    if (first.status !== 200) throw new Error(`receipt-root answered ${first.status}: ${await first.text()}`);
    const quiet = await probe(server.url);
    const clients = await load(server.port, dir);
    try {
      await new Promise((resolve) => setTimeout(resolve, WARM_MS));
      const before = clients.answered();
      const busy = await probe(server.url);
      const verified = (clients.answered() - before) / (PROBE_MS / 1000);
      const figures = (t: number[]) => ({ p50: quantile(t, 0.5), p99: quantile(t, 0.99) });
      return { quiet: figures(quiet), busy: figures(busy), verified };
    } finally {
      clients.stop();
    }
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rounds = new Map<string, Round[]>(BINS.map((bin) => [bin, []]));
for (let i = 0; i < ROUNDS; i++)
  for (const bin of BINS) {
    const r = await round(bin);
    rounds.get(bin)!.push(r);
    console.error(
      `${bin} round ${i + 1}: quiet p50 ${r.quiet.p50.toFixed(2)} p99 ${r.quiet.p99.toFixed(2)} ms; busy p50 ${r.busy.p50.toFixed(2)} p99 ${r.busy.p99.toFixed(2)} ms; ${r.verified.toFixed(1)} verified/s`,
    );
  }

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(
  `\n/v1/health under saturation: \`serve\` (SQLite, a key), ${CLIENTS} clients in their own process posting block 15537394's receipts (${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB), ${availableParallelism()} cores; ${ROUNDS} rounds of ${PROBE_MS / 1000} s, medians`,
);
console.log(
  '| binary | quiet p50 | quiet p99 | saturated p50 | saturated p99 | verified/s |\n|---|--:|--:|--:|--:|--:|',
);
for (const [bin, rs] of rounds) {
  const m = (figure: (r: Round) => number) => median(rs.map(figure));
  console.log(
    `| ${bin} | ${ms(m((r) => r.quiet.p50))} | ${ms(m((r) => r.quiet.p99))} | ${ms(m((r) => r.busy.p50))} | ${ms(m((r) => r.busy.p99))} | ${m((r) => r.verified).toFixed(1)} |`,
  );
}
const p99 = median(rounds.get(BINS[0]!)!.map((r) => r.busy.p99));
console.log(`\nhealth p99 < ${TARGET_MS} ms under saturation: ${p99 < TARGET_MS ? 'met' : '**NOT met**'} (${ms(p99)})`);
