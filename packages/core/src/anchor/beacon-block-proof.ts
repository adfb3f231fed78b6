/**
 * Proofs that an execution block hash is in the beacon chain's history, as the Portal Network's
 * history spec ships them (ethereum/portal-network-specs `history/history-network.md`): the block
 * hash under its beacon block root, and that root at `block_roots[slot % 8192]` under a trusted root.
 * - Bellatrix to Capella (`BlockProofHistoricalRoots`): the trusted root is a `historical_roots` entry,
 *   the root of a `HistoricalBatch`; the 14-node branch includes the step from `block_roots` into the batch.
 * - Capella and later (`BlockProofHistoricalSummaries`): the trusted root is the `block_summary_root`
 *   of a `historical_summaries` entry, the root of `block_roots` itself; 13 nodes.
 * Which entry holds a slot is fixed by the slot, so the caller names the entry's index with its root. The
 * proof's slot is bound by the header's timestamp: `block_roots` repeats a root over the skipped slots after
 * it, which the branches alone cannot tell apart.
 */
import { err, ok, type Result } from '../result.js';
import { isValidBranch, type Node } from './merkle-branch.js';
import { forkAtSlot, forkSlot, isAtLeast, slotTimestamp, type BeaconNetwork } from './networks.js';
import { SLOTS_PER_HISTORICAL_ROOT } from './ssz.js';

/** The list a post-merge proof ends in: `historical_roots` before Capella, `historical_summaries` from it. */
export type HistoricalList = 'historical_roots' | 'historical_summaries';

/** A post-merge block proof's parts, each branch from its leaf up. */
export interface PostMergeBlockProof {
  /** The beacon block root's branch to the trusted root: 14 nodes before Capella, 13 from it. */
  readonly beaconBlockProof: readonly Node[];
  readonly beaconBlockRoot: Node;
  /** The execution block hash's branch to the beacon block root: 11 nodes before Deneb, 12 from it. */
  readonly executionBlockProof: readonly Node[];
  /** The beacon slot whose `block_roots` entry is the beacon block root. */
  readonly slot: number;
}

/** A trusted root a proof ends at: entry `index` of the slot's {@link HistoricalList} (for summaries, its `block_summary_root`). */
export interface TrustedHistoricalRoot {
  readonly list: HistoricalList;
  readonly index: number;
  readonly root: Node;
}

/** The execution block a proof is about: the keccak of its header's RLP, and the header's timestamp. */
export interface ExecutionBlockId {
  readonly hash: Node;
  readonly timestamp: bigint;
}

/** What a verified proof shows: the execution block hash is that of the beacon block at slot `slot`. */
export interface ProvenPostMergeBlock {
  readonly blockHash: Node;
  readonly slot: number;
}

/** Why a post-merge proof is refused; `branch` names the branch that does not reach its root. */
export type PostMergeRefusal =
  | { readonly kind: 'not-post-merge'; readonly slot: number }
  | { readonly kind: 'slot-time'; readonly slot: number; readonly timestamp: bigint }
  | { readonly kind: 'wrong-entry'; readonly expected: { list: HistoricalList; index: number } }
  | { readonly kind: 'branch'; readonly branch: 'execution' | 'block-roots' };

/** Generalized index of `body.execution_payload.block_hash` under a `BeaconBlock` root: Bellatrix and Capella. */
export const BLOCK_HASH_GINDEX_BELLATRIX = 3228;
/** The same from Deneb on: the execution payload grew past 16 fields, one level deeper (Electra and Fulu keep it). */
export const BLOCK_HASH_GINDEX_DENEB = 6444;

/** Where the block hash of a block at `slot` sits under its beacon block root. */
export function blockHashGindex(network: BeaconNetwork, slot: number): number {
  return isAtLeast(forkAtSlot(network, slot), 'deneb') ? BLOCK_HASH_GINDEX_DENEB : BLOCK_HASH_GINDEX_BELLATRIX;
}

