/**
 * The time one request may wait for the store's connections in all (`pg_connect_timeout_ms`): its turns at its
 * account's connections (Turns) and the opening of a new connection spend it, whatever the number of its operations.
 * So while the database stalls (a network pause, a row lock held), a request waits that long at most for connections,
 * then runs one statement that stalls (bounded by `pg_statement_timeout_ms`), and is answered 503 STORE_UNAVAILABLE:
 * it never queues behind each of its account's stalled statements in turn.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { StoreError } from './store-error.js';

/** What is left of one request's (or one operation's, outside a request) time to wait for connections. */
export class WaitBudget {
  #leftMs: number;

  constructor(readonly totalMs: number) {
    this.#leftMs = totalMs;
  }

  /**
   * Waits with `wait`, which is given the milliseconds left and must give up past them (rejecting with `exhausted()`);
   * the time it waited is spent, whether it got what it waited for or not.
   */
  async spend<T>(wait: (leftMs: number) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await wait(this.#leftMs);
    } finally {
      this.#leftMs = Math.max(0, this.#leftMs - (performance.now() - started));
    }
  }

  /** The failure of a wait past the budget: the store cannot answer now (503 with Retry-After). */
  exhausted(): StoreError {
    return new StoreError(
      'STORE_UNAVAILABLE',
      `the PostgreSQL store cannot answer now: no connection to it within pg_connect_timeout_ms (${this.totalMs} ms)`,
    );
  }
}

/**
 * `pending` (a connection being opened), or `budget.exhausted()` once `withinMs` have passed; what `pending` brings
 * later is handed to `abandon` (a connection given back), since nobody waits for it any more.
 */
export function within<T>(
  pending: Promise<T>,
  withinMs: number,
  budget: WaitBudget,
  abandon: (late: T) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(budget.exhausted());
    }, withinMs);
    pending.then(
      (value) => {
        clearTimeout(timer);
        if (late) abandon(value);
        else resolve(value);
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

const budgets = new AsyncLocalStorage<WaitBudget>();

/** Runs `work` (a request, or one store operation) with `budget` for all its waits for connections. */
export const withWaitBudget = <T>(budget: WaitBudget, work: () => T): T => budgets.run(budget, work);

/** The budget of the request (or operation) in progress; undefined outside one. */
export const currentWaitBudget = (): WaitBudget | undefined => budgets.getStore();

/**
 * Runs `work` outside any request's budget: for what a request leaves to run later (a timer), whose operations each
 * wait on a budget of their own rather than on what is left of the request's.
 */
export const apartFromRequests = <T>(work: () => T): T => budgets.exit(work);
