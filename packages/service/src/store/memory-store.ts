/**
 * The store in process memory: for tests and `--store memory`. The store's rules (rules-store.ts) over rows kept in
 * maps; nothing survives the process. Returned objects are copies.
 */
import { leaseExpired, leaseOf } from './leases.js';
import type { Period, RateWindow } from './periods.js';
import { RulesStore } from './rules-store.js';
import { type SerialPrimitives, SerialStorage } from './serial-rows.js';
import type { HoldRow, PeriodRow, PeriodUsageRow } from './storage.js';
import type { Account, KeyRecord, RequestRecord, Reservation, StoreOptions } from './store.js';

/** One line of the request log, with its account, period and time. */
export interface LoggedRequest extends RequestRecord {
  accountId: string;
  periodStart: string;
  at: string;
}

/** A period's CU: `cuTaken` (total and by endpoint) counts the CU charged and those held alike. */
interface PeriodState extends PeriodRow {
  takenByEndpoint: Map<string, number>;
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
const byCreation = (a: { createdAt: string }, b: { createdAt: string }) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;

/** The rows of a MemoryStore, in maps. */
class MemoryRows implements SerialPrimitives {
  readonly #accounts = new Map<string, Account>();
  /** By key id, in creation order. */
  readonly #keys = new Map<string, KeyRecord>();
  readonly #keyIdByHash = new Map<string, string>();
  /** By account, its periods in the order they started. */
  readonly #periods = new Map<string, PeriodState[]>();
  readonly #rateWindows = new Map<string, RateWindow>();
  readonly log: LoggedRequest[] = [];
  /** By hold id: holds not yet settled or released. */
  readonly #holds = new Map<string, HoldRow>();

