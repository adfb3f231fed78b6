/**
 * The store in PostgreSQL (pg's Pool): what several replicas of the server share. The operations
 * of every request are one statement each: reserve checks and takes the CU in one conditional
 * UPDATE (RESERVE), settle and release end the hold and log the request in one statement, and so
 * does the sweep of holds past their lease (SWEEP). The rare cases (a period to roll, a settle or
 * release whose hold was swept) run in a transaction that first locks the account's row. The
 * schema is migrated at first use (migrations.ts). A database that cannot answer is
 * STORE_UNAVAILABLE.
 *
 * Lock order. Every statement and transaction locks an account's rows in this order, so none waits
 * for a lock held by one that waits for its own (a deadlock):
 *   1. `accounts` (lockAccount: FOR NO KEY UPDATE, which the foreign-key checks of inserts, FOR KEY
 *      SHARE, never wait for; only deleteAccount's final DELETE needs more, after everything else);
 *   2. `api_keys`;
 *   3. `holds`, the one a settle or release ends, or those a sweep gives back;
 *   4. `usage_periods`, the period row;
 *   5. `endpoint_usage`, taken only by one who holds its period's row (4).
 * A new row (a hold, a request, a period) waits for no one. In one statement, a data-modifying CTE
 * that takes a later lock reads the RETURNING of the one that takes the earlier: PostgreSQL runs
 * sibling CTEs in no set order. A statement or transaction that a conflict rolls back all the same
 * (deadlock, serialization failure) is run again a few times (retryConflicts, unavailable.ts).
 */
import pg from 'pg';
import { err, ok } from 'evm-integrity';
import {
  assertKeyLimit,
  assertSameAccount,
  authenticateKey,
  generateKey,
  hashKey,
  importedKey,
  isActive,
  keyHint,
  keyToRevoke,
  newKeyId,
  validIdOrHint,
  validLabel,
} from '../keys.js';
import { DEFAULT_RESERVATION_LEASE_MS, holdNotFound, leaseExpiry, newHoldId, requireLeaseMs } from '../leases.js';
import { exceedsAllowance, nextPeriod, rateDecision, RATE_WINDOW_MS } from '../periods.js';
import type {
  Account,
  AccountInput,
  AuthResult,
  Entitlements,
  KeyRecord,
  RateToken,
  RequestRecord,
  Reservation,
  ReserveResult,
  SettleResult,
  Store,
  StoreOptions,
  Usage,
} from '../store.js';
import { accountNotFound, StoreError } from '../store-error.js';
import { makeUsage } from '../usage.js';
import { newAccountId, slugFromName } from '../account-ids.js';
import {
  normalizeAccountInput,
  normalizeRequest,
  normalizeReservation,
  normalizeReserve,
  requireCount,
  requireDate,
  requireId,
  requireTimeMs,
} from '../validation.js';
import { migrate } from './migrations.js';
import { named } from './named-statements.js';
import { connect, retryConflicts, storeFailure } from './unavailable.js';

/** How a PostgresStore connects. */
export interface PostgresStoreOptions extends StoreOptions {
  /** `postgres://user:password@host:port/database`. */
  databaseUrl: string;
  /** Connections of this process at most (pg's pool `max`). */
  poolSize: number;
  /** Milliseconds a statement may run before the server cancels it (STORE_UNAVAILABLE). */
  statementTimeoutMs: number;
  /** Milliseconds to wait for a connection before giving up (STORE_UNAVAILABLE). */
  connectTimeoutMs: number;
  /**
   * Whose clock the requests-per-second window follows: `database` (the default; every replica counts in the same
   * one-second windows of the database's clock, whatever their own clocks say) or `caller` (the `nowMs` passed, as
   * the other stores do; for tests that set the time).
   */
  rateClock?: 'database' | 'caller';
}

type Query = <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;

interface AccountRow {
  id: string;
  name: string;
  plan: string;
  cu_limit: number;
  rate_limit_rps: number;
  entitlements: Entitlements | null;
  period_anchor: string;
  created_at: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  label: string;
  hash: string;
  hint: string;
  created_at: string;
  revoked_at: string | null;
}

interface PeriodRow {
  period_start: string;
  period_end: string;
  cu_used: number;
  cu_extra: number;
}

