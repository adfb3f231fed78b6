/**
 * The beacon slot of execution block N, found by asking for the blocks of a few slots. A slot holds at most
 * one block and execution numbers rise by one a block, so a block at slot `s` numbered `n` bounds N's slot:
 * at least `s + (N - n)` when `n < N`, at most `s - (n - N)` when `n > N`. Each probe jumps to the bound it
 * gives, from the side nearer N in blocks; the slots a jump skips hold all the blocks between, but for the
 * empty ones among them, so each jump leaves as many slots to cross as it skipped empty ones (about 1 % on
 * mainnet): a few probes from the merge to today. An empty slot costs a probe and moves the bound by one.
 */
import { AnchorProveError } from './prove-error.js';

/**
 * Where N's slot can be: the slots from `lo` to `hi`, both included; `below` and `above` are the blocks between N
 * and the blocks each bound was drawn from (the first block after the merge, the checkpoint's), which say the side
 * to start from.
 */
export interface SlotBounds {
  readonly lo: number;
  readonly hi: number;
  readonly below: number;
  readonly above: number;
}

/** Probes at most, past which the search gives up and asks for `--slot`. */
export const MAX_PROBES = 64;

/**
 * The slot of the block numbered `target` between `bounds`, asking `numberAt(slot)` for the execution block
 * number of a slot's block (undefined for an empty slot), at most `maxProbes` times.
 * @throws AnchorProveError when no slot between the bounds holds it, or the probes run out.
 */
export async function findSlot(
  target: bigint,
  bounds: SlotBounds,
  numberAt: (slot: number) => Promise<bigint | undefined>,
  maxProbes = MAX_PROBES,
): Promise<number> {
  let { lo, hi } = bounds;
  // The last gap in blocks seen from each side: the search probes from the nearer one.
  let gapBelow = bounds.below;
  let gapAbove = bounds.above;
  let fromAbove = gapAbove < gapBelow;
  for (let probes = 0; lo <= hi; probes++) {
    if (probes === maxProbes)
      throw new AnchorProveError(
        'source',
        `block ${target}: its slot is still unknown after ${maxProbes} probes (between slots ${lo} and ${hi}); give it with --slot`,
      );
    const slot = fromAbove ? hi : lo;
    const number = await numberAt(slot);
    if (number === undefined) {
      // An empty slot: N is not there; the bound moves past it.
      if (fromAbove) hi--;
      else lo++;
      continue;
    }
    if (number === target) return slot;
    if (number < target) {
      lo = Math.max(lo, slot + Number(target - number));
      gapBelow = Number(target - number);
    } else {
      hi = Math.min(hi, slot - Number(number - target));
      gapAbove = Number(number - target);
    }
    fromAbove = gapAbove < gapBelow;
  }
  throw new AnchorProveError(
    'not-provable',
    `block ${target} is in no slot the beacon node holds between ${bounds.lo} and ${bounds.hi}: not a block of its chain`,
  );
}
