/**
 * What only the PostgreSQL store has to show (its contract is test/store.test.ts, run on all three
 * stores): migrations when replicas start at once, CU exact across pools, the database's clock for
 * rate windows, and a database that stops and comes back.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_SCHEMA_VERSION } from '../packages/service/src/store/postgres/migrations.js';
import { PostgresStore, type PostgresStoreOptions } from '../packages/service/src/store/postgres/postgres-store.js';
import type { Reservation } from '../packages/service/src/store/store.js';
import { StoreError } from '../packages/service/src/store/store-error.js';
import { freshDatabase, privateCluster, type FreshDatabase } from './helpers/postgres.js';

const T0 = new Date('2024-01-31T10:00:00.000Z');
const ACME = { id: 'acme', name: 'Acme', plan: 'pro', cuLimit: 50, rateLimitRps: 5 };
const databases: FreshDatabase[] = [];
const opened: PostgresStore[] = [];

afterAll(async () => {
  for (const store of opened) await store.close();
  for (const database of databases) await database.drop();
});

async function database(): Promise<string> {
  const db = await freshDatabase();
  databases.push(db);
  return db.url;
}

function open(databaseUrl: string, options: Partial<PostgresStoreOptions> = {}): PostgresStore {
  const store = new PostgresStore({
    databaseUrl,
    poolSize: 4,
    statementTimeoutMs: 5000,
    connectTimeoutMs: 2000,
    ...options,
  });
  opened.push(store);
  return store;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('PostgresStore', () => {
  it('three stores opened at once on one empty database migrate it once, each version recorded once', async () => {
    const url = await database();
    const stores = [open(url), open(url), open(url)];
    await Promise.all(stores.map((store) => store.ping()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await client.end();
    }
    // And a later start finds nothing to do.
    await open(url).ping();
  });

  it('three replicas (three pools) racing for 50 CU with 120 reservations get exactly 50 between them', async () => {
    const url = await database();
    const stores = [open(url), open(url), open(url)];
    await stores[0]!.createAccount(ACME, T0);
    const t = new Date('2024-02-01T00:00:00.000Z');
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) => stores[i % 3]!.reserve('acme', 'verify/receipt-root', 1, t)),
    );
    const held = results.flatMap((r) => (r.ok ? [r.value.reservation] : []));
    expect(held).toHaveLength(50);
    await Promise.all(
      held.map((r: Reservation, i) =>
        stores[i % 3]!.settle(r, { requestId: `r${i}`, endpoint: r.endpoint, status: 200, cu: 1 }, t),
      ),
    );
    expect(await stores[1]!.usage('acme', t)).toMatchObject({
      cuUsed: 50,
      cuByEndpoint: { 'verify/receipt-root': 50 },
    });
  });

  it("counts requests per second on the database's clock, whatever clock each replica passes", async () => {
    const url = await database();
    const [a, b] = [open(url), open(url)];
    await a.createAccount(ACME, T0);
    // Two replicas whose clocks are 50 years apart share one window: the database's current second.
    await a.takeRateToken('acme', 5, 0);
    await b.takeRateToken('acme', 5, Date.UTC(2070, 0, 1));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ gap: number; count: number }>(
        "SELECT abs(window_start - extract(epoch FROM clock_timestamp()) * 1000)::float8 AS gap, count FROM rate_windows WHERE account_id = 'acme'",
      );
      expect(rows[0]!.gap).toBeLessThan(60_000);
      expect(rows[0]!.count).toBeGreaterThanOrEqual(1);
    } finally {
      await client.end();
    }
  });

  it('a database that cannot be reached is STORE_UNAVAILABLE', async () => {
    const store = open('postgres://postgres@127.0.0.1:1/none', { connectTimeoutMs: 1000 });
    expect(await rejection(store.ping())).toMatchObject({ name: 'StoreError', code: 'STORE_UNAVAILABLE' });
    expect(await rejection(store.reserve('acme', 'e', 1, T0))).toBeInstanceOf(StoreError);
  });

  it('a database that stops answers STORE_UNAVAILABLE, and the same store resumes once it is back', async () => {
    const cluster = await privateCluster();
    try {
      const store = open(cluster.url, { connectTimeoutMs: 1000 });
      await store.createAccount(ACME, T0);
      const t = new Date('2024-02-01T00:00:00.000Z');
      const held = await store.reserve('acme', 'e', 1, t);
      expect(held.ok).toBe(true);
      cluster.stop();
      expect(await rejection(store.reserve('acme', 'e', 1, t))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await rejection(store.ping())).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      cluster.start();
      await store.ping();
      if (held.ok) await store.settle(held.value.reservation, { requestId: 'r', endpoint: 'e', status: 200, cu: 1 }, t);
      expect((await store.usage('acme', t)).cuUsed).toBe(1);
    } finally {
      cluster.destroy();
    }
  }, 60_000);
});