/** A period row with the CU taken by its endpoints and held by its holds, as `[endpoint, cu]` pairs (USAGE_COLUMNS). */
interface UsageRow extends PeriodRow {
  taken: [string, number][] | null;
  held: [string, number][] | null;
}

interface HoldRow {
  id: string;
  account_id: string;
  period_start: string;
  endpoint: string;
  cu: number;
  swept: boolean;
}

/** PostgreSQL's type id of bigint. */
const INT8_OID = 20;
const textParser = (oid: number) => pg.types.getTypeParser(oid, 'text') as (value: string) => unknown;
/** bigint (CU, milliseconds) as numbers: every value the store keeps is a safe integer. */
const TYPES = {
  getTypeParser: ((oid: number) => (oid === INT8_OID ? Number : textParser(oid))) as typeof pg.types.getTypeParser,
};

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  cuLimit: row.cu_limit,
  rateLimitRps: row.rate_limit_rps,
  entitlements: row.entitlements,
  periodAnchor: row.period_anchor,
  createdAt: row.created_at,
});

const toKey = (row: KeyRow): KeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  label: row.label,
  hash: row.hash,
  hint: row.hint,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
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

/** The Usage of `account` in the period of `row`. */
const toUsage = (account: Pick<Account, 'id' | 'cuLimit'>, row: UsageRow): Usage =>
  makeUsage(
    account.id,
    { periodStart: row.period_start, periodEnd: row.period_end },
    account.cuLimit,
    row.cu_extra,
    { cu: row.cu_used, byEndpoint: row.taken ?? [] },
    row.held ?? [],
  );

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

/** The parameters of SETTLE and RELEASE: the hold ended, and the request row logged. */
const loggedParams = (
  held: ReturnType<typeof normalizeReservation>,
  record: ReturnType<typeof normalizeRequest>,
  now: Date,
) => [
  held.id,
  held.accountId,
  record.requestId,
  record.endpoint,
  record.status,
  record.cu,
  held.periodStart,
  now.toISOString(),
];

/** Request-log rows deleted per statement when pruning, so a first prune of a large log holds no lock for long. */
const PRUNE_BATCH_ROWS = 5000;

/**
 * The store in a PostgreSQL database (`store: "postgres"`): the same rules as SqliteStore (shared helpers), shared
 * by any number of server processes on any number of machines.
 * @example
 * const store = new PostgresStore({ databaseUrl: process.env.DATABASE_URL!, poolSize: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
 */
export class PostgresStore implements Store {
  private readonly pool: pg.Pool;
  private readonly leaseMs: number;
  private readonly rateClock: 'database' | 'caller';
  private migrated: Promise<void> | undefined;

