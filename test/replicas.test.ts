/**
 * Three `evm-integrity serve` processes on one PostgreSQL database, as replicas behind a load
 * balancer: they start together on an empty database, serve exactly the allowance between them and
 * charge every 2xx once, lose no charge and double none when one is SIGKILLed, and ride out a
 * PostgreSQL restart with 503 + Retry-After (never a 500), resuming without a restart of their own.
 * The counts are printed for the record (bench/store.bench.ts measures).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freshDatabase, privateCluster, type FreshDatabase } from './helpers/postgres.js';
import {
  load,
  processConfig,
  PROCESS_KEY,
  receiptBody,
  serveProcess,
  sleep,
  type LoadTally,
  type ServeProcess,
} from './helpers/replica-process.js';

const LEASE_MS = 2000;
const dir = mkdtempSync(join(tmpdir(), 'evmi-replicas-'));
const started: ServeProcess[] = [];
const databases: FreshDatabase[] = [];

afterEach(() => {
  for (const served of started.splice(0)) if (served.child.exitCode === null) served.child.kill('SIGKILL');
});
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Three replicas of one configuration on `databaseUrl`, started at the same instant; their URLs. */
async function replicas(
  name: string,
  databaseUrl: string,
  cuLimit: number,
  settings: Record<string, unknown> = {},
): Promise<{ served: ServeProcess[]; urls: string[] }> {
  const config = processConfig(cuLimit, {
    store: 'postgres',
    database_url: databaseUrl,
    pg_pool_size: 4,
    pg_connect_timeout_ms: 1000,
    pg_statement_timeout_ms: 2000,
    reservation_lease_ms: LEASE_MS,
    ...settings,
  });
  const served = [0, 1, 2].map((i) => serveProcess(dir, `${name}-${i}`, config));
  started.push(...served);
  return { served, urls: await Promise.all(served.map((s) => s.url)) };
}

/** CU used this period and the CU the request log charged, straight from the database. */
async function charges(databaseUrl: string): Promise<{ used: number; logged: number; settled: number; held: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const one = async (sql: string) => Number((await client.query<{ n: string | null }>(sql)).rows[0]!.n ?? 0);
    return {
      used: await one("SELECT sum(cu_used) AS n FROM usage_periods WHERE account_id = 'acme'"),
      logged: await one("SELECT sum(cu) AS n FROM requests WHERE account_id = 'acme'"),
      settled: await one("SELECT count(*) AS n FROM requests WHERE account_id = 'acme' AND status BETWEEN 200 AND 299"),
      held: await one("SELECT sum(cu) AS n FROM holds WHERE account_id = 'acme' AND NOT swept"),
    };
  } finally {
    await client.end();
  }
}

