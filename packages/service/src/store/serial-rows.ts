/**
 * The Storage of a backend that answers at once (memory, SQLite): its operations and transactions run one at a time,
 * in the order asked, so that no other operation of this process comes between the steps of a transaction; the
 * atomic operations are composed here from its rows, the same for both.
 */
import { countRequest, exceedsAllowance, nextPeriod, type Period, type RateWindow } from './periods.js';
import type {
  AccountUsageRow,
  Awaitable,
  HoldRequest,
  HoldRow,
  PeriodRow,
  Primitives,
  Rows,
  Storage,
} from './storage.js';
import type { Account, KeyRecord, RequestRecord, Reservation } from './store.js';

/** The rows of a backend that answers at once, with the few more the atomic operations are made of. */
export interface SerialPrimitives extends Primitives<'sync'> {
  /** Whether a hold of the account not yet swept has a lease that ran out by `now`. */
  anyExpiredHold(accountId: string, now: Date): boolean;
  /** The account's holds not yet swept whose lease ran out by `now`. */
  expiredHolds(accountId: string, now: Date): HoldRow[];
  markSwept(id: string): void;
  /** Adds `cu` to the period's CU taken, total and endpoint. */
  take(accountId: string, periodStart: string, endpoint: string, cu: number): void;
  period(accountId: string, periodStart: string): PeriodRow | undefined;
  insertHold(hold: Reservation): void;
  rateWindow(accountId: string): RateWindow | undefined;
  saveRateWindow(accountId: string, window: RateWindow): void;
}

/** Whether an operation only reads or also writes (SQLite takes its write lock up front for the latter). */
export type Access = 'read' | 'write';

/** How a backend runs one operation on its own: atomically (SQLite: in a transaction of that access). */
export interface SerialBackend {
  atomically<T>(access: Access, operation: () => T): T;
  /** Starts, ends and undoes a transaction. */
  begin(): void;
  commit(): void;
  rollback(): void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

type Runner = <T>(access: Access, operation: () => T) => Awaitable<T>;

/** The Rows of `p`, each operation run by `run`: the atomic ones composed from `p`'s rows. */
class SerialRows implements Rows {
  constructor(
    private readonly p: SerialPrimitives,
    private readonly run: Runner,
  ) {}

  account(id: string, lock: boolean) {
    return this.run('read', () => this.p.account(id, lock));
  }
  accounts() {
    return this.run('read', () => this.p.accounts());
  }
  accountIdsFrom(base: string) {
    return this.run('read', () => this.p.accountIdsFrom(base));
  }
  insertAccount(account: Account) {
    return this.run('write', () => this.p.insertAccount(account));
  }
  upsertAccount(account: Account) {
    return this.run('write', () => this.p.upsertAccount(account));
  }
  deleteAccount(id: string) {
    return this.run('write', () => this.p.deleteAccount(id));
  }
  activeKeyCount(accountId: string) {
    return this.run('read', () => this.p.activeKeyCount(accountId));
  }
  insertKey(record: KeyRecord) {
    return this.run('write', () => this.p.insertKey(record));
  }
  key(id: string) {
    return this.run('read', () => this.p.key(id));
  }
  keyByHash(hash: string) {
    return this.run('read', () => this.p.keyByHash(hash));
  }
  keysByHint(hint: string) {
    return this.run('read', () => this.p.keysByHint(hint));
  }
  keys(accountId?: string) {
    return this.run('read', () => this.p.keys(accountId));
  }
  keyWithAccount(hash: string) {
    return this.run('read', () => this.p.keyWithAccount(hash));
  }
  revokeKey(id: string, at: string) {
    return this.run('write', () => this.p.revokeKey(id, at));
  }
  revokeAccountKeys(accountId: string, at: string) {
    return this.run('write', () => this.p.revokeAccountKeys(accountId, at));
  }
  latestPeriod(accountId: string) {
    return this.run('read', () => this.p.latestPeriod(accountId));
  }
  insertPeriod(accountId: string, period: Period) {
    return this.run('write', () => this.p.insertPeriod(accountId, period));
  }
  periodUsage(accountId: string, periodStart: string) {
    return this.run('read', () => this.p.periodUsage(accountId, periodStart));
  }
  addExtra(accountId: string, periodStart: string, cu: number) {
    return this.run('write', () => this.p.addExtra(accountId, periodStart, cu));
  }
  hold(id: string, accountId: string) {
    return this.run('read', () => this.p.hold(id, accountId));
  }
  deleteHold(id: string) {
    return this.run('write', () => this.p.deleteHold(id));
  }
  giveBack(hold: HoldRow) {
    return this.run('write', () => this.p.giveBack(hold));
  }
  accountsWithExpiredHolds(now: Date) {
    return this.run('read', () => this.p.accountsWithExpiredHolds(now));
  }
  pruneSweptHolds(before: string) {
    return this.run('write', () => this.p.pruneSweptHolds(before));
  }
  logRequest(accountId: string, periodStart: string, record: RequestRecord, at: string) {
    return this.run('write', () => this.p.logRequest(accountId, periodStart, record, at));
  }
  pruneRequests(before: string, limit: number) {
    return this.run('write', () => this.p.pruneRequests(before, limit));
  }

