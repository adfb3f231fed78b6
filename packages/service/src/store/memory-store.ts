/* eslint-disable @typescript-eslint/require-await -- a synchronous store implements the asynchronous Store: its methods are async so that a refusal is a rejected promise, as for PostgresStore, never a synchronous throw. */
/**
 * The store in process memory: for tests and `--store memory`. Same rules as SqliteStore (shared
 * helpers); nothing survives the process. Returned objects are copies.
 */
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
import { countRequest, exceedsAllowance, nextPeriod, type Period, rateDecision, type RateWindow } from './periods.js';
import {
  DEFAULT_RESERVATION_LEASE_MS,
  holdNotFound,
  leaseExpired,
  leaseExpiry,
  newHoldId,
  requireLeaseMs,
} from './leases.js';
import {
  type Account,
  type AccountInput,
  type AuthResult,
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
import { accountNotFound } from './store-error.js';
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

/** CU held for a request; `swept` once its lease ran out and the CU went back to the period. */
interface Hold extends Reservation {
  swept: boolean;
}

/** A period's CU: `cuTaken` (total and by endpoint) counts the CU charged and those held alike. */
interface PeriodUsage extends Period {
  cuTaken: number;
  cuExtra: number;
  takenByEndpoint: Map<string, number>;
}

export interface LoggedRequest extends RequestRecord {
  accountId: string;
  periodStart: string;
  at: string;
}

/** The request log keeps only the most recent 10,000-20,000 entries, so a long-running server stays small. */
const REQUEST_LOG_SIZE = 10_000;

const copyAccount = (a: Account): Account => ({
  ...a,
  entitlements:
    a.entitlements === null
      ? null
      : {
          ...(a.entitlements.endpoints && { endpoints: [...a.entitlements.endpoints] }),
          ...(a.entitlements.chains && { chains: [...a.entitlements.chains] }),
        },
});
const copyKey = (k: KeyRecord): KeyRecord => ({ ...k });

/** Gives `cu` back to an endpoint's count; an endpoint back at 0 is dropped, as if never used. */
function giveBack(byEndpoint: Map<string, number>, endpoint: string, cu: number): void {
  const left = (byEndpoint.get(endpoint) ?? 0) - cu;
  if (left > 0) byEndpoint.set(endpoint, left);
  else byEndpoint.delete(endpoint);
}

/**
 * The store in process memory (`--store memory`, tests): the same rules as SqliteStore, nothing
 * kept once the process ends; it hands out copies, never its own objects.
 * @example
 * const store = new MemoryStore({ reservationLeaseMs: 60_000 });
 * const { account, key } = store.createAccount({ name: 'ci' });
 */
export class MemoryStore implements Store {
  private readonly accounts = new Map<string, Account>();
  /** By key id, in creation order. */
  private readonly keys = new Map<string, KeyRecord>();
  private readonly keyIdByHash = new Map<string, string>();
  private readonly periods = new Map<string, PeriodUsage>();
  private readonly rateWindows = new Map<string, RateWindow>();
  private readonly log: LoggedRequest[] = [];
  /** By hold id: holds not yet settled or released. */
  private readonly holds = new Map<string, Hold>();
  private readonly leaseMs: number;

  constructor(options: StoreOptions = {}) {
    this.leaseMs = requireLeaseMs(options.reservationLeaseMs ?? DEFAULT_RESERVATION_LEASE_MS);
  }

  async createAccount(input: AccountInput, now: Date): Promise<Account> {
    requireDate('now', now);
    const fields = normalizeAccountInput(input);
    const id = newAccountId(input, fields.name, (candidate) => this.accounts.has(candidate));
    const at = now.toISOString();
    const account: Account = { id, ...fields, periodAnchor: at, createdAt: at };
    this.accounts.set(id, account);
    this.currentPeriod(account, now);
    return copyAccount(account);
  }

  async upsertAccount(input: AccountInput & { id: string }, now: Date): Promise<Account> {
    requireDate('now', now);
    const id = requireId('id', input.id);
    const existing = this.accounts.get(id);
    if (existing === undefined) return await this.createAccount(input, now);
    const updated: Account = { ...existing, ...normalizeAccountInput(input) };
    this.accounts.set(id, updated);
    return copyAccount(updated);
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const account = this.accounts.get(id);
    return account === undefined ? undefined : copyAccount(account);
  }

  async listAccounts(): Promise<Account[]> {
    return [...this.accounts.values()]
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
      .map(copyAccount);
  }

  async createKey(accountId: string, label: string, now: Date): Promise<{ key: string; record: KeyRecord }> {
    requireDate('now', now);
    const account = this.account(accountId);
    const validated = validLabel(label);
    assertKeyLimit(account.id, this.activeKeys(account.id));
    const key = generateKey();
    const record = this.insertKey(account.id, validated, hashKey(key), keyHint(key), now);
    return { key, record: copyKey(record) };
  }

  async importKey(
    accountId: string,
    label: string,
    hashOrPlain: { sha256: string } | { plain: string },
    now: Date,
  ): Promise<KeyRecord> {
    requireDate('now', now);
    const account = this.account(accountId);
    const validated = validLabel(label);
    const { hash, hint } = importedKey(hashOrPlain);
    const existingId = this.keyIdByHash.get(hash);
    if (existingId !== undefined) {
      const existing = this.keys.get(existingId)!;
      assertSameAccount(existing, account.id);
      return copyKey(existing);
    }
    assertKeyLimit(account.id, this.activeKeys(account.id));
    return copyKey(this.insertKey(account.id, validated, hash, hint, now));
  }

  async listKeys(accountId?: string): Promise<KeyRecord[]> {
    if (accountId !== undefined) this.account(accountId);
    return [...this.keys.values()]
      .filter((k) => accountId === undefined || k.accountId === accountId)
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
      .map(copyKey);
  }

  async revokeKey(idOrHint: string, now: Date): Promise<KeyRecord> {
    requireDate('now', now);
    const wanted = validIdOrHint(idOrHint);
    const byHint = [...this.keys.values()].filter((k) => k.hint !== '' && k.hint === wanted);
    const key = keyToRevoke(wanted, this.keys.get(wanted), byHint);
    if (isActive(key)) key.revokedAt = now.toISOString();
    return copyKey(key);
  }

  async revokeAccountKeys(accountId: string, now: Date): Promise<KeyRecord[]> {
    requireDate('now', now);
    const account = this.account(accountId);
    const revoked: KeyRecord[] = [];
    for (const key of this.keys.values()) {
      if (key.accountId !== account.id || !isActive(key)) continue;
      key.revokedAt = now.toISOString();
      revoked.push(copyKey(key));
    }
    return revoked;
  }

  async deleteAccount(accountId: string): Promise<{ keys: number; requests: number }> {
    const account = this.account(accountId);
    let keys = 0;
    for (const [id, key] of this.keys) {
      if (key.accountId !== account.id) continue;
      this.keys.delete(id);
      this.keyIdByHash.delete(key.hash);
      keys++;
    }
    const kept = this.log.filter((r) => r.accountId !== account.id);
    const requests = this.log.length - kept.length;
    this.log.splice(0, this.log.length, ...kept);
    this.periods.delete(account.id);
    this.rateWindows.delete(account.id);
    for (const [id, hold] of this.holds) if (hold.accountId === account.id) this.holds.delete(id);
    this.accounts.delete(account.id);
    return { keys, requests };
  }

  async authenticate(key: string): Promise<AuthResult> {
    const result = authenticateKey(
      key,
      (hash) => {
        const id = this.keyIdByHash.get(hash);
        return id === undefined ? undefined : this.keys.get(id);
      },
      (id) => this.accounts.get(id),
    );
    if (result.status === 'active')
      return { status: 'active', key: copyKey(result.key), account: copyAccount(result.account) };
    if (result.status === 'revoked') return { status: 'revoked', key: copyKey(result.key) };
    return result;
  }

  async usage(accountId: string, now: Date): Promise<Usage> {
    requireDate('now', now);
    const account = this.account(accountId);
    this.sweep(account.id, now);
    return this.usageOf(account, this.currentPeriod(account, now));
  }

  async reserve(accountId: string, endpoint: string, cu: number, now: Date): Promise<ReserveResult> {
    requireDate('now', now);
    const wanted = normalizeReserve(endpoint, cu);
    const account = this.account(accountId);
    this.sweep(account.id, now);
    const period = this.currentPeriod(account, now);
    const usage = this.usageOf(account, period);
    if (exceedsAllowance(usage, wanted.cu)) return err({ usage });
    this.take(period, wanted.endpoint, wanted.cu);
    const reservation: Reservation = {
      id: newHoldId(),
      accountId: account.id,
      ...wanted,
      periodStart: period.periodStart,
      expiresAt: leaseExpiry(now, this.leaseMs),
    };
    this.holds.set(reservation.id, { ...reservation, swept: false });
    return ok({ reservation });
  }

  async settle(reservation: Reservation, request: RequestRecord, now: Date): Promise<SettleResult> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, held.cu);
    const account = this.account(held.accountId);
    const hold = this.endingHold(held);
    if (hold.swept) {
      const period = this.periodOf(account.id, held.periodStart);
      if (period !== undefined) {
        const usage = this.usageOf(account, period);
        if (exceedsAllowance(usage, held.cu)) return err({ usage });
        this.take(period, held.endpoint, held.cu);
      }
    }
    this.holds.delete(held.id);
    this.logRequest(account, held, record, now);
    return ok(undefined);
  }

  async release(reservation: Reservation, request: RequestRecord, now: Date): Promise<void> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, 0);
    const account = this.account(held.accountId);
    const hold = this.endingHold(held);
    if (!hold.swept) this.giveBackHeld(hold);
    this.holds.delete(held.id);
    this.logRequest(account, held, record, now);
  }

  async sweepExpiredHolds(now: Date): Promise<number> {
    requireDate('now', now);
    let swept = 0;
    for (const accountId of this.accounts.keys()) swept += this.sweep(accountId, now);
    return swept;
  }

  async pruneRequests(before: Date): Promise<number> {
    requireDate('before', before);
    const cutoff = before.toISOString();
    for (const [id, hold] of this.holds) if (hold.swept && hold.expiresAt < cutoff) this.holds.delete(id);
    const kept = this.log.filter((r) => r.at >= cutoff);
    const pruned = this.log.length - kept.length;
    this.log.splice(0, this.log.length, ...kept);
    return pruned;
  }

  async addCu(accountId: string, cu: number, now: Date): Promise<Usage> {
    requireDate('now', now);
    const account = this.account(accountId);
    requireCount('cu', cu, 1);
    const period = this.currentPeriod(account, now);
    period.cuExtra += cu;
    return this.usageOf(account, period);
  }

  async takeRateToken(accountId: string, limitRps: number, nowMs: number): Promise<RateToken> {
    requireCount('limitRps', limitRps, 1);
    requireTimeMs('nowMs', nowMs);
    const account = this.account(accountId);
    const window = countRequest(this.rateWindows.get(account.id), nowMs);
    this.rateWindows.set(account.id, window);
    return rateDecision(window, limitRps, nowMs);
  }

  /** The most recent logged requests, settled and released (at least the last 10,000), oldest first. */
  requests(accountId?: string): LoggedRequest[] {
    return this.log.filter((r) => accountId === undefined || r.accountId === accountId).map((r) => ({ ...r }));
  }

  async ping(): Promise<void> {
    // Always answers: it is this process's memory.
  }

  async close(): Promise<void> {
    // Nothing to release.
  }

  private account(id: string): Account {
    const account = typeof id === 'string' ? this.accounts.get(id) : undefined;
    if (account === undefined) throw accountNotFound(id);
    return account;
  }

  /** Gives back the CU of the account's holds whose lease ran out by `now`; returns how many. */
  private sweep(accountId: string, now: Date): number {
    let swept = 0;
    for (const hold of this.holds.values()) {
      if (hold.accountId !== accountId || hold.swept || !leaseExpired(hold.expiresAt, now)) continue;
      this.giveBackHeld(hold);
      hold.swept = true;
      swept++;
    }
    return swept;
  }

  /** The stored hold that `held` names (STORE_INVALID when it has already ended). */
  private endingHold(held: Reservation): Hold {
    const hold = this.holds.get(held.id);
    if (hold === undefined || hold.accountId !== held.accountId) throw holdNotFound(held.id);
    return hold;
  }

  /** The account's period that started at `periodStart`, if it is still the one kept. */
  private periodOf(accountId: string, periodStart: string): PeriodUsage | undefined {
    const period = this.periods.get(accountId);
    return period?.periodStart === periodStart ? period : undefined;
  }

  private take(period: PeriodUsage, endpoint: string, cu: number): void {
    period.cuTaken += cu;
    period.takenByEndpoint.set(endpoint, (period.takenByEndpoint.get(endpoint) ?? 0) + cu);
  }

  /** Gives a hold's CU back to its period (total and per endpoint, never below 0). */
  private giveBackHeld(hold: Reservation): void {
    // Only the latest period is kept in memory: CU held in an earlier one went with it.
    const period = this.periodOf(hold.accountId, hold.periodStart);
    if (period === undefined) return;
    period.cuTaken = Math.max(0, period.cuTaken - hold.cu);
    giveBack(period.takenByEndpoint, hold.endpoint, hold.cu);
  }

  private logRequest(account: Account, held: Reservation, record: RequestRecord, now: Date): void {
    this.log.push({ ...record, accountId: account.id, periodStart: held.periodStart, at: now.toISOString() });
    if (this.log.length >= 2 * REQUEST_LOG_SIZE) this.log.splice(0, this.log.length - REQUEST_LOG_SIZE);
  }

  private activeKeys(accountId: string): number {
    let count = 0;
    for (const key of this.keys.values()) if (key.accountId === accountId && isActive(key)) count++;
    return count;
  }

  private insertKey(accountId: string, label: string, hash: string, hint: string, now: Date): KeyRecord {
    let id = newKeyId();
    while (this.keys.has(id)) id = newKeyId();
    const record: KeyRecord = { id, accountId, label, hash, hint, createdAt: now.toISOString(), revokedAt: null };
    this.keys.set(id, record);
    this.keyIdByHash.set(hash, id);
    return record;
  }

  /** The account's period at `now`, started afresh when the stored one is over. */
  private currentPeriod(account: Account, now: Date): PeriodUsage {
    const current = this.periods.get(account.id);
    const next = nextPeriod(account.periodAnchor, current, now);
    if (next === null) return current!;
    const fresh: PeriodUsage = { ...next, cuTaken: 0, cuExtra: 0, takenByEndpoint: new Map() };
    this.periods.set(account.id, fresh);
    return fresh;
  }

  private usageOf(account: Account, period: PeriodUsage): Usage {
    const held: [string, number][] = [];
    for (const hold of this.holds.values())
      if (hold.accountId === account.id && hold.periodStart === period.periodStart && !hold.swept)
        held.push([hold.endpoint, hold.cu]);
    return makeUsage(
      account.id,
      period,
      account.cuLimit,
      period.cuExtra,
      { cu: period.cuTaken, byEndpoint: period.takenByEndpoint },
      held,
    );
  }
}
