import { overloaded } from './responses.js';

/** A request waiting for a place; `admit` tells it one was taken for it. */
interface Waiter {
  accountId: string;
  admit: () => void;
}

/**
 * The bound on verify operations in progress (running inline, running on a worker, or waiting
 * for one): `total` in all and `perAccount` for one account, so one client's burst cannot queue
 * out the others. A request that finds no place free waits for one, oldest first, for at most
 * `waitMs`; as many may wait as may be in progress (`total`, `perAccount` for one account).
 * Beyond that, or past the wait, 503 with Retry-After.
 */
export class Admission {
  #total = 0;
  readonly #byAccount = new Map<string, number>();
  /** Requests waiting for a place, oldest first. */
  readonly #waiting: Waiter[] = [];

  constructor(
    private readonly total: number,
    private readonly perAccount: number,
    private readonly waitMs = 0,
  ) {}

  #free(accountId: string): boolean {
    return this.#total < this.total && (this.#byAccount.get(accountId) ?? 0) < this.perAccount;
  }

  /**
   * Resolves false when a place is free now, taking nothing: the request reads its body, then takes
   * its place with `enter`, so a slow upload holds none. Otherwise it waits (`#wait`) with its body
   * unread, its socket not read, so the client waits at no cost, and resolves true once a place is
   * handed to it (give it back with `leave`). Waiting rather than refusing at once spares a client
   * that retries without pausing a round of reconnecting and sending its body again, work that
   * slowed the requests being served.
   */
  async place(accountId: string, signal?: AbortSignal): Promise<boolean> {
    // A place freed is handed to a waiter that can take it at once, so one free now is not owed to any.
    if (this.#free(accountId)) return false;
    await this.#wait(accountId, signal);
    return true;
  }

  /**
   * Takes a place for `accountId`, waiting for one (`#wait`) when none is free; give it back with
   * `leave` exactly once. A request whose body is read waits here rather than being refused when
   * others took the places while it was read.
   */
  async enter(accountId: string, signal?: AbortSignal): Promise<void> {
    if (this.#free(accountId)) return this.#take(accountId);
    await this.#wait(accountId, signal);
  }

  /**
   * Waits, oldest first, until a place is handed over (taken for `accountId`), or throws the 503:
   * at once when as many wait as may be in progress (`total`, `perAccount` for one account) or
   * `waitMs` is 0, else after `waitMs` or when `signal` aborts (the client left).
   */
  #wait(accountId: string, signal: AbortSignal | undefined): Promise<void> {
    const ofAccount = this.#waiting.filter((w) => w.accountId === accountId).length;
    if (this.waitMs === 0 || this.#waiting.length >= this.total || ofAccount >= this.perAccount)
      return Promise.reject(overloaded());
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', refuse);
      };
      const waiter: Waiter = {
        accountId,
        admit: () => {
          done();
          resolve();
        },
      };
      const refuse = () => {
        done();
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(overloaded());
      };
      const timer = setTimeout(refuse, this.waitMs);
      signal?.addEventListener('abort', refuse, { once: true });
      this.#waiting.push(waiter);
    });
  }

  leave(accountId: string): void {
    this.#total--;
    const held = this.#byAccount.get(accountId)! - 1;
    if (held === 0) this.#byAccount.delete(accountId);
    else this.#byAccount.set(accountId, held);
    this.#handOver();
  }

  #take(accountId: string): void {
    this.#total++;
    this.#byAccount.set(accountId, (this.#byAccount.get(accountId) ?? 0) + 1);
  }

  /** Hands the places free to the oldest waiters that may take them (an account at its bound is passed over). */
  #handOver(): void {
    for (let i = 0; i < this.#waiting.length && this.#total < this.total;) {
      const waiter = this.#waiting[i]!;
      if (!this.#free(waiter.accountId)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      this.#take(waiter.accountId);
      waiter.admit();
    }
  }
}
