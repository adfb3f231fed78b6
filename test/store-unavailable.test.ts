/**
 * A store that cannot answer, over real HTTP: 503 STORE_UNAVAILABLE with Retry-After (never a 500),
 * readiness that follows the store, no answer sent unpaid, and service that resumes by itself.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { PostgresStore } from '../packages/service/src/store/postgres/postgres-store.js';
import { StoreError } from '../packages/service/src/store/store-error.js';
import { PENDING_RELEASE_RETRY_MS } from '../packages/service/src/server/admission/pending-releases.js';
import type { RequestRecord, Reservation, SettleResult } from '../packages/service/src/store/store.js';
import {
  freshDatabase,
  postgresStoreOnFreshDatabase,
  privateCluster,
  TEST_DATABASE_URL,
  type FreshDatabase,
} from './helpers/postgres.js';
import { receiptBody } from './helpers/replica-process.js';
import { testConfig } from './helpers/server.js';

const HOUR_MS = 3_600_000;
const KEY = 'evmi_store-unavailable-test-key-0123456789abcdefgh';
const running: RunningServer[] = [];
const databases: FreshDatabase[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});
afterAll(async () => {
  for (const database of databases) await database.drop();
});

const config = (cuLimit: number) =>
  testConfig({
    poolWorkers: 0,
    accounts: [
      {
        id: 'acme',
        name: 'Acme',
        plan: 'pro',
        cuLimit,
        rateLimitRps: 1000,
        entitlements: null,
        keys: [{ label: 'ci', key: KEY }],
      },
    ],
  });

async function serve(store: MemoryStore | PostgresStore, cuLimit = 100): Promise<RunningServer> {
  const server = await startServer(config(cuLimit), { logger: pino({ level: 'silent' }), store });
  running.push(server);
  return server;
}

const verify = (url: string) =>
  fetch(`${url}/v1/evm/verify/receipt-root`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: receiptBody(),
  });

/** A memory store whose settles fail as a store that went away at that moment. */
class SettleFails extends MemoryStore {
  override settle(): Promise<SettleResult> {
    return Promise.reject(new StoreError('STORE_UNAVAILABLE', 'the store went away'));
  }
}

/**
 * A memory store in which, while the request is verified, its lease runs out and its CU go back, and another
 * request takes the last of the allowance: the settle finds no room.
 */
class LeaseRunsOut extends MemoryStore {
  override async settle(reservation: Reservation, request: RequestRecord, now: Date): Promise<SettleResult> {
    const later = new Date(Date.parse(reservation.expiresAt));
    expect(await this.sweepExpiredHolds(later)).toBe(1);
    expect((await this.reserve(reservation.accountId, 'verify/logs-bloom', 1, later)).ok).toBe(true);
    return super.settle(reservation, request, now);
  }
}

/** A store whose first settle fails as a store that went away at that moment; it answers again at once. */
function settleFailsOnce<T extends MemoryStore | PostgresStore>(store: T): T {
  const settle = store.settle.bind(store);
  let failed = false;
  store.settle = (...args) => {
    if (failed) return settle(...args);
    failed = true;
    return Promise.reject(new StoreError('STORE_UNAVAILABLE', 'the store went away'));
  };
  return store;
}

/** Resolves once the account holds no CU (PendingReleases tries again every PENDING_RELEASE_RETRY_MS). */
async function heldGoneBack(store: MemoryStore | PostgresStore): Promise<void> {
  while ((await store.usage('acme', new Date())).cuHeld > 0)
    await new Promise((resolve) => setTimeout(resolve, PENDING_RELEASE_RETRY_MS / 4));
}

