/**
 * A light client's first step (consensus-specs `initialize_light_client_store`): the bootstrap's beacon header
 * hashes to the checkpoint root the user trusts, its execution header is its own (header-validity.ts), and the
 * sync committee it hands over is the `current_sync_committee` of that header's state, at generalized index
 * 54 before Electra and 86 from it (by the header's fork).
 */
import { checkBytes, HASH_BYTES } from '../../bytes/check-bytes.js';
import { bytesEqual } from '../../bytes/hex.js';
import { err, ok, type Result } from '../../result.js';
import type { Node } from '../merkle-branch.js';
import type { BeaconNetwork } from '../networks.js';
import { beaconBlockHeaderRoot } from '../ssz.js';
import { CommitteeKeys } from './bls.js';
import { periodAtSlot, type LightClientBootstrap } from './containers.js';
import { isValidNormalizedBranch, stateGindices } from './gindices.js';
import { beaconHeaderProblem, checkHeader } from './header-validity.js';
import type { LightClientRefusal } from './refusal.js';
import { syncCommitteeRoot } from './roots.js';
import type { LightClientState } from './state.js';

/**
 * The light-client state `bootstrap` establishes under the trusted `checkpointRoot` (a beacon block root) on
 * `network`, or why not. No signature is involved: the checkpoint is the trust; the committee's keys are decoded
 * only when the first update is checked.
 * @throws TypeError when `checkpointRoot` is not a Uint8Array (hex text among others), RangeError when it is not 32
 * bytes: a root the caller holds wrong is no bootstrap's fault.
 */
export function verifyBootstrap(
  network: BeaconNetwork,
  checkpointRoot: Node,
  bootstrap: LightClientBootstrap,
): Result<LightClientState, LightClientRefusal> {
  checkBytes(checkpointRoot, 'checkpointRoot', HASH_BYTES);
  const { header } = bootstrap;
  const problem = beaconHeaderProblem(header, 'bootstrap');
  if (problem !== undefined) return err(problem);
  if (!bytesEqual(beaconBlockHeaderRoot(header.beacon), checkpointRoot))
    return err({
      kind: 'checkpoint',
      message: "the bootstrap's beacon header does not hash to the checkpoint root",
    });
  const fork = checkHeader(network, header, 'bootstrap');
  if (!fork.ok) return fork;
  const gindex = stateGindices(fork.value).currentSyncCommittee;
  const root = syncCommitteeRoot(bootstrap.currentSyncCommittee);
  if (!isValidNormalizedBranch(root, bootstrap.currentSyncCommitteeBranch, gindex, header.beacon.stateRoot))
    return err({
      kind: 'branch',
      branch: 'current-sync-committee',
      header: 'bootstrap',
      gindex,
      message: `the current sync committee does not reach the bootstrap header's state root (generalized index ${gindex}, ${fork.value})`,
    });
  return ok({
    network: network.name,
    finalizedHeader: header,
    period: periodAtSlot(header.beacon.slot),
    currentSyncCommittee: {
      committee: bootstrap.currentSyncCommittee,
      root,
      keys: new CommitteeKeys(bootstrap.currentSyncCommittee),
    },
  });
}
