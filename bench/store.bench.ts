/**
 * The shared account store, measured over real `evm-integrity serve` processes on loopback:
 *
 * - CU overdraw with 1, 2 and 3 replicas: an allowance of 200 CU, 400 requests from 32 clients
 *   spread over the replicas; overdraw is the 2xx answers (and CU used) beyond 200. SQLite (one
 *   shared file on this host) for 1 and 2, PostgreSQL for 1, 2 and 3.
 * - CU left held after a SIGKILL under load: right after the kill (what stayed charged for good
 *   before leases) and once the lease has run out (with leases).
 * - req/s of POST /v1/evm/verify/receipt-root on one server with PostgreSQL against SQLite: the same
 *   body, 10 connections, autocannon, with a key (authentication, rate window, reserve and settle
 *   all go to the store).
 *
 * Needs PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test) and the
 * built service (`npm run build`). About two minutes; not part of `npm run bench`:
 * `tsc -p tsconfig.bench.json && node dist-bench/bench/store.bench.js`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { Problems, readRpcBlock } from 'evm-integrity';
import { receiptRootBody } from 'evm-integrity/api';

const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const KEY = 'evmi_store-bench-key-0123456789abcdefghijklmnopqrs';
const LEASE_MS = 2000;
const ALLOWANCE = 200;
const dir = mkdtempSync(join(tmpdir(), 'evmi-store-bench-'));

/** The receipt-root request body of a fixture block. */
function bodyOf(name: string): string {
  const fixture = JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8')) as unknown;
  const block = readRpcBlock(fixture, new Problems())!;
  return JSON.stringify(
    receiptRootBody({ chainId: 1, receiptRoot: block.header.fields.receiptsRoot!, receipts: block.receipts }),
  );
}
/** A block of 1 receipt: the store's share of a request shows. */
const SMALL = bodyOf('mainnet-15537393');
/** A block of hundreds of receipts (as in bench/http.bench.ts): verification dominates. */
const LARGE = bodyOf('mainnet-22869878');
const body = SMALL;

type Store = { store: 'sqlite'; data_dir: string } | { store: 'postgres'; database_url: string };

interface Replica {
  child: ChildProcess;
  url: string;
}

