/**
 * The Storage of a backend that answers at once (memory, SQLite): its operations and transactions run one at a time,
 * in the order asked, so that no other operation of this process comes between the steps of a transaction; the
 * atomic operations are composed here from its rows, the same for both.
 */
import { countRequest, exceedsAllowance, nextPeriod, type Period, type RateWindow } from './periods.js';
import type { AccountUsageRow, Awaitable, HoldRow, PeriodRow, Primitives, Rows, Storage } from './storage.js';
import type { Reservation } from './store.js';

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

/** How each primitive accesses the rows (the compiler checks that none is missing). */
const ACCESS: { [K in keyof Primitives]: Access } = {
  account: 'read',
  accounts: 'read',
  accountIdsFrom: 'read',
  insertAccount: 'write',
  upsertAccount: 'write',
  deleteAccount: 'write',
  activeKeyCount: 'read',
  insertKey: 'write',
  key: 'read',
  keyByHash: 'read',
  keysByHint: 'read',
  keys: 'read',
  keyWithAccount: 'read',
  revokeKey: 'write',
  revokeAccountKeys: 'write',
  latestPeriod: 'read',
  insertPeriod: 'write',
  periodUsage: 'read',
  addExtra: 'write',
  hold: 'read',
  deleteHold: 'write',
  giveBack: 'write',
  accountsWithExpiredHolds: 'read',
  pruneSweptHolds: 'write',
  logRequest: 'write',
  pruneRequests: 'write',
};

/** `p`'s primitives, each call run by `run`. */
function primitivesOf(p: SerialPrimitives, run: Runner): Primitives {
  const call = (name: keyof Primitives, args: unknown[]) =>
    run(ACCESS[name], () => (p[name] as (...args: unknown[]) => unknown).apply(p, args));
  return Object.fromEntries(
    Object.keys(ACCESS).map((name) => [name, (...args: unknown[]) => call(name as keyof Primitives, args)]),
  ) as unknown as Primitives;
}

/** The Rows of `p`, each operation run by `run`: the atomic ones composed from `p`'s rows. */
function serialRows(p: SerialPrimitives, run: Runner): Rows {
  return {
    ...primitivesOf(p, run),

    accountUsage: (accountId, now) =>
      run('read', (): AccountUsageRow | undefined => {
        const account = p.account(accountId, false);
        if (account === undefined) return undefined;
        const latest = p.latestPeriod(account.id);
        return {
          account,
          latest: latest && p.periodUsage(account.id, latest.periodStart),
          expired: p.anyExpiredHold(account.id, now),
        };
      }),

    reserveIfRoom: (hold, now) =>
      run('write', (): Period | undefined => {
        const account = p.account(hold.accountId, false);
        const period = p.latestPeriod(hold.accountId);
        if (account === undefined || period === undefined) return undefined;
        if (nextPeriod(account.periodAnchor, period, now) !== null || p.anyExpiredHold(account.id, now)) return;
        if (!hasRoom(period, account.cuLimit, hold.cu)) return;
        p.take(account.id, period.periodStart, hold.endpoint, hold.cu);
        p.insertHold({ ...hold, periodStart: period.periodStart });
        return { periodStart: period.periodStart, periodEnd: period.periodEnd };
      }),

    endHold: (held, record, at, giveBack) =>
      run('write', () => {
        const hold = p.hold(held.id, held.accountId);
        if (hold === undefined || hold.swept) return false;
        p.deleteHold(hold.id);
        if (giveBack) p.giveBack(hold);
        p.logRequest(held.accountId, held.periodStart, record, at);
        return true;
      }),

    sweep: (accountId, now) =>
      run('write', () => {
        const expired = p.expiredHolds(accountId, now);
        for (const hold of expired) {
          p.giveBack(hold);
          p.markSwept(hold.id);
        }
        return expired.length;
      }),

    takeIfRoom: (hold, cuLimit) =>
      run('write', () => {
        const period = p.period(hold.accountId, hold.periodStart);
        if (period === undefined || !hasRoom(period, cuLimit, hold.cu)) return false;
        p.take(hold.accountId, hold.periodStart, hold.endpoint, hold.cu);
        return true;
      }),

    countRateRequest: (accountId, nowMs) =>
      run('write', () => {
        const stored = p.rateWindow(accountId);
        if (stored === undefined && p.account(accountId, false) === undefined) return undefined;
        const window = countRequest(stored, nowMs);
        p.saveRateWindow(accountId, window);
        return { window, nowMs };
      }),
  };
}

/** Whether the period has room for `cu` more: its CU taken count those charged and those held alike. */
const hasRoom = (period: PeriodRow, cuLimit: number, cu: number) =>
  !exceedsAllowance({ ...period, cuLimit, cuUsed: period.cuTaken, cuHeld: 0 }, cu);

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
    this.rows = serialRows(rows, (access, operation) => this.#inTurn(() => backend.atomically(access, operation)));
    this.#inTransaction = serialRows(rows, (_, operation) => operation());
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
