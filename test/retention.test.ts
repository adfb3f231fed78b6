/**
 * The request log's retention: rows older than request_retention_days go, at start and hourly;
 * usage figures stay as they were.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, parseConfig } from '../packages/service/src/server/config/config.js';
import { keepRequestLog } from '../packages/service/src/server/retention.js';
import { startServer, storeFile } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { SqliteStore } from '../packages/service/src/store/sqlite/sqlite-store.js';
import { DEFAULT_REQUEST_RETENTION_DAYS, type Store } from '../packages/service/src/store/store.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const NOW = new Date('2026-06-15T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Logs one settled request per age in `ages` (days before NOW) for account `acme`. */
async function logRequests(store: Store, ages: number[]) {
  await store.createAccount({ id: 'acme', name: 'Acme', plan: 'pro', cuLimit: 1000, rateLimitRps: 10 }, daysAgo(400));
  for (const [i, age] of ages.entries()) {
    const held = await store.reserve('acme', 'verify/receipt-root', 1, daysAgo(age));
    if (!held.ok) throw new Error('allowance refused');
    await store.settle(
      held.value.reservation,
      { requestId: `r${i}`, endpoint: 'verify/receipt-root', status: 200, cu: 1 },
      daysAgo(age),
    );
  }
}

describe('request log retention', () => {
  it('keepRequestLog prunes rows older than the retention at once, keeps the rest and the usage figures', async () => {
    const store = new MemoryStore();
    await logRequests(store, [100, 50, 46, 44, 10, 0]);
    const usageBefore = await store.usage('acme', NOW);
    const log = capturingLogger();
    const stop = await keepRequestLog(store, 45, log.logger, () => NOW);
    stop();
    expect(store.requests('acme').map((r) => r.requestId)).toEqual(['r3', 'r4', 'r5']);
    expect(await store.usage('acme', NOW)).toEqual(usageBefore);
    expect(log.lines.find((l) => l.msg === 'request log pruned')).toMatchObject({
      removed: 3,
      request_retention_days: 45,
    });
  });

  it('request_retention_days is a configuration member, 45 days by default (a 31-day period plus 14 days)', () => {
    expect(DEFAULT_CONFIG.requestRetentionDays).toBe(DEFAULT_REQUEST_RETENTION_DAYS);
    expect(DEFAULT_REQUEST_RETENTION_DAYS).toBe(45);
    expect(parseConfig({ request_retention_days: 7 }).requestRetentionDays).toBe(7);
    expect(() => parseConfig({ request_retention_days: 0 })).toThrow(
      'request_retention_days: expected a positive number of days, got 0',
    );
  });

  it('a server prunes its SQLite log when it starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-integrity-retention-'));
    dirs.push(dataDir);
    const seeded = new SqliteStore(storeFile(dataDir));
    // Real time here: the server prunes against the clock.
    const ages = [400, 60, 1];
    await seeded.createAccount(
      { id: 'acme', name: 'Acme', plan: 'pro', cuLimit: 1000, rateLimitRps: 10 },
      new Date(Date.now() - 500 * 86_400_000),
    );
    for (const [i, age] of ages.entries()) {
      const at = new Date(Date.now() - age * 86_400_000);
      const held = await seeded.reserve('acme', 'verify/receipt-root', 1, at);
      if (!held.ok) throw new Error('allowance refused');
      await seeded.settle(
        held.value.reservation,
        { requestId: `r${i}`, endpoint: 'verify/receipt-root', status: 200, cu: 1 },
        at,
      );
    }
    await seeded.close();
    const log = capturingLogger();
    const server = await startServer(testConfig({ store: 'sqlite', dataDir, requestRetentionDays: 30 }), {
      logger: log.logger,
    });
    await server.close();
    expect(log.lines.find((l) => l.msg === 'request log pruned')).toMatchObject({
      removed: 2,
      request_retention_days: 30,
    });
    const reopened = new SqliteStore(storeFile(dataDir));
    expect(await reopened.pruneRequests(new Date(0))).toBe(0);
    expect(await reopened.pruneRequests(new Date())).toBe(1);
    await reopened.close();
  });
});
