/**
 * The rows of a PostgreSQL store, and its atomic operations as one statement each: reserve checks and takes the CU in
 * one conditional UPDATE (RESERVE), settle and release end the hold and log the request in one statement, and so does
 * the sweep of holds past their lease (SWEEP). Every statement is a constant text with its values as parameters
 * (named-statements.ts). The primitives of more than one statement (deleteAccount, giveBack) run only inside the
 * rules' transactions.
 *
 * Lock order. Every statement and transaction locks an account's rows in this order, so none waits
 * for a lock held by one that waits for its own (a deadlock):
 *   1. `accounts` (account with lock: FOR NO KEY UPDATE, which the foreign-key checks of inserts, FOR KEY
 *      SHARE, never wait for; only deleteAccount's final DELETE needs more, after everything else);
 *   2. `api_keys`;
 *   3. `holds`, the one a settle or release ends, or those a sweep gives back;
 *   4. `usage_periods`, the period row;
 *   5. `endpoint_usage`, taken only by one who holds its period's row (4).
 * A new row (a hold, a request, a period) waits for no one. In one statement, a data-modifying CTE
 * that takes a later lock reads the RETURNING of the one that takes the earlier: PostgreSQL runs
 * sibling CTEs in no set order.
 */
import type pg from 'pg';
import type { Period, RateWindow } from '../periods.js';
import { RATE_WINDOW_MS } from '../periods.js';
import type { AccountUsageRow, HoldRequest, HoldRow, PeriodRow, PeriodUsageRow, Rows } from '../storage.js';
import type { Account, Entitlements, KeyRecord, RequestRecord, Reservation } from '../store.js';
import * as table from '../table-rows.js';
import { FOREIGN_KEY_VIOLATION } from '../store-error.js';

/** Runs one statement (in the transaction it belongs to, if any); its rows. */
export type Query = <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;

type AccountRow = table.AccountTableRow<Entitlements | null>;

/** How many times deleteAccount deletes the rows its account's requests in progress add, before it gives up. */
const DELETE_ATTEMPTS = 20;

/** An account of the database, its entitlements stored as jsonb. */
const toAccount = (row: AccountRow): Account => table.toAccount(row, (stored) => stored);

/** A period row with the CU taken by its endpoints and held by its holds, as `[endpoint, cu]` pairs (USAGE_COLUMNS). */
interface UsageRow extends table.PeriodTableRow {
  taken: [string, number][] | null;
  held: [string, number][] | null;
}

const toPeriodUsage = (row: UsageRow): PeriodUsageRow => ({
  ...table.toPeriod(row),
  taken: row.taken ?? [],
  held: row.held ?? [],
});

/**
 * A usage in one statement (one snapshot), from the period row `p`: its CU taken (charged and held), by endpoint, and
 * the CU of its holds not yet ended nor swept, which makeUsage subtracts.
 */
const USAGE_COLUMNS = `p.period_start, p.period_end, p.cu_used, p.cu_extra,
  (SELECT json_agg(json_build_array(e.endpoint, e.cu)) FROM endpoint_usage e
   WHERE e.account_id = p.account_id AND e.period_start = p.period_start AND e.cu > 0) AS taken,
  (SELECT json_agg(json_build_array(h.endpoint, h.cu)) FROM holds h
   WHERE h.account_id = p.account_id AND h.period_start = p.period_start AND NOT h.swept) AS held`;

const ACCOUNT_COLUMNS = 'id, name, plan, cu_limit, rate_limit_rps, entitlements, period_anchor, created_at';
const KEY_COLUMNS = 'id, account_id, label, hash, hint, created_at, revoked_at';

/**
 * An account ($1) with the usage of its latest period (none: null columns) and whether a hold of it has outlived its
 * lease at $2, in one statement.
 */
const ACCOUNT_USAGE = `
  SELECT ${ACCOUNT_COLUMNS.replace(/(\w+)/g, 'a.$1')}, ${USAGE_COLUMNS},
    EXISTS (SELECT 1 FROM holds h WHERE NOT h.swept AND h.expires_at <= $2 AND h.account_id = a.id) AS expired
  FROM accounts a
  LEFT JOIN LATERAL (SELECT * FROM usage_periods WHERE account_id = a.id ORDER BY period_start DESC LIMIT 1) p ON true
  WHERE a.id = $1`;

