/**
 * The service over HTTP on loopback, measured with autocannon against the real server (memory
 * store, auth off): the event loop alone (`pool_workers` 0, today's single thread) against the
 * worker pool (one thread per core, the default `pool_threshold_bytes`); then the pool beyond its
 * threads, fifty clients of one account against ten, with `/v1/health` asked alongside. Prints
 * Markdown tables. Run with `npm run bench`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { DEFAULT_CONFIG, startServer, type RunningServer, type ServerConfig } from '@evm-integrity/service';
import { Problems, readRpcBlock } from 'evm-integrity';
import { receiptRootBody } from 'evm-integrity/api';

const DURATION_S = 8;
const CONNECTIONS = 10;
/** Clients beyond the pool's threads and beyond the constant bound of one account before it was derived (32). */
const MANY_CONNECTIONS = 50;

/** The receipt-root request body of a fixture block. */
function bodyOf(name: string): string {
  const block = readRpcBlock(JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8')), new Problems())!;
  return JSON.stringify(
    receiptRootBody({ chainId: 1, receiptRoot: block.header.fields.receiptsRoot!, receipts: block.receipts }),
  );
}

interface Load {
  rps: number;
  /** 2xx answers a second: what was served, refusals apart. */
  served: number;
  p99: number;
  failed: number;
}

/** `connections` clients posting `body` for DURATION_S seconds, or GET when body is undefined. */
async function load(url: string, connections: number, body?: string): Promise<Load> {
  const result = await autocannon({
    url,
    connections,
    duration: DURATION_S,
    ...(body !== undefined && { method: 'POST', body, headers: { 'content-type': 'application/json' } }),
  });
  return {
    rps: result.requests.average,
    served: result['2xx'] / DURATION_S,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

async function measure(server: RunningServer, bodies: { mid: string; big: string }) {
  const verify = `${server.url}/v1/evm/verify/receipt-root`;
  const mid = await load(verify, CONNECTIONS, bodies.mid);
  const big = await load(verify, CONNECTIONS, bodies.big);
  // Health on one connection while ten others keep the server busy with the big block.
  const [health, busy] = await Promise.all([load(`${server.url}/v1/health`, 1), load(verify, CONNECTIONS, bodies.big)]);
  return { mid, big, health, failed: mid.failed + big.failed + health.failed + busy.failed };
}

/** A server of the default configuration but for `over` (memory store, auth off unless `over` says). */
async function withServer<T>(over: Partial<ServerConfig>, work: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(
    { ...DEFAULT_CONFIG, store: 'memory', port: 0, auth: false, ...over },
    { logger: pino({ level: 'silent' }) },
  );
  try {
    return await work(server);
  } finally {
    await server.close();
  }
}

const run = (poolWorkers: number | null, bodies: { mid: string; big: string }) =>
  withServer({ poolWorkers }, (server) => measure(server, bodies));

/** Seconds of each half of a figure beyond the pool: measured c=10, c=50, c=50, c=10, so a drift of the machine's load falls on both. */
const BEYOND_HALF_S = DURATION_S / 2;
/** Long enough for 50 requests left in flight (a few ms each on the pool) to finish. */
const SETTLE_MS = 1000;

interface Beyond {
  /** 2xx answers a second at c=10 and at c=50. */
  served: { few: number; many: number };
  /** The worse p99 of the two halves at c=50, and of health alongside them. */
  p99: number;
  healthP99: number;
  /** Answers at c=50 that were not 2xx (refusals included), errors and timeouts. */
  failed: number;
}

/** The pool beyond its threads: `body` from 10 then 50 clients of one account (`headers`), health on its own connection. */
async function beyond(server: RunningServer, body: string, headers: Record<string, string> = {}): Promise<Beyond> {
  const verify = `${server.url}/v1/evm/verify/receipt-root`;
  const half = (connections: number) =>
    Promise.all([
      autocannon({
        url: verify,
        connections,
        duration: BEYOND_HALF_S,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
      }),
      autocannon({ url: `${server.url}/v1/health`, connections: 1, duration: BEYOND_HALF_S }),
    ]);
  const halves: Array<[number, Awaited<ReturnType<typeof half>>]> = [];
  for (const connections of [CONNECTIONS, MANY_CONNECTIONS, MANY_CONNECTIONS, CONNECTIONS]) {
    halves.push([connections, await half(connections)]);
    // The clients of a half leave with requests in flight: their places come back before the next half starts.
    await sleep(SETTLE_MS);
  }
  const at = (connections: number) => halves.filter(([c]) => c === connections).map(([, h]) => h);
  const served = (connections: number) =>
    at(connections).reduce((sum, [verified]) => sum + verified['2xx'], 0) / (2 * BEYOND_HALF_S);
  return {
    served: { few: served(CONNECTIONS), many: served(MANY_CONNECTIONS) },
    p99: Math.max(...at(MANY_CONNECTIONS).map(([verified]) => verified.latency.p99)),
    healthP99: Math.max(...at(MANY_CONNECTIONS).map(([, health]) => health.latency.p99)),
    failed: at(MANY_CONNECTIONS).reduce(
      (sum, [verified]) => sum + verified.non2xx + verified.errors + verified.timeouts,
      0,
    ),
  };
}

const bodies = { mid: bodyOf('mainnet-22869878'), big: bodyOf('mainnet-15537394') };
const single = await run(0, bodies);
const pool = await run(null, bodies);
const open = await withServer({}, (server) => beyond(server, bodies.mid));
// As a user runs it: auth on, one account's key, the SQLite store.
const dataDir = mkdtempSync(join(tmpdir(), 'evm-integrity-http-bench-'));
const KEY = 'evmi_http-bench-key-0123456789abcdefghijklmnopqrs';
const keyed = await withServer(
  {
    store: 'sqlite',
    dataDir,
    auth: true,
    accounts: [
      {
        id: 'bench',
        name: 'Bench',
        plan: 'pro',
        cuLimit: 1_000_000_000,
        rateLimitRps: 1_000_000,
        entitlements: null,
        keys: [{ label: 'bench', key: KEY }],
      },
    ],
  },
  (server) => beyond(server, bodies.mid, { authorization: `Bearer ${KEY}` }),
).finally(() => rmSync(dataDir, { recursive: true, force: true }));
/** a / b; autocannon counts whole milliseconds, so a latency of 0 gives a lower bound. */
const ratio = (a: number, b: number) => (b === 0 ? `> ${a}x` : `${(a / b).toFixed(2)}x`);
const size = (body: string) => `${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB`;
const rows = [
  [
    `receipt-root req/s, 22869878 body (${size(bodies.mid)}), c=10`,
    single.mid.rps.toFixed(0),
    pool.mid.rps.toFixed(0),
    ratio(pool.mid.rps, single.mid.rps),
  ],
  [
    `receipt-root req/s, 15537394 body (${size(bodies.big)}), c=10`,
    single.big.rps.toFixed(1),
    pool.big.rps.toFixed(1),
    ratio(pool.big.rps, single.big.rps),
  ],
  [
    '  p99 latency, 15537394 body, c=10',
    `${single.big.p99} ms`,
    `${pool.big.p99} ms`,
    ratio(single.big.p99, pool.big.p99),
  ],
  [
    '/v1/health p99 while saturated with 15537394 bodies',
    `${single.health.p99} ms`,
    `${pool.health.p99} ms`,
    ratio(single.health.p99, pool.health.p99),
  ],
];
console.log(
  `\nHTTP on loopback, autocannon, ${DURATION_S} s per figure, ${availableParallelism()} cores, pool threshold ${DEFAULT_CONFIG.poolThresholdBytes} bytes`,
);
console.log('| measure | single thread | worker pool | gain |\n|---|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
if (single.failed + pool.failed > 0)
  console.log(`\nnot 2xx or failed: ${single.failed} single-thread, ${pool.failed} pool`);

const met = (ok: boolean) => (ok ? 'met' : '**NOT met**');
console.log(
  `\nBeyond the pool: 22869878 body (${size(bodies.mid)}), one account, c=${CONNECTIONS} and c=${MANY_CONNECTIONS} interleaved (${BEYOND_HALF_S} s each, twice), /v1/health on its own connection`,
);
console.log('| measure | memory store, auth off | SQLite store, a key | target |\n|---|---|---|---|');
const both = (figure: (b: Beyond) => string) => `${figure(open)} | ${figure(keyed)}`;
console.log(`| 2xx req/s, c=${CONNECTIONS} | ${both((b) => b.served.few.toFixed(0))} | |`);
console.log(`| 2xx req/s, c=${MANY_CONNECTIONS} | ${both((b) => b.served.many.toFixed(0))} | |`);
console.log(
  `| c=${MANY_CONNECTIONS} / c=${CONNECTIONS} | ${both((b) => `${(b.served.many / b.served.few).toFixed(2)}x ${met(b.served.many >= 0.9 * b.served.few)}`)} | ≥ 0.9x |`,
);
console.log(`| p99 latency, c=${MANY_CONNECTIONS} | ${both((b) => `${b.p99} ms ${met(b.p99 < 1000)}`)} | < 1 s |`);
console.log(
  `| /v1/health p99 at c=${MANY_CONNECTIONS} | ${both((b) => `${b.healthP99} ms ${met(b.healthP99 < 20)}`)} | < 20 ms |`,
);
console.log(`| not 2xx or failed, c=${MANY_CONNECTIONS} | ${both((b) => String(b.failed))} | 0 |`);
