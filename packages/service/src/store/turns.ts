/**
 * Turns at a shared resource (the store's connections), fair between owners (accounts): at most `slots`
 * operations run at once, one owner's at most `perOwner` of them, and the operations that wait take the slots
 * freed in turn by owner, oldest first within an owner.
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

  /** Runs `work` in a turn of `owner`'s: at once when a slot is free to it, else once one is handed to it. */
  async run<T>(owner: string, work: () => Promise<T>): Promise<T> {
    if (this.#free(owner)) this.#take(owner);
    else await new Promise<void>((start) => this.#queueOf(owner).push(start));
    try {
      return await work();
    } finally {
      this.#leave(owner);
    }
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
