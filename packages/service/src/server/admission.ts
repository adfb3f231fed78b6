import { overloaded } from './responses.js';

/**
 * The bound on verify operations in progress (running inline, running on a worker, or waiting
 * for one): `total` in all and `perAccount` for one account, so one client's burst cannot queue
 * out the others. Beyond either, 503 with Retry-After.
 */
export class Admission {
  #total = 0;
  readonly #byAccount = new Map<string, number>();

  constructor(
    private readonly total: number,
    private readonly perAccount: number,
  ) {}

  /**
   * Throws the 503 `enter` would throw now, taking nothing: a request is refused so before its
   * body is read, and takes its place once the body is in (when `enter` may still refuse it).
   */
  check(accountId: string): void {
    const held = this.#byAccount.get(accountId) ?? 0;
    if (this.#total >= this.total || held >= this.perAccount) throw overloaded();
  }

  /** Takes a place for `accountId`, or throws the 503; give it back with `leave` exactly once. */
  enter(accountId: string): void {
    this.check(accountId);
    const held = this.#byAccount.get(accountId) ?? 0;
    this.#total++;
    this.#byAccount.set(accountId, held + 1);
  }

  leave(accountId: string): void {
    this.#total--;
    const held = this.#byAccount.get(accountId)! - 1;
    if (held === 0) this.#byAccount.delete(accountId);
    else this.#byAccount.set(accountId, held);
  }
}