/**
 * Reserve in one statement ($1 account, $2 endpoint, $3 cu, $4 now, $5 hold id, $6 lease end): takes the CU from
 * the latest period when it still runs at $4, no hold of the account has outlived its lease, and the allowance has
 * room (the test of exceedsAllowance, periods.ts, here on the row being updated: PostgreSQL re-checks it on the
 * newest version of the row, so concurrent reserves of all replicas never overdraw); adds them to the endpoint and
 * records the hold. No row: one of the conditions failed, and the caller decides under the account's lock.
 */
const RESERVE = `
  WITH p AS (SELECT period_start, period_end FROM usage_periods WHERE account_id = $1 ORDER BY period_start DESC LIMIT 1),
  taken AS (
    UPDATE usage_periods u SET cu_used = u.cu_used + $3
    FROM p, accounts a
    WHERE u.account_id = $1 AND u.period_start = p.period_start AND p.period_end > $4 AND a.id = $1
      AND NOT EXISTS (SELECT 1 FROM holds WHERE NOT swept AND expires_at <= $4 AND account_id = $1)
      AND u.cu_used + $3 <= a.cu_limit + u.cu_extra
    RETURNING u.period_start, u.period_end, u.cu_used, u.cu_extra
  ),
  by_endpoint AS (
    INSERT INTO endpoint_usage (account_id, period_start, endpoint, cu) SELECT $1, period_start, $2, $3 FROM taken
    ON CONFLICT (account_id, period_start, endpoint) DO UPDATE SET cu = endpoint_usage.cu + excluded.cu
  ),
  hold AS (
    INSERT INTO holds (id, account_id, period_start, endpoint, cu, expires_at) SELECT $5, $1, period_start, $2, $3, $6 FROM taken
  )
  SELECT * FROM taken`;

/** Settle in one statement ($1 hold, $2 account, then the request's columns): a hold still under lease ends, its CU stay. */
const SETTLE = `
  WITH ended AS (DELETE FROM holds WHERE id = $1 AND account_id = $2 AND NOT swept RETURNING id)
  INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at)
  SELECT $3, $2, $4, $5, $6, $7, $8 FROM ended RETURNING seq`;

/**
 * Release in one statement (parameters as SETTLE): a hold still under lease ends and its CU go back (never below 0;
 * an endpoint left at 0 is kept as a row and read as absent). Locks the hold, then the period, then the endpoint's
 * row: `by_endpoint` reads what `period` returns.
 */
const RELEASE = `
  WITH ended AS (DELETE FROM holds WHERE id = $1 AND account_id = $2 AND NOT swept RETURNING period_start, endpoint, cu),
  period AS (
    UPDATE usage_periods u SET cu_used = greatest(0, u.cu_used - ended.cu) FROM ended
    WHERE u.account_id = $2 AND u.period_start = ended.period_start
    RETURNING ended.period_start, ended.endpoint, ended.cu
  ),
  by_endpoint AS (
    UPDATE endpoint_usage e SET cu = greatest(0, e.cu - period.cu) FROM period
    WHERE e.account_id = $2 AND e.period_start = period.period_start AND e.endpoint = period.endpoint
  )
  INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at)
  SELECT $3, $2, $4, $5, $6, $7, $8 FROM ended RETURNING seq`;

/**
 * Sweep in one statement ($1 account, $2 now): the account's holds past their lease are marked swept and their CU go
 * back to their period and endpoint (never below 0; an endpoint left at 0 is kept, as RELEASE does); returns how
 * many. It takes no account lock, for which every request that meets an expired hold would queue, one transaction
 * after another: a hold that another statement is ending (a settle, a release, another sweep) is waited for, that
 * statement alone, and then found ended or swept. Locks the holds in id order (two sweeps never deadlock), then the
 * periods, then the endpoints (each CTE reads the one before).
 */
const SWEEP = `
  WITH expired AS (
    UPDATE holds h SET swept = true
    WHERE h.id IN (
      SELECT id FROM holds WHERE NOT swept AND expires_at <= $2 AND account_id = $1 ORDER BY id FOR UPDATE
    )
    RETURNING h.period_start, h.endpoint, h.cu
  ),
  period AS (
    UPDATE usage_periods u SET cu_used = greatest(0, u.cu_used - b.cu)
    FROM (SELECT period_start, sum(cu) AS cu FROM expired GROUP BY period_start) b
    WHERE u.account_id = $1 AND u.period_start = b.period_start
    RETURNING u.period_start
  ),
  by_endpoint AS (
    UPDATE endpoint_usage e SET cu = greatest(0, e.cu - b.cu)
    FROM (SELECT x.period_start, x.endpoint, sum(x.cu) AS cu FROM expired x JOIN period USING (period_start)
          GROUP BY x.period_start, x.endpoint) b
    WHERE e.account_id = $1 AND e.period_start = b.period_start AND e.endpoint = b.endpoint
  )
  SELECT count(*)::integer AS n FROM expired`;

