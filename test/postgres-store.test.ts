/**
 * What only the PostgreSQL store has to show (its contract is test/store.test.ts, run on all three
 * stores): migrations when replicas start at once, CU exact across pools, the database's clock for
 * rate windows, and a database that stops and comes back.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_SCHEMA_VERSION } from '../packages/service/src/store/postgres/migrations.js';
import { PostgresStore, type PostgresStoreOptions } from '../packages/service/src/store/postgres/postgres-store.js';
import { CONFLICT_ATTEMPTS } from '../packages/service/src/store/postgres/unavailable.js';
import type { Reservation } from '../packages/service/src/store/store.js';
import { refersToMissingRow, StoreError } from '../packages/service/src/store/store-error.js';
import { cuttingProxy } from './helpers/cutting-proxy.js';
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

/** The deadlocks PostgreSQL detected in `url`'s database, once `store` is closed (its connections' counts flushed). */
async function deadlocksIn(url: string, store: PostgresStore): Promise<number> {
  await store.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // A backend counts its deadlocks in the statistics before it leaves pg_stat_activity.
    const others =
      'SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()';
    while ((await client.query<{ n: number }>(others)).rows[0]!.n > 0) await new Promise((r) => setTimeout(r, 50));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ deadlocks: number }>(
      'SELECT deadlocks::integer AS deadlocks FROM pg_stat_database WHERE datname = current_database()',
    );
    return rows[0]!.deadlocks;
  } finally {
    await client.end();
  }
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

  it("deleteAccount while a request of the account adds a row (a logged request, not yet committed): the delete waits for it, deletes it too and succeeds (it failed the accounts' foreign key: a user check)", async () => {
    const url = await database();
    const store = open(url);
    await store.createAccount(ACME, T0);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        "INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at) VALUES ('late', 'acme', 'verify/receipt-root', 200, 1, '2024-01-01', '2024-01-31T10:00:00.000Z')",
      );
      const deleting = store.deleteAccount('acme');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.query('COMMIT');
      expect(await deleting).toEqual({ keys: 0, requests: 1 });
      expect(await store.getAccount('acme')).toBeUndefined();
      // A row added once the account is gone is refused by its foreign key, which the server answers 401.
      const late = await rejection(
        other.query("INSERT INTO rate_windows (account_id, window_start, count) VALUES ('acme', 0, 1)"),
      );
      expect(refersToMissingRow(late)).toBe(true);
    } finally {
      await other.end();
    }
  });

  it('a store started while another replica holds the migration lock waits for it past its statement timeout, then migrates (it exited at the timeout: a user check)', async () => {
    const url = await database();
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [0x65766d69]);
      const store = open(url, { statementTimeoutMs: 300 });
      let settled = false;
      const first = store.ping().finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(settled).toBe(false);
      await other.query('SELECT pg_advisory_unlock($1)', [0x65766d69]);
      await first;
      const { rows } = await other.query<{ version: number }>(
        'SELECT max(version)::integer AS version FROM schema_migrations',
      );
      expect(rows[0]!.version).toBe(PG_SCHEMA_VERSION);
    } finally {
      await other.end();
    }
  });

  it("holds past their lease are given back, and a reserve without room refused, while another transaction holds the account's lock: no request waits for it", async () => {
    const url = await database();
    // A statement that waited for the lock would be cancelled after a second: STORE_UNAVAILABLE, not an answer.
    const store = open(url, { reservationLeaseMs: 1000, statementTimeoutMs: 1000 });
    await store.createAccount({ ...ACME, cuLimit: 10 }, T0);
    const at = (ms: number) => new Date(Date.parse('2024-02-01T00:00:00.000Z') + ms);
    expect((await store.reserve('acme', 'verify/receipt-root', 4, at(0))).ok).toBe(true);
    expect((await store.reserve('acme', 'verify/logs-bloom', 3, at(1500))).ok).toBe(true);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      // As a late settle or a period roll of another replica holds it.
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM accounts WHERE id = 'acme' FOR NO KEY UPDATE`);
      expect(await store.usage('acme', at(2000))).toMatchObject({ cuUsed: 0, cuHeld: 3 });
      expect((await store.reserve('acme', 'verify/receipt-root', 5, at(3000))).ok).toBe(true);
      expect(await store.usage('acme', at(3000))).toMatchObject({ cuUsed: 0, cuHeld: 5 });
      const refused = await store.reserve('acme', 'verify/receipt-root', 6, at(3000));
      expect(refused.ok || refused.error.usage).toMatchObject({ cuUsed: 0, cuHeld: 5 });
      expect(await store.sweepExpiredHolds(at(5000))).toBe(1);
      expect(await store.usage('acme', at(5000))).toMatchObject({ cuUsed: 0, cuHeld: 0, cuByEndpoint: {} });
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
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

  it('a burst of reserves, settles, releases and sweeps of one account takes its row locks in one order: no deadlock, none refused, CU exact', async () => {
    const url = await database();
    const store = open(url, { poolSize: 16, reservationLeaseMs: 1000, connectTimeoutMs: 60_000 });
    await store.createAccount({ ...ACME, cuLimit: 40 }, T0);
    const t = new Date('2024-02-01T00:00:00.000Z');
    // Half the requests come after the first half's leases ran out: they sweep, and late settles take CU again.
    const later = new Date(t.getTime() + 2000);
    const settled = await Promise.all(
      Array.from({ length: 400 }, async (_, i): Promise<number> => {
        const now = i % 2 === 0 ? t : later;
        const held = await store.reserve('acme', i % 3 === 0 ? 'e' : 'f', 1, now);
        if (!held.ok) return 0;
        const { reservation } = held.value;
        const record = { requestId: `r${i}`, endpoint: reservation.endpoint, status: 200, cu: 1 };
        if (i % 4 < 2) {
          if ((await store.settle(reservation, record, now)).ok) return 1;
        }
        await store.release(reservation, { ...record, status: 500, cu: 0 }, now);
        return 0;
      }),
    );
    const usage = await store.usage('acme', later);
    expect(await deadlocksIn(url, store)).toBe(0);
    expect([usage.cuUsed, usage.cuHeld]).toEqual([settled.reduce((a, b) => a + b, 0), 0]);
  });

  it('a statement or transaction rolled back by a deadlock is run again, a bounded number of times', async () => {
    const url = await database();
    const store = open(url);
    await store.createAccount(ACME, T0);
    const t = new Date('2024-02-01T00:00:00.000Z');
    // Logging a request fails with a deadlock as long as the sequence is below its bound.
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    const failLogging = async (times: number) => {
      await sql.query(`DROP SEQUENCE IF EXISTS conflicts; CREATE SEQUENCE conflicts;
        CREATE OR REPLACE FUNCTION conflict() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          IF nextval('conflicts') <= ${times} THEN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END IF;
          RETURN NEW; END $$;
        CREATE OR REPLACE TRIGGER conflict BEFORE INSERT ON requests FOR EACH ROW EXECUTE FUNCTION conflict();`);
    };
    const record = (requestId: string) => ({ requestId, endpoint: 'e', status: 200, cu: 1 });
    try {
      const held = async () => {
        const result = await store.reserve('acme', 'e', 1, t);
        if (!result.ok) throw new Error('refused');
        return result.value.reservation;
      };
      // The one-statement settle, then a late settle (a transaction), each rolled back twice.
      await failLogging(CONFLICT_ATTEMPTS - 1);
      expect((await store.settle(await held(), record('a'), t)).ok).toBe(true);
      const late = await held();
      await store.sweepExpiredHolds(new Date(Date.parse(late.expiresAt)));
      await failLogging(CONFLICT_ATTEMPTS - 1);
      expect((await store.settle(late, record('b'), t)).ok).toBe(true);
      // Past the bound: STORE_UNAVAILABLE, nothing changed; the hold can still be released.
      const refused = await held();
      await failLogging(CONFLICT_ATTEMPTS);
      expect(await rejection(store.settle(refused, record('c'), t))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await store.release(refused, { ...record('c'), status: 503, cu: 0 }, t);
      const logged = await sql.query<{ request_id: string; cu: number }>(
        'SELECT request_id, cu::integer AS cu FROM requests ORDER BY seq',
      );
      expect(logged.rows).toEqual([
        { request_id: 'a', cu: 1 },
        { request_id: 'b', cu: 1 },
        { request_id: 'c', cu: 0 },
      ]);
      expect((await store.usage('acme', t)).cuUsed).toBe(2);
    } finally {
      await sql.end();
    }
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

  it('statements prepared on a connection keep working once a newer schema adds columns to every table', async () => {
    const url = await database();
    // One connection, so the statements run below are the ones it prepared.
    const store = open(url, { poolSize: 1 });
    await store.createAccount(ACME, T0);
    const key = await store.createKey('acme', 'ci', T0);
    const request = async (n: number) => {
      expect((await store.authenticate(key.key)).status).toBe('active');
      expect((await store.takeRateToken('acme', 5, T0.getTime() + n * 1000)).allowed).toBe(true);
      const held = await store.reserve('acme', 'verify/receipt-root', 1, T0);
      if (!held.ok) throw new Error('expected room');
      expect(
        (
          await store.settle(
            held.value.reservation,
            { requestId: `r${n}`, endpoint: 'verify/receipt-root', status: 200, cu: 1 },
            T0,
          )
        ).ok,
      ).toBe(true);
      return store.usage('acme', T0);
    };
    await request(1);
    await request(2);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
      );
      expect(rows.length).toBeGreaterThanOrEqual(6);
      for (const { name } of rows) await admin.query(`ALTER TABLE ${name} ADD COLUMN later_column text`);
    } finally {
      await admin.end();
    }
    expect(await request(3)).toMatchObject({ cuUsed: 3, cuHeld: 0 });
  });

  it('a connection lost right after a reserve committed its hold leaves no hold without a reservation to end it', async () => {
    const url = await database();
    const proxy = await cuttingProxy(url);
    try {
      const store = open(proxy.url, { poolSize: 1 });
      await store.createAccount(ACME, T0);
      const request = { requestId: 'r1', endpoint: 'verify/receipt-root', status: 200, cu: 2 };
      proxy.cutAfterNextAnswer();
      // The reserve's one statement is answered, then its connection is gone: it must hold nothing it cannot end.
      const held = await store.reserve('acme', 'verify/receipt-root', 2, T0);
      if (!held.ok) throw new Error('expected room');
      // The next statement finds the connection lost, as the server's PendingReleases would: tried again.
      let settled = await store.settle(held.value.reservation, request, T0).catch((error: unknown) => error);
      if (settled instanceof StoreError) settled = await store.settle(held.value.reservation, request, T0);
      expect(settled).toEqual({ ok: true, value: undefined });
      expect(await store.usage('acme', T0)).toMatchObject({ cuUsed: 2, cuHeld: 0 });
    } finally {
      await proxy.close();
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