/** The account's usage as a replica reports it (which also sweeps holds whose lease ran out). */
async function usage(url: string): Promise<{ cu_used: number }> {
  const res = await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${PROCESS_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { cu_used: number };
}

const report = (what: string, tally: LoadTally, extra: Record<string, number> = {}) =>
  console.log(`replicas: ${what}: ${JSON.stringify({ ...tally, ...extra })}`);

describe('three replicas on one PostgreSQL database', () => {
  it('start together on an empty database, and a burst of 1.5x the allowance from 48 clients gets exactly the allowance, each 2xx charged once', async () => {
    const database = await freshDatabase();
    databases.push(database);
    const allowance = 300;
    // A request's waits for its account's turns at the connections count toward pg_connect_timeout_ms: 48 clients of
    // one account on a busy machine may wait more than a second in all, which would be a 503, not what this measures.
    const { urls } = await replicas('burst', database.url, allowance, { pg_connect_timeout_ms: 20_000 });
    const tally = await load(urls, receiptBody(), { clients: 48, total: 450 });
    report('burst', tally);
    expect(tally.statuses).toEqual({ '200': allowance, '429': 150 });
    expect(tally.failed).toBe(0);
    const stored = await charges(database.url);
    expect(stored).toEqual({ used: allowance, logged: allowance, settled: allowance, held: 0 });
    expect((await usage(urls[1]!)).cu_used).toBe(allowance);
  }, 120_000);

  it('one replica SIGKILLed under load: after the lease, no charge is lost or doubled', async () => {
    const database = await freshDatabase();
    databases.push(database);
    const { served, urls } = await replicas('kill', database.url, 1_000_000);
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const targets = [...urls]; // what the load balancer sends to
    // A block of 301 receipts (a body of about 0.3 MB, still 1 CU), verified on a worker thread: each request holds its
    // reservation for the verification, long enough that the kill catches some between reserve and settle. With the
    // smallest block, most of a request was its turns at the store, and on a loaded machine the kill once caught none.
    const loaded = load(targets, receiptBody('mainnet-22869878'), { clients: 48, stop: stopped });
    // Killed once it has served a while, at a moment the store holds reservations of requests in progress.
    for (let now = await charges(database.url); now.settled < 300 || now.held === 0; now = await charges(database.url))
      await sleep(10);
    served[2]!.child.kill('SIGKILL');
    targets.pop(); // taken out of rotation; the requests it had in progress fail
    await served[2]!.exited;
    const atKill = await charges(database.url);
    await sleep(500); // the two others keep serving
    stop();
    const tally = await loaded;
    await sleep(LEASE_MS);
    const reported = (await usage(urls[0]!)).cu_used; // sweeps first
    const after = { ...(await charges(database.url)), reported };
    report('sigkill', tally, { held_at_kill: atKill.held, ...after });
    expect(atKill.held).toBeGreaterThan(0); // the kill caught requests between reserve and settle
    expect(after.held).toBe(0);
    expect(after.used).toBe(after.logged); // nothing charged that the log does not show
    expect(after.reported).toBe(after.logged);
    expect(after.logged).toBe(after.settled); // 1 CU per settled request, none twice
    // Every 2xx a client saw was charged; the killed replica may have charged answers it never delivered.
    expect(after.settled).toBeGreaterThanOrEqual(tally.statuses['200'] ?? 0);
    // Beside the 200s, only the two 503s of a loaded machine, with Retry-After and uncharged: a replica past its wait
    // for a place (SERVICE_UNAVAILABLE), or its store past its connect or statement timeout (STORE_UNAVAILABLE).
    expect(Object.keys(tally.statuses).filter((status) => status !== '503')).toEqual(['200']);
    expect(
      Object.keys(tally.codes).filter((code) => !['SERVICE_UNAVAILABLE', 'STORE_UNAVAILABLE'].includes(code)),
    ).toEqual([]);
    expect(tally.retryAfter['503'] ?? 0).toBe(tally.statuses['503'] ?? 0);
    expect(tally.failed).toBeLessThanOrEqual(48); // only the requests in progress on the killed replica
  }, 120_000);

  it('PostgreSQL restarted under load: only 2xx, 429 or 503 with Retry-After, never a 500; the replicas resume on their own', async () => {
    const cluster = await privateCluster();
    try {
      const { served, urls } = await replicas('restart', cluster.url, 1_000_000);
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      const loaded = load(urls, receiptBody(), { clients: 24, stop: stopped });
      while ((await charges(cluster.url)).settled < 100) await sleep(50);
      cluster.stop();
      await sleep(1500);
      cluster.start();
      // Serving again, through every replica, without restarting any.
      for (const replica of served) expect(replica.child.exitCode, replica.stderr()).toBeNull();
      for (const url of urls) {
        let ready = await fetch(`${url}/v1/ready`);
        while (ready.status !== 200) {
          await sleep(200);
          ready = await fetch(`${url}/v1/ready`);
        }
      }
      await sleep(500);
      stop();
      const tally = await loaded;
      await sleep(LEASE_MS);
      const reported = (await usage(urls[0]!)).cu_used; // sweeps first
      const after = { ...(await charges(cluster.url)), reported };
      report('pg restart', tally, after);
      expect(Object.keys(tally.statuses).sort()).toEqual(['200', '503']);
      expect(tally.retryAfter['503']).toBe(tally.statuses['503']);
      expect(tally.failed).toBe(0);
      expect(after.held).toBe(0);
      expect(after.used).toBe(after.logged);
      expect(after.reported).toBe(after.logged);
      expect(after.settled).toBeGreaterThanOrEqual(tally.statuses['200']!);
      for (const url of urls)
        expect((await load([url], receiptBody(), { clients: 1, total: 1 })).statuses).toEqual({ '200': 1 });
    } finally {
      cluster.destroy();
    }
  }, 180_000);
});
