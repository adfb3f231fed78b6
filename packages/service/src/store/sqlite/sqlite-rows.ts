/** The rows of an SQLite store (better-sqlite3): each a prepared statement or two, run inside the caller's transaction. */
import type Database from 'better-sqlite3';
import type { Period, RateWindow } from '../periods.js';
import type { SerialPrimitives } from '../serial-rows.js';
import type { HoldRow, PeriodRow, PeriodUsageRow } from '../storage.js';
import * as table from '../table-rows.js';
import type { Account, Entitlements, KeyRecord, RequestRecord, Reservation } from '../store.js';

type AccountRow = table.AccountTableRow<string | null>;

/** An account of the file, its entitlements stored as JSON text. */
const toAccount = (row: AccountRow): Account =>
  table.toAccount(row, (stored) => (stored === null ? null : (JSON.parse(stored) as Entitlements)));

/** An account's columns as the statements name them, its entitlements as JSON text. */
const accountParams = (account: Account) => ({
  ...account,
  entitlements: account.entitlements === null ? null : JSON.stringify(account.entitlements),
});

const PERIOD_COLUMNS = 'period_start, period_end, cu_used, cu_extra';
const PAIRS = (table: string, where: string) =>
  `SELECT endpoint, sum(cu) AS cu FROM ${table} WHERE account_id = ? AND period_start = ?${where} GROUP BY endpoint`;

