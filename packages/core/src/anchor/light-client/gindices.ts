/**
 * Where the light client's leaves sit (consensus-specs light-client `sync-protocol.md` constants): in a
 * `BeaconState` the sync committees and the finalized checkpoint's root, whose generalized indices
 * moved at Electra (the state passed 32 fields, one level deeper), and in a `BeaconBlockBody` the
 * execution payload (from Capella). The index in force is the one of the fork of the header whose
 * state or body the branch reaches.
 */
import { bytesEqual } from '../../bytes/hex.js';
import { isValidBranch, placeOf, type Node } from '../merkle-branch.js';
import { isAtLeast, type Fork } from '../networks.js';

/** `finalized_checkpoint.root` in a `BeaconState` from Altair to Deneb. */
export const FINALIZED_ROOT_GINDEX = 105;
/** `finalized_checkpoint.root` from Electra. */
export const FINALIZED_ROOT_GINDEX_ELECTRA = 169;
/** `current_sync_committee` in a `BeaconState` from Altair to Deneb. */
export const CURRENT_SYNC_COMMITTEE_GINDEX = 54;
/** `current_sync_committee` from Electra. */
export const CURRENT_SYNC_COMMITTEE_GINDEX_ELECTRA = 86;
/** `next_sync_committee` in a `BeaconState` from Altair to Deneb. */
export const NEXT_SYNC_COMMITTEE_GINDEX = 55;
/** `next_sync_committee` from Electra. */
export const NEXT_SYNC_COMMITTEE_GINDEX_ELECTRA = 87;
/** `execution_payload` in a `BeaconBlockBody` from Capella (field 9 of 11 to 13, under 16 leaves). */
export const EXECUTION_PAYLOAD_GINDEX = 25;

/** The generalized indices of a state of `fork`. */
export interface StateGindices {
  readonly finalizedRoot: number;
  readonly currentSyncCommittee: number;
  readonly nextSyncCommittee: number;
}

/** The generalized indices of the light client's leaves in a state of `fork`. */
export function stateGindices(fork: Fork): StateGindices {
  return isAtLeast(fork, 'electra')
    ? {
        finalizedRoot: FINALIZED_ROOT_GINDEX_ELECTRA,
        currentSyncCommittee: CURRENT_SYNC_COMMITTEE_GINDEX_ELECTRA,
        nextSyncCommittee: NEXT_SYNC_COMMITTEE_GINDEX_ELECTRA,
      }
    : {
        finalizedRoot: FINALIZED_ROOT_GINDEX,
        currentSyncCommittee: CURRENT_SYNC_COMMITTEE_GINDEX,
        nextSyncCommittee: NEXT_SYNC_COMMITTEE_GINDEX,
      };
}

/** The number of nodes a branch to generalized index `gindex` holds: its depth. */
export function branchLength(gindex: number): number {
  return placeOf(gindex).depth;
}

const ZERO_NODE = new Uint8Array(32);

/**
 * The spec's `is_valid_normalized_merkle_branch`: a branch may be longer than the index is deep only by
 * leading zero nodes (how Electra-aware clients carry older data, consensus-specs Electra `fork.md`
 * `normalize_merkle_branch`); the rest must lead `leaf` to `root` at `gindex`. A shorter branch never passes.
 */
export function isValidNormalizedBranch(leaf: Node, branch: readonly Node[], gindex: number, root: Node): boolean {
  const extra = branch.length - branchLength(gindex);
  if (extra < 0) return false;
  for (let i = 0; i < extra; i++) if (!bytesEqual(branch[i]!, ZERO_NODE)) return false;
  return isValidBranch(leaf, branch.slice(extra), gindex, root);
}

/** Whether every node of `branch` is the zero hash: the spec's empty branch, a part the data leaves out. */
export function isZeroBranch(branch: readonly Node[]): boolean {
  return branch.every((node) => bytesEqual(node, ZERO_NODE));
}
