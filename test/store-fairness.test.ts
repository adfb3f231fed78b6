/**
 * Turns at PostgreSQL's connections by account, over real HTTP on loopback and a real database: while one
 * account's requests hold all the connections it may (stuck on a row of its own that a test transaction locks)
 * and more of them wait, another account's request is served, ahead of them.
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { Turns } from '../packages/service/src/store/turns.js';
import { WaitBudget } from '../packages/service/src/store/wait-budget.js';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { receiptBody } from './helpers/replica-process.js';
import { testConfig } from './helpers/server.js';

const FLOOD_KEY = 'evmi_fairness-flood-key-0123456789abcdefghijklmno';
const OTHER_KEY = 'evmi_fairness-other-key-0123456789abcdefghijklmno';
let database: FreshDatabase;
let server: RunningServer;
let locker: pg.Client;

beforeAll(async () => {
  database = await freshDatabase();
  const account = (id: string, key: string) => ({
    id,
    name: id,
    plan: 'pro',
    cuLimit: 100_000,
    rateLimitRps: 10_000,
    entitlements: null,
    keys: [{ label: 'test', key }],
  });
  server = await startServer(
    testConfig({
      store: 'postgres',
      databaseUrl: database.url,
      pgPoolSize: 3,
      poolWorkers: 0,
      accounts: [account('flood', FLOOD_KEY), account('other', OTHER_KEY)],
    }),
    { logger: pino({ level: 'silent' }) },
  );
  locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
});
afterAll(async () => {
  await locker?.end();
  await server?.close();
  await database?.drop();
});

const verify = (key: string) =>
  fetch(`${server.url}/v1/evm/verify/receipt-root`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: receiptBody(),
  });

/** The server's statements waiting for a lock (the test's own connection holds it, it does not wait). */
async function waitingOnLocks(): Promise<number> {
  // Inside its transaction the test's connection would see the activity as it first read it.
  await locker.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await locker.query<{ n: number }>(
    "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return rows[0]!.n;
}

it("another account is served while one account's requests hold its share of the connections and more wait", async () => {
  // Each account's rows exist, and its key is known to be its own.
  expect((await verify(FLOOD_KEY)).status).toBe(200);
  expect((await verify(OTHER_KEY)).status).toBe(200);

  // Every request of `flood` now stops at its rate window, holding a connection, until the lock is let go.
  await locker.query('BEGIN');
  await locker.query("SELECT 1 FROM rate_windows WHERE account_id = 'flood' FOR UPDATE");
  let finished = 0;
  const flood = Array.from({ length: 6 }, () =>
    verify(FLOOD_KEY).then(async (res) => {
      finished++;
      await res.arrayBuffer();
      return res.status;
    }),
  );
  // Two of the three connections are as many as one account may hold: two wait on the lock, four for a turn.
  while ((await waitingOnLocks()) < 2) await new Promise((resolve) => setTimeout(resolve, 20));

  const other = await verify(OTHER_KEY);
  expect(other.status).toBe(200);
  expect(finished).toBe(0);

  await locker.query('COMMIT');
  expect(await Promise.all(flood)).toEqual([200, 200, 200, 200, 200, 200]);
});

it('operations waiting take the freed connections in turn by account, oldest first within one', async () => {
  const turns = new Turns(1, 1);
  const started: string[] = [];
  const releases: (() => void)[] = [];
  /** An operation of `owner` that ends when the test lets it. */
  const operation = (owner: string, name: string) =>
    turns.run(owner, () => {
      started.push(name);
      return new Promise<void>((resolve) => releases.push(resolve));
    });
  const runs = [operation('a', 'a1'), operation('a', 'a2'), operation('a', 'a3'), operation('b', 'b1')];
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()!();
  }
  await Promise.all(runs);
  expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
});

it('an operation that waits past its budget fails STORE_UNAVAILABLE, not run, and leaves its turn to the next', async () => {
  const turns = new Turns(1, 1);
  let release = () => {};
  const first = turns.run('a', () => new Promise<void>((resolve) => (release = resolve)));
  let ran = false;
  const late = turns.run('a', async () => void (ran = true), new WaitBudget(20));
  const next = turns.run('a', async () => 'next');
  await expect(late).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  release();
  await first;
  expect(await next).toBe('next');
  expect(ran).toBe(false);
});