/** The list and entry whose root a proof for `slot` ends at. */
export function historicalEntryOf(network: BeaconNetwork, slot: number): { list: HistoricalList; index: number } {
  const period = Math.floor(slot / SLOTS_PER_HISTORICAL_ROOT);
  if (!isAtLeast(forkAtSlot(network, slot), 'capella')) return { list: 'historical_roots', index: period };
  // historical_summaries began with the period Capella started in.
  return {
    list: 'historical_summaries',
    index: period - Math.floor(forkSlot(network, 'capella') / SLOTS_PER_HISTORICAL_ROOT),
  };
}

/** Generalized index of the beacon block root of `slot` under its trusted root. */
function blockRootGindex(list: HistoricalList, slot: number): number {
  const inVector = SLOTS_PER_HISTORICAL_ROOT + (slot % SLOTS_PER_HISTORICAL_ROOT);
  // A HistoricalBatch puts block_roots at its generalized index 2: one level more.
  return list === 'historical_roots' ? SLOTS_PER_HISTORICAL_ROOT + inVector : inVector;
}

/**
 * Whether `proof` shows `block` in the beacon chain's history under `trusted`: the header's timestamp is
 * that of the proof's slot, its hash is at 3228 (6444 from Deneb) under the beacon block root, and that
 * root is at `block_roots[slot % 8192]` under the trusted entry.
 */
export function verifyPostMergeBlock(
  network: BeaconNetwork,
  block: ExecutionBlockId,
  proof: PostMergeBlockProof,
  trusted: TrustedHistoricalRoot,
): Result<ProvenPostMergeBlock, PostMergeRefusal> {
  const { slot } = proof;
  if (!Number.isSafeInteger(slot) || slot < forkSlot(network, 'bellatrix'))
    return err({ kind: 'not-post-merge', slot });
  if (BigInt(slotTimestamp(network, slot)) !== block.timestamp)
    return err({ kind: 'slot-time', slot, timestamp: block.timestamp });
  const expected = historicalEntryOf(network, slot);
  if (expected.list !== trusted.list || expected.index !== trusted.index) return err({ kind: 'wrong-entry', expected });
  if (!isValidBranch(block.hash, proof.executionBlockProof, blockHashGindex(network, slot), proof.beaconBlockRoot))
    return err({ kind: 'branch', branch: 'execution' });
  if (!isValidBranch(proof.beaconBlockRoot, proof.beaconBlockProof, blockRootGindex(trusted.list, slot), trusted.root))
    return err({ kind: 'branch', branch: 'block-roots' });
  return ok({ blockHash: block.hash, slot });
}

/**
 * The parts of a serialized Portal post-merge proof (all members fixed-size: beacon block proof, beacon
 * block root, execution block proof, slot as uint64 little-endian), or why not. The slot, last, picks the
 * layout: 840 bytes before Capella, 808 through Capella, 840 from Deneb.
 */
export function decodePostMergeProof(network: BeaconNetwork, bytes: Uint8Array): Result<PostMergeBlockProof, string> {
  if (bytes.length < 8) return err('shorter than a slot');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const slot = Number(view.getBigUint64(bytes.length - 8, true));
  if (!Number.isSafeInteger(slot) || slot < forkSlot(network, 'bellatrix'))
    return err(`slot ${slot} is not after the merge`);
  const beaconNodes = historicalEntryOf(network, slot).list === 'historical_roots' ? 14 : 13;
  const executionNodes = blockHashGindex(network, slot) === BLOCK_HASH_GINDEX_DENEB ? 12 : 11;
  const size = 32 * (beaconNodes + 1 + executionNodes) + 8;
  if (bytes.length !== size) return err(`${bytes.length} bytes, not the ${size} of a proof at slot ${slot}`);
  const node = (i: number): Node => bytes.slice(32 * i, 32 * i + 32);
  const nodes = (from: number, count: number): Node[] => Array.from({ length: count }, (_, i) => node(from + i));
  return ok({
    beaconBlockProof: nodes(0, beaconNodes),
    beaconBlockRoot: node(beaconNodes),
    executionBlockProof: nodes(beaconNodes + 1, executionNodes),
    slot,
  });
}
