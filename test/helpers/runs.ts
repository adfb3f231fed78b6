/**
 * How much of the expensive work the tests do on each run, from this one place.
 *
 * - Every push (`npm test`) tries a share of each property's full case count, new cases each time (fast-check seeds
 *   each run afresh and prints the seed of a failure), and compares a sample of a large block's indexes with the
 *   oracle: every test runs, each one with fewer cases.
 * - `FULL=1 npm test` (the nightly run) tries every full count and every index.
 */
import fc from 'fast-check';

/** Whether this run is the full one (`FULL=1`): every case count whole, every index compared. */
export const FULL = process.env.FULL === '1';

/** The share of a property's full case count a push tries, and the fewest it tries. */
const PUSH_SHARE = 0.2;
const PUSH_MIN_RUNS = 10;

/** The case count of a property whose full count is `full`: all of it under FULL=1, else a fifth (at least 10). */
export function runs(full: number): number {
  return FULL ? full : Math.min(full, Math.max(PUSH_MIN_RUNS, Math.ceil(full * PUSH_SHARE)));
}

/** fast-check's own default, for the properties that name no count. */
export const DEFAULT_RUNS = runs(100);

/** Random indexes of a sample, beside the fixed ones: fixed by its seed, so a failure repeats. */
const SAMPLED = 48;
const SAMPLE_SEED = 20_260_101;

/**
 * The indexes 0..length-1 an oracle comparison takes: every one under FULL=1; else the first and last two, each side
 * of every boundary where the key RLP(i) changes length or a trie branch fills (0x0f/0x10, 0x7f/0x80, 0xff/0x100,
 * 0xfff/0x1000, 0xffff/0x10000), the middle, `also` (an index of each receipt type, say) and 48 seeded random ones;
 * in increasing order.
 */
export function sampledIndexes(length: number, also: Iterable<number> = []): number[] {
  if (FULL || length <= SAMPLED * 2) return Array.from({ length }, (_, i) => i);
  const boundaries = [0x10, 0x80, 0x100, 0x1000, 0x10000].flatMap((b) => [b - 1, b]);
  const random = fc.sample(fc.nat(length - 1), { numRuns: SAMPLED, seed: SAMPLE_SEED });
  const chosen = [0, 1, length >> 1, length - 2, length - 1, ...boundaries, ...also, ...random];
  return [...new Set(chosen.filter((i) => Number.isInteger(i) && i >= 0 && i < length))].sort((a, b) => a - b);
}
