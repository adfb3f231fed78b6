/* eslint-disable @typescript-eslint/require-await -- a synchronous store implements the asynchronous Store: its methods are async so that a refusal is a rejected promise, as for PostgresStore, never a synchronous throw. */
/**
 * The store in an SQLite file (better-sqlite3): what a self-hosted server and its operator CLI
 * share. WAL mode and a busy timeout let several processes use one file; every operation that
 * writes runs in one IMMEDIATE transaction (write lock taken up front, so concurrent processes
 * queue instead of failing), which makes `reserve` (check and take CU) and `takeRateToken` atomic
 * across processes.
 * The schema version is `PRAGMA user_version`.
 */
import Database from 'better-sqlite3';
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
} from './keys.js';
import { countRequest, exceedsAllowance, nextPeriod, type Period, rateDecision } from './periods.js';
import { DEFAULT_RESERVATION_LEASE_MS, holdNotFound, leaseExpiry, newHoldId, requireLeaseMs } from './leases.js';
import {
  type Account,
  type AccountInput,
  type AuthResult,
  type Entitlements,
  type KeyRecord,
  type RateToken,
  type RequestRecord,
  type Reservation,
  type ReserveResult,
  type SettleResult,
  type Store,
  type StoreOptions,
  type Usage,
} from './store.js';
import { ownerOnlyStoreFile } from './owner-only.js';
import { accountNotFound, StoreError } from './store-error.js';
import { makeUsage } from './usage.js';
import { newAccountId } from './account-ids.js';
import {
  normalizeAccountInput,
  normalizeRequest,
  normalizeReservation,
  normalizeReserve,
  requireCount,
  requireDate,
  requireId,
  requireTimeMs,
} from './validation.js';

/** Migrations by version: MIGRATIONS[n] brings a file from version n to n + 1. Append only. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    cu_limit INTEGER NOT NULL CHECK (cu_limit >= 0),
    rate_limit_rps INTEGER NOT NULL CHECK (rate_limit_rps > 0),
    entitlements TEXT,
    period_anchor TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    label TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  ) STRICT;
  CREATE INDEX api_keys_account ON api_keys (account_id);
  CREATE INDEX api_keys_hint ON api_keys (hint);
  CREATE TABLE usage_periods (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    period_start TEXT NOT NULL,
    period_end TEXT NOT NULL,
    cu_used INTEGER NOT NULL DEFAULT 0,
    cu_extra INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_start)
  ) STRICT;
  CREATE TABLE endpoint_usage (
    account_id TEXT NOT NULL,
    period_start TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    cu INTEGER NOT NULL,
    PRIMARY KEY (account_id, period_start, endpoint),
    FOREIGN KEY (account_id, period_start) REFERENCES usage_periods (account_id, period_start)
  ) STRICT;
  CREATE TABLE requests (
    seq INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    endpoint TEXT NOT NULL,
    status INTEGER NOT NULL,
    cu INTEGER NOT NULL,
    period_start TEXT NOT NULL,
    at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX requests_account_at ON requests (account_id, at);
  CREATE TABLE rate_windows (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
  ) STRICT;
  `,
  // Retention deletes the request log by age.
  `
  CREATE INDEX requests_at ON requests (at);
  `,
  // Reservation leases: CU held for a request in progress, swept back to their period once expired.
  `
  CREATE TABLE holds (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    period_start TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    cu INTEGER NOT NULL CHECK (cu >= 0),
    expires_at TEXT NOT NULL,
    swept INTEGER NOT NULL DEFAULT 0 CHECK (swept IN (0, 1))
  ) STRICT;
  CREATE INDEX holds_expiry ON holds (swept, expires_at, account_id);
  `,
];

/** The schema version this program writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** How long a process waits for another one's write lock before giving up. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Request-log rows deleted per transaction when pruning: a first prune of a large log then holds
 * the write lock for short spells, not past the other processes' busy timeout.
 */
const PRUNE_BATCH_ROWS = 5000;

