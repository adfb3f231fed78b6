import { overloaded } from '../responses.js';

/** A request waiting for a place; `admit` lets it go on, a place taken for it when `takes`. */
interface Waiter {
  accountId: string;
  /** Its body is read (it waits in `enter`): it is handed the place itself. */
  takes: boolean;
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
   * Resolves, taking nothing, once a place is free for `accountId`: at once, or after waiting
   * (`#wait`) with the body unread and the socket not read further, so a waiting client costs
   * nothing but its connection. The request then reads its body and takes its place with `enter`,
   * so a slow upload holds none. Waiting rather than refusing at once spares a client that retries
   * without pausing a round of reconnecting and sending its body again, work that slowed the
   * requests being served.
   */
  async place(accountId: string, signal?: AbortSignal): Promise<void> {
    // A place freed goes to a waiter that can use it at once, so one free now is owed to none.
    if (!this.#free(accountId)) await this.#wait(accountId, false, signal);
  }

  /**
   * Takes a place for `accountId`, waiting for one (`#wait`) when none is free: a request whose body
   * is read is not refused because others took the places while it was read. Give it back with
   * `leave` exactly once.
   */
  async enter(accountId: string, signal?: AbortSignal): Promise<void> {
    if (this.#free(accountId)) this.#take(accountId);
    else await this.#wait(accountId, true, signal);
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

  /**
   * Waits, oldest first, until a place is handed over (taken for it when `takes`), or throws the
   * 503: at once when as many wait as may be in progress (`total`, `perAccount` for one account)
   * or `waitMs` is 0, else after `waitMs` or when `signal` aborts (the client left).
   */
  #wait(accountId: string, takes: boolean, signal: AbortSignal | undefined): Promise<void> {
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
        takes,
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

  /**
   * Lets the oldest waiters go on, one for each place free (an account at its bound is passed
   * over): one whose body is read takes it; one whose body is unread goes to read it and takes
   * a place after, so an upload that then goes slowly holds none.
   */
  #handOver(): void {
    let free = this.total - this.#total;
    for (let i = 0; i < this.#waiting.length && free > 0;) {
      const waiter = this.#waiting[i]!;
      if (!this.#free(waiter.accountId)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      if (waiter.takes) this.#take(waiter.accountId);
      free--;
      waiter.admit();
    }
  }
}
