/**
 * SSZ Merkle branches (consensus-specs `is_valid_merkle_branch`): a 32-byte leaf, the sibling of
 * each level from the leaf up, and the generalized index that names the leaf's place under a root.
 * Everything the beacon-chain anchor proves is a chain of these, hashed with SHA-256.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesEqual } from '../bytes/hex.js';

/** A node of an SSZ Merkle tree: 32 bytes. */
export type Node = Uint8Array;

/** Where a generalized index puts its leaf: the tree's depth below the root and the leaf's index at that depth. */
export interface BranchPlace {
  depth: number;
  index: number;
}

/**
 * The depth and index of generalized index `gindex` (1 is the root; 2 and 3 its children).
 *
 * @example
 * placeOf(3228); // { depth: 11, index: 1180 }: an execution block hash under a Capella beacon block root
 */
export function placeOf(gindex: number): BranchPlace {
  if (!Number.isSafeInteger(gindex) || gindex < 1)
    throw new RangeError(`generalized index ${gindex} is not a positive integer`);
  let depth = 0;
  while (2 ** (depth + 1) <= gindex) depth++;
  return { depth, index: gindex - 2 ** depth };
}

/** SHA-256 of two nodes side by side: their parent. */
export function parentOf(left: Node, right: Node): Node {
  const both = new Uint8Array(64);
  both.set(left, 0);
  both.set(right, 32);
  return sha256(both);
}

/**
 * The root that `leaf` and its `branch` (siblings from the leaf up) hash to at generalized index
 * `gindex`, or `undefined` when the branch is not as long as the index is deep or a node is not 32 bytes.
 */
export function branchRoot(leaf: Node, branch: readonly Node[], gindex: number): Node | undefined {
  const { depth, index } = placeOf(gindex);
  if (branch.length !== depth || leaf.length !== 32 || branch.some((node) => node.length !== 32)) return undefined;
  let node = leaf;
  // Arithmetic, not `>>`: a generalized index across several containers passes 2^31.
  for (let level = 0, rest = index; level < depth; level++, rest = Math.floor(rest / 2)) {
    node = rest % 2 === 1 ? parentOf(branch[level]!, node) : parentOf(node, branch[level]!);
  }
  return node;
}

/** Whether `leaf` is at generalized index `gindex` under `root`, as `branch` shows. */
export function isValidBranch(leaf: Node, branch: readonly Node[], gindex: number, root: Node): boolean {
  const computed = branchRoot(leaf, branch, gindex);
  return computed !== undefined && bytesEqual(computed, root);
}