  /** Makes the pool; nothing connects until the first operation, which migrates the schema first. */
  constructor(options: PostgresStoreOptions) {
    this.leaseMs = requireLeaseMs(options.reservationLeaseMs ?? DEFAULT_RESERVATION_LEASE_MS);
    this.rateClock = options.rateClock ?? 'database';
    this.pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: requireCount('poolSize', options.poolSize, 1),
      statement_timeout: requireCount('statementTimeoutMs', options.statementTimeoutMs, 1),
      // The client's own bound, for a server that stops answering without closing the connection.
      query_timeout: options.statementTimeoutMs + 1000,
      connectionTimeoutMillis: requireCount('connectTimeoutMs', options.connectTimeoutMs, 1),
      application_name: 'evm-integrity',
      types: TYPES,
    });
    // An idle connection cut by a database restart: the pool drops it and the next operation opens another.
    this.pool.on('error', () => {});
  }

  async createAccount(input: AccountInput, now: Date): Promise<Account> {
    requireDate('now', now);
    const fields = normalizeAccountInput(input);
    return this.tx(async (q) => {
      // Every id the new one could collide with, then the same choice as the other stores.
      const base = input.id !== undefined ? requireId('id', input.id) : slugFromName(fields.name);
      const taken = new Set(
        (await q<{ id: string }>('SELECT id FROM accounts WHERE id = $1 OR id LIKE $2', [base, `${base}-%`])).map(
          (r) => r.id,
        ),
      );
      const id = newAccountId(input, fields.name, (candidate) => taken.has(candidate));
      const at = now.toISOString();
      const inserted = await q<AccountRow>(
        `INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (id) DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
        [id, fields.name, fields.plan, fields.cuLimit, fields.rateLimitRps, JSON.stringify(fields.entitlements), at],
      );
      // Another process created it since the look-up.
      if (inserted.length === 0) throw new StoreError('STORE_CONFLICT', `account ${id} already exists`);
      const account = toAccount(inserted[0]!);
      await this.currentPeriod(q, account, now);
      return account;
    });
  }

  async upsertAccount(input: AccountInput & { id: string }, now: Date): Promise<Account> {
    requireDate('now', now);
    const id = requireId('id', input.id);
    const fields = normalizeAccountInput(input);
    return this.tx(async (q) => {
      // One statement: replicas provisioning the same account at once all succeed.
      const [row] = await q<AccountRow>(
        `INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, plan = excluded.plan, cu_limit = excluded.cu_limit,
           rate_limit_rps = excluded.rate_limit_rps, entitlements = excluded.entitlements
         RETURNING ${ACCOUNT_COLUMNS}`,
        [
          id,
          fields.name,
          fields.plan,
          fields.cuLimit,
          fields.rateLimitRps,
          JSON.stringify(fields.entitlements),
          now.toISOString(),
        ],
      );
      const account = toAccount(row!);
      await this.currentPeriod(q, account, now);
      return account;
    });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const [row] = await this.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
    return row === undefined ? undefined : toAccount(row);
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, seq`)).map(
      toAccount,
    );
  }

  async createKey(accountId: string, label: string, now: Date): Promise<{ key: string; record: KeyRecord }> {
    requireDate('now', now);
    const validated = validLabel(label);
    return this.tx(async (q) => {
      const account = await this.lockAccount(q, accountId);
      assertKeyLimit(account.id, await this.activeKeys(q, account.id));
      const key = generateKey();
      return { key, record: await this.insertKey(q, account.id, validated, hashKey(key), keyHint(key), now) };
    });
  }

  async importKey(
    accountId: string,
    label: string,
    hashOrPlain: { sha256: string } | { plain: string },
    now: Date,
  ): Promise<KeyRecord> {
    requireDate('now', now);
    const validated = validLabel(label);
    const { hash, hint } = importedKey(hashOrPlain);
    return this.tx(async (q) => {
      const account = await this.lockAccount(q, accountId);
      const [existing] = await q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
      if (existing !== undefined) {
        const record = toKey(existing);
        assertSameAccount(record, account.id);
        return record;
      }
      assertKeyLimit(account.id, await this.activeKeys(q, account.id));
      return this.insertKey(q, account.id, validated, hash, hint, now);
    });
  }

  async listKeys(accountId?: string): Promise<KeyRecord[]> {
    if (accountId === undefined)
      return (await this.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, seq`)).map(toKey);
    return this.tx(async (q) => {
      await this.account(q, accountId);
      return (
        await q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, seq`, [
          accountId,
        ])
      ).map(toKey);
    });
  }

  async revokeKey(idOrHint: string, now: Date): Promise<KeyRecord> {
    requireDate('now', now);
    const wanted = validIdOrHint(idOrHint);
    return this.tx(async (q) => {
      const [byId] = await q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [wanted]);
      const byHint = await q<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hint = $1 AND hint <> '' ORDER BY created_at, seq FOR UPDATE`,
        [wanted],
      );
      const key = keyToRevoke(wanted, byId && toKey(byId), byHint.map(toKey));
      if (!isActive(key)) return key;
      const [row] = await q<KeyRow>(
        `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
        [now.toISOString(), key.id],
      );
      return row === undefined ? key : toKey(row);
    });
  }

  async revokeAccountKeys(accountId: string, now: Date): Promise<KeyRecord[]> {
    requireDate('now', now);
    return this.tx(async (q) => {
      const account = await this.lockAccount(q, accountId);
      const rows = await q<KeyRow>(
        `UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}, seq`,
        [now.toISOString(), account.id],
      );
      return rows.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).map(toKey);
    });
  }

  async deleteAccount(accountId: string): Promise<{ keys: number; requests: number }> {
    return this.tx(async (q) => {
      const account = await this.lockAccount(q, accountId);
      const deleted = async (table: string) =>
        (
          await q<{ n: number }>(
            `WITH gone AS (DELETE FROM ${table} WHERE account_id = $1 RETURNING 1) SELECT count(*)::integer AS n FROM gone`,
            [account.id],
          )
        )[0]!.n;
      // Children first (foreign keys), in the lock order: the periods are locked before their endpoints' rows.
      const keys = await deleted('api_keys');
      const requests = await deleted('requests');
      await deleted('holds');
      await q('SELECT 1 FROM usage_periods WHERE account_id = $1 FOR UPDATE', [account.id]);
      for (const table of ['endpoint_usage', 'usage_periods', 'rate_windows']) await deleted(table);
      await q('DELETE FROM accounts WHERE id = $1', [account.id]);
      return { keys, requests };
    });
  }

  async authenticate(key: string): Promise<AuthResult> {
    const hash = hashKey(typeof key === 'string' ? key : '');
    const [row] = await this.query<KeyRow & { account: AccountRow | null }>(
      `SELECT ${KEY_COLUMNS.replace(/(\w+)/g, 'k.$1')}, row_to_json(a) AS account
       FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`,
      [hash],
    );
    const record = row === undefined ? undefined : toKey(row);
    const account = row?.account == null ? undefined : toAccount(row.account);
    return authenticateKey(
      key,
      (presented) => (presented === hash ? record : undefined),
      () => account,
    );
  }

  async usage(accountId: string, now: Date): Promise<Usage> {
    requireDate('now', now);
    // Most calls only read, in one statement; the account is locked only when the period has to move on or a lease
    // ran out.
    const [row] = await this.query<AccountRow & Partial<UsageRow> & { expired: boolean }>(ACCOUNT_USAGE, [
      accountId,
      now.toISOString(),
    ]);
    if (row === undefined) throw accountNotFound(accountId);
    const stored = row.period_start == null ? undefined : { periodStart: row.period_start, periodEnd: row.period_end! };
    if (stored !== undefined && nextPeriod(row.period_anchor, stored, now) === null) {
      if (!row.expired) return toUsage({ id: row.id, cuLimit: row.cu_limit }, row as AccountRow & UsageRow);
      // Leases ran out: swept in one statement, without the account's lock that every request would queue for.
      await this.sweep((sql, params) => this.query(sql, params), row.id, now);
      return this.usageOf((sql, params) => this.query(sql, params), toAccount(row), row.period_start!);
    }
    return this.tx(async (q) => {
      const account = await this.lockAccount(q, accountId);
      await this.sweep(q, account.id, now);
      return this.usageOf(q, account, (await this.currentPeriod(q, account, now)).period_start);
    });
  }

  async reserve(accountId: string, endpoint: string, cu: number, now: Date): Promise<ReserveResult> {
    requireDate('now', now);
    const wanted = normalizeReserve(endpoint, cu);
    const hold = { id: newHoldId(), expiresAt: leaseExpiry(now, this.leaseMs) };
    const held = (period: PeriodRow): Reservation => ({
      id: hold.id,
      accountId,
      ...wanted,
      periodStart: period.period_start,
      expiresAt: hold.expiresAt,
    });
    // Usually one statement: the period runs, no lease has run out, the allowance has room.
    const reserveParams = [accountId, wanted.endpoint, wanted.cu, now.toISOString(), hold.id, hold.expiresAt];
    const taken = await this.query<PeriodRow>(RESERVE, reserveParams);
    if (taken.length === 0) {
      // A lease ran out, the period is over, or no room. usage() sweeps (one statement, without the account's lock
      // that every request would queue for) and rolls what it must; then no room is the answer, else the same
      // statement again.
      const usage = await this.usage(accountId, now);
      if (exceedsAllowance(usage, wanted.cu)) return err({ usage });
      taken.push(...(await this.query<PeriodRow>(RESERVE, reserveParams)));
    }
    // The hold is committed: nothing is read after it, so no failure can leave it without a reservation to end it.
    if (taken.length > 0) return ok({ reservation: held(taken[0]!) });
    // Otherwise (a lease or the period ran out since), under the account's lock: holds swept, the period rolled, then
    // the same statement decides.
    return this.tx(async (q): Promise<ReserveResult> => {
      const account = await this.lockAccount(q, accountId);
      await this.sweep(q, account.id, now);
      const period = await this.currentPeriod(q, account, now);
      const [row] = await q<PeriodRow>(RESERVE, reserveParams);
      if (row === undefined) return err({ usage: await this.usageOf(q, account, period.period_start) });
      return ok({ reservation: held(row) });
    });
  }

  async settle(reservation: Reservation, request: RequestRecord, now: Date): Promise<SettleResult> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, held.cu);
    const logged = loggedParams(held, record, now);
    // Usually one statement: the hold, still under its lease, is deleted and the request logged; its CU stay.
    if ((await this.query(SETTLE, logged)).length > 0) return ok(undefined);
    return this.tx(async (q): Promise<SettleResult> => {
      const account = await this.lockAccount(q, held.accountId);
      const hold = await this.endingHold(q, held);
      // The lease ran out and the CU went back: take them again, if the period still has room.
      if (hold.swept && !(await this.takeIfRoom(q, account, hold)))
        return err({ usage: await this.usageOf(q, account, (await this.currentPeriod(q, account, now)).period_start) });
      await q('DELETE FROM holds WHERE id = $1', [hold.id]);
      await this.logRequest(q, account.id, held, record, now);
      return ok(undefined);
    });
  }

  async release(reservation: Reservation, request: RequestRecord, now: Date): Promise<void> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, 0);
    const logged = loggedParams(held, record, now);
    // Usually one statement: the hold is deleted, its CU given back and the request logged.
    if ((await this.query(RELEASE, logged)).length > 0) return;
    await this.tx(async (q) => {
      const account = await this.lockAccount(q, held.accountId);
      const hold = await this.endingHold(q, held);
      if (!hold.swept) await this.giveBack(q, hold); // a swept hold's CU went back then
      await q('DELETE FROM holds WHERE id = $1', [hold.id]);
      await this.logRequest(q, account.id, held, record, now);
    });
  }

  async sweepExpiredHolds(now: Date): Promise<number> {
    requireDate('now', now);
    const accounts = await this.query<{ account_id: string }>(
      'SELECT DISTINCT account_id FROM holds WHERE NOT swept AND expires_at <= $1',
      [now.toISOString()],
    );
    let swept = 0;
    for (const { account_id } of accounts)
      swept += await this.sweep((sql, params) => this.query(sql, params), account_id, now);
    return swept;
  }

  async pruneRequests(before: Date): Promise<number> {
    requireDate('before', before);
    const cutoff = before.toISOString();
    await this.query('DELETE FROM holds WHERE swept AND expires_at < $1', [cutoff]);
    let pruned = 0;
    for (;;) {
      const [{ n }] = (await this.query<{ n: number }>(
        'WITH gone AS (DELETE FROM requests WHERE seq IN (SELECT seq FROM requests WHERE at < $1 ORDER BY at LIMIT $2) RETURNING 1) SELECT count(*)::integer AS n FROM gone',
        [cutoff, PRUNE_BATCH_ROWS],
      )) as [{ n: number }];
      pruned += n;
      if (n < PRUNE_BATCH_ROWS) return pruned;
    }
  }

  async addCu(accountId: string, cu: number, now: Date): Promise<Usage> {
    requireDate('now', now);
    requireCount('cu', cu, 1);
    return this.tx(async (q) => {
      const account = await this.lockAccount(q, accountId);
      const period = await this.currentPeriod(q, account, now);
      await q('UPDATE usage_periods SET cu_extra = cu_extra + $1 WHERE account_id = $2 AND period_start = $3', [
        cu,
        account.id,
        period.period_start,
      ]);
      return this.usageOf(q, account, period.period_start);
    });
  }

  async takeRateToken(accountId: string, limitRps: number, nowMs: number): Promise<RateToken> {
    requireCount('limitRps', limitRps, 1);
    requireTimeMs('nowMs', nowMs);
    // One statement, atomic across replicas: countRequest (periods.ts) in SQL. A new second starts a window of 1;
    // a request stamped before the stored window counts in it. With the database clock, every replica counts in
    // the same windows.
    const [row] = await this.query<{ window_start: number; count: number; now_ms: number }>(
      `WITH clock AS (
         SELECT CASE WHEN $3 THEN floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint ELSE $2::bigint END AS now_ms
       )
       INSERT INTO rate_windows AS w (account_id, window_start, count)
       SELECT a.id, (clock.now_ms / $4) * $4, 1 FROM accounts a, clock WHERE a.id = $1
       ON CONFLICT (account_id) DO UPDATE SET
         count = CASE WHEN excluded.window_start > w.window_start THEN 1 ELSE w.count + 1 END,
         window_start = greatest(excluded.window_start, w.window_start)
       RETURNING w.window_start, w.count, (SELECT now_ms FROM clock) AS now_ms`,
      [accountId, Math.floor(nowMs), this.rateClock === 'database', RATE_WINDOW_MS],
    );
    if (row === undefined) throw accountNotFound(accountId);
    return rateDecision({ windowStart: row.window_start, count: row.count }, limitRps, row.now_ms);
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  /** Migrates once per store (again after a failed attempt, such as a database still starting). */
  private async ready(): Promise<void> {
    this.migrated ??= migrate(this.pool).catch((error: unknown) => {
      this.migrated = undefined;
      throw storeFailure(error);
    });
    return this.migrated;
  }

  /** One statement outside a transaction (run again when a conflict rolled it back). */
  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.ready();
    try {
      return await retryConflicts(() =>
        this.onConnection(async (client, drop) => {
          try {
            return (await client.query<R>(named(sql, params))).rows;
          } catch (error) {
            drop(error as Error); // as pg's pool.query: a timed-out statement may still be running on it
            throw error;
          }
        }),
      );
    } catch (error) {
      throw storeFailure(error);
    }
  }

  /**
   * Runs `fn` in one transaction on one connection (all of it again when a conflict rolled it back, so `fn` must
   * depend on nothing but what it reads through `q`).
   */
  private async tx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    await this.ready();
    try {
      return await retryConflicts(() => this.attemptTx(fn));
    } catch (error) {
      throw storeFailure(error);
    }
  }

  /** One attempt at `fn` in a transaction; a connection that failed is dropped from the pool. */
  private async attemptTx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.onConnection(async (client, drop) => {
      const q: Query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
        (await client.query<R>(named(sql, params))).rows;
      try {
        await client.query('BEGIN');
        const result = await fn(q);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(drop);
        throw error;
      }
    });
  }

  /**
   * Runs `use` on a connection of the pool (failing to get one is STORE_UNAVAILABLE, whatever the reason: connect),
   * then gives it back, or drops it when `use` called `drop` or the connection was lost meanwhile.
   */
  private async onConnection<T>(use: (client: pg.PoolClient, drop: (error: Error) => void) => Promise<T>): Promise<T> {
    const client = await connect(this.pool);
    let broken: Error | undefined;
    const drop = (error: Error) => {
      broken ??= error;
    };
    // A connection lost between two statements is told as an 'error' event: without a listener it would end the
    // process. The next statement fails, and the connection is dropped.
    client.on('error', drop);
    try {
      return await use(client, drop);
    } finally {
      client.off('error', drop);
      client.release(broken);
    }
  }

  private async account(q: Query, id: string): Promise<Account> {
    const [row] =
      typeof id === 'string' ? await q<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]) : [];
    if (row === undefined) throw accountNotFound(id);
    return toAccount(row);
  }

  /**
   * The account, its row locked until the transaction ends (first in the lock order): one such transaction of the
   * account at a time. FOR NO KEY UPDATE, so the foreign-key checks of the one-statement operations (FOR KEY SHARE),
   * which come after their other locks, do not wait for it.
   */
  private async lockAccount(q: Query, id: string): Promise<Account> {
    const [row] =
      typeof id === 'string'
        ? await q<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, [id])
        : [];
    if (row === undefined) throw accountNotFound(id);
    return toAccount(row);
  }

  private async activeKeys(q: Query, accountId: string): Promise<number> {
    return (
      await q<{ n: number }>(
        'SELECT count(*)::integer AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
        [accountId],
      )
    )[0]!.n;
  }

  private async insertKey(
    q: Query,
    accountId: string,
    label: string,
    hash: string,
    hint: string,
    now: Date,
  ): Promise<KeyRecord> {
    for (;;) {
      const [row] = await q<KeyRow>(
        `INSERT INTO api_keys (id, account_id, label, hash, hint, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO NOTHING RETURNING ${KEY_COLUMNS}`,
        [newKeyId(), accountId, label, hash, hint, now.toISOString()],
      );
      if (row !== undefined) return toKey(row);
    }
  }

  /** Gives back the CU of the account's holds whose lease ran out by `now` (SWEEP); returns how many. */
  private async sweep(q: Query, accountId: string, now: Date): Promise<number> {
    const [{ n }] = (await q<{ n: number }>(SWEEP, [accountId, now.toISOString()])) as [{ n: number }];
    return n;
  }

  /** The stored hold that `held` names, locked (STORE_INVALID when it has already ended). */
  private async endingHold(q: Query, held: Reservation): Promise<HoldRow> {
    const [hold] = await q<HoldRow>(
      'SELECT id, account_id, period_start, endpoint, cu, swept FROM holds WHERE id = $1 AND account_id = $2 FOR UPDATE',
      [held.id, held.accountId],
    );
    if (hold === undefined) throw holdNotFound(held.id);
    return hold;
  }

  /** Takes a swept hold's CU again when its period has room (one conditional statement); whether it did. */
  private async takeIfRoom(q: Query, account: Account, hold: HoldRow): Promise<boolean> {
    const [row] = await q(
      `WITH taken AS (
         UPDATE usage_periods SET cu_used = cu_used + $3
         WHERE account_id = $1 AND period_start = $2 AND cu_used + $3 <= $5 + cu_extra RETURNING period_start
       )
       INSERT INTO endpoint_usage (account_id, period_start, endpoint, cu) SELECT $1, period_start, $4, $3 FROM taken
       ON CONFLICT (account_id, period_start, endpoint) DO UPDATE SET cu = endpoint_usage.cu + excluded.cu
       RETURNING 1`,
      [account.id, hold.period_start, hold.cu, hold.endpoint, account.cuLimit],
    );
    return row !== undefined;
  }

  /** Gives a hold's CU back to its period (total and per endpoint, never below 0). */
  private async giveBack(q: Query, hold: HoldRow): Promise<void> {
    await q(
      'UPDATE usage_periods SET cu_used = greatest(0, cu_used - $1) WHERE account_id = $2 AND period_start = $3',
      [hold.cu, hold.account_id, hold.period_start],
    );
    await q(
      'UPDATE endpoint_usage SET cu = greatest(0, cu - $1) WHERE account_id = $2 AND period_start = $3 AND endpoint = $4',
      [hold.cu, hold.account_id, hold.period_start, hold.endpoint],
    );
    await q('DELETE FROM endpoint_usage WHERE account_id = $1 AND period_start = $2 AND endpoint = $3 AND cu = 0', [
      hold.account_id,
      hold.period_start,
      hold.endpoint,
    ]);
  }

  private async logRequest(
    q: Query,
    accountId: string,
    held: Reservation,
    record: RequestRecord,
    now: Date,
  ): Promise<void> {
    await q(
      'INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [record.requestId, accountId, record.endpoint, record.status, record.cu, held.periodStart, now.toISOString()],
    );
  }

  private async periodAt(q: Query, accountId: string, periodStart: string): Promise<PeriodRow | undefined> {
    const [row] = await q<PeriodRow>(
      'SELECT period_start, period_end, cu_used, cu_extra FROM usage_periods WHERE account_id = $1 AND period_start = $2',
      [accountId, periodStart],
    );
    return row;
  }

  /** The account's period row at `now`, inserting the next one when the stored one is over. */
  private async currentPeriod(q: Query, account: Account, now: Date): Promise<PeriodRow> {
    const [row] = await q<PeriodRow>(
      'SELECT period_start, period_end, cu_used, cu_extra FROM usage_periods WHERE account_id = $1 ORDER BY period_start DESC LIMIT 1',
      [account.id],
    );
    const next = nextPeriod(
      account.periodAnchor,
      row && { periodStart: row.period_start, periodEnd: row.period_end },
      now,
    );
    if (next === null) return row!;
    await q(
      'INSERT INTO usage_periods (account_id, period_start, period_end) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [account.id, next.periodStart, next.periodEnd],
    );
    return (await this.periodAt(q, account.id, next.periodStart))!;
  }

  /** The account's usage in the period that starts at `periodStart`, read in one statement. */
  private async usageOf(q: Query, account: Pick<Account, 'id' | 'cuLimit'>, periodStart: string): Promise<Usage> {
    const [row] = await q<UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM usage_periods p WHERE p.account_id = $1 AND p.period_start = $2`,
      [account.id, periodStart],
    );
    return toUsage(account, row!);
  }
}
