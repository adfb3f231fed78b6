/**
 * SSZ Merkle branches against a tree built here, level by level, with @noble/hashes' SHA-256: every
 * leaf's branch leads to the root, and any changed byte, sibling order or index does not.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchRoot, isValidBranch, placeOf } from '../packages/core/src/anchor/merkle-branch.js';
import { runs } from './helpers/runs.js';

/** The levels of a full binary tree over `leaves` (a power of two), leaves first, root last. */
function levelsOf(leaves: Uint8Array[]): Uint8Array[][] {
  const levels = [leaves];
  while (levels.at(-1)!.length > 1) {
    const below = levels.at(-1)!;
    levels.push(
      below.filter((_, i) => i % 2 === 0).map((left, i) => sha256(new Uint8Array([...left, ...below[2 * i + 1]!]))),
    );
  }
  return levels;
}

const node = fc.uint8Array({ minLength: 32, maxLength: 32 });
const tree = fc
  .integer({ min: 0, max: 6 })
  .chain((depth) => fc.array(node, { minLength: 2 ** depth, maxLength: 2 ** depth }));

describe('SSZ Merkle branches', () => {
  it('places generalized indices: the root, its children, a Capella block hash, past 2^31', () => {
    expect(placeOf(1)).toEqual({ depth: 0, index: 0 });
    expect(placeOf(3)).toEqual({ depth: 1, index: 1 });
    expect(placeOf(3228)).toEqual({ depth: 11, index: 1180 });
    expect(placeOf(2 ** 40 + 5)).toEqual({ depth: 40, index: 5 });
    expect(() => placeOf(0)).toThrow(/not a positive integer/);
  });

  it(`every leaf's branch leads to the root (${runs(200)} trees)`, () => {
    fc.assert(
      fc.property(tree, (leaves) => {
        const levels = levelsOf(leaves);
        const depth = levels.length - 1;
        leaves.forEach((leaf, i) => {
          const branch = levels.slice(0, depth).map((level, d) => level[Math.floor(i / 2 ** d) ^ 1]!);
          expect(isValidBranch(leaf, branch, 2 ** depth + i, levels[depth]![0]!)).toBe(true);
        });
      }),
      { numRuns: runs(200) },
    );
  });

  it(`a changed byte of the leaf or of a sibling, or a branch a level short, is refused (${runs(200)} trees)`, () => {
    fc.assert(
      fc.property(
        tree.filter((leaves) => leaves.length > 1),
        fc.nat(),
        fc.nat(),
        (leaves, pick, bit) => {
          const levels = levelsOf(leaves);
          const depth = levels.length - 1;
          const root = levels[depth]![0]!;
          const i = pick % leaves.length;
          const branch = levels.slice(0, depth).map((level, d) => level[Math.floor(i / 2 ** d) ^ 1]!);
          const flipped = branch.map((n) => n.slice());
          flipped[bit % depth]![Math.floor(bit / depth) % 32]! ^= 1 << (bit % 8);
          expect(isValidBranch(leaves[i]!, flipped, 2 ** depth + i, root)).toBe(false);
          const leaf = leaves[i]!.slice();
          leaf[bit % 32]! ^= 1;
          expect(isValidBranch(leaf, branch, 2 ** depth + i, root)).toBe(false);
          expect(isValidBranch(leaves[i]!, branch.slice(1), 2 ** depth + i, root)).toBe(false);
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('refuses nodes that are not 32 bytes, and a branch of the wrong length, with no root', () => {
    const leaf = new Uint8Array(32);
    expect(branchRoot(leaf, [new Uint8Array(31)], 2)).toBeUndefined();
    expect(branchRoot(new Uint8Array(33), [leaf], 2)).toBeUndefined();
    expect(branchRoot(leaf, [leaf, leaf], 2)).toBeUndefined();
  });
});
