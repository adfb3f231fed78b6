/**
 * Fetches the blocks of a range ahead of the audit, at most `window` at a time (a number, or a function asked at each
 * block taken): the block being audited and those after it. A block is fetched only when the consumer asks for one within the
 * window of it, so a slow consumer holds back the fetching (backpressure) and memory stays bounded.
 */
import type { BlockJson, BlockSource } from '../sources/block-source.js';

/** A fetch's outcome, held without rejecting so that a failure ahead of the consumer is not an unhandled rejection. */
export type Fetched = { ok: true; block: BlockJson | null } | { ok: false; error: unknown };

/** Runs one fetch to its outcome. */
export function settle(source: BlockSource, chainId: number, number: number): Promise<Fetched> {
  return source.block(chainId, number).then(
    (block): Fetched => ({ ok: true, block }),
    (error: unknown): Fetched => ({ ok: false, error }),
  );
}

/**
 * The block fetcher of one range audit, within a window (see above): `take(n)` gives block n's
 * outcome and starts the fetches of the window that begins at it.
 * @example
 * const ahead = new Prefetcher(source, 1, 100, 199, 8);
 * const fetched = await ahead.take(100); // {ok: true, block} or {ok: false, error}
 */
export class Prefetcher {
  private readonly pending = new Map<number, Promise<Fetched>>();
  private next: number;

  constructor(
    private readonly source: BlockSource,
    private readonly chainId: number,
    from: number,
    private readonly to: number,
    private readonly window: number | (() => number),
  ) {
    this.next = from;
  }

  /**
   * The outcome of block `number`'s fetch; starts the fetches of the window that begins at it (at least 1 block; a
   * window that shrank leaves the fetches already started).
   */
  take(number: number): Promise<Fetched> {
    this.next = Math.max(this.next, number);
    const window = Math.max(1, typeof this.window === 'number' ? this.window : this.window());
    while (this.next <= Math.min(this.to, number + window - 1)) {
      this.pending.set(this.next, settle(this.source, this.chainId, this.next));
      this.next++;
    }
    const fetched = this.pending.get(number) ?? settle(this.source, this.chainId, number);
    this.pending.delete(number);
    return fetched;
  }

  /** The number of fetches started and not yet taken (for tests of the bound). */
  get ahead(): number {
    return this.pending.size;
  }
}