  accountUsage(accountId: string, now: Date) {
    return this.run('read', (): AccountUsageRow | undefined => {
      const account = this.p.account(accountId, false);
      if (account === undefined) return undefined;
      const latest = this.p.latestPeriod(account.id);
      return {
        account,
        latest: latest && this.p.periodUsage(account.id, latest.periodStart),
        expired: this.p.anyExpiredHold(account.id, now),
      };
    });
  }

  reserveIfRoom(hold: HoldRequest, now: Date) {
    return this.run('write', (): Period | undefined => {
      const account = this.p.account(hold.accountId, false);
      const period = this.p.latestPeriod(hold.accountId);
      if (account === undefined || period === undefined) return undefined;
      if (nextPeriod(account.periodAnchor, period, now) !== null || this.p.anyExpiredHold(account.id, now)) return;
      // cuTaken counts the CU charged and those held alike.
      if (exceedsAllowance({ ...period, cuLimit: account.cuLimit, cuUsed: period.cuTaken, cuHeld: 0 }, hold.cu)) return;
      this.p.take(account.id, period.periodStart, hold.endpoint, hold.cu);
      this.p.insertHold({ ...hold, periodStart: period.periodStart });
      return { periodStart: period.periodStart, periodEnd: period.periodEnd };
    });
  }

  endHold(held: Reservation, record: RequestRecord, at: string, giveBack: boolean) {
    return this.run('write', () => {
      const hold = this.p.hold(held.id, held.accountId);
      if (hold === undefined || hold.swept) return false;
      this.p.deleteHold(hold.id);
      if (giveBack) this.p.giveBack(hold);
      this.p.logRequest(held.accountId, held.periodStart, record, at);
      return true;
    });
  }

  sweep(accountId: string, now: Date) {
    return this.run('write', () => {
      const expired = this.p.expiredHolds(accountId, now);
      for (const hold of expired) {
        this.p.giveBack(hold);
        this.p.markSwept(hold.id);
      }
      return expired.length;
    });
  }

  takeIfRoom(hold: HoldRow, cuLimit: number) {
    return this.run('write', () => {
      const period = this.p.period(hold.accountId, hold.periodStart);
      if (period === undefined) return false;
      if (exceedsAllowance({ ...period, cuLimit, cuUsed: period.cuTaken, cuHeld: 0 }, hold.cu)) return false;
      this.p.take(hold.accountId, hold.periodStart, hold.endpoint, hold.cu);
      return true;
    });
  }

  countRateRequest(accountId: string, nowMs: number) {
    return this.run('write', () => {
      const stored = this.p.rateWindow(accountId);
      if (stored === undefined && this.p.account(accountId, false) === undefined) return undefined;
      const window = countRequest(stored, nowMs);
      this.p.saveRateWindow(accountId, window);
      return { window, nowMs };
    });
  }
}

/**
 * The Storage of `rows` on `backend`: one operation or transaction at a time, in the order asked.
 * @example
 * const storage = new SerialStorage(new MemoryRows(), { atomically: (_, operation) => operation(), ... });
 */
export class SerialStorage implements Storage {
  readonly rows: Rows;
  readonly #inTransaction: Rows;
  readonly #backend: SerialBackend;
  /** Settles once the operation or transaction asked last has ended. */
  #last: Promise<unknown> = Promise.resolve();

  constructor(rows: SerialPrimitives, backend: SerialBackend) {
    this.#backend = backend;
    this.rows = new SerialRows(rows, (access, operation) => this.#inTurn(() => backend.atomically(access, operation)));
    this.#inTransaction = new SerialRows(rows, (_, operation) => operation());
  }

  async transaction<T>(work: (rows: Rows) => Promise<T>): Promise<T> {
    return this.#inTurn(async () => {
      this.#backend.begin();
      try {
        const result = await work(this.#inTransaction);
        this.#backend.commit();
        return result;
      } catch (error) {
        this.#backend.rollback();
        throw error;
      }
    });
  }

  async ping(): Promise<void> {
    await this.#backend.ping();
  }

  async close(): Promise<void> {
    await this.#inTurn(() => this.#backend.close());
  }

  /** Runs `work` once the operations asked before it have ended. */
  #inTurn<T>(work: () => Awaitable<T>): Promise<T> {
    const result = this.#last.then(work);
    this.#last = result.catch(() => undefined);
    return result;
  }
}
