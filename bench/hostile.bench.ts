/**
 * The service under a hostile client's load (issue 16), the server in its own process as an
 * operator runs it (`evm-integrity serve`, memory store), clients on loopback:
 *
 * 1. 1,000 connections fetch `/v1/docs/scalar.js` and never read, 250 from each of 127.0.0.2 to 127.0.0.5 (under
 *    `max_connections_per_address`, 256: from one address, past it, the server refuses that address's new
 *    connections, `/v1/health`'s among them): `/v1/health` p50/p99 meanwhile, from 127.0.0.1, and the server's RSS
 *    (peak, and once `send_timeout_ms` has passed).
 * 2. One account pipelines 2,000 requests on each of 20 connections and never reads: health and a
 *    second account's p50/p99 meanwhile (sequential requests; a request unanswered in 15 s counts as
 *    15 s).
 * 3. One account sends 32 huge bodies (block 15537394's receipts) at once: how long a second account's
 *    one large body then takes.
 * 4. 50 connections for 10 s: 25 send 32 MiB logs proofs for an account whose allowance cannot pay them
 *    (refused 429), 25 send a second account's small requests: answers a second of each, and the bytes the
 *    server read meanwhile.
 * 5. On PostgreSQL (a database of its own on 127.0.0.1:5432, dropped after): one account, from a process of its
 *    own (pipelined-flood.ts), pipelines 100 small
 *    requests (a receipt root of a block of a few transactions) on each of 20 connections, again as each
 *    connection's 100 are answered: a second account's p50/p99 for the same request, quiet and under that load.
 * 6. 1,100 connections that never send a byte, the server started with `ulimit -n 1024`: `/v1/health`
 *    (a new connection each) answered meanwhile, and how long until the server closed them.
 * 7. 32 invalid 30 MB bodies at once (400): the server's RSS idle, at its peak, and 5 s and 30 s after.
 * 8. Receipts written against the bloom's table: a receipt root of 8,000 logs whose 32,000 topics are alike in all
 *    but three bytes, those the table's key once left out (so that each lookup compared with every topic before it),
 *    against as many topics that differ where that key looked: how long each takes to be answered.
 *
 * Run: `node bench/hostile.bench.ts [path/to/bin/evm-integrity.js]` (another checkout's binary measures
 * the code before a change); `HOSTILE_ONLY` runs one section: `readers` the first, `refused` the fourth, `small` the fifth,
 * `silent` the sixth, `bodies` the seventh, `keys` the eighth.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Problems, readRpcBlock } from 'evm-integrity';
import { receiptRootBody } from 'evm-integrity/api';
import { startFlood, type Flood } from './flood-process.js';
import { listeningUrl } from './serve-process.js';

const BIN = process.argv[2] ?? 'packages/service/bin/evm-integrity.js';
const KEY_A = 'evmi_bench-hostile-key-a-0123456789abcdefghijklmno';
const KEY_B = 'evmi_bench-hostile-key-b-0123456789abcdefghijklmno';
const KEY_POOR = 'evmi_bench-hostile-key-poor-0123456789abcdefghijkl';
const REQUEST_TIMEOUT_MS = 15_000;

const bodyOf = (name: string) => {
  const block = readRpcBlock(JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8')), new Problems())!;
  return JSON.stringify(
    receiptRootBody({ chainId: 1, receiptRoot: block.header.fields.receiptsRoot!, receipts: block.receipts }),
  );
};
const hugeBody = bodyOf('mainnet-15537394');
const largeBody = bodyOf('mainnet-22869878');
const smallBody = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });
const fewReceiptsBody = bodyOf('mainnet-1000010');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const ms = (value: number) => `${Math.round(value)} ms`;

interface Served {
  url: string;
  port: number;
  rssMb: () => number;
  /** Bytes the server process has read (files and sockets), in MiB. */
  readMb: () => number;
  stop: () => void;
}

/**
 * The server as an operator starts it, on `configured` (the memory store unless it says otherwise); `openFiles`: its
 * file-descriptor limit (`ulimit -n`), when it is to be lower than the shell's.
 */
