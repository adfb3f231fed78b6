/**
 * The two searches of `anchor prove` that a recorded node cannot show whole: the slot of an execution block
 * (cli/anchor/find-slot.ts), on generated chains with empty slots, and a period's block roots with empty slots
 * filled (cli/anchor/period-roots.ts), on period 1371's real roots and a node whose period starts empty.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytes32Vector, vectorRoot } from '../packages/core/src/anchor/ssz.js';
import type { BeaconApi } from '../packages/service/src/cli/anchor/beacon-api.js';
import { findSlot, MAX_PROBES } from '../packages/service/src/cli/anchor/find-slot.js';
import { fillEmptySlots, periodBlockRoots } from '../packages/service/src/cli/anchor/period-roots.js';
import { AnchorProveError } from '../packages/service/src/cli/anchor/prove-error.js';
import { checkpointSummaries } from './helpers/anchor-files.js';
import { runs } from './helpers/runs.js';

/** A chain of `length` slots, a slot empty when its draw is under `rate` (in %), blocks numbered from `first`. */
const chainArb = fc
  .record({
    draws: fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 2, maxLength: 4000 }),
    rate: fc.integer({ min: 0, max: 30 }),
    first: fc.integer({ min: 0, max: 20_000_000 }),
    pick: fc.nat(),
  })
  .map(({ draws, rate, first, pick }) => {
    const numbers = new Map<number, bigint>();
    let next = BigInt(first);
    draws.forEach((draw, slot) => {
      // The first and last slots hold blocks: the bounds are drawn from them, as from the merge and the checkpoint.
      if (slot === 0 || slot === draws.length - 1 || draw >= rate) numbers.set(slot, next++);
    });
    const slots = [...numbers.keys()];
    return { numbers, slots, target: slots[pick % slots.length]!, length: draws.length };
  });

/** The bounds anchor prove draws for the block at `slot`: from the chain's first block and its last. */
function boundsOf(numbers: Map<number, bigint>, length: number, target: bigint) {
  const firstNumber = numbers.get(0)!;
  const lastNumber = numbers.get(length - 1)!;
  return {
    lo: Number(target - firstNumber),
    hi: length - 1 - Number(lastNumber - target),
    below: Number(target - firstNumber),
    above: Number(lastNumber - target),
  };
}

describe('the slot of an execution block', () => {
  it('is found on any chain with up to 30 % empty slots, in a few probes', async () => {
    await fc.assert(
      fc.asyncProperty(chainArb, async ({ numbers, target, length }) => {
        const number = numbers.get(target)!;
        const probed: number[] = [];
        const slot = await findSlot(number, boundsOf(numbers, length, number), async (probe) => {
          probed.push(probe);
          expect(probe).toBeGreaterThanOrEqual(0);
          expect(probe).toBeLessThan(length);
          return numbers.get(probe);
        });
        expect(slot).toBe(target);
        expect(probed.length).toBeLessThanOrEqual(MAX_PROBES);
      }),
      { numRuns: runs(300) },
    );
  });

  it('a chain without the block is refused as not provable, never answered with another slot', async () => {
    // Blocks 10..19 at slots 0..9; block 25 is in no slot between the bounds drawn for it.
    const numbers = new Map(Array.from({ length: 10 }, (_, slot) => [slot, BigInt(10 + slot)] as const));
    const outcome = findSlot(25n, { lo: 15, hi: 9, below: 15, above: 0 }, async (slot) => numbers.get(slot));
    await expect(outcome).rejects.toThrow(AnchorProveError);
    await expect(outcome).rejects.toThrow(/^block 25 is in no slot the beacon node holds between 15 and 9/);
  });

  it('a node holding no block near the slot: the probes run out and --slot is asked for', async () => {
    const outcome = findSlot(100n, { lo: 0, hi: 1000, below: 100, above: 100 }, async () => undefined);
    await expect(outcome).rejects.toThrow(
      /its slot is still unknown after 64 probes \(between slots \d+ and \d+\); give it with --slot/,
    );
  });
});

describe('a period’s block roots', () => {
  const roots = bytes32Vector(
    new Uint8Array(
      readFileSync(new URL('../fixtures/anchor/colibri/block-22017690/period_1371_block_roots.ssz', import.meta.url)),
    ),
  );

  it('period 1371 from the roots of its slots (53 of them empty): the summary the checkpoint’s state holds', () => {
    const slots = roots.map((root, i) => (i > 0 && root.every((byte, j) => byte === roots[i - 1]![j]) ? null : root));
    expect(slots.filter((root) => root === null)).toHaveLength(53);
    expect(vectorRoot(fillEmptySlots(slots, undefined))).toEqual(
      checkpointSummaries().summaries[613]!.blockSummaryRoot,
    );
  });

  it('each empty slot holds the root before it, the leading ones the root before the period', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.nat(255), { nil: null }), { minLength: 1, maxLength: 64 }),
        fc.nat(255),
        (draws, before) => {
          const node = (n: number) => new Uint8Array(32).fill(n);
          const filled = fillEmptySlots(
            draws.map((n) => (n === null ? null : node(n))),
            node(before),
          );
          let previous = before;
          draws.forEach((n, i) => {
            previous = n ?? previous;
            expect(filled[i]).toEqual(node(previous));
          });
        },
      ),
      { numRuns: runs(100) },
    );
    expect(() => fillEmptySlots([null, new Uint8Array(32)], undefined)).toThrow(
      /slot 0 is empty and no root comes before it/,
    );
  });

  it('a period that starts with empty slots: they take the parent root of its first block, from the node', async () => {
    const parent = new Uint8Array(32).fill(7);
    const asked: string[] = [];
    const api = {
      where: 'http://node',
      blockRoot: async (slot: number) => (slot - 8192 < 3 ? null : roots[slot - 8192]!),
      header: async (id: string) => {
        asked.push(id);
        return { slot: BigInt(id), proposerIndex: 0n, parentRoot: parent, stateRoot: parent, bodyRoot: parent };
      },
    } as unknown as BeaconApi;
    const filled = await periodBlockRoots(api, 1, 4);
    expect(asked).toEqual(['8195']);
    expect(filled.slice(0, 3)).toEqual([parent, parent, parent]);
    expect(filled.slice(3)).toEqual(roots.slice(3));
  });
});