/** An account's columns as the statements take them ($1 to $8, ACCOUNT_COLUMNS' order). */
const accountParams = (a: Account) => [
  a.id,
  a.name,
  a.plan,
  a.cuLimit,
  a.rateLimitRps,
  JSON.stringify(a.entitlements),
  a.periodAnchor,
  a.createdAt,
];

const PERIOD_COLUMNS = 'period_start, period_end, cu_used, cu_extra';
const HOLD_COLUMNS = 'id, account_id, period_start, endpoint, cu, expires_at, swept';

/** Takes a swept hold's CU again when its period has room ($5 the account's limit), in one conditional statement. */
const TAKE_IF_ROOM = `
  WITH taken AS (
    UPDATE usage_periods SET cu_used = cu_used + $3
    WHERE account_id = $1 AND period_start = $2 AND cu_used + $3 <= $5 + cu_extra RETURNING period_start
  )
  INSERT INTO endpoint_usage (account_id, period_start, endpoint, cu) SELECT $1, period_start, $4, $3 FROM taken
  ON CONFLICT (account_id, period_start, endpoint) DO UPDATE SET cu = endpoint_usage.cu + excluded.cu
  RETURNING 1`;

/**
 * One request more in the account's window, in one statement, atomic across replicas: countRequest (periods.ts) in
 * SQL. A new second starts a window of 1; a request stamped before the stored window counts in it. With the
 * database's clock ($3), every replica counts in the same windows.
 */
const COUNT_RATE_REQUEST = `
  WITH clock AS (
    SELECT CASE WHEN $3 THEN floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint ELSE $2::bigint END AS now_ms
  )
  INSERT INTO rate_windows AS w (account_id, window_start, count)
  SELECT a.id, (clock.now_ms / $4) * $4, 1 FROM accounts a, clock WHERE a.id = $1
  ON CONFLICT (account_id) DO UPDATE SET
    count = CASE WHEN excluded.window_start > w.window_start THEN 1 ELSE w.count + 1 END,
    window_start = greatest(excluded.window_start, w.window_start)
  RETURNING w.window_start, w.count, (SELECT now_ms FROM clock) AS now_ms`;

/**
 * The rows of a PostgreSQL store, each operation a statement run by `q` (in a transaction, or on its own).
 * @example
 * const rows = new PostgresRows((sql, params) => query(sql, params), 'database');
 */
export class PostgresRows implements Rows {
  constructor(
    private readonly q: Query,
    /** Whose clock the requests-per-second window follows (PostgresStoreOptions.rateClock). */
    private readonly rateClock: 'database' | 'caller',
  ) {}

  async account(id: string, lock: boolean): Promise<Account | undefined> {
    const [row] = await this.q<AccountRow>(
      lock
        ? `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1 FOR NO KEY UPDATE`
        : `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`,
      [id],
    );
    return row && toAccount(row);
  }

