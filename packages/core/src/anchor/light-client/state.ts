/**
 * What a light client knows after a verified bootstrap and each verified update: the spec's
 * `LightClientStore` reduced to what offline, finality-only verification keeps (no optimistic header,
 * no best update held back for a forced update).
 */
import type { Node } from '../merkle-branch.js';
import type { CommitteeKeys } from './bls.js';
import type { LightClientHeader, SyncCommittee } from './containers.js';

/** A sync committee proven under a verified state root, with its keys decoded when first needed (bls.ts). */
export interface TrustedSyncCommittee {
  readonly committee: SyncCommittee;
  /** Its hash_tree_root, the leaf its branch proved. */
  readonly root: Node;
  readonly keys: CommitteeKeys;
}

/** A light client's verified state. */
export interface LightClientState {
  /** The network it was verified on (`BeaconNetwork.name`): an update is checked on the same one. */
  readonly network: string;
  /** The latest finalized header verified; its execution block is the anchor's. */
  readonly finalizedHeader: LightClientHeader;
  /** The sync-committee period of the finalized header's slot: the period of the current committee. */
  readonly period: number;
  /** The committee of `period`. */
  readonly currentSyncCommittee: TrustedSyncCommittee;
  /** The committee of `period + 1`, once an update of `period` gave it. */
  readonly nextSyncCommittee?: TrustedSyncCommittee;
}
