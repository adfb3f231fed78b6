/**
 * The little SSZ the anchor's proofs need: merkleizing 32-byte chunks under a limit, a list's length
 * mixed in, the hash_tree_root of a `Vector[Bytes32, N]` (N a power of two, as `block_roots` and
 * `state_roots` are) and of a `HistoricalBatch`, whose root is a `historical_roots` entry.
 */
import { parentOf, type Node } from './merkle-branch.js';

/** Slots of a `block_roots` vector, and of one `historical_roots` or `historical_summaries` entry (`SLOTS_PER_HISTORICAL_ROOT`). */
export const SLOTS_PER_HISTORICAL_ROOT = 8192;

/** SSZ's `merkleize` with a limit: the root of `leaves` padded with zero nodes to a tree `depth` levels deep. */
export function merkleize(leaves: readonly Node[], depth: number): Node {
  let zero: Node = new Uint8Array(32);
  let level = leaves.length === 0 ? [zero] : [...leaves];
  for (let height = 0; height < depth; height++) {
    const next: Node[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(parentOf(level[i]!, level[i + 1] ?? zero));
    level = next;
    zero = parentOf(zero, zero);
  }
  return level[0]!;
}

/** SSZ's `mix_in_length`: a list's root is its data's root beside its length, little-endian in 32 bytes. */
export function mixInLength(root: Node, length: number): Node {
  const chunk = new Uint8Array(32);
  new DataView(chunk.buffer).setUint32(0, length, true);
  return parentOf(root, chunk);
}

/** The hash_tree_root of a `Vector[Bytes32, N]`: its nodes merkleized pairwise; N must be a power of two. */
export function vectorRoot(nodes: readonly Node[]): Node {
  if (nodes.length === 0 || (nodes.length & (nodes.length - 1)) !== 0 || nodes.some((node) => node.length !== 32))
    throw new RangeError('a vector of 32-byte nodes, a power of two long, is needed');
  return merkleize(nodes, Math.log2(nodes.length));
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

/** A `historical_summaries` entry: the roots of one period's `block_roots` and `state_roots`. */
export interface HistoricalSummary {
  readonly blockSummaryRoot: Node;
  readonly stateSummaryRoot: Node;
}

/** The limit of `historical_summaries` (`HISTORICAL_ROOTS_LIMIT`, 2^24): its data tree is 24 levels deep. */
const HISTORICAL_SUMMARIES_DEPTH = 24;

/** The hash_tree_root of `historical_summaries`: `List[HistoricalSummary, 2^24]`, each entry the parent of its two roots. */
export function historicalSummariesRoot(summaries: readonly HistoricalSummary[]): Node {
  const leaves = summaries.map((summary) => parentOf(summary.blockSummaryRoot, summary.stateSummaryRoot));
  return mixInLength(merkleize(leaves, HISTORICAL_SUMMARIES_DEPTH), summaries.length);
}

/** A `BeaconBlockHeader`: what a checkpoint root is the hash_tree_root of. */
export interface BeaconBlockHeader {
  readonly slot: bigint;
  readonly proposerIndex: bigint;
  readonly parentRoot: Node;
  readonly stateRoot: Node;
  readonly bodyRoot: Node;
}

/** A `uint64` as its SSZ leaf: little-endian in the first 8 of 32 bytes. */
function uint64Leaf(value: bigint): Node {
  const leaf = new Uint8Array(32);
  new DataView(leaf.buffer).setBigUint64(0, value, true);
  return leaf;
}

/** The hash_tree_root of a `BeaconBlockHeader`: its five fields merkleized under eight leaves. */
export function beaconBlockHeaderRoot(header: BeaconBlockHeader): Node {
  return merkleize(
    [uint64Leaf(header.slot), uint64Leaf(header.proposerIndex), header.parentRoot, header.stateRoot, header.bodyRoot],
    3,
  );
}