  async accounts(): Promise<Account[]> {
    return (await this.q<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, seq`)).map(
      toAccount,
    );
  }

  async accountIdsFrom(base: string): Promise<string[]> {
    const rows = await this.q<{ id: string }>('SELECT id FROM accounts WHERE id = $1 OR id LIKE $2', [
      base,
      `${base}-%`,
    ]);
    return rows.map((r) => r.id);
  }

  async insertAccount(account: Account): Promise<boolean> {
    const inserted = await this.q(
      `INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING RETURNING id`,
      accountParams(account),
    );
    return inserted.length > 0;
  }

  async upsertAccount(account: Account): Promise<Account> {
    // One statement: replicas provisioning the same account at once all succeed.
    const [row] = await this.q<AccountRow>(
      `INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, plan = excluded.plan, cu_limit = excluded.cu_limit,
         rate_limit_rps = excluded.rate_limit_rps, entitlements = excluded.entitlements
       RETURNING ${ACCOUNT_COLUMNS}`,
      accountParams(account),
    );
    return toAccount(row!);
  }

  async deleteAccount(id: string): Promise<{ keys: number; requests: number }> {
    const deleted = async (table: string) =>
      (
        await this.q<{ n: number }>(
          `WITH gone AS (DELETE FROM ${table} WHERE account_id = $1 RETURNING 1) SELECT count(*)::integer AS n FROM gone`,
          [id],
        )
      )[0]!.n;
    // Children first (foreign keys), in the lock order: the periods are locked before their endpoints' rows.
    const keys = await deleted('api_keys');
    let requests = 0;
    // The account's requests in progress, authenticated before its keys went, may still add a row (a hold, a logged
    // request, a rate window) before the account's row is deleted: that DELETE then fails its foreign key, and is
    // taken back to the savepoint to delete them too. No new request comes in: the keys are gone.
    for (let attempt = 1; ; attempt++) {
      requests += await deleted('requests');
      await deleted('holds');
      await this.q('SELECT 1 FROM usage_periods WHERE account_id = $1 FOR UPDATE', [id]);
      for (const table of ['endpoint_usage', 'usage_periods', 'rate_windows']) await deleted(table);
      await this.q('SAVEPOINT account_rows');
      try {
        await this.q('DELETE FROM accounts WHERE id = $1', [id]);
        return { keys, requests };
      } catch (error) {
        if (attempt >= DELETE_ATTEMPTS || (error as { code?: unknown }).code !== FOREIGN_KEY_VIOLATION) throw error;
        await this.q('ROLLBACK TO SAVEPOINT account_rows');
      }
    }
  }

  async activeKeyCount(accountId: string): Promise<number> {
    const [row] = await this.q<{ n: number }>(
      'SELECT count(*)::integer AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
      [accountId],
    );
    return row!.n;
  }

  async insertKey(record: KeyRecord): Promise<boolean> {
    const inserted = await this.q(
      `INSERT INTO api_keys (id, account_id, label, hash, hint, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [record.id, record.accountId, record.label, record.hash, record.hint, record.createdAt],
    );
    return inserted.length > 0;
  }

  async key(id: string): Promise<KeyRecord | undefined> {
    const [row] = await this.q<table.KeyTableRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [id]);
    return row && table.toKey(row);
  }

  async keyByHash(hash: string): Promise<KeyRecord | undefined> {
    const [row] = await this.q<table.KeyTableRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
    return row && table.toKey(row);
  }

