/**
 * The persistence layer of the HTTP service: accounts, API keys (hashes only), compute-unit
 * usage per billing period, the request log and the per-account requests-per-second window.
 *
 * The interface is asynchronous, so that a store behind a network (PostgresStore) fits it; the
 * embedded ones (MemoryStore, SqliteStore) work synchronously inside. All are one set of rules
 * (rules-store.ts, with the helpers of this folder) over their own rows (storage.ts).
 */
import type { Result } from 'evm-integrity';

/** What an account may use. An absent member means "all"; an empty list means "none". */
export interface Entitlements {
  endpoints?: string[];
  chains?: number[];
}

export interface Account {
  id: string;
  name: string;
  plan: string;
  /** Compute units per billing period. */
  cuLimit: number;
  /** Requests per second, shared by all keys of the account. */
  rateLimitRps: number;
  entitlements: Entitlements | null;
  /** ISO instant: start of the first billing period; every period is computed from it. */
  periodAnchor: string;
  createdAt: string;
}

export interface KeyRecord {
  id: string;
  accountId: string;
  label: string;
  /** SHA-256 of the key, lowercase hex. The key itself is never stored. */
  hash: string;
  /** First 8 characters of the key, for lists ('' for a key imported by its hash). */
  hint: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface Usage {
  accountId: string;
  periodStart: string;
  /** End of the period (exclusive) = `cu_reset_at`. */
  periodEnd: string;
  /** The account's limit per period. The allowance of this period is cuLimit + cuExtra. */
  cuLimit: number;
  /** CU packages added during this period. */
  cuExtra: number;
  /** CU charged this period: the CU of the requests answered 2xx (`cu_used`). */
  cuUsed: number;
  /**
   * CU held by requests in progress: reserved and not yet settled or released (nor swept, their lease run out). They
   * count against the allowance until their requests end, charged or given back; they are not in cuUsed.
   */
  cuHeld: number;
  /** cuUsed by endpoint name; an endpoint with nothing charged is absent. */
  cuByEndpoint: Record<string, number>;
}

/** One line of the request log. */
export interface RequestRecord {
  requestId: string;
  endpoint: string;
  /** The HTTP status answered; 499 ("client closed request") when the client left before the answer. */
  status: number;
  /** The CU charged: the reservation's for a settled request, 0 for a released one. */
  cu: number;
}

/** CU held for one request in progress, under a lease; settle or release it exactly once. */
export interface Reservation {
  /** The hold's id in the store. */
  readonly id: string;
  readonly accountId: string;
  readonly endpoint: string;
  readonly cu: number;
  /** The period the CU were taken from: a release gives them back there, even after a roll. */
  readonly periodStart: string;
  /** ISO instant the lease ends: from then on any process may give the CU back (sweep the hold). */
  readonly expiresAt: string;
}

/**
 * What `reserve` gives: the CU held, or (over the allowance) the usage as it stands. A reserve that holds the CU
 * reads nothing after: a read that failed then would leave the hold committed with no reservation to end it.
 */
export type ReserveResult = Result<{ reservation: Reservation }, { usage: Usage }>;

/**
 * What `settle` gives: ok once the CU are charged; an error (nothing changed) only when the hold's lease had run out,
 * its CU were given back, and the period no longer has room for them: the request must not be answered 2xx.
 */
export type SettleResult = Result<undefined, { usage: Usage }>;

/** How a store is opened. */
export interface StoreOptions {
  /** Milliseconds a reservation's CU stay held without a settle or release; DEFAULT_RESERVATION_LEASE_MS when absent. */
  reservationLeaseMs?: number;
}

/**
 * How long the request log is kept by default: the longest period (31 days) plus a 14-day margin,
 * so a period's requests stay at least 14 days after it ends. Usage figures do not depend on it.
 */
export const DEFAULT_REQUEST_RETENTION_DAYS = 45;

export interface AccountInput {
  id?: string;
  name: string;
  plan: string;
  cuLimit: number;
  rateLimitRps: number;
  entitlements?: Entitlements | null;
}

export type AuthResult =
  | { status: 'active'; key: KeyRecord; account: Account }
  | { status: 'unknown' }
  | { status: 'revoked'; key: KeyRecord };

export interface RateToken {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current one-second window. */
  remaining: number;
  /** Requests seen in the current window, this one and refused ones included: the current rate. */
  count: number;
  /** 0 when allowed; otherwise whole seconds until the next window (1). */
  retryAfterSeconds: number;
}

export interface Store {
  /** A new account; its first billing period starts at `now`. CONFLICT if the id exists. */
  createAccount(input: AccountInput, now: Date): Promise<Account>;
  /** Creates or updates (name, plan, limits, entitlements) an account; keeps its anchor. */
  upsertAccount(input: AccountInput & { id: string }, now: Date): Promise<Account>;
  getAccount(id: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  /** A new key, returned once: `evmi_` + 43 base64url characters; only its SHA-256 is stored. */
  createKey(accountId: string, label: string, now: Date): Promise<{ key: string; record: KeyRecord }>;
  /** A key from a configuration file; the existing record when that hash is already known. */
  importKey(
    accountId: string,
    label: string,
    hashOrPlain: { sha256: string } | { plain: string },
    now: Date,
  ): Promise<KeyRecord>;
  listKeys(accountId?: string): Promise<KeyRecord[]>;
  /** Revokes by key id or hint; a key already revoked is returned unchanged. */
  revokeKey(idOrHint: string, now: Date): Promise<KeyRecord>;
  /** Revokes every active key of an account at once (its keys get 401 from then on); returns the keys it revoked. */
  revokeAccountKeys(accountId: string, now: Date): Promise<KeyRecord[]>;
  /**
   * Deletes an account with everything of it: its keys, usage periods, request log and rate
   * window. Returns how many keys and logged requests went with it. STORE_NOT_FOUND if unknown.
   */
  deleteAccount(accountId: string): Promise<{ keys: number; requests: number }>;
  authenticate(key: string): Promise<AuthResult>;
  /** This period's usage; rolls the period forward when now >= periodEnd. */
  usage(accountId: string, now: Date): Promise<Usage>;
  /**
   * Before the work, atomically (across processes for SQLite and PostgreSQL): give back the account's holds whose
   * lease ran out, roll the period if due; refuse when cuUsed + cuHeld + cu > cuLimit + cuExtra (exceedsAllowance);
   * otherwise hold `cu` under a lease (cuHeld until the request ends). Checking and taking in one step is what keeps
   * concurrent servers from overdrawing.
   */
  reserve(accountId: string, endpoint: string, cu: number, now: Date): Promise<ReserveResult>;
  /**
   * The work answered 2xx, before the answer is sent: the held CU stay charged and the request is logged
   * (`request.cu` = the reservation's cu). When the lease had run out and the CU were given back, they are taken
   * again if the period has room; if not, nothing changes and the result is the error (answer 429, then release).
   * STORE_INVALID for a reservation already ended.
   */
  settle(reservation: Reservation, request: RequestRecord, now: Date): Promise<SettleResult>;
  /**
   * The work failed (4xx/5xx) or the client left: gives the held CU back to the period they were
   * taken from (total and per endpoint, never below 0; not twice when the lease's sweep already did)
   * and logs the request with cu 0. STORE_INVALID for a reservation already ended.
   */
  release(reservation: Reservation, request: RequestRecord, now: Date): Promise<void>;
  /**
   * Gives back the CU of every hold whose lease ran out by `now`, in every account (at start; reserve and usage do
   * it for their account). Returns how many holds it swept.
   */
  sweepExpiredHolds(now: Date): Promise<number>;
  /**
   * Deletes the request-log entries logged before `before`, and swept holds that expired before it (never settled:
   * their process died); usage figures are kept. Returns how many log entries went.
   */
  pruneRequests(before: Date): Promise<number>;
  /** A CU package: raises this period's allowance. */
  addCu(accountId: string, cu: number, now: Date): Promise<Usage>;
  /** Fixed one-second window per account, shared by all its keys (and processes, for SQLite). */
  takeRateToken(accountId: string, limitRps: number, nowMs: number): Promise<RateToken>;
  /** Resolves once the store answers a trivial query (readiness); STORE_UNAVAILABLE when it cannot. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
