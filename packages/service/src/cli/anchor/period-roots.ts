/**
 * The `block_roots` of a period as the state kept them: 8192 roots, one a slot, an empty slot holding the root of
 * the block before it (consensus-specs `process_slot` writes the latest block root into every slot). A beacon node
 * gives the root of each slot that has a block (`/eth/v1/beacon/blocks/{slot}/root`) and 404 for an empty one;
 * the leading empty slots of a period hold the root of the last block before it, which is the first block's
 * `parent_root` (a node that answers an empty slot with the root before it gives the same roots). The roots are not
 * trusted here: the record built from them must hash to the period's summary.
 */
import { SLOTS_PER_HISTORICAL_ROOT, type Node } from 'evm-integrity/anchor';
import type { BeaconApi } from './beacon-api.js';
import { AnchorProveError } from './prove-error.js';

/**
 * The roots of a period from the roots of its slots (`null` for an empty slot): each empty slot takes the root
 * before it, the leading ones `before` (the root of the last block before the period).
 */
export function fillEmptySlots(slots: readonly (Node | null)[], before: Node | undefined): Node[] {
  let previous = before;
  return slots.map((root, i) => {
    previous = root ?? previous;
    if (previous === undefined) throw new RangeError(`slot ${i} is empty and no root comes before it`);
    return previous;
  });
}

/**
 * The 8192 block roots of `period`, fetched with at most `concurrency` requests in flight; `onSlot` is told of
 * each slot fetched (for progress).
 */
export async function periodBlockRoots(
  api: BeaconApi,
  period: number,
  concurrency: number,
  onSlot: () => void = () => undefined,
): Promise<Node[]> {
  const start = period * SLOTS_PER_HISTORICAL_ROOT;
  const slots: (Node | null)[] = new Array<Node | null>(SLOTS_PER_HISTORICAL_ROOT).fill(null);
  let next = 0;
  // Once a request fails, the other workers stop asking: the first failure is the answer.
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < SLOTS_PER_HISTORICAL_ROOT && !failed) {
      const i = next++;
      try {
        slots[i] = await api.blockRoot(start + i);
      } catch (error) {
        failed = true;
        throw error;
      }
      onSlot();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, SLOTS_PER_HISTORICAL_ROOT) }, worker));
  const first = slots.findIndex((root) => root !== null);
  if (first === -1)
    throw new AnchorProveError(
      'source',
      `the beacon node at ${api.where} has no block in period ${period} (slots ${start} to ${start + SLOTS_PER_HISTORICAL_ROOT - 1})`,
    );
  let before: Node | undefined;
  if (first > 0) {
    // The period starts with empty slots: they hold the root of the block before the first one.
    const header = await api.header(String(start + first));
    if (header === null)
      throw new AnchorProveError(
        'source',
        `the beacon node at ${api.where} gave a root for slot ${start + first} but no header`,
      );
    before = header.parentRoot;
  }
  return fillEmptySlots(slots, before);
}
