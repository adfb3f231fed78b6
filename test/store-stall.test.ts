/**
 * A PostgreSQL store that stalls, over real HTTP on loopback and a real database: the parallel requests of one account
 * queue behind its two connections, and each is answered within pg_connect_timeout_ms + pg_statement_timeout_ms
 * (+ 1 s when the database stops answering altogether): 503 STORE_UNAVAILABLE with Retry-After, never after one
 * statement timeout per request queued ahead. Stalled two ways: a row that every request writes locked by another
 * transaction, and a network pause between the server and PostgreSQL (a TCP proxy that stops passing bytes).
 */
import type { Socket } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { postgresProxy } from './helpers/postgres-proxy.js';
import { receiptBody } from './helpers/replica-process.js';
import { testConfig } from './helpers/server.js';

const KEY = 'evmi_store-stall-test-key-0123456789abcdefghijklm';
const CONNECT_MS = 1000;
const STATEMENT_MS = 1000;
/**
 * The documented bound (docs/service.md): both timeouts, and the server's own second past the statement's; and half a
 * second for the rest of the request's work (HTTP, the verification) on a busy test machine.
 */
const BOUND_MS = CONNECT_MS + STATEMENT_MS + 1000 + 500;
/** Requests of the one account sent at once: five times its two connections. */
const PARALLEL = 10;
const databases: FreshDatabase[] = [];
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function serve(databaseUrl: string): Promise<RunningServer> {
  const server = await startServer(
    testConfig({
      store: 'postgres',
      databaseUrl,
      pgPoolSize: 3,
      pgConnectTimeoutMs: CONNECT_MS,
      pgStatementTimeoutMs: STATEMENT_MS,
      poolWorkers: 0,
      accounts: [
        {
          id: 'acme',
          name: 'Acme',
          plan: 'pro',
          cuLimit: 100_000,
          rateLimitRps: 10_000,
          entitlements: null,
          keys: [{ label: 'test', key: KEY }],
        },
      ],
    }),
    { logger: pino({ level: 'silent' }) },
  );
  running.push(server);
  return server;
}

const BODY = receiptBody();
const verify = (url: string) =>
  fetch(`${url}/v1/evm/verify/receipt-root`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: BODY,
  });

/** PARALLEL requests at once: each one's status, Retry-After, error code and milliseconds to its answer. */
async function flood(url: string) {
  const started = performance.now();
  return Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      const res = await verify(url);
      const body = (await res.json()) as { error?: { code: string } };
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        code: body.error?.code,
        ms: performance.now() - started,
      };
    }),
  );
}

/** Every answer a 503 STORE_UNAVAILABLE with Retry-After, within the bound. */
function expectAllRefusedInTime(answers: Awaited<ReturnType<typeof flood>>): void {
  for (const answer of answers)
    expect(answer).toMatchObject({ status: 503, retryAfter: '2', code: 'STORE_UNAVAILABLE' });
  expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(BOUND_MS);
}

it('a row every request writes is locked: each of the parallel requests is answered 503 within the bound, and nothing stays held', async () => {
  const database = await freshDatabase();
  databases.push(database);
  const server = await serve(database.url);
  // The account's rows exist, and its key is known to be its own.
  expect((await verify(server.url)).status).toBe(200);
  const locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query("SELECT 1 FROM rate_windows WHERE account_id = 'acme' FOR UPDATE");
    expectAllRefusedInTime(await flood(server.url));
    await locker.query('COMMIT');
    expect((await verify(server.url)).status).toBe(200);
    const usage = await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(await usage.json()).toMatchObject({ cu_used: 2, cu_held: 0 });
  } finally {
    await locker.end();
  }
}, 30_000);

/** A TCP proxy to PostgreSQL that, paused, passes no byte either way (holding them) and answers no new connection. */
async function pausingProxy(target: string) {
  const held: (() => void)[] = [];
  let paused = false;
  /** Passes what `from` sends to `to`, or holds it while paused. */
  const forward = (from: Socket, into: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (paused) held.push(() => into.write(chunk));
      else into.write(chunk);
    });
  const proxy = await postgresProxy(target, (client, upstream) => {
    forward(client, upstream);
    forward(upstream, client);
  });
  return {
    ...proxy,
    pause: (on: boolean) => {
      paused = on;
      if (!on) for (const pass of held.splice(0)) pass();
    },
  };
}

it('the network to PostgreSQL pauses: each of the parallel requests is answered 503 within the bound; resumed, service resumes', async () => {
  const database = await freshDatabase();
  databases.push(database);
  const proxy = await pausingProxy(database.url);
  try {
    const server = await serve(proxy.url);
    expect((await verify(server.url)).status).toBe(200);
    proxy.pause(true);
    expectAllRefusedInTime(await flood(server.url));
    proxy.pause(false);
    let status = 0;
    for (let tries = 0; tries < 20 && status !== 200; tries++) {
      status = (await verify(server.url)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  } finally {
    await proxy.close();
  }
}, 30_000);