function statements(db: Database.Database) {
  const s = <T = unknown>(sql: string) => db.prepare<unknown[], T>(sql);
  return {
    account: s<AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    accounts: s<AccountRow>('SELECT * FROM accounts ORDER BY created_at, rowid'),
    accountIdsFrom: s<{ id: string }>('SELECT id FROM accounts WHERE id = ? OR substr(id, 1, ?) = ?'),
    insertAccount: s(
      'INSERT INTO accounts (id, name, plan, cu_limit, rate_limit_rps, entitlements, period_anchor, created_at) VALUES (@id, @name, @plan, @cuLimit, @rateLimitRps, @entitlements, @periodAnchor, @createdAt) ON CONFLICT (id) DO NOTHING',
    ),
    upsertAccount: s(
      'INSERT INTO accounts (id, name, plan, cu_limit, rate_limit_rps, entitlements, period_anchor, created_at) VALUES (@id, @name, @plan, @cuLimit, @rateLimitRps, @entitlements, @periodAnchor, @createdAt) ON CONFLICT (id) DO UPDATE SET name = excluded.name, plan = excluded.plan, cu_limit = excluded.cu_limit, rate_limit_rps = excluded.rate_limit_rps, entitlements = excluded.entitlements',
    ),
    key: s<table.KeyTableRow>('SELECT * FROM api_keys WHERE id = ?'),
    keyByHash: s<table.KeyTableRow>('SELECT * FROM api_keys WHERE hash = ?'),
    keysByHint: s<table.KeyTableRow>("SELECT * FROM api_keys WHERE hint = ? AND hint <> '' ORDER BY created_at, rowid"),
    keys: s<table.KeyTableRow>('SELECT * FROM api_keys ORDER BY created_at, rowid'),
    keysOf: s<table.KeyTableRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid'),
    activeKeys: s<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL'),
    insertKey: s(
      'INSERT INTO api_keys (id, account_id, label, hash, hint, created_at, revoked_at) VALUES (@id, @accountId, @label, @hash, @hint, @createdAt, NULL) ON CONFLICT (id) DO NOTHING',
    ),
    revokeKey: s('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    activeKeysOf: s<table.KeyTableRow>(
      'SELECT * FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid',
    ),
    // An account's rows, children first (foreign keys): what deleteAccount removes.
    deleteAccountRows: [
      'DELETE FROM api_keys WHERE account_id = ?',
      'DELETE FROM requests WHERE account_id = ?',
      'DELETE FROM endpoint_usage WHERE account_id = ?',
      'DELETE FROM usage_periods WHERE account_id = ?',
      'DELETE FROM rate_windows WHERE account_id = ?',
      'DELETE FROM holds WHERE account_id = ?',
      'DELETE FROM accounts WHERE id = ?',
    ].map((sql) => s(sql)),
    hold: s<table.HoldTableRow>('SELECT * FROM holds WHERE id = ? AND account_id = ?'),
    insertHold: s(
      'INSERT INTO holds (id, account_id, period_start, endpoint, cu, expires_at) VALUES (@id, @accountId, @periodStart, @endpoint, @cu, @expiresAt)',
    ),
    deleteHold: s('DELETE FROM holds WHERE id = ?'),
    expiredHolds: s<table.HoldTableRow>('SELECT * FROM holds WHERE swept = 0 AND expires_at <= ? AND account_id = ?'),
    anyExpiredHold: s<{ one: number }>(
      'SELECT 1 AS one FROM holds WHERE swept = 0 AND expires_at <= ? AND account_id = ? LIMIT 1',
    ),
    accountsWithExpiredHolds: s<{ account_id: string }>(
      'SELECT DISTINCT account_id FROM holds WHERE swept = 0 AND expires_at <= ?',
    ),
    markSwept: s('UPDATE holds SET swept = 1 WHERE id = ?'),
    pruneSweptHolds: s('DELETE FROM holds WHERE swept = 1 AND expires_at < ?'),
    periodAt: s<table.PeriodTableRow>(
      `SELECT ${PERIOD_COLUMNS} FROM usage_periods WHERE account_id = ? AND period_start = ?`,
    ),
    period: s<table.PeriodTableRow>(
      `SELECT ${PERIOD_COLUMNS} FROM usage_periods WHERE account_id = ? ORDER BY period_start DESC LIMIT 1`,
    ),
    insertPeriod: s(
      'INSERT INTO usage_periods (account_id, period_start, period_end) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    addUsed: s('UPDATE usage_periods SET cu_used = cu_used + ? WHERE account_id = ? AND period_start = ?'),
    giveBackUsed: s('UPDATE usage_periods SET cu_used = max(0, cu_used - ?) WHERE account_id = ? AND period_start = ?'),
    addExtra: s('UPDATE usage_periods SET cu_extra = cu_extra + ? WHERE account_id = ? AND period_start = ?'),
    endpointUsage: s<{ endpoint: string; cu: number }>(PAIRS('endpoint_usage', '')),
    heldByEndpoint: s<{ endpoint: string; cu: number }>(PAIRS('holds', ' AND swept = 0')),
    addEndpointUsage: s(
      'INSERT INTO endpoint_usage (account_id, period_start, endpoint, cu) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, period_start, endpoint) DO UPDATE SET cu = cu + excluded.cu',
    ),
    giveBackEndpointUsage: s(
      'UPDATE endpoint_usage SET cu = max(0, cu - ?) WHERE account_id = ? AND period_start = ? AND endpoint = ?',
    ),
    dropUnusedEndpoint: s(
      'DELETE FROM endpoint_usage WHERE account_id = ? AND period_start = ? AND endpoint = ? AND cu = 0',
    ),
    insertRequest: s(
      'INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    pruneRequests: s('DELETE FROM requests WHERE seq IN (SELECT seq FROM requests WHERE at < ? ORDER BY at LIMIT ?)'),
    rateWindow: s<RateWindow>('SELECT window_start AS windowStart, count FROM rate_windows WHERE account_id = ?'),
    saveRateWindow: s(
      'INSERT INTO rate_windows (account_id, window_start, count) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET window_start = excluded.window_start, count = excluded.count',
    ),
  };
}

/**
 * The rows of an SQLite file, read and written with prepared statements (none takes a lock of its own: the caller's
 * transaction does).
 * @example
 * const rows = new SqliteRows(new Database('data/evm-integrity.sqlite'));
 */
export class SqliteRows implements SerialPrimitives {
  readonly #sql: ReturnType<typeof statements>;

  constructor(db: Database.Database) {
    this.#sql = statements(db);
  }

  account(id: string): Account | undefined {
    const row = this.#sql.account.get(id);
    return row && toAccount(row);
  }
  accounts(): Account[] {
    return this.#sql.accounts.all().map(toAccount);
  }
  accountIdsFrom(base: string): string[] {
    return this.#sql.accountIdsFrom.all(base, base.length + 1, `${base}-`).map((r) => r.id);
  }
  insertAccount(account: Account): boolean {
    return this.#sql.insertAccount.run(accountParams(account)).changes > 0;
  }
  upsertAccount(account: Account): Account {
    this.#sql.upsertAccount.run(accountParams(account));
    return this.account(account.id)!;
  }
  deleteAccount(id: string): { keys: number; requests: number } {
    const [keys, requests] = this.#sql.deleteAccountRows.map((statement) => statement.run(id).changes);
    return { keys: keys!, requests: requests! };
  }

  activeKeyCount(accountId: string): number {
    return this.#sql.activeKeys.get(accountId)!.n;
  }
  insertKey(record: KeyRecord): boolean {
    return this.#sql.insertKey.run(record).changes > 0;
  }
  key(id: string): KeyRecord | undefined {
    const row = this.#sql.key.get(id);
    return row && table.toKey(row);
  }
  keyByHash(hash: string): KeyRecord | undefined {
    const row = this.#sql.keyByHash.get(hash);
    return row && table.toKey(row);
  }
  keysByHint(hint: string): KeyRecord[] {
    return this.#sql.keysByHint.all(hint).map(table.toKey);
  }
  keys(accountId?: string): KeyRecord[] {
    return (accountId === undefined ? this.#sql.keys.all() : this.#sql.keysOf.all(accountId)).map(table.toKey);
  }
  keyWithAccount(hash: string): { key: KeyRecord; account: Account | undefined } | undefined {
    const key = this.keyByHash(hash);
    return key && { key, account: this.account(key.accountId) };
  }
  revokeKey(id: string, at: string): KeyRecord | undefined {
    return this.#sql.revokeKey.run(at, id).changes > 0 ? this.key(id) : undefined;
  }
  revokeAccountKeys(accountId: string, at: string): KeyRecord[] {
    return this.#sql.activeKeysOf.all(accountId).flatMap((row) => this.revokeKey(row.id, at) ?? []);
  }

  latestPeriod(accountId: string): PeriodRow | undefined {
    const row = this.#sql.period.get(accountId);
    return row && table.toPeriod(row);
  }
  period(accountId: string, periodStart: string): PeriodRow | undefined {
    const row = this.#sql.periodAt.get(accountId, periodStart);
    return row && table.toPeriod(row);
  }
  insertPeriod(accountId: string, period: Period): void {
    this.#sql.insertPeriod.run(accountId, period.periodStart, period.periodEnd);
  }
  periodUsage(accountId: string, periodStart: string): PeriodUsageRow | undefined {
    const period = this.period(accountId, periodStart);
    const pairs = (statement: Database.Statement<unknown[], { endpoint: string; cu: number }>) =>
      statement.all(accountId, periodStart).map((r): [string, number] => [r.endpoint, r.cu]);
    return period && { ...period, taken: pairs(this.#sql.endpointUsage), held: pairs(this.#sql.heldByEndpoint) };
  }
  addExtra(accountId: string, periodStart: string, cu: number): void {
    this.#sql.addExtra.run(cu, accountId, periodStart);
  }
  take(accountId: string, periodStart: string, endpoint: string, cu: number): void {
    this.#sql.addUsed.run(cu, accountId, periodStart);
    this.#sql.addEndpointUsage.run(accountId, periodStart, endpoint, cu);
  }
  giveBack(hold: HoldRow): void {
    this.#sql.giveBackUsed.run(hold.cu, hold.accountId, hold.periodStart);
    this.#sql.giveBackEndpointUsage.run(hold.cu, hold.accountId, hold.periodStart, hold.endpoint);
    this.#sql.dropUnusedEndpoint.run(hold.accountId, hold.periodStart, hold.endpoint);
  }

  hold(id: string, accountId: string): HoldRow | undefined {
    const row = this.#sql.hold.get(id, accountId);
    return row && table.toHold(row);
  }
  insertHold(hold: Reservation): void {
    this.#sql.insertHold.run(hold);
  }
  deleteHold(id: string): void {
    this.#sql.deleteHold.run(id);
  }
  expiredHolds(accountId: string, now: Date): HoldRow[] {
    return this.#sql.expiredHolds.all(now.toISOString(), accountId).map(table.toHold);
  }
  anyExpiredHold(accountId: string, now: Date): boolean {
    return this.#sql.anyExpiredHold.get(now.toISOString(), accountId) !== undefined;
  }
  markSwept(id: string): void {
    this.#sql.markSwept.run(id);
  }
  accountsWithExpiredHolds(now: Date): string[] {
    return this.#sql.accountsWithExpiredHolds.all(now.toISOString()).map((r) => r.account_id);
  }
  pruneSweptHolds(before: string): void {
    this.#sql.pruneSweptHolds.run(before);
  }

  logRequest(accountId: string, periodStart: string, record: RequestRecord, at: string): void {
    const { requestId, endpoint, status, cu } = record;
    this.#sql.insertRequest.run(requestId, accountId, endpoint, status, cu, periodStart, at);
  }
  pruneRequests(before: string, limit: number): number {
    return this.#sql.pruneRequests.run(before, limit).changes;
  }

  rateWindow(accountId: string): RateWindow | undefined {
    return this.#sql.rateWindow.get(accountId);
  }
  saveRateWindow(accountId: string, window: RateWindow): void {
    this.#sql.saveRateWindow.run(accountId, window.windowStart, window.count);
  }
}