/**
 * Runs `step` again while SQLite answers SQLITE_BUSY, for up to BUSY_TIMEOUT_MS. Switching a new
 * file to WAL needs an exclusive lock, and when several processes open the same new store at once
 * SQLite refuses some of them at once, without calling the busy handler (it would deadlock): seen
 * as "database is locked" by the second of two servers started together.
 */
function retryWhileBusy<T>(step: () => T): T {
  const giveUpAt = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return step();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw error;
      Atomics.wait(PAUSE, 0, 0, 5 + Math.random() * 20); // a synchronous pause: the constructor is synchronous
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

interface AccountRow {
  id: string;
  name: string;
  plan: string;
  cu_limit: number;
  rate_limit_rps: number;
  entitlements: string | null;
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

interface HoldRow {
  id: string;
  account_id: string;
  period_start: string;
  endpoint: string;
  cu: number;
  swept: number;
}

interface PeriodRow {
  period_start: string;
  period_end: string;
  cu_used: number;
  cu_extra: number;
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  cuLimit: row.cu_limit,
  rateLimitRps: row.rate_limit_rps,
  entitlements: row.entitlements === null ? null : (JSON.parse(row.entitlements) as Entitlements),
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

function statements(db: Database.Database) {
  const s = <T = unknown>(sql: string) => db.prepare<unknown[], T>(sql);
  return {
    account: s<AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    accounts: s<AccountRow>('SELECT * FROM accounts ORDER BY created_at, rowid'),
    insertAccount: s(
      'INSERT INTO accounts (id, name, plan, cu_limit, rate_limit_rps, entitlements, period_anchor, created_at) VALUES (@id, @name, @plan, @cuLimit, @rateLimitRps, @entitlements, @periodAnchor, @createdAt)',
    ),
    updateAccount: s(
      'UPDATE accounts SET name = @name, plan = @plan, cu_limit = @cuLimit, rate_limit_rps = @rateLimitRps, entitlements = @entitlements WHERE id = @id',
    ),
    key: s<KeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    keyByHash: s<KeyRow>('SELECT * FROM api_keys WHERE hash = ?'),
    keysByHint: s<KeyRow>("SELECT * FROM api_keys WHERE hint = ? AND hint <> '' ORDER BY created_at, rowid"),
    keys: s<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, rowid'),
    keysOf: s<KeyRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid'),
    activeKeys: s<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL'),
    insertKey: s(
      'INSERT INTO api_keys (id, account_id, label, hash, hint, created_at, revoked_at) VALUES (@id, @accountId, @label, @hash, @hint, @createdAt, NULL)',
    ),
    revokeKey: s('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    activeKeysOf: s<KeyRow>(
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
    hold: s<HoldRow>('SELECT * FROM holds WHERE id = ? AND account_id = ?'),
    insertHold: s(
      'INSERT INTO holds (id, account_id, period_start, endpoint, cu, expires_at) VALUES (@id, @accountId, @periodStart, @endpoint, @cu, @expiresAt)',
    ),
    deleteHold: s('DELETE FROM holds WHERE id = ?'),
    expiredHolds: s<HoldRow>('SELECT * FROM holds WHERE swept = 0 AND expires_at <= ? AND account_id = ?'),
    anyExpiredHold: s<{ one: number }>(
      'SELECT 1 AS one FROM holds WHERE swept = 0 AND expires_at <= ? AND account_id = ? LIMIT 1',
    ),
    accountsWithExpiredHolds: s<{ account_id: string }>(
      'SELECT DISTINCT account_id FROM holds WHERE swept = 0 AND expires_at <= ?',
    ),
    markSwept: s('UPDATE holds SET swept = 1 WHERE id = ?'),
    pruneSweptHolds: s('DELETE FROM holds WHERE swept = 1 AND expires_at < ?'),
    periodAt: s<PeriodRow>(
      'SELECT period_start, period_end, cu_used, cu_extra FROM usage_periods WHERE account_id = ? AND period_start = ?',
    ),
    period: s<PeriodRow>(
      'SELECT period_start, period_end, cu_used, cu_extra FROM usage_periods WHERE account_id = ? ORDER BY period_start DESC LIMIT 1',
    ),
    insertPeriod: s('INSERT INTO usage_periods (account_id, period_start, period_end) VALUES (?, ?, ?)'),
    addUsed: s('UPDATE usage_periods SET cu_used = cu_used + ? WHERE account_id = ? AND period_start = ?'),
    giveBackUsed: s('UPDATE usage_periods SET cu_used = max(0, cu_used - ?) WHERE account_id = ? AND period_start = ?'),
    addExtra: s('UPDATE usage_periods SET cu_extra = cu_extra + ? WHERE account_id = ? AND period_start = ?'),
    endpointUsage: s<{ endpoint: string; cu: number }>(
      'SELECT endpoint, cu FROM endpoint_usage WHERE account_id = ? AND period_start = ?',
    ),
    heldByEndpoint: s<{ endpoint: string; cu: number }>(
      'SELECT endpoint, sum(cu) AS cu FROM holds WHERE account_id = ? AND period_start = ? AND swept = 0 GROUP BY endpoint',
    ),
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
    rateWindow: s<{ windowStart: number; count: number }>(
      'SELECT window_start AS windowStart, count FROM rate_windows WHERE account_id = ?',
    ),
    saveRateWindow: s(
      'INSERT INTO rate_windows (account_id, window_start, count) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET window_start = excluded.window_start, count = excluded.count',
    ),
  };
}

/**
 * The store in one SQLite file (the service's default, `data/evm-integrity.sqlite`): accounts, key
 * hashes, usage per period, the request log and rate windows, shared safely by the processes that
 * open the same file, and closed to other users of the machine (`owner-only.ts`).
 * @example
 * const store = new SqliteStore('data/evm-integrity.sqlite');
 */
export class SqliteStore implements Store {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly sql: ReturnType<typeof statements>;
  private readonly runner: Database.Transaction<(fn: () => unknown) => unknown>;
  private readonly leaseMs: number;

  /** Opens (creating the directory, the file and the schema as needed, owner-only) the store in `file`. */
  constructor(file: string, options: StoreOptions = {}) {
    this.file = file;
    this.leaseMs = requireLeaseMs(options.reservationLeaseMs ?? DEFAULT_RESERVATION_LEASE_MS);
    try {
      if (file !== ':memory:' && file !== '') ownerOnlyStoreFile(file);
      this.db = new Database(file);
    } catch (error) {
      throw new StoreError('STORE_INVALID', `cannot open the store ${file}: ${(error as Error).message}`, 'file');
    }
    try {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      retryWhileBusy(() => this.db.pragma('journal_mode = WAL'));
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.runner = this.db.transaction((fn: () => unknown) => fn());
      this.migrate();
      this.sql = statements(this.db);
    } catch (error) {
      this.db.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError('STORE_INVALID', `cannot open the store ${file}: ${(error as Error).message}`, 'file');
    }
  }

  async createAccount(input: AccountInput, now: Date): Promise<Account> {
    requireDate('now', now);
    const fields = normalizeAccountInput(input);
    return this.write(() => {
      const id = newAccountId(input, fields.name, (candidate) => this.sql.account.get(candidate) !== undefined);
      return this.insertAccount(id, fields, now);
    });
  }

  async upsertAccount(input: AccountInput & { id: string }, now: Date): Promise<Account> {
    requireDate('now', now);
    const id = requireId('id', input.id);
    const fields = normalizeAccountInput(input);
    return this.write(() => {
      if (this.sql.account.get(id) === undefined) return this.insertAccount(id, fields, now);
      this.sql.updateAccount.run({
        id,
        ...fields,
        entitlements: fields.entitlements === null ? null : JSON.stringify(fields.entitlements),
      });
      return this.account(id);
    });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    return this.findAccount(id);
  }

  async listAccounts(): Promise<Account[]> {
    return this.sql.accounts.all().map(toAccount);
  }

  async createKey(accountId: string, label: string, now: Date): Promise<{ key: string; record: KeyRecord }> {
    requireDate('now', now);
    const validated = validLabel(label);
    return this.write(() => {
      const account = this.account(accountId);
      assertKeyLimit(account.id, this.sql.activeKeys.get(account.id)!.n);
      const key = generateKey();
      return { key, record: this.insertKey(account.id, validated, hashKey(key), keyHint(key), now) };
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
    return this.write(() => {
      const account = this.account(accountId);
      const existing = this.sql.keyByHash.get(hash);
      if (existing !== undefined) {
        const record = toKey(existing);
        assertSameAccount(record, account.id);
        return record;
      }
      assertKeyLimit(account.id, this.sql.activeKeys.get(account.id)!.n);
      return this.insertKey(account.id, validated, hash, hint, now);
    });
  }

  async listKeys(accountId?: string): Promise<KeyRecord[]> {
    if (accountId === undefined) return this.sql.keys.all().map(toKey);
    return this.runner.deferred(() => {
      this.account(accountId);
      return this.sql.keysOf.all(accountId).map(toKey);
    }) as KeyRecord[];
  }

  async revokeKey(idOrHint: string, now: Date): Promise<KeyRecord> {
    requireDate('now', now);
    const wanted = validIdOrHint(idOrHint);
    return this.write(() => {
      const byId = this.sql.key.get(wanted);
      const key = keyToRevoke(wanted, byId && toKey(byId), this.sql.keysByHint.all(wanted).map(toKey));
      if (!isActive(key)) return key;
      this.sql.revokeKey.run(now.toISOString(), key.id);
      return toKey(this.sql.key.get(key.id)!);
    });
  }

  async revokeAccountKeys(accountId: string, now: Date): Promise<KeyRecord[]> {
    requireDate('now', now);
    return this.write(() => {
      const account = this.account(accountId);
      const active = this.sql.activeKeysOf.all(account.id);
      for (const row of active) this.sql.revokeKey.run(now.toISOString(), row.id);
      return active.map((row) => toKey(this.sql.key.get(row.id)!));
    });
  }

  async deleteAccount(accountId: string): Promise<{ keys: number; requests: number }> {
    return this.write(() => {
      const account = this.account(accountId);
      const [keys, requests] = this.sql.deleteAccountRows.map((statement) => statement.run(account.id).changes);
      return { keys: keys!, requests: requests! };
    });
  }

  async authenticate(key: string): Promise<AuthResult> {
    return this.runner.deferred(() =>
      authenticateKey(
        key,
        (hash) => {
          const row = this.sql.keyByHash.get(hash);
          return row === undefined ? undefined : toKey(row);
        },
        (id) => this.findAccount(id),
      ),
    ) as AuthResult;
  }

  async usage(accountId: string, now: Date): Promise<Usage> {
    requireDate('now', now);
    // Most calls only read; the write lock is taken only when the period has to move on or a lease ran out.
    const current = this.runner.deferred(() => {
      const account = this.account(accountId);
      const row = this.sql.period.get(account.id);
      const rolls = nextPeriod(
        account.periodAnchor,
        row && { periodStart: row.period_start, periodEnd: row.period_end },
        now,
      );
      const expired = this.sql.anyExpiredHold.get(now.toISOString(), account.id) !== undefined;
      return rolls === null && !expired ? this.usageOf(account, row!) : undefined;
    }) as Usage | undefined;
    return (
      current ??
      this.write(() => {
        const account = this.account(accountId);
        this.sweep(account.id, now);
        return this.usageOf(account, this.currentPeriod(account, now));
      })
    );
  }

  async reserve(accountId: string, endpoint: string, cu: number, now: Date): Promise<ReserveResult> {
    requireDate('now', now);
    const wanted = normalizeReserve(endpoint, cu);
    return this.write((): ReserveResult => {
      const account = this.account(accountId);
      this.sweep(account.id, now);
      const period = this.currentPeriod(account, now);
      const usage = this.usageOf(account, period);
      if (exceedsAllowance(usage, wanted.cu)) return err({ usage });
      this.take(account.id, period.period_start, wanted.endpoint, wanted.cu);
      const reservation: Reservation = {
        id: newHoldId(),
        accountId: account.id,
        ...wanted,
        periodStart: period.period_start,
        expiresAt: leaseExpiry(now, this.leaseMs),
      };
      this.sql.insertHold.run(reservation);
      return ok({ reservation });
    });
  }

  async settle(reservation: Reservation, request: RequestRecord, now: Date): Promise<SettleResult> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, held.cu);
    return this.write((): SettleResult => {
      const account = this.account(held.accountId);
      const hold = this.endingHold(held);
      if (hold.swept === 1) {
        // The lease ran out and the CU went back: take them again, if the period still has room.
        const period = this.sql.periodAt.get(account.id, hold.period_start)!;
        if (exceedsAllowance(this.usageOf(account, period), hold.cu))
          return err({ usage: this.usageOf(account, this.currentPeriod(account, now)) });
        this.take(account.id, hold.period_start, hold.endpoint, hold.cu);
      }
      this.sql.deleteHold.run(hold.id);
      this.logRequest(account, held, record, now);
      return ok(undefined);
    });
  }

  async release(reservation: Reservation, request: RequestRecord, now: Date): Promise<void> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, 0);
    this.write(() => {
      const account = this.account(held.accountId);
      const hold = this.endingHold(held);
      if (hold.swept === 0) this.giveBack(hold);
      this.sql.deleteHold.run(hold.id);
      this.logRequest(account, held, record, now);
    });
  }

  async sweepExpiredHolds(now: Date): Promise<number> {
    requireDate('now', now);
    return this.write(() =>
      this.sql.accountsWithExpiredHolds
        .all(now.toISOString())
        .reduce((swept, row) => swept + this.sweep(row.account_id, now), 0),
    );
  }

  async pruneRequests(before: Date): Promise<number> {
    requireDate('before', before);
    const cutoff = before.toISOString();
    this.write(() => this.sql.pruneSweptHolds.run(cutoff));
    let pruned = 0;
    for (;;) {
      const { changes } = this.write(() => this.sql.pruneRequests.run(cutoff, PRUNE_BATCH_ROWS));
      pruned += changes;
      if (changes < PRUNE_BATCH_ROWS) return pruned;
    }
  }

  async addCu(accountId: string, cu: number, now: Date): Promise<Usage> {
    requireDate('now', now);
    requireCount('cu', cu, 1);
    return this.write(() => {
      const account = this.account(accountId);
      const period = this.currentPeriod(account, now);
      this.sql.addExtra.run(cu, account.id, period.period_start);
      return this.usageOf(account, this.sql.period.get(account.id)!);
    });
  }

  async takeRateToken(accountId: string, limitRps: number, nowMs: number): Promise<RateToken> {
    requireCount('limitRps', limitRps, 1);
    requireTimeMs('nowMs', nowMs);
    const window = this.write(() => {
      const stored = this.sql.rateWindow.get(accountId);
      if (stored === undefined) this.account(accountId);
      const next = countRequest(stored, nowMs);
      this.sql.saveRateWindow.run(accountId, next.windowStart, next.count);
      return next;
    });
    return rateDecision(window, limitRps, nowMs);
  }

  async ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
    } catch (error) {
      throw new StoreError('STORE_UNAVAILABLE', `the store ${this.file} cannot answer: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (a savepoint when already inside one). Another process holding the write
   * lock past the busy timeout is STORE_UNAVAILABLE: the request may be retried, it is no fault of this one.
   */
  private write<T>(fn: () => T): T {
    try {
      return this.runner.immediate(fn) as T;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
        throw new StoreError(
          'STORE_UNAVAILABLE',
          `the store ${this.file} stayed locked by another process: ${(error as Error).message}`,
        );
      throw error;
    }
  }

  private migrate(): void {
    const version = () => this.db.pragma('user_version', { simple: true }) as number;
    const check = (found: number) => {
      if (found > SCHEMA_VERSION) {
        throw new StoreError(
          'STORE_INVALID',
          `the store ${this.file} has schema version ${found}, newer than this program's ${SCHEMA_VERSION}; upgrade evm-integrity`,
          'file',
        );
      }
    };
    check(version());
    if (version() === SCHEMA_VERSION) return;
    this.write(() => {
      const found = version(); // another process may have migrated meanwhile
      check(found);
      for (let v = found; v < SCHEMA_VERSION; v++) this.db.exec(MIGRATIONS[v]!);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    });
  }

  private findAccount(id: string): Account | undefined {
    const row = this.sql.account.get(id);
    return row === undefined ? undefined : toAccount(row);
  }

  private account(id: string): Account {
    const row = typeof id === 'string' ? this.sql.account.get(id) : undefined;
    if (row === undefined) throw accountNotFound(id);
    return toAccount(row);
  }

  private insertAccount(id: string, fields: ReturnType<typeof normalizeAccountInput>, now: Date): Account {
    const at = now.toISOString();
    this.sql.insertAccount.run({
      id,
      ...fields,
      entitlements: fields.entitlements === null ? null : JSON.stringify(fields.entitlements),
      periodAnchor: at,
      createdAt: at,
    });
    const account = this.account(id);
    this.currentPeriod(account, now);
    return account;
  }

  /** Gives back the CU of the account's holds whose lease ran out by `now`; returns how many. Call inside write(). */
  private sweep(accountId: string, now: Date): number {
    const expired = this.sql.expiredHolds.all(now.toISOString(), accountId);
    for (const hold of expired) {
      this.giveBack(hold);
      this.sql.markSwept.run(hold.id);
    }
    return expired.length;
  }

  /** The stored hold that `held` names (STORE_INVALID when it has already ended). Call inside write(). */
  private endingHold(held: Reservation): HoldRow {
    const hold = this.sql.hold.get(held.id, held.accountId);
    if (hold === undefined) throw holdNotFound(held.id);
    return hold;
  }

  private take(accountId: string, periodStart: string, endpoint: string, cu: number): void {
    this.sql.addUsed.run(cu, accountId, periodStart);
    this.sql.addEndpointUsage.run(accountId, periodStart, endpoint, cu);
  }

  /** Gives a hold's CU back to its period (total and per endpoint, never below 0). Call inside write(). */
  private giveBack(hold: Pick<HoldRow, 'account_id' | 'period_start' | 'endpoint' | 'cu'>): void {
    this.sql.giveBackUsed.run(hold.cu, hold.account_id, hold.period_start);
    this.sql.giveBackEndpointUsage.run(hold.cu, hold.account_id, hold.period_start, hold.endpoint);
    this.sql.dropUnusedEndpoint.run(hold.account_id, hold.period_start, hold.endpoint);
  }

  private logRequest(account: Account, held: Reservation, record: RequestRecord, now: Date): void {
    this.sql.insertRequest.run(
      record.requestId,
      account.id,
      record.endpoint,
      record.status,
      record.cu,
      held.periodStart,
      now.toISOString(),
    );
  }

  private insertKey(accountId: string, label: string, hash: string, hint: string, now: Date): KeyRecord {
    let id = newKeyId();
    while (this.sql.key.get(id) !== undefined) id = newKeyId();
    this.sql.insertKey.run({ id, accountId, label, hash, hint, createdAt: now.toISOString() });
    return toKey(this.sql.key.get(id)!);
  }

  /** The account's period row at `now`, inserting the next one when the stored one is over. Call inside write(). */
  private currentPeriod(account: Account, now: Date): PeriodRow {
    const row = this.sql.period.get(account.id);
    const next: Period | null = nextPeriod(
      account.periodAnchor,
      row && { periodStart: row.period_start, periodEnd: row.period_end },
      now,
    );
    if (next === null) return row!;
    this.sql.insertPeriod.run(account.id, next.periodStart, next.periodEnd);
    return { period_start: next.periodStart, period_end: next.periodEnd, cu_used: 0, cu_extra: 0 };
  }

  /** The usage of the period `row`: its CU taken (`cu_used`, charged and held) less those its holds still hold. */
  private usageOf(account: Account, row: PeriodRow): Usage {
    const byEndpoint = (statement: Database.Statement<unknown[], { endpoint: string; cu: number }>) =>
      statement.all(account.id, row.period_start).map((r): [string, number] => [r.endpoint, r.cu]);
    return makeUsage(
      account.id,
      { periodStart: row.period_start, periodEnd: row.period_end },
      account.cuLimit,
      row.cu_extra,
      { cu: row.cu_used, byEndpoint: byEndpoint(this.sql.endpointUsage) },
      byEndpoint(this.sql.heldByEndpoint),
    );
  }
}