let started = 0;
/** `evm-integrity serve` on `store` with one account (`cuLimit`, PROCESS key); resolves once it listens. */
function serve(store: Store, cuLimit: number): Promise<Replica> {
  const file = join(dir, `config-${started++}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      host: '127.0.0.1',
      port: 0,
      pool_workers: 0,
      max_in_flight: 256,
      max_in_flight_per_account: 256,
      reservation_lease_ms: LEASE_MS,
      pg_pool_size: 10,
      accounts: [{ id: 'acme', cu_limit: cuLimit, rate_limit_rps: 1_000_000, keys: [{ label: 'bench', key: KEY }] }],
      ...store,
    }),
  );
  const child = spawn(process.execPath, ['packages/service/bin/evm-integrity.js', 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += String(chunk)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line !== undefined) resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

async function stopAll(replicas: Replica[]): Promise<void> {
  for (const { child } of replicas) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** `total` requests (or until `stop`) from `clients` loops, round robin over `urls`; the statuses seen. */
async function hammer(
  urls: string[],
  clients: number,
  until: { total?: number; stop?: Promise<unknown> },
): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  let sent = 0;
  let stopped = false;
  void until.stop?.then(() => (stopped = true));
  await Promise.all(
    Array.from({ length: clients }, async (_, n) => {
      for (let i = n; !stopped && (until.total === undefined || sent < until.total); i += clients) {
        sent++;
        let status = 'failed';
        try {
          const res = await fetch(`${urls[i % urls.length]}/v1/evm/verify/receipt-root`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
            body,
          });
          await res.arrayBuffer();
          status = String(res.status);
        } catch {
          // the replica was killed under this request
        }
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A new PostgreSQL database for one scenario; dropped at the end. */
async function database(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `evmi_bench_${process.pid}_${started}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: BASE_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** CU used (period total) and CU the request log charged, read as an operator would. */
async function charged(store: Store): Promise<{ used: number; logged: number }> {
  if (store.store === 'postgres') {
    const client = new pg.Client({ connectionString: store.database_url });
    await client.connect();
    try {
      const one = async (sql: string) => Number((await client.query<{ n: string | null }>(sql)).rows[0]!.n ?? 0);
      return {
        used: await one("SELECT sum(cu_used) AS n FROM usage_periods WHERE account_id = 'acme'"),
        logged: await one("SELECT sum(cu) AS n FROM requests WHERE account_id = 'acme'"),
      };
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(store.data_dir, 'evm-integrity.sqlite'), { readonly: true });
  try {
    const one = (sql: string) => (db.prepare(sql).get() as { n: number | null }).n ?? 0;
    return {
      used: one("SELECT sum(cu_used) AS n FROM usage_periods WHERE account_id = 'acme'"),
      logged: one("SELECT sum(cu) AS n FROM requests WHERE account_id = 'acme'"),
    };
  } finally {
    db.close();
  }
}

/** A fresh store of `kind`, and how to dispose of it. */
async function freshStore(kind: 'sqlite' | 'postgres'): Promise<{ store: Store; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    return { store: { store: 'sqlite', data_dir: dataDir }, drop: async () => rmSync(dataDir, { recursive: true }) };
  }
  const db = await database();
  return { store: { store: 'postgres', database_url: db.url }, drop: db.drop };
}

/** Overdraw with `count` replicas: 2xx beyond the allowance, and CU used beyond it. */
async function overdraw(kind: 'sqlite' | 'postgres', count: number) {
  const { store, drop } = await freshStore(kind);
  const first = await serve(store, ALLOWANCE); // migrates and provisions; the others start on a ready store
  const replicas = [first, ...(await Promise.all(Array.from({ length: count - 1 }, () => serve(store, ALLOWANCE))))];
  try {
    const statuses = await hammer(
      replicas.map((r) => r.url),
      32,
      { total: 2 * ALLOWANCE },
    );
    const { used } = await charged(store);
    return { ok: statuses['200'] ?? 0, overdraw: (statuses['200'] ?? 0) - ALLOWANCE, usedOver: used - ALLOWANCE };
  } finally {
    await stopAll(replicas);
    await drop();
  }
}

/** CU held right after a SIGKILL of one of `count` replicas under load, and after the lease. */
async function heldAfterKill(kind: 'sqlite' | 'postgres', count: number) {
  const { store, drop } = await freshStore(kind);
  const first = await serve(store, 1_000_000);
  const replicas = [first, ...(await Promise.all(Array.from({ length: count - 1 }, () => serve(store, 1_000_000))))];
  const urls = replicas.map((r) => r.url);
  try {
    let stop = () => {};
    const loaded = hammer(urls, 32, { stop: new Promise<void>((resolve) => (stop = resolve)) });
    while ((await charged(store)).logged < 300) await sleep(50);
    const victim = replicas.at(-1)!;
    victim.child.kill('SIGKILL');
    stop(); // the requests the victim had in progress fail; the others' finish
    await new Promise((resolve) => victim.child.once('exit', resolve));
    await loaded;
    const atKill = await charged(store);
    // After the lease: a server is up again (restarted, for one replica) and a usage query sweeps.
    if (count === 1) replicas[0] = await serve(store, 1_000_000);
    await sleep(LEASE_MS);
    await fetch(`${replicas[0]!.url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } });
    const after = await charged(store);
    return { atKill: atKill.used - atKill.logged, afterLease: after.used - after.logged };
  } finally {
    await stopAll(replicas);
    await drop();
  }
}

/** req/s and p99 of the receipt-root endpoint on one server, 10 connections, 8 s. */
async function throughput(kind: 'sqlite' | 'postgres', payload: string) {
  const { store, drop } = await freshStore(kind);
  const replica = await serve(store, 1_000_000_000);
  try {
    const result = await autocannon({
      url: `${replica.url}/v1/evm/verify/receipt-root`,
      connections: 10,
      duration: 8,
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    });
    return { rps: result.requests.average, p99: result.latency.p99, failed: result.non2xx + result.errors };
  } finally {
    await stopAll([replica]);
    await drop();
  }
}

try {
  console.log(`\nCU overdraw: allowance ${ALLOWANCE} CU, ${2 * ALLOWANCE} requests from 32 clients over the replicas`);
  console.log(
    '| store | replicas | 2xx | overdraw (2xx beyond the allowance) | CU used beyond it |\n|---|---|---|---|---|',
  );
  for (const [kind, count] of [
    ['sqlite', 1],
    ['sqlite', 2],
    ['postgres', 1],
    ['postgres', 2],
    ['postgres', 3],
  ] as const) {
    const r = await overdraw(kind, count);
    console.log(`| ${kind} | ${count} | ${r.ok} | ${r.overdraw} | ${r.usedOver} |`);
  }

  console.log(`\nCU left held after a SIGKILL under load (32 clients; lease ${LEASE_MS} ms)`);
  console.log(
    '| store | replicas | held at the kill (kept for good before leases) | held after the lease |\n|---|---|---|---|',
  );
  for (const [kind, count] of [
    ['sqlite', 1],
    ['postgres', 3],
  ] as const) {
    const r = await heldAfterKill(kind, count);
    console.log(`| ${kind} | ${count} (one killed) | ${r.atKill} CU | ${r.afterLease} CU |`);
  }

  console.log('\nPOST /v1/evm/verify/receipt-root, one server, 10 connections, 8 s, with a key');
  console.log('| body | store | req/s | p99 | not 2xx |\n|---|---|---|---|---|');
  for (const [name, payload] of [
    ['1 receipt', SMALL],
    ['22869878', LARGE],
  ] as const) {
    for (const kind of ['sqlite', 'postgres'] as const) {
      const r = await throughput(kind, payload);
      const size = `${name} (${Buffer.byteLength(payload)} bytes)`;
      console.log(`| ${size} | ${kind} | ${r.rps.toFixed(0)} | ${r.p99} ms | ${r.failed} |`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
