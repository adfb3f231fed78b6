/**
 * The persistence layer of the HTTP service: accounts, API keys (hashes only), compute-unit
 * usage per billing period, the request log and the per-account requests-per-second window.
 *
 * Both implementations (MemoryStore, SqliteStore) are synchronous and share their rules
 * (validation, periods, key handling) through the helpers of this folder.
 */
import { EvmIntegrityError, type Result } from 'evm-integrity';
import type { StoreErrorCode } from '../../error-codes.js';

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
  cuUsed: number;
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

/** CU held for one request in progress; settle or release it exactly once. */
export interface Reservation {
  readonly accountId: string;
  readonly endpoint: string;
  readonly cu: number;
  /** The period the CU were taken from: a release gives them back there, even after a roll. */
  readonly periodStart: string;
}

/** What `reserve` gives: the CU held and the usage with them, or (over the allowance) the usage as it stands. */
export type ReserveResult = Result<{ reservation: Reservation; usage: Usage }, { usage: Usage }>;

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

export type AuthResult = { status: 'active'; key: KeyRecord; account: Account } | { status: 'unknown' } | { status: 'revoked'; key: KeyRecord };

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
  createAccount(input: AccountInput, now: Date): Account;
  /** Creates or updates (name, plan, limits, entitlements) an account; keeps its anchor. */
  upsertAccount(input: AccountInput & { id: string }, now: Date): Account;
  getAccount(id: string): Account | undefined;
  listAccounts(): Account[];
  /** A new key, returned once: `evmi_` + 43 base64url characters; only its SHA-256 is stored. */
  createKey(accountId: string, label: string, now: Date): { key: string; record: KeyRecord };
  /** A key from a configuration file; the existing record when that hash is already known. */
  importKey(accountId: string, label: string, hashOrPlain: { sha256: string } | { plain: string }, now: Date): KeyRecord;
  listKeys(accountId?: string): KeyRecord[];
  /** Revokes by key id or hint; a key already revoked is returned unchanged. */
  revokeKey(idOrHint: string, now: Date): KeyRecord;
  /** Revokes every active key of an account at once (its keys get 401 from then on); returns the keys it revoked. */
  revokeAccountKeys(accountId: string, now: Date): KeyRecord[];
  /**
   * Deletes an account with everything of it: its keys, usage periods, request log and rate
   * window. Returns how many keys and logged requests went with it. STORE_NOT_FOUND if unknown.
   */
  deleteAccount(accountId: string): { keys: number; requests: number };
  authenticate(key: string): AuthResult;
  /** This period's usage; rolls the period forward when now >= periodEnd. */
  usage(accountId: string, now: Date): Usage;
  /**
   * Before the work, atomically (across processes for SQLite): roll the period if due; refuse when
   * cuUsed + cu > cuLimit + cuExtra; otherwise add `cu` to the period (total and per endpoint) and
   * hold it. Checking and taking in one step is what keeps concurrent servers from overdrawing.
   */
  reserve(accountId: string, endpoint: string, cu: number, now: Date): ReserveResult;
  /** The work answered 2xx: the held CU stay charged; logs the request (`request.cu` = the reservation's cu). */
  settle(reservation: Reservation, request: RequestRecord, now: Date): void;
  /**
   * The work failed (4xx/5xx) or the client left: gives the held CU back to the period they were
   * taken from (total and per endpoint, never below 0) and logs the request with cu 0.
   */
  release(reservation: Reservation, request: RequestRecord, now: Date): void;
  /** Deletes the request-log entries logged before `before`; usage figures are kept. Returns how many went. */
  pruneRequests(before: Date): number;
  /** A CU package: raises this period's allowance. */
  addCu(accountId: string, cu: number, now: Date): Usage;
  /** Fixed one-second window per account, shared by all its keys (and processes, for SQLite). */
  takeRateToken(accountId: string, limitRps: number, nowMs: number): RateToken;
  close(): void;
}

/** A rule of the store was not met; `message` is one line meant for the operator. */
export class StoreError extends EvmIntegrityError<{ field?: string }, StoreErrorCode> {
  override name = 'StoreError';
  override readonly code: StoreErrorCode;

  /** @param field for STORE_INVALID: the input field at fault. */
  constructor(code: StoreErrorCode, message: string, field?: string) {
    super(message, field === undefined ? {} : { field });
    this.code = code;
  }
}

/** At most this many active (not revoked) keys per account. */
export const MAX_ACTIVE_KEYS = 5;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function invalid(field: string, message: string): never {
  throw new StoreError('STORE_INVALID', `${field} ${message}`, field);
}

export function requireText(field: string, value: unknown, max = 200): string {
  if (typeof value !== 'string' || value.trim() === '') invalid(field, 'must be a non-empty string');
  const text = value.trim();
  if (text.length > max) invalid(field, `must be at most ${max} characters, got ${text.length}`);
  return text;
}