async function serve(configured: object = { store: 'memory' }, openFiles?: number): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-bench-'));
  const account = (id: string, key: string, cuLimit = 100_000_000) => ({
    id,
    cu_limit: cuLimit,
    rate_limit_rps: 1_000_000,
    keys: [{ label: 'bench', key }],
  });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      ...configured,
      port: 0,
      accounts: [account('a', KEY_A), account('b', KEY_B), account('poor', KEY_POOR, 5)],
      body_limit_bytes: 64 * 1024 * 1024,
      // 32 bodies of 30 MB at once on a loaded machine take longer than the default 30 s.
      body_timeout_ms: 120_000,
    }),
  );
  const command = [process.execPath, BIN, 'serve', '--config', join(dir, 'config.json')];
  const child =
    openFiles === undefined
      ? spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('bash', ['-c', `ulimit -n ${openFiles}; exec "$@"`, 'bash', ...command], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
  const url = await listeningUrl(child);
  return {
    url,
    port: Number(new URL(url).port),
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024,
    readMb: () => Number(/rchar:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/io`, 'utf8'))![1]) / 1024 / 1024,
    stop: () => child.kill('SIGKILL'),
  };
}

/** Milliseconds for one request (REQUEST_TIMEOUT_MS when it is not answered by then). */
async function timed(url: string, init?: RequestInit): Promise<number> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await res.arrayBuffer();
  } catch {
    return REQUEST_TIMEOUT_MS;
  }
  return performance.now() - started;
}

/** Latencies of requests sent one after another for `durationMs`. */
async function sample(durationMs: number, request: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) times.push(await request());
  return times;
}

const post = (url: string, key: string, path: string, body: string): RequestInit & { url: string } => ({
  url: `${url}/v1/evm/verify/${path}`,
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
  body,
});

const sockets: Socket[] = [];
/** A connection to the server on loopback, from `localAddress` (any of 127.0.0.0/8 on Linux). */
const rawSocket = (port: number, localAddress = '127.0.0.1') => {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => undefined);
  sockets.push(socket);
  return socket;
};

async function slowReaders(): Promise<void> {
  const server = await serve();
  const idleRss = server.rssMb();
  for (let i = 0; i < 1000; i++) {
    const socket = rawSocket(server.port, `127.0.0.${2 + (i % 4)}`);
    socket.write('GET /v1/docs/scalar.js HTTP/1.1\r\nHost: x\r\n\r\n');
    socket.pause();
  }
  let peak = 0;
  const watch = setInterval(() => (peak = Math.max(peak, server.rssMb())), 100);
  const health = await sample(20_000, () => timed(`${server.url}/v1/health`));
  await sleep(15_000);
  clearInterval(watch);
  console.log(
    `1,000 slow readers of scalar.js: health p50 ${ms(quantile(health, 0.5))}, p99 ${ms(quantile(health, 0.99))} (${health.length} requests); RSS ${Math.round(idleRss)} MB idle, ${Math.round(peak)} MB peak, ${Math.round(server.rssMb())} MB at 35 s`,
  );
  for (const socket of sockets.splice(0)) socket.destroy();
  server.stop();
}

async function pipelining(): Promise<void> {
  const server = await serve();
  const request = `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_A}\r\nContent-Type: application/json\r\nContent-Length: ${smallBody.length}\r\n\r\n${smallBody}`;
  for (let i = 0; i < 20; i++) {
    const socket = rawSocket(server.port);
    socket.write(request.repeat(2000));
    socket.pause();
  }
  const other = post(server.url, KEY_B, 'logs-bloom', smallBody);
  const [health, second] = await Promise.all([
    sample(15_000, () => timed(`${server.url}/v1/health`)),
    sample(15_000, () => timed(other.url, other)),
  ]);
  console.log(
    `20 connections x 2,000 pipelined, unread: health p50 ${ms(quantile(health, 0.5))}, p99 ${ms(quantile(health, 0.99))}; second account p50 ${ms(quantile(second, 0.5))}, p99 ${ms(quantile(second, 0.99))} (${second.length} requests, ${second.filter((t) => t >= REQUEST_TIMEOUT_MS).length} unanswered in 15 s)`,
  );
  for (const socket of sockets.splice(0)) socket.destroy();
  server.stop();
}

async function hugeBurst(): Promise<void> {
  const server = await serve();
  const huge = post(server.url, KEY_A, 'receipt-root', hugeBody);
  const started = performance.now();
  const burst = Array.from({ length: 32 }, () => timed(huge.url, huge));
  await sleep(1000);
  const other = post(server.url, KEY_B, 'receipt-root', largeBody);
  const wait = await timed(other.url, other);
  const burstTimes = await Promise.all(burst);
  console.log(
    `32 huge bodies from one account, another's large body 1 s later: it took ${ms(wait)}; the burst took ${ms(performance.now() - started)} (its p50 ${ms(quantile(burstTimes, 0.5))})`,
  );
  server.stop();
}