  account(id: string): Account | undefined {
    const account = this.#accounts.get(id);
    return account && copyAccount(account);
  }
  accounts(): Account[] {
    return [...this.#accounts.values()].sort(byCreation).map(copyAccount);
  }
  accountIdsFrom(base: string): string[] {
    return [...this.#accounts.keys()].filter((id) => id === base || id.startsWith(`${base}-`));
  }
  insertAccount(account: Account): boolean {
    if (this.#accounts.has(account.id)) return false;
    this.#accounts.set(account.id, copyAccount(account));
    return true;
  }
  upsertAccount(account: Account): Account {
    const existing = this.#accounts.get(account.id);
    const { periodAnchor, createdAt } = existing ?? account;
    this.#accounts.set(account.id, copyAccount({ ...account, periodAnchor, createdAt }));
    return this.account(account.id)!;
  }
  deleteAccount(id: string): { keys: number; requests: number } {
    const keys = this.keys(id);
    for (const key of keys) {
      this.#keys.delete(key.id);
      this.#keyIdByHash.delete(key.hash);
    }
    const kept = this.log.filter((r) => r.accountId !== id);
    const requests = this.log.length - kept.length;
    this.log.splice(0, this.log.length, ...kept);
    this.#periods.delete(id);
    this.#rateWindows.delete(id);
    for (const [holdId, hold] of this.#holds) if (hold.accountId === id) this.#holds.delete(holdId);
    this.#accounts.delete(id);
    return { keys: keys.length, requests };
  }

  activeKeyCount(accountId: string): number {
    return this.keys(accountId).filter((k) => k.revokedAt === null).length;
  }
  insertKey(record: KeyRecord): boolean {
    if (this.#keys.has(record.id)) return false;
    this.#keys.set(record.id, copyKey(record));
    this.#keyIdByHash.set(record.hash, record.id);
    return true;
  }
  key(id: string): KeyRecord | undefined {
    const key = this.#keys.get(id);
    return key && copyKey(key);
  }
  keyByHash(hash: string): KeyRecord | undefined {
    const id = this.#keyIdByHash.get(hash);
    return id === undefined ? undefined : this.key(id);
  }
  keysByHint(hint: string): KeyRecord[] {
    return this.keys().filter((k) => k.hint !== '' && k.hint === hint);
  }
  keys(accountId?: string): KeyRecord[] {
    return [...this.#keys.values()]
      .filter((k) => accountId === undefined || k.accountId === accountId)
      .sort(byCreation)
      .map(copyKey);
  }
  keyWithAccount(hash: string): { key: KeyRecord; account: Account | undefined } | undefined {
    const key = this.keyByHash(hash);
    return key && { key, account: this.account(key.accountId) };
  }
  revokeKey(id: string, at: string): KeyRecord | undefined {
    const key = this.#keys.get(id);
    if (key === undefined || key.revokedAt !== null) return undefined;
    key.revokedAt = at;
    return copyKey(key);
  }
  revokeAccountKeys(accountId: string, at: string): KeyRecord[] {
    return this.keys(accountId).flatMap((k) => this.revokeKey(k.id, at) ?? []);
  }

  latestPeriod(accountId: string): PeriodRow | undefined {
    const period = this.#periods.get(accountId)?.at(-1);
    return period && this.#row(period);
  }
  period(accountId: string, periodStart: string): PeriodRow | undefined {
    const period = this.#state(accountId, periodStart);
    return period && this.#row(period);
  }
  insertPeriod(accountId: string, period: Period): void {
    if (this.#state(accountId, period.periodStart) !== undefined) return;
    const periods = this.#periods.get(accountId) ?? [];
    periods.push({ ...period, cuTaken: 0, cuExtra: 0, takenByEndpoint: new Map() });
    this.#periods.set(accountId, periods);
  }
  periodUsage(accountId: string, periodStart: string): PeriodUsageRow | undefined {
    const period = this.#state(accountId, periodStart);
    if (period === undefined) return undefined;
    const held = [...this.#holds.values()]
      .filter((h) => h.accountId === accountId && h.periodStart === periodStart && !h.swept)
      .map((h): [string, number] => [h.endpoint, h.cu]);
    return { ...this.#row(period), taken: [...period.takenByEndpoint], held };
  }
  addExtra(accountId: string, periodStart: string, cu: number): void {
    this.#state(accountId, periodStart)!.cuExtra += cu;
  }
  take(accountId: string, periodStart: string, endpoint: string, cu: number): void {
    const period = this.#state(accountId, periodStart)!;
    period.cuTaken += cu;
    period.takenByEndpoint.set(endpoint, (period.takenByEndpoint.get(endpoint) ?? 0) + cu);
  }
  giveBack(hold: HoldRow): void {
    const period = this.#state(hold.accountId, hold.periodStart);
    if (period === undefined) return;
    period.cuTaken = Math.max(0, period.cuTaken - hold.cu);
    // An endpoint back at 0 is dropped, as if never used.
    const left = (period.takenByEndpoint.get(hold.endpoint) ?? 0) - hold.cu;
    if (left > 0) period.takenByEndpoint.set(hold.endpoint, left);
    else period.takenByEndpoint.delete(hold.endpoint);
  }

  hold(id: string, accountId: string): HoldRow | undefined {
    const hold = this.#holds.get(id);
    return hold?.accountId === accountId ? { ...hold } : undefined;
  }
  insertHold(hold: Reservation): void {
    this.#holds.set(hold.id, { ...hold, swept: false });
  }
  deleteHold(id: string): void {
    this.#holds.delete(id);
  }
  expiredHolds(accountId: string, now: Date): HoldRow[] {
    return [...this.#holds.values()]
      .filter((h) => h.accountId === accountId && !h.swept && leaseExpired(h.expiresAt, now))
      .map((h) => ({ ...h }));
  }
  anyExpiredHold(accountId: string, now: Date): boolean {
    return this.expiredHolds(accountId, now).length > 0;
  }
  markSwept(id: string): void {
    this.#holds.get(id)!.swept = true;
  }
  accountsWithExpiredHolds(now: Date): string[] {
    return [...this.#accounts.keys()].filter((id) => this.anyExpiredHold(id, now));
  }
  pruneSweptHolds(before: string): void {
    for (const [id, hold] of this.#holds) if (hold.swept && hold.expiresAt < before) this.#holds.delete(id);
  }

  logRequest(accountId: string, periodStart: string, record: RequestRecord, at: string): void {
    this.log.push({ ...record, accountId, periodStart, at });
    if (this.log.length >= 2 * REQUEST_LOG_SIZE) this.log.splice(0, this.log.length - REQUEST_LOG_SIZE);
  }
  pruneRequests(before: string, limit: number): number {
    let pruned = 0;
    const kept = this.log.filter((r) => !(r.at < before && pruned++ < limit));
    this.log.splice(0, this.log.length, ...kept);
    return pruned;
  }

  rateWindow(accountId: string): RateWindow | undefined {
    return this.#rateWindows.get(accountId);
  }
  saveRateWindow(accountId: string, window: RateWindow): void {
    this.#rateWindows.set(accountId, window);
  }

  #state(accountId: string, periodStart: string): PeriodState | undefined {
    return this.#periods.get(accountId)?.find((p) => p.periodStart === periodStart);
  }

  #row(period: PeriodState): PeriodRow {
    const { periodStart, periodEnd, cuTaken, cuExtra } = period;
    return { periodStart, periodEnd, cuTaken, cuExtra };
  }
}

/**
 * The store in process memory (`--store memory`, tests): the same rules as SqliteStore, nothing
 * kept once the process ends; it hands out copies, never its own objects.
 * @example
 * const store = new MemoryStore({ reservationLeaseMs: 60_000 });
 * const account = await store.createAccount({ name: 'ci', plan: 'free', cuLimit: 1000, rateLimitRps: 5 }, new Date());
 */
export class MemoryStore extends RulesStore {
  readonly #rows: MemoryRows;

  constructor(options: StoreOptions = {}) {
    const leaseMs = leaseOf(options);
    const rows = new MemoryRows();
    super(
      new SerialStorage(rows, {
        // One operation at a time is all it takes: nothing else runs meanwhile. Nothing to undo either: the rules
        // make their checks before their writes, so a transaction that fails has written nothing.
        atomically: (_, operation) => operation(),
        begin: () => {},
        commit: () => {},
        rollback: () => {},
        // Always answers, and has nothing to release: it is this process's memory.
        ping: () => Promise.resolve(),
        close: () => Promise.resolve(),
      }),
      leaseMs,
    );
    this.#rows = rows;
  }

  /** The most recent logged requests, settled and released (at least the last 10,000), oldest first. */
  requests(accountId?: string): LoggedRequest[] {
    return this.#rows.log.filter((r) => accountId === undefined || r.accountId === accountId).map((r) => ({ ...r }));
  }
}
