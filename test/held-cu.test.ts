/**
 * CU held by requests in progress, over real HTTP, on the memory store and on PostgreSQL: they are
 * `cu_held` in GET /v1/usage, never `cu_used`, and while they alone stand in the way the answer is a
 * retryable 429 with a short Retry-After, not the allowance used up until the period resets.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { HELD_RETRY_AFTER_SECONDS } from '../packages/service/src/server/middleware/allowance.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import type { Reservation, Store } from '../packages/service/src/store/store.js';
import { postgresStoreOnFreshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { receiptBody } from './helpers/replica-process.js';
import { testConfig } from './helpers/server.js';

const KEY = 'evmi_held-cu-test-key-0123456789abcdefghijklmnopq';
const ENDPOINT = 'verify/receipt-root';
const running: RunningServer[] = [];
const databases: FreshDatabase[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});
afterAll(async () => {
  for (const database of databases) await database.drop();
});

const STORES: { name: string; open: () => Promise<Store> }[] = [
  { name: 'MemoryStore', open: async () => new MemoryStore() },
  {
    name: 'PostgresStore',
    open: () => postgresStoreOnFreshDatabase(databases),
  },
];

/** A server whose one account, `acme`, may spend `cuLimit` CU. */
async function serve(store: Store, cuLimit: number): Promise<RunningServer> {
  const config = testConfig({
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
  const server = await startServer(config, { logger: pino({ level: 'silent' }), store });
  running.push(server);
  return server;
}

const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` };
const verify = (url: string) =>
  fetch(`${url}/v1/evm/verify/receipt-root`, { method: 'POST', headers, body: receiptBody() });
const usageAt = async (url: string) =>
  (await (await fetch(`${url}/v1/usage`, { headers })).json()) as Record<string, unknown>;

interface Problem {
  message: string;
  retryable: boolean;
  details: Record<string, unknown>;
}
const problemOf = async (res: Response) => ((await res.json()) as { error: Problem }).error;

describe.each(STORES)('$name', ({ open }) => {
  it('CU held by a request in progress are cu_held, and refuse a request with a retryable 429 while the CU charged leave room', async () => {
    const store = await open();
    const server = await serve(store, 2);
    expect((await verify(server.url)).status).toBe(200);
    // A request of another replica, in progress: its CU are held.
    const held = await store.reserve('acme', ENDPOINT, 1, new Date());
    const reservation = (held.ok && held.value.reservation) as Reservation;
    expect(await usageAt(server.url)).toMatchObject({ cu_limit: 2, cu_used: 1, cu_held: 1, cu_remaining: 1 });

    const refused = await verify(server.url);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, String(HELD_RETRY_AFTER_SECONDS)]);
    const problem = await problemOf(refused);
    expect(problem).toMatchObject({
      retryable: true,
      details: { limit_scope: 'cu_allowance', cu_limit: 2, cu_used: 1, cu_held: 1, retry_after_seconds: 1 },
    });
    expect(problem.message).toMatch(/held by requests in progress/);

    // The request in progress fails: its CU come back, and the next request is served.
    await store.release(reservation, { requestId: 'other', endpoint: ENDPOINT, status: 500, cu: 0 }, new Date());
    expect((await verify(server.url)).status).toBe(200);
    expect(await usageAt(server.url)).toMatchObject({ cu_used: 2, cu_held: 0, cu_remaining: 0 });

    // Now the CU charged use the allowance up: not retryable, until the period resets.
    const usedUp = await verify(server.url);
    expect(usedUp.status).toBe(429);
    expect(Number(usedUp.headers.get('retry-after'))).toBeGreaterThan(86_400);
    expect(await problemOf(usedUp)).toMatchObject({ retryable: false, details: { cu_used: 2, cu_held: 0 } });
  });
});
