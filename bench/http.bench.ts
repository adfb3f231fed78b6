/**
 * The service over HTTP on loopback, measured with autocannon against the real server (memory
 * store, auth off): the event loop alone (`pool_workers` 0, today's single thread) against the
 * worker pool (one thread per core, the default `pool_threshold_bytes`). Prints a Markdown table.
 * Run with `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { DEFAULT_CONFIG, startServer, type RunningServer } from '@evm-integrity/service';
import { Problems, readRpcBlock } from 'evm-integrity';
import { receiptRootBody } from 'evm-integrity/api';

const DURATION_S = 8;
const CONNECTIONS = 10;

/** The receipt-root request body of a fixture block. */
function bodyOf(name: string): string {
  const block = readRpcBlock(JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8')), new Problems())!;
  return JSON.stringify(
    receiptRootBody({ chainId: 1, receiptRoot: block.header.fields.receiptsRoot!, receipts: block.receipts }),
  );
}

interface Load {
  rps: number;
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

async function run(poolWorkers: number | null, bodies: { mid: string; big: string }) {
  const server = await startServer(
    { ...DEFAULT_CONFIG, store: 'memory', port: 0, auth: false, poolWorkers },
    { logger: pino({ level: 'silent' }) },
  );
  try {
    return await measure(server, bodies);
  } finally {
    await server.close();
  }
}

const bodies = { mid: bodyOf('mainnet-22869878'), big: bodyOf('mainnet-15537394') };
const single = await run(0, bodies);
const pool = await run(null, bodies);
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
