/**
 * Reservation leases over a real process: a server SIGKILLed under load leaves CU reserved for
 * requests it never answered; once their lease has run out they go back to the allowance, so the
 * CU used equal exactly what the request log charged (before leases they stayed charged for good).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  load,
  processConfig,
  PROCESS_KEY,
  receiptBody,
  serveProcess,
  sleep,
  type ServeProcess,
} from './helpers/replica-process.js';

const LEASE_MS = 1500;
const dir = mkdtempSync(join(tmpdir(), 'evmi-leases-'));
const started: ServeProcess[] = [];

afterEach(() => {
  for (const served of started.splice(0)) if (served.child.exitCode === null) served.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the SQLite file says: CU used this period, CU the request log charged, holds not yet swept. */
function inFile(file: string): { used: number; logged: number; held: number } {
  const db = new Database(file, { readonly: true });
  try {
    const one = (sql: string) => (db.prepare(sql).get() as { n: number | null }).n ?? 0;
    return {
      used: one("SELECT sum(cu_used) AS n FROM usage_periods WHERE account_id = 'acme'"),
      logged: one("SELECT sum(cu) AS n FROM requests WHERE account_id = 'acme'"),
      held: one("SELECT sum(cu) AS n FROM holds WHERE account_id = 'acme' AND swept = 0"),
    };
  } finally {
    db.close();
  }
}

describe('a server SIGKILLed under load (SQLite store)', () => {
  it('after a restart and the lease, the CU used equal the sum of the settled requests in the log', async () => {
    const dataDir = join(dir, 'data');
    // Every body verified on a worker thread: each request holds its CU while its job runs, off the event loop, so the
    // kill finds holds whatever instant it lands at (inline, a small body's reserve, verify and settle pass quickly).
    const config = processConfig(1_000_000, {
      data_dir: dataDir,
      reservation_lease_ms: LEASE_MS,
      pool_threshold_bytes: 1,
    });
    const first = serveProcess(dir, 'first', config);
    started.push(first);
    const url = await first.url;
    const body = receiptBody();
    let kill = () => {};
    const killed = new Promise<void>((resolve) => (kill = resolve));
    const loaded = load([url], body, { clients: 32, stop: killed });
    // Enough answers that the load is in full swing, then the kill, with requests in progress: seen holding CU just
    // before it (on a loaded machine the clients can fall behind the server, which then finishes all it was sent).
    for (;;) {
      const now = inFile(join(dataDir, 'evm-integrity.sqlite'));
      if (now.logged >= 200 && now.held > 0) break;
      await sleep(20);
    }
    first.child.kill('SIGKILL');
    kill();
    expect(await first.exited).toBe('SIGKILL');
    const tally = await loaded;
    const file = join(dataDir, 'evm-integrity.sqlite');
    const atKill = inFile(file);
    // The kill caught requests between reserve and settle: their CU are charged but logged nowhere.
    expect(atKill.held).toBeGreaterThan(0);
    expect(atKill.used).toBe(atKill.logged + atKill.held);
    expect(tally.statuses['200']).toBeGreaterThan(0);

    const second = serveProcess(dir, 'second', config);
    started.push(second);
    const again = await second.url;
    await sleep(LEASE_MS);
    const usage = (await (
      await fetch(`${again}/v1/usage`, { headers: { Authorization: `Bearer ${PROCESS_KEY}` } })
    ).json()) as { cu_used: number };
    const after = inFile(file);
    expect(after.held).toBe(0);
    expect(usage.cu_used).toBe(after.logged);
    expect(after.logged).toBe(atKill.logged);
  }, 60_000);
});
