/**
 * The turns of a worker's chunks at its node: one chunk fetches at a time, and the next starts as
 * soon as the one before has asked for its last block, while that one's answers, verification and
 * storing finish. The node is kept as busy as one machine's audit keeps it (a full window of requests
 * in flight, never two chunks' windows at once), and each chunk is done in one chunk's time, so that
 * its lines are stored while the next chunk is fetched instead of every chunk in hand ending at once.
 */

/** First come, first served: `take()` resolves when every earlier turn is released. */
export class FetchTurns {
  private last: Promise<void> = Promise.resolve();

  /**
   * Waits for this turn; gives the function that ends it (call it once the chunk's last block is asked for, and in any
   * case when the chunk ends: a second call does nothing).
   * @example
   * const release = await turns.take();
   * try { await auditChunk(…, release) } finally { release() }
   */
  async take(): Promise<() => void> {
    let release!: () => void;
    const ended = new Promise<void>((resolve) => (release = resolve));
    const before = this.last;
    this.last = before.then(() => ended);
    await before;
    return release;
  }
}
