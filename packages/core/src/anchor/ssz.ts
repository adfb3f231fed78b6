/**
 * The little SSZ the post-merge proofs need: the hash_tree_root of a `Vector[Bytes32, N]` (N a power
 * of two, as `block_roots` and `state_roots` are) and of a `HistoricalBatch`, whose root is a
 * `historical_roots` entry.
 */
import { parentOf, type Node } from './merkle-branch.js';

/** Slots of a `block_roots` vector, and of one `historical_roots` or `historical_summaries` entry (`SLOTS_PER_HISTORICAL_ROOT`). */
export const SLOTS_PER_HISTORICAL_ROOT = 8192;

/** The hash_tree_root of a `Vector[Bytes32, N]`: its nodes merkleized pairwise; N must be a power of two. */
export function vectorRoot(nodes: readonly Node[]): Node {
  if (nodes.length === 0 || (nodes.length & (nodes.length - 1)) !== 0 || nodes.some((node) => node.length !== 32))
    throw new RangeError('a vector of 32-byte nodes, a power of two long, is needed');
  let level = nodes;
  while (level.length > 1)
    level = Array.from({ length: level.length / 2 }, (_, i) => parentOf(level[2 * i]!, level[2 * i + 1]!));
  return level[0]!;
}

/** The nodes of a serialized `Vector[Bytes32, N]`: 32 bytes each, back to back. */
export function bytes32Vector(bytes: Uint8Array): Node[] {
  if (bytes.length % 32 !== 0) throw new RangeError('not a whole number of 32-byte nodes');
  return Array.from({ length: bytes.length / 32 }, (_, i) => bytes.subarray(32 * i, 32 * i + 32));
}

/** The hash_tree_root of `HistoricalBatch { block_roots, state_roots }` (each `Vector[Root, 8192]`): a `historical_roots` entry. */
export function historicalBatchRoot(blockRoots: readonly Node[], stateRoots: readonly Node[]): Node {
  if (blockRoots.length !== SLOTS_PER_HISTORICAL_ROOT || stateRoots.length !== SLOTS_PER_HISTORICAL_ROOT)
    throw new RangeError(`a historical batch holds ${SLOTS_PER_HISTORICAL_ROOT} block roots and as many state roots`);
  return parentOf(vectorRoot(blockRoots), vectorRoot(stateRoots));
}