describe('a store that cannot answer', () => {
  // A lease of an hour: only the release tried again can give the CU back within the test's time.
  it.each([
    ['MemoryStore', async () => new MemoryStore({ reservationLeaseMs: HOUR_MS })],
    ['PostgresStore', () => postgresStoreOnFreshDatabase(databases, { reservationLeaseMs: HOUR_MS })],
  ])(
    '%s: a settle that fails is answered 503, and its CU come back once the store answers again, not when the lease runs out',
    async (_, open) => {
      const store = settleFailsOnce(await open());
      const server = await serve(store);
      expect((await verify(server.url)).status).toBe(503);
      expect((await store.usage('acme', new Date())).cuHeld).toBe(1);
      await heldGoneBack(store);
      expect(await store.usage('acme', new Date())).toMatchObject({ cuUsed: 0, cuHeld: 0 });
      expect((await verify(server.url)).status).toBe(200);
      expect((await store.usage('acme', new Date())).cuUsed).toBe(1);
    },
    60_000,
  );

  it('a settle that fails gives 503 STORE_UNAVAILABLE with Retry-After, not the answer; the request is not logged as charged', async () => {
    const store = new SettleFails();
    const server = await serve(store);
    const res = await verify(server.url);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    const body = (await res.json()) as { error: { code: string; retryable: boolean } };
    expect(body.error).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
    expect(store.requests('acme')).toEqual([]);
  });

  it('a settle whose lease ran out and whose allowance is gone gives 429, not the answer, and charges nothing', async () => {
    const store = new LeaseRunsOut();
    const server = await serve(store, 1);
    const res = await verify(server.url);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: { details: { limit_scope: string } } }).error.details.limit_scope).toBe(
      'cu_allowance',
    );
    expect(store.requests('acme').map((r) => [r.status, r.cu])).toEqual([[429, 0]]);
    expect((await store.usage('acme', new Date(Date.now() + 10 * 60_000))).cuByEndpoint).toEqual({});
  });

  it('PostgreSQL stopped: verify and ready answer 503 with Retry-After, health 200; started again: all resume', async () => {
    const cluster = await privateCluster();
    try {
      const store = new PostgresStore({
        databaseUrl: cluster.url,
        poolSize: 4,
        statementTimeoutMs: 2000,
        connectTimeoutMs: 1000,
      });
      const server = await serve(store);
      expect((await verify(server.url)).status).toBe(200);
      expect((await fetch(`${server.url}/v1/ready`)).status).toBe(200);
      cluster.stop();
      const refused = await verify(server.url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
      const notReady = await fetch(`${server.url}/v1/ready`);
      expect([notReady.status, notReady.headers.get('retry-after')]).toEqual([503, '2']);
      expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
      cluster.start();
      expect((await fetch(`${server.url}/v1/ready`)).status).toBe(200);
      expect((await verify(server.url)).status).toBe(200);
      expect((await store.usage('acme', new Date())).cuUsed).toBe(2);
    } finally {
      cluster.destroy();
    }
  }, 60_000);

  it('a database that refuses connections (ALLOW_CONNECTIONS false): ready, usage, chains and verify answer 503 with Retry-After; allowed again: all resume', async () => {
    const database = await freshDatabase();
    databases.push(database);
    const store = new PostgresStore({
      databaseUrl: database.url,
      poolSize: 4,
      statementTimeoutMs: 2000,
      connectTimeoutMs: 2000,
    });
    const server = await serve(store);
    expect((await verify(server.url)).status).toBe(200);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS false`);
      // The pool's connections made before: cut, so that every request has to connect again.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database.name]);
      const keyed = { headers: { Authorization: `Bearer ${KEY}` } };
      for (const answer of [
        () => fetch(`${server.url}/v1/ready`),
        () => fetch(`${server.url}/v1/usage`, keyed),
        () => fetch(`${server.url}/v1/chains`, keyed),
        () => verify(server.url),
      ]) {
        const res = await answer();
        const body = (await res.json()) as { error: { code: string } };
        expect([res.status, res.headers.get('retry-after'), body.error.code]).toEqual([503, '2', 'STORE_UNAVAILABLE']);
      }
      await admin.query(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS true`);
      expect((await fetch(`${server.url}/v1/ready`)).status).toBe(200);
      expect((await verify(server.url)).status).toBe(200);
      expect((await store.usage('acme', new Date())).cuUsed).toBe(2);
    } finally {
      await admin.query(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
  }, 60_000);

  it('a password refused while connecting (rotated on the server first): 503 with Retry-After; the password the store has accepted again: all resume', async () => {
    const cluster = await privateCluster({ password: 'admin-password' });
    const admin = new pg.Client({ connectionString: cluster.url });
    try {
      await admin.connect();
      await admin.query(`CREATE ROLE service LOGIN SUPERUSER PASSWORD 'old-password'`);
      const url = new URL(cluster.url);
      [url.username, url.password] = ['service', 'old-password'];
      const store = new PostgresStore({
        databaseUrl: url.toString(),
        poolSize: 4,
        statementTimeoutMs: 2000,
        connectTimeoutMs: 2000,
      });
      const server = await serve(store);
      expect((await verify(server.url)).status).toBe(200);
      await admin.query(`ALTER ROLE service PASSWORD 'new-password'`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'service'`);
      for (const answer of [() => fetch(`${server.url}/v1/ready`), () => verify(server.url)]) {
        const res = await answer();
        const body = (await res.json()) as { error: { code: string } };
        expect([res.status, res.headers.get('retry-after'), body.error.code]).toEqual([503, '2', 'STORE_UNAVAILABLE']);
      }
      await admin.query(`ALTER ROLE service PASSWORD 'old-password'`);
      expect((await fetch(`${server.url}/v1/ready`)).status).toBe(200);
      expect((await verify(server.url)).status).toBe(200);
    } finally {
      await admin.end();
      cluster.destroy();
    }
  }, 60_000);
});