  async keysByHint(hint: string): Promise<KeyRecord[]> {
    const rows = await this.q<table.KeyTableRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hint = $1 AND hint <> '' ORDER BY created_at, seq FOR UPDATE`,
      [hint],
    );
    return rows.map(table.toKey);
  }

  async keys(accountId?: string): Promise<KeyRecord[]> {
    const rows =
      accountId === undefined
        ? await this.q<table.KeyTableRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, seq`)
        : await this.q<table.KeyTableRow>(
            `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, seq`,
            [accountId],
          );
    return rows.map(table.toKey);
  }

  async keyWithAccount(hash: string): Promise<{ key: KeyRecord; account: Account | undefined } | undefined> {
    const [row] = await this.q<table.KeyTableRow & { account: AccountRow | null }>(
      `SELECT ${KEY_COLUMNS.replace(/(\w+)/g, 'k.$1')}, row_to_json(a) AS account
       FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`,
      [hash],
    );
    return row && { key: table.toKey(row), account: row.account === null ? undefined : toAccount(row.account) };
  }

  async revokeKey(id: string, at: string): Promise<KeyRecord | undefined> {
    const [row] = await this.q<table.KeyTableRow>(
      `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
      [at, id],
    );
    return row && table.toKey(row);
  }

  async revokeAccountKeys(accountId: string, at: string): Promise<KeyRecord[]> {
    const rows = await this.q<table.KeyTableRow>(
      `UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}, seq`,
      [at, accountId],
    );
    return rows
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
      .map(table.toKey);
  }

  async latestPeriod(accountId: string): Promise<PeriodRow | undefined> {
    const [row] = await this.q<table.PeriodTableRow>(
      `SELECT ${PERIOD_COLUMNS} FROM usage_periods WHERE account_id = $1 ORDER BY period_start DESC LIMIT 1`,
      [accountId],
    );
    return row && table.toPeriod(row);
  }

  async insertPeriod(accountId: string, period: Period): Promise<void> {
    await this.q(
      'INSERT INTO usage_periods (account_id, period_start, period_end) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [accountId, period.periodStart, period.periodEnd],
    );
  }

  async periodUsage(accountId: string, periodStart: string): Promise<PeriodUsageRow | undefined> {
    const [row] = await this.q<UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM usage_periods p WHERE p.account_id = $1 AND p.period_start = $2`,
      [accountId, periodStart],
    );
    return row && toPeriodUsage(row);
  }

  async accountUsage(accountId: string, now: Date): Promise<AccountUsageRow | undefined> {
    const [row] = await this.q<AccountRow & Partial<UsageRow> & { expired: boolean }>(ACCOUNT_USAGE, [
      accountId,
      now.toISOString(),
    ]);
    if (row === undefined) return undefined;
    const latest = row.period_start == null ? undefined : toPeriodUsage(row as AccountRow & UsageRow);
    return { account: toAccount(row), latest, expired: row.expired };
  }

  async addExtra(accountId: string, periodStart: string, cu: number): Promise<void> {
    await this.q('UPDATE usage_periods SET cu_extra = cu_extra + $1 WHERE account_id = $2 AND period_start = $3', [
      cu,
      accountId,
      periodStart,
    ]);
  }

  async hold(id: string, accountId: string): Promise<HoldRow | undefined> {
    const [row] = await this.q<table.HoldTableRow>(
      `SELECT ${HOLD_COLUMNS} FROM holds WHERE id = $1 AND account_id = $2 FOR UPDATE`,
      [id, accountId],
    );
    return row && table.toHold(row);
  }

  async deleteHold(id: string): Promise<void> {
    await this.q('DELETE FROM holds WHERE id = $1', [id]);
  }

  async giveBack(hold: HoldRow): Promise<void> {
    await this.q(
      'UPDATE usage_periods SET cu_used = greatest(0, cu_used - $1) WHERE account_id = $2 AND period_start = $3',
      [hold.cu, hold.accountId, hold.periodStart],
    );
    await this.q(
      'UPDATE endpoint_usage SET cu = greatest(0, cu - $1) WHERE account_id = $2 AND period_start = $3 AND endpoint = $4',
      [hold.cu, hold.accountId, hold.periodStart, hold.endpoint],
    );
    await this.q(
      'DELETE FROM endpoint_usage WHERE account_id = $1 AND period_start = $2 AND endpoint = $3 AND cu = 0',
      [hold.accountId, hold.periodStart, hold.endpoint],
    );
  }

  async accountsWithExpiredHolds(now: Date): Promise<string[]> {
    const rows = await this.q<{ account_id: string }>(
      'SELECT DISTINCT account_id FROM holds WHERE NOT swept AND expires_at <= $1',
      [now.toISOString()],
    );
    return rows.map((r) => r.account_id);
  }

  async pruneSweptHolds(before: string): Promise<void> {
    await this.q('DELETE FROM holds WHERE swept AND expires_at < $1', [before]);
  }

  async logRequest(accountId: string, periodStart: string, record: RequestRecord, at: string): Promise<void> {
    await this.q(
      'INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [record.requestId, accountId, record.endpoint, record.status, record.cu, periodStart, at],
    );
  }

  async pruneRequests(before: string, limit: number): Promise<number> {
    const [row] = await this.q<{ n: number }>(
      'WITH gone AS (DELETE FROM requests WHERE seq IN (SELECT seq FROM requests WHERE at < $1 ORDER BY at LIMIT $2) RETURNING 1) SELECT count(*)::integer AS n FROM gone',
      [before, limit],
    );
    return row!.n;
  }

  async reserveIfRoom(hold: HoldRequest, now: Date): Promise<Period | undefined> {
    const [row] = await this.q<table.PeriodTableRow>(RESERVE, [
      hold.accountId,
      hold.endpoint,
      hold.cu,
      now.toISOString(),
      hold.id,
      hold.expiresAt,
    ]);
    return row && { periodStart: row.period_start, periodEnd: row.period_end };
  }

  async endHold(held: Reservation, record: RequestRecord, at: string, giveBack: boolean): Promise<boolean> {
    const { requestId, endpoint, status, cu } = record;
    const logged = [held.id, held.accountId, requestId, endpoint, status, cu, held.periodStart, at];
    return (await this.q(giveBack ? RELEASE : SETTLE, logged)).length > 0;
  }

  async sweep(accountId: string, now: Date): Promise<number> {
    const [row] = await this.q<{ n: number }>(SWEEP, [accountId, now.toISOString()]);
    return row!.n;
  }

  async takeIfRoom(hold: HoldRow, cuLimit: number): Promise<boolean> {
    const [row] = await this.q(TAKE_IF_ROOM, [hold.accountId, hold.periodStart, hold.cu, hold.endpoint, cuLimit]);
    return row !== undefined;
  }

  async countRateRequest(accountId: string, nowMs: number): Promise<{ window: RateWindow; nowMs: number } | undefined> {
    const [row] = await this.q<{ window_start: number; count: number; now_ms: number }>(COUNT_RATE_REQUEST, [
      accountId,
      Math.floor(nowMs),
      this.rateClock === 'database',
      RATE_WINDOW_MS,
    ]);
    return row && { window: { windowStart: row.window_start, count: row.count }, nowMs: row.now_ms };
  }
}
