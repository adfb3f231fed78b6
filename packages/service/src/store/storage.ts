/**
 * What the store's rules (rules-store.ts) ask of a backend: rows read and written, and the few conditional operations
 * that must be atomic on their own (one statement each in PostgreSQL, so that concurrent replicas never race). The
 * backends (memory, SQLite, PostgreSQL) implement this and decide nothing: validation, period arithmetic, limits and
 * errors are the rules'.
 */
import type { Period, RateWindow } from './periods.js';
import type { Account, KeyRecord, RequestRecord, Reservation } from './store.js';

/** A value, or a promise of it: the embedded backends answer at once, PostgreSQL later. */
export type Awaitable<T> = T | Promise<T>;

/** How a backend answers: `sync` at once (memory, SQLite), `async` with either. */
export type Answering = 'sync' | 'async';
type Answer<A extends Answering, T> = A extends 'sync' ? T : Awaitable<T>;

/** A usage period as stored: the CU taken from it (charged and held alike, `cu_used`) and the CU packages added. */
export interface PeriodRow extends Period {
  cuTaken: number;
  cuExtra: number;
}

/**
 * A period with its CU taken by endpoint and those held by its holds not yet ended nor swept, as `[endpoint, cu]`
 * pairs: what makeUsage (usage.ts) turns into a Usage.
 */
export interface PeriodUsageRow extends PeriodRow {
  taken: [string, number][];
  held: [string, number][];
}

/** A stored hold; `swept` once its lease ran out and its CU went back to the period. */
export interface HoldRow extends Reservation {
  swept: boolean;
}

/** A hold to take: the reservation but its period, which the backend finds. */
export type HoldRequest = Omit<Reservation, 'periodStart'>;

/** An account, the usage of its latest period (none yet: undefined), and whether a hold of it outlived its lease. */
export interface AccountUsageRow {
  account: Account;
  latest: PeriodUsageRow | undefined;
  expired: boolean;
}

/** The rows of a store, read and written inside the transaction (or the statement) they run in. */
export interface Primitives<A extends Answering = 'async'> {
  /** The account; `lock`: locked until the transaction ends (PostgreSQL), first in the lock order. */
  account(id: string, lock: boolean): Answer<A, Account | undefined>;
  /** Every account, oldest first. */
  accounts(): Answer<A, Account[]>;
  /** The ids `base` and `base-…` taken: those a new account's id could collide with. */
  accountIdsFrom(base: string): Answer<A, string[]>;
  /** Inserts the account; false (nothing written) when its id is taken. */
  insertAccount(account: Account): Answer<A, boolean>;
  /** Inserts the account, or updates its name, plan, limits and entitlements (its anchor kept); the stored account. */
  upsertAccount(account: Account): Answer<A, Account>;
  /** Deletes an account's rows, children first; how many keys and logged requests went. */
  deleteAccount(id: string): Answer<A, { keys: number; requests: number }>;
  activeKeyCount(accountId: string): Answer<A, number>;
  /** Inserts the key; false (nothing written) when its id is taken. */
  insertKey(record: KeyRecord): Answer<A, boolean>;
  /** The key with that id (locked in a transaction). */
  key(id: string): Answer<A, KeyRecord | undefined>;
  keyByHash(hash: string): Answer<A, KeyRecord | undefined>;
  /** The keys with that hint ('' matches none), oldest first (locked in a transaction). */
  keysByHint(hint: string): Answer<A, KeyRecord[]>;
  /** The keys of an account, or all, oldest first. */
  keys(accountId?: string): Answer<A, KeyRecord[]>;
  /** The key with that hash and its account (absent: undefined), read at once. */
  keyWithAccount(hash: string): Answer<A, { key: KeyRecord; account: Account | undefined } | undefined>;
  /** Revokes the key if still active; the key revoked, undefined when it was not active. */
  revokeKey(id: string, at: string): Answer<A, KeyRecord | undefined>;
  /** Revokes the account's active keys; those revoked, oldest first. */
  revokeAccountKeys(accountId: string, at: string): Answer<A, KeyRecord[]>;
  latestPeriod(accountId: string): Answer<A, PeriodRow | undefined>;
  /** Inserts a period with nothing taken; nothing when it exists already (another process rolled it). */
  insertPeriod(accountId: string, period: Period): Answer<A, void>;
  periodUsage(accountId: string, periodStart: string): Answer<A, PeriodUsageRow | undefined>;
  addExtra(accountId: string, periodStart: string, cu: number): Answer<A, void>;
  /** The hold of that id and account (locked in a transaction). */
  hold(id: string, accountId: string): Answer<A, HoldRow | undefined>;
  deleteHold(id: string): Answer<A, void>;
  /** Gives a hold's CU back to its period, total and endpoint, never below 0. */
  giveBack(hold: HoldRow): Answer<A, void>;
  accountsWithExpiredHolds(now: Date): Answer<A, string[]>;
  /** Deletes the swept holds that expired before `before`. */
  pruneSweptHolds(before: string): Answer<A, void>;
  logRequest(accountId: string, periodStart: string, record: RequestRecord, at: string): Answer<A, void>;
  /** Deletes at most `limit` of the oldest logged requests before `before`; how many. */
  pruneRequests(before: string, limit: number): Answer<A, number>;
}

/**
 * The conditional operations, each atomic on its own. PostgreSQL runs each as one statement; the embedded backends
 * compose them from their rows (serial-rows.ts), inside their one writer at a time.
 */
export interface Atomics {
  /**
   * Takes `hold.cu` from the latest period and records the hold, when that period runs at `now`, no hold of the
   * account has outlived its lease and the allowance has room (exceedsAllowance, periods.ts); the period, or
   * undefined (nothing written) when a condition failed.
   */
  reserveIfRoom(hold: HoldRequest, now: Date): Awaitable<Period | undefined>;
  /**
   * Ends the hold `held` if it is still under lease (not swept), its CU given back when `giveBack`, and logs
   * `record`; false (nothing written) when there is no such hold.
   */
  endHold(held: Reservation, record: RequestRecord, at: string, giveBack: boolean): Awaitable<boolean>;
  /** Gives back the CU of the account's holds whose lease ran out by `now`, marking them swept; how many. */
  sweep(accountId: string, now: Date): Awaitable<number>;
  /** Takes a swept hold's CU again when its period has room for them (cuLimit its account's); whether it did. */
  takeIfRoom(hold: HoldRow, cuLimit: number): Awaitable<boolean>;
  /** The account, its latest period's usage and whether a hold of it has outlived its lease at `now`, in one read. */
  accountUsage(accountId: string, now: Date): Awaitable<AccountUsageRow | undefined>;
  /**
   * One more request in the account's requests-per-second window (countRequest, periods.ts); the window and the
   * instant it was counted at, or undefined for an unknown account.
   */
  countRateRequest(accountId: string, nowMs: number): Awaitable<{ window: RateWindow; nowMs: number } | undefined>;
}

/** The rows and atomic operations of a store. */
export interface Rows extends Primitives, Atomics {}

/** A backend of the store: its rows, used one operation at a time or in a transaction. */
export interface Storage {
  /** The rows, each operation atomic on its own. */
  readonly rows: Rows;
  /**
   * Runs `work` with its operations atomic together (run again from the start when a conflict rolled it back, so it
   * depends on nothing but what it reads through `rows`).
   */
  transaction<T>(work: (rows: Rows) => Promise<T>): Promise<T>;
  /** Resolves once the backend answers (readiness); STORE_UNAVAILABLE when it cannot. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