export function requireId(field: string, value: unknown): string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    invalid(field, `must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A non-negative safe integer (`min` 1 for a positive one). */
export function requireCount(field: string, value: unknown, min = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    invalid(field, `must be ${min === 0 ? 'a non-negative' : 'a positive'} integer, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
  }
  return value;
}

export function requireTimeMs(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(field, `must be a finite number of milliseconds, got ${String(value)}`);
  return value;
}

export function requireDate(field: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) invalid(field, 'must be a valid Date');
  return value;
}

function normalizeEntitlements(value: Entitlements | null | undefined): Entitlements | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) invalid('entitlements', 'must be an object with endpoints and/or chains');
  const result: Entitlements = {};
  if (value.endpoints !== undefined) {
    if (!Array.isArray(value.endpoints)) invalid('entitlements.endpoints', 'must be an array of endpoint names');
    result.endpoints = [...new Set(value.endpoints.map((e, i) => requireText(`entitlements.endpoints[${i}]`, e)))];
  }
  if (value.chains !== undefined) {
    if (!Array.isArray(value.chains)) invalid('entitlements.chains', 'must be an array of chain ids');
    result.chains = [...new Set(value.chains.map((c, i) => requireCount(`entitlements.chains[${i}]`, c, 1)))];
  }
  return result;
}

/** Validated and normalized account fields (everything but the id). */
export function normalizeAccountInput(input: AccountInput): Omit<Account, 'id' | 'periodAnchor' | 'createdAt'> {
  if (typeof input !== 'object' || input === null) invalid('account', 'must be an object');
  return {
    name: requireText('name', input.name),
    plan: requireText('plan', input.plan, 64),
    cuLimit: requireCount('cuLimit', input.cuLimit),
    rateLimitRps: requireCount('rateLimitRps', input.rateLimitRps, 1),
    entitlements: normalizeEntitlements(input.entitlements),
  };
}

/** An id for an account created without one: the name as a slug (the store adds -2, -3… if taken). */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug === '' ? 'account' : slug;
}

/** The id a new account gets: the given one (validated), or a free slug of its name. */
export function newAccountId(input: AccountInput, name: string, exists: (id: string) => boolean): string {
  if (input.id !== undefined) {
    const id = requireId('id', input.id);
    if (exists(id)) throw new StoreError('STORE_CONFLICT', `account ${id} already exists`);
    return id;
  }
  const base = slugFromName(name);
  if (!exists(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!exists(id)) return id;
  }
}

export function accountNotFound(id: string): StoreError {
  return new StoreError('STORE_NOT_FOUND', `no account ${JSON.stringify(id)} (evm-integrity accounts list shows the accounts)`);
}

/** Validates what a reservation is asked for. */
export function normalizeReserve(endpoint: string, cu: number): { endpoint: string; cu: number } {
  return { endpoint: requireText('endpoint', endpoint), cu: requireCount('cu', cu) };
}

/** Validates a reservation handed back to settle or release. */
export function normalizeReservation(reservation: Reservation): Reservation {
  if (typeof reservation !== 'object' || reservation === null) invalid('reservation', 'must be the reservation reserve() returned');
  const periodStart = reservation.periodStart;
  if (typeof periodStart !== 'string' || Number.isNaN(Date.parse(periodStart)))
    invalid('reservation.periodStart', `must be an ISO instant, got ${JSON.stringify(periodStart)}`);
  return {
    accountId: requireText('reservation.accountId', reservation.accountId),
    endpoint: requireText('reservation.endpoint', reservation.endpoint),
    cu: requireCount('reservation.cu', reservation.cu),
    periodStart,
  };
}

/** Validates the request logged when a reservation ends: same endpoint, and `cu` the CU it keeps charged. */
export function normalizeRequest(request: RequestRecord, reservation: Reservation, cu: number): RequestRecord {
  if (typeof request !== 'object' || request === null) invalid('request', 'must be an object');
  const status = request.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    invalid('request.status', `must be an HTTP status (100-599), got ${String(status)}`);
  if (request.cu !== cu) invalid('request.cu', `must equal the cu charged (${cu}), got ${String(request.cu)}`);
  const endpoint = requireText('request.endpoint', request.endpoint);
  if (endpoint !== reservation.endpoint) invalid('request.endpoint', `must equal the reservation's endpoint (${reservation.endpoint}), got ${endpoint}`);
  return { requestId: requireText('request.requestId', request.requestId), endpoint, status, cu };
}

/** A Usage from its parts, `cuByEndpoint` sorted by endpoint so both stores answer alike. */
export function makeUsage(
  accountId: string,
  period: { periodStart: string; periodEnd: string },
  cuLimit: number,
  cuExtra: number,
  cuUsed: number,
  byEndpoint: Iterable<[string, number]>,
): Usage {
  const cuByEndpoint = Object.fromEntries([...byEndpoint].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { accountId, periodStart: period.periodStart, periodEnd: period.periodEnd, cuLimit, cuExtra, cuUsed, cuByEndpoint };
}