/**
 * Statuses of requests sent one after another for `durationMs`, each on a new connection: its headers
 * and the whole of `body` written at once (one shared buffer, so the client costs no copy of it), the
 * status read from the answer (0: none came).
 */
async function rawStatuses(durationMs: number, port: number, head: string, body: Buffer): Promise<number[]> {
  const seen: number[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    seen.push(
      await new Promise<number>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        const done = () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0));
        socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
          // The answer is in: the rest of the body need not be sent.
          if (text.includes('\r\n\r\n') && text.length > 200) socket.destroy();
        });
        socket.on('close', done);
        socket.on('error', () => undefined);
        socket.write(head);
        socket.write(body);
      }),
    );
  }
  return seen;
}

/** Statuses of requests sent one after another on one keep-alive client for `durationMs` (0: no answer). */
async function statuses(durationMs: number, init: RequestInit & { url: string }): Promise<number[]> {
  const seen: number[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    try {
      const res = await fetch(init.url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await res.arrayBuffer();
      seen.push(res.status);
    } catch {
      seen.push(0);
    }
  }
  return seen;
}

async function refusedBodies(): Promise<void> {
  const server = await serve();
  // 32 MiB costs 33 CU; the account has 5, so each is refused 429.
  const body = Buffer.from(`{"pad":"${'x'.repeat(32 * 1024 * 1024 - 10)}"}`);
  const head = `POST /v1/evm/verify/logs-proof HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_POOR}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const good = post(server.url, KEY_B, 'logs-bloom', smallBody);
  const readBefore = server.readMb();
  const seconds = 10;
  const runs = await Promise.all([
    ...Array.from({ length: 25 }, () => rawStatuses(seconds * 1000, server.port, head, body)),
    ...Array.from({ length: 25 }, () => statuses(seconds * 1000, good)),
  ]);
  const read = server.readMb() - readBefore;
  const all = runs.flat();
  const count = (status: number) => all.filter((s) => s === status).length;
  console.log(
    `50 connections, 25 sending 32 MiB bodies refused 429, 25 small requests, ${seconds} s: ${(count(200) / seconds).toFixed(0)} answered 200 a second, ${(count(429) / seconds).toFixed(0)} refused 429 a second, ${count(0)} failed; the server read ${Math.round(read)} MiB`,
  );
  server.stop();
}

/**
 * Pipelines `count` copies of `request` on a new connection, again each time all are answered, until `stop`;
 * calls `answered` for each answer (an answer's status line: a JSON body holds no "HTTP/1.1 ").
 */
/**
 * `connections` connections from a process of its own (pipelined-flood.ts), each pipelining `count` copies of
 * `request` and again each time they are answered: a flooding client's work does not share the measuring client's
 * event loop. `answered()` reads how many answers it has had; `stop()` kills it.
 */
async function floodFrom(port: number, request: string, connections: number, count: number): Promise<Flood> {
  const file = join(mkdtempSync(join(tmpdir(), 'hostile-flood-')), 'request.http');
  writeFileSync(file, request, 'latin1');
  return startFlood(port, connections, count, file);
}

async function smallFlood(): Promise<void> {
  const admin = 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `evmi_bench_hostile_${process.pid}`;
  const adminQuery = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await adminQuery(`CREATE DATABASE ${database}`);
  const server = await serve({ store: 'postgres', database_url: `postgres://postgres@127.0.0.1:5432/${database}` });
  try {
    const other = post(server.url, KEY_B, 'receipt-root', fewReceiptsBody);
    await sample(2_000, () => timed(other.url, other)); // the schema, the connections, the JIT warm
    const quiet = await sample(10_000, () => timed(other.url, other));
    const request = `POST /v1/evm/verify/receipt-root HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_A}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(fewReceiptsBody)}\r\n\r\n${fewReceiptsBody}`;
    const flood = await floodFrom(server.port, request, 20, 100);
    await sleep(2_000);
    const floodedBefore = flood.answered();
    const loaded = await sample(15_000, () => timed(other.url, other));
    const floodRate = (flood.answered() - floodedBefore) / 15;
    flood.stop();
    console.log(
      `PostgreSQL, one account pipelining 100 small receipt roots on each of 20 connections: a second account's p50 ${ms(quantile(quiet, 0.5))} quiet, ${ms(quantile(loaded, 0.5))} loaded (${(quantile(loaded, 0.5) / quantile(quiet, 0.5)).toFixed(1)}x); p99 ${ms(quantile(quiet, 0.99))} quiet, ${ms(quantile(loaded, 0.99))} loaded (${quiet.length} and ${loaded.length} requests); the flood answered ${Math.round(floodRate)} a second`,
    );
  } finally {
    for (const socket of sockets.splice(0)) socket.destroy();
    server.stop();
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

/**
 * Whether `socket` is closed by the server within `ms`: resolves with the milliseconds it took, or
 * undefined when it is still open then.
 */
const closedWithin = (socket: Socket, ms: number, started: number) =>
  new Promise<number | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
  });

/** Whether `/v1/health` answers 200 within 5 s on a connection of its own. */
const freshHealth = (url: string) =>
  new Promise<boolean>((resolve) => {
    const request = httpGet(`${url}/v1/health`, { agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });

/**
 * 1,100 connections that never send a byte, against a server limited to 1,024 file descriptors:
 * `/v1/health` meanwhile (latency, and how many were answered), and how long until the server
 * closed the silent connections (60 s at most).
 */
async function silentSockets(): Promise<void> {
  const server = await serve(undefined, 1024);
  const started = performance.now();
  const silent = Array.from({ length: 1100 }, () => rawSocket(server.port));
  const closed = silent.map((socket) => closedWithin(socket, 60_000, started));
  await sleep(1000);
  const health: number[] = [];
  let answered = 0;
  const end = performance.now() + 15_000;
  while (performance.now() < end) {
    const at = performance.now();
    // A new connection for each, as a health probe makes.
    if (await freshHealth(server.url)) answered++;
    health.push(performance.now() - at);
  }
  const times = await Promise.all(closed);
  const shut = times.filter((t) => t !== undefined);
  console.log(
    `1,100 silent connections, ulimit -n 1024: health ${answered}/${health.length} answered, p50 ${ms(quantile(health, 0.5))}, p99 ${ms(quantile(health, 0.99))}; ${shut.length} closed by the server within 60 s${shut.length > 0 ? ` (the last at ${ms(Math.max(...shut))})` : ''}`,
  );
  for (const socket of sockets.splice(0)) socket.destroy();
  server.stop();
}

/**
 * 32 invalid 30 MB bodies at once (each answered 400): the server's RSS idle, at its peak, and
 * 5 s and 30 s after the last answer.
 */
async function largeInvalidBodies(): Promise<void> {
  const server = await serve();
  const body = Buffer.from(`{"pad":"${'x'.repeat(30 * 1000 * 1000)}`);
  const head = `POST /v1/evm/verify/receipt-root HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_A}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const idle = server.rssMb();
  let peak = idle;
  const watch = setInterval(() => (peak = Math.max(peak, server.rssMb())), 50);
  const seen = await Promise.all(
    Array.from(
      { length: 32 },
      () =>
        new Promise<number>((resolve) => {
          const socket = connect(server.port, '127.0.0.1');
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString('latin1')));
          socket.on('end', () => socket.destroy());
          socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
          socket.on('error', () => undefined);
          socket.setTimeout(60_000, () => socket.destroy());
          socket.write(head);
          socket.write(body);
        }),
    ),
  );
  clearInterval(watch);
  const counts = [...new Set(seen)].map((s) => `${seen.filter((t) => t === s).length} x ${s}`).join(', ');
  await sleep(5000);
  const after5 = server.rssMb();
  await sleep(25_000);
  console.log(
    `32 invalid 30 MB bodies at once (${counts}): RSS ${Math.round(idle)} MB idle, ${Math.round(peak)} MB peak, ${Math.round(after5)} MB 5 s after, ${Math.round(server.rssMb())} MB 30 s after`,
  );
  server.stop();
}

/**
 * A receipt-root body of one receipt of 8,000 logs, 4 topics each, topic `n` numbered in bytes 5 to 7 (`alike`: every
 * other byte 7s, as the table's key once read only bytes 0-3, 14-17 and 28-31) or in bytes 0 to 2 and 31 (`distinct`).
 */
function topicsBody(alike: boolean): string {
  const logs = Array.from({ length: 8_000 }, (_, i) => ({
    address: new Uint8Array(20).fill(i & 1),
    topics: Array.from({ length: 4 }, (_, j) => {
      const n = 4 * i + j;
      const topic = new Uint8Array(32).fill(alike ? 7 : 0);
      const at = alike ? [5, 6, 7] : [0, 1, 2];
      at.forEach((place, k) => (topic[place] = (n >> (8 * k)) & 255));
      if (!alike) topic[31] = n & 255;
      return topic;
    }),
    data: new Uint8Array(0),
  }));
  const receipts = [{ type: 2, status: 1 as const, cumulativeGasUsed: 21_000n, logs }];
  return JSON.stringify(receiptRootBody({ chainId: 1, receiptRoot: new Uint8Array(32), receipts }));
}

async function tableKeys(): Promise<void> {
  const server = await serve();
  const bodies = { alike: topicsBody(true), distinct: topicsBody(false) };
  const times: Record<keyof typeof bodies, number[]> = { alike: [], distinct: [] };
  for (let round = 0; round < 5; round++)
    for (const kind of ['alike', 'distinct'] as const) {
      const { url, ...init } = post(server.url, KEY_A, 'receipt-root', bodies[kind]);
      times[kind].push(await timed(url, init));
    }
  const [alike, distinct] = [quantile(times.alike, 0.5), quantile(times.distinct, 0.5)];
  console.log(
    `a receipt root of 32,000 topics (${(bodies.alike.length / 1e6).toFixed(1)} MB) alike where the bloom table's key once looked: ${ms(alike)}, against ${ms(distinct)} for distinct ones (medians of 5): ${(alike / distinct).toFixed(2)}x, target <= 2x: ${alike <= 2 * distinct ? 'met' : 'NOT met'}`,
  );
  server.stop();
}

console.log(`server: ${BIN}`);
if (process.env.HOSTILE_ONLY === 'readers') {
  await slowReaders();
  process.exit(0);
}
if (process.env.HOSTILE_ONLY === 'refused') {
  await refusedBodies();
  await smallFlood();
  process.exit(0);
}
if (process.env.HOSTILE_ONLY === 'small') {
  await smallFlood();
  process.exit(0);
}
if (process.env.HOSTILE_ONLY === 'silent') {
  await silentSockets();
  process.exit(0);
}
if (process.env.HOSTILE_ONLY === 'keys') {
  await tableKeys();
  process.exit(0);
}
if (process.env.HOSTILE_ONLY === 'bodies') {
  await largeInvalidBodies();
  process.exit(0);
}
await slowReaders();
await pipelining();
await hugeBurst();
await refusedBodies();
await smallFlood();
await silentSockets();
await largeInvalidBodies();
await tableKeys();
