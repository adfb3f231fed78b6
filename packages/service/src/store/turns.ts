import type { WaitBudget } from './wait-budget.js';

/**
 * Turns at a shared resource (the store's connections), fair between owners (accounts): at most `slots`
 * operations run at once, one owner's at most `perOwner` of them, and the operations that wait take the slots
 * freed in turn by owner, oldest first within an owner. An operation that waits past its budget leaves the queue.
 */
export class Turns {
  #running = 0;
  readonly #byOwner = new Map<string, number>();
  /** Each owner's waiting operations, oldest first; the owners in the order of their turns. */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(
    private readonly slots: number,
    private readonly perOwner: number,
  ) {}

  /**
   * Runs `work` in a turn of `owner`'s: at once when a slot is free to it, else once one is handed to it; with `budget`,
   * the wait spends it, and fails with `budget.exhausted()` (work not run) when no slot came within what was left.
   */
  async run<T>(owner: string, work: () => Promise<T>, budget?: WaitBudget): Promise<T> {
    if (this.#free(owner)) this.#take(owner);
    else if (budget === undefined) await this.#turn(owner);
    else await budget.spend((leftMs) => this.#turn(owner, { afterMs: leftMs, error: () => budget.exhausted() }));
    try {
      return await work();
    } finally {
      this.#leave(owner);
    }
  }

  /**
   * Resolves once a slot is handed to `owner`'s waiting operation (and taken for it); with `giveUp`, rejects with its
   * error past its time instead, the operation out of the queue.
   */
  #turn(owner: string, giveUp?: { afterMs: number; error: () => Error }): Promise<void> {
    return new Promise((start, fail) => {
      const queue = this.#queueOf(owner);
      // Cleared when a slot is handed over: from then on the operation runs, however late.
      const timer =
        giveUp &&
        setTimeout(() => {
          queue.splice(queue.indexOf(started), 1);
          if (queue.length === 0) this.#waiting.delete(owner);
          fail(giveUp.error());
        }, giveUp.afterMs);
      const started = () => {
        clearTimeout(timer);
        start();
      };
      queue.push(started);
    });
  }

  #free(owner: string): boolean {
    return this.#running < this.slots && (this.#byOwner.get(owner) ?? 0) < this.perOwner;
  }

  #take(owner: string): void {
    this.#running++;
    this.#byOwner.set(owner, (this.#byOwner.get(owner) ?? 0) + 1);
  }

  #queueOf(owner: string): (() => void)[] {
    let queue = this.#waiting.get(owner);
    if (queue === undefined) this.#waiting.set(owner, (queue = []));
    return queue;
  }

  #leave(owner: string): void {
    this.#running--;
    const held = this.#byOwner.get(owner)! - 1;
    if (held === 0) this.#byOwner.delete(owner);
    else this.#byOwner.set(owner, held);
    this.#handOver();
  }

  /** Hands each free slot to the next owner in turn that may take one; an owner served goes to the back. */
  #handOver(): void {
    for (const [owner, queue] of this.#waiting) {
      if (this.#running >= this.slots) return;
      if (!this.#free(owner)) continue;
      this.#waiting.delete(owner);
      const start = queue.shift()!;
      if (queue.length > 0) this.#waiting.set(owner, queue);
      this.#take(owner);
      start();
    }
  }
}
