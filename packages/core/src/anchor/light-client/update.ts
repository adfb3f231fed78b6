/**
 * A light client's step (consensus-specs `validate_light_client_update` then `apply_light_client_update`),
 * offline and strict: only an update that finalizes a header, signed by at least two thirds of the committee,
 * is accepted (the spec's `process_light_client_update` applies nothing less; its optimistic header and
 * `force_update` rest on weaker evidence and are left out). {@link verifyUpdate} is the validation alone;
 * {@link applyUpdate} also requires the update to move the state. The checks run cheapest first, the BLS
 * signature last.
 */
import { bytesEqual, bytesToHex } from '../../bytes/hex.js';
import { err, ok, type Result } from '../../result.js';
import { isAtLeast, type BeaconNetwork } from '../networks.js';
import { beaconBlockHeaderRoot } from '../ssz.js';
import { CommitteeKeys, fastAggregateVerify } from './bls.js';
import { participantCount, periodAtSlot, SYNC_COMMITTEE_SIZE, type LightClientUpdate } from './containers.js';
import { isValidNormalizedBranch, stateGindices } from './gindices.js';
import { beaconHeaderProblem, checkHeader, safeSlot } from './header-validity.js';
import type { LightClientRefusal } from './refusal.js';
import { syncCommitteeRoot } from './roots.js';
import { signatureFork, signingRoot, syncCommitteeDomain } from './signing.js';
import type { LightClientState, TrustedSyncCommittee } from './state.js';

/** Whether `participants` of the 512 are the two thirds the spec's `process_light_client_update` applies an update on. */
export function isSupermajority(participants: number): boolean {
  return participants * 3 >= SYNC_COMMITTEE_SIZE * 2;
}

/** The fewest participants a finalizing update needs: 342 of 512. */
export const MIN_FINALITY_PARTICIPANTS = Math.ceil((SYNC_COMMITTEE_SIZE * 2) / 3);

/** An update that passed {@link verifyUpdate}: how many signed, and the next committee it proved, if any. */
export interface VerifiedUpdate {
  readonly participants: number;
  readonly nextSyncCommittee?: TrustedSyncCommittee;
}

/**
 * Whether `update` is valid against `state` on `network` (the spec's `validate_light_client_update`, finality
 * and a two-thirds quorum required): its slots in order, its signature period one whose committee the state
 * knows, its headers' execution branches, its finality branch and next-committee branch into the attested
 * header's state (depth by that header's fork), and the aggregate signature of the participants of the
 * signature period's committee over the attested header. An update valid here may still not move the state
 * (it may finalize the state's own header): {@link applyUpdate} says so.
 */
export function verifyUpdate(
  network: BeaconNetwork,
  state: LightClientState,
  update: LightClientUpdate,
): Result<VerifiedUpdate, LightClientRefusal> {
  return validate(network, state, update, false);
}

/**
 * The state after `update` on `network`, or why the update is refused: {@link verifyUpdate}'s checks, and the
 * update must move the state (the spec's condition to apply). The committee that must have signed is that of
 * the signature slot's period: the state's current one, or its next one when known. The new state finalizes the
 * update's finalized header when it is newer, learns the next committee while it is unknown, and at a period's
 * turn makes the next committee the current one.
 */
export function applyUpdate(
  network: BeaconNetwork,
  state: LightClientState,
  update: LightClientUpdate,
): Result<LightClientState, LightClientRefusal> {
  const verified = validate(network, state, update, true);
  if (!verified.ok) return verified;
  // validate() with mustApply refused an update without finality.
  const finalized = update.finality!.header;
  const nextKnown = state.nextSyncCommittee !== undefined;
  const finalizedPeriod = periodAtSlot(finalized.beacon.slot);
  // apply_light_client_update.
  let { currentSyncCommittee, nextSyncCommittee } = state;
  if (!nextKnown) nextSyncCommittee = verified.value.nextSyncCommittee;
  else if (finalizedPeriod === state.period + 1) {
    currentSyncCommittee = state.nextSyncCommittee!;
    nextSyncCommittee = verified.value.nextSyncCommittee;
  }
  const finalizedHeader = finalized.beacon.slot > state.finalizedHeader.beacon.slot ? finalized : state.finalizedHeader;
  return ok({
    network: state.network,
    finalizedHeader,
    period: periodAtSlot(finalizedHeader.beacon.slot),
    currentSyncCommittee,
    ...(nextSyncCommittee === undefined ? {} : { nextSyncCommittee }),
  });
}

/** The checks of {@link verifyUpdate}, and with `mustApply` those of {@link applyUpdate}. */
function validate(
  network: BeaconNetwork,
  state: LightClientState,
  update: LightClientUpdate,
  mustApply: boolean,
): Result<VerifiedUpdate, LightClientRefusal> {
  if (network.name !== state.network)
    return err({
      kind: 'network',
      expected: state.network,
      actual: network.name,
      message: `the state was verified on ${state.network}, not ${network.name}`,
    });
  const { finality, attestedHeader, syncAggregate } = update;
  if (finality === undefined)
    return err({
      kind: 'no-finality',
      message: 'the update finalizes no header (an optimistic update); only finality updates are accepted',
    });

  for (const [header, role] of [
    [attestedHeader, 'attested'],
    [finality.header, 'finalized'],
  ] as const) {
    const problem = beaconHeaderProblem(header, role);
    if (problem !== undefined) return err(problem);
  }
  const signatureSlot = safeSlot(update.signatureSlot);
  const attestedSlot = attestedHeader.beacon.slot;
  const finalizedSlot = finality.header.beacon.slot;
  if (signatureSlot === undefined || !(update.signatureSlot > attestedSlot && attestedSlot >= finalizedSlot))
    return err({
      kind: 'slot-order',
      signatureSlot: String(update.signatureSlot),
      attestedSlot: String(attestedSlot),
      finalizedSlot: String(finalizedSlot),
      message: `expected signature slot > attested slot >= finalized slot, got ${update.signatureSlot}, ${attestedSlot}, ${finalizedSlot}`,
    });

  const participants = participantCount(syncAggregate.bits);
  // A hand-built aggregate may have other than 512 bits: none of them is then a member's.
  if (syncAggregate.bits.length !== SYNC_COMMITTEE_SIZE / 8 || !isSupermajority(participants))
    return err({
      kind: 'participation',
      participants,
      required: MIN_FINALITY_PARTICIPANTS,
      message:
        syncAggregate.bits.length !== SYNC_COMMITTEE_SIZE / 8
          ? `the participation bits are ${syncAggregate.bits.length} bytes, not ${SYNC_COMMITTEE_SIZE / 8}`
          : `${participants} of ${SYNC_COMMITTEE_SIZE} members signed; finality needs ${MIN_FINALITY_PARTICIPANTS}`,
    });

  const storePeriod = state.period;
  const nextKnown = state.nextSyncCommittee !== undefined;
  const signaturePeriod = periodAtSlot(update.signatureSlot);
  if (signaturePeriod !== storePeriod && !(nextKnown && signaturePeriod === storePeriod + 1))
    return err({
      kind: 'period',
      statePeriod: storePeriod,
      updatePeriod: signaturePeriod,
      nextCommitteeKnown: nextKnown,
      message: `the update is signed in period ${signaturePeriod}; the state, at period ${storePeriod}${
        nextKnown ? ', knows the committees of it and the next' : ", knows only that period's committee"
      }`,
    });

  const attestedPeriod = periodAtSlot(attestedSlot);
  const finalizedPeriod = periodAtSlot(finalizedSlot);
  const stateSlot = state.finalizedHeader.beacon.slot;
  const givesNext = !nextKnown && update.nextSyncCommittee !== undefined;
  // validate_light_client_update's relevance, and process_light_client_update's condition to apply.
  const relevant = attestedSlot > stateSlot || (givesNext && attestedPeriod === storePeriod);
  const applies = finalizedSlot > stateSlot || (givesNext && finalizedPeriod === attestedPeriod);
  if (!relevant || (mustApply && !applies))
    return err({
      kind: 'not-newer',
      message: relevant
        ? `the update finalizes slot ${finalizedSlot}, not after the state's ${stateSlot}, and brings no finalized next committee`
        : `the update attests slot ${attestedSlot}, not after the state's finalized ${stateSlot}, and brings no next committee of its period`,
    });
  // apply_light_client_update: with the next committee unknown, the state cannot follow a finalized header into another period.
  if (mustApply && !nextKnown && finalizedPeriod !== storePeriod)
    return err({
      kind: 'period',
      statePeriod: storePeriod,
      updatePeriod: finalizedPeriod,
      nextCommitteeKnown: false,
      message: `the update finalizes a header of period ${finalizedPeriod}, but the state at period ${storePeriod} does not know the next committee`,
    });

  const attestedFork = checkHeader(network, attestedHeader, 'attested');
  if (!attestedFork.ok) return attestedFork;
  const finalizedFork = checkHeader(network, finality.header, 'finalized');
  if (!finalizedFork.ok) return finalizedFork;
  // The branches into the attested header's state take that header's fork (Lodestar PR 7187 fixed branches made at another depth).
  const gindices = stateGindices(attestedFork.value);
  const stateRoot = attestedHeader.beacon.stateRoot;
  if (
    !isValidNormalizedBranch(
      beaconBlockHeaderRoot(finality.header.beacon),
      finality.branch,
      gindices.finalizedRoot,
      stateRoot,
    )
  )
    return err({
      kind: 'branch',
      branch: 'finality',
      header: 'attested',
      gindex: gindices.finalizedRoot,
      message: `the finalized header does not reach the attested header's state root (generalized index ${gindices.finalizedRoot}, ${attestedFork.value})`,
    });

  let updateNext: TrustedSyncCommittee | undefined;
  if (update.nextSyncCommittee !== undefined) {
    const { committee, branch } = update.nextSyncCommittee;
    const root = syncCommitteeRoot(committee);
    if (nextKnown && attestedPeriod === storePeriod && !bytesEqual(root, state.nextSyncCommittee.root))
      return err({
        kind: 'next-committee',
        message: `the update's next sync committee differs from the one the state holds for period ${storePeriod + 1}`,
      });
    if (!isValidNormalizedBranch(root, branch, gindices.nextSyncCommittee, stateRoot))
      return err({
        kind: 'branch',
        branch: 'next-sync-committee',
        header: 'attested',
        gindex: gindices.nextSyncCommittee,
        message: `the next sync committee does not reach the attested header's state root (generalized index ${gindices.nextSyncCommittee}, ${attestedFork.value})`,
      });
    updateNext = { committee, root, keys: new CommitteeKeys(committee) };
  }

  const signing = signaturePeriod === storePeriod ? state.currentSyncCommittee : state.nextSyncCommittee!;
  const fork = signatureFork(network, signatureSlot);
  if (!isAtLeast(fork, 'altair'))
    return err({
      kind: 'unsupported-fork',
      header: 'signature',
      fork,
      message: `the update is signed at slot ${signatureSlot}, of ${fork}, before sync committees began`,
    });
  if (signing.keys.size !== SYNC_COMMITTEE_SIZE)
    return err({
      kind: 'committee-key',
      index: signing.keys.size,
      message: `the signing committee has ${signing.keys.size} keys, not ${SYNC_COMMITTEE_SIZE}`,
    });
  // The participants' sum: the committee's aggregate key less the non-signers' keys (bls.ts says why).
  const aggregate = signing.keys.participantsAggregate(syncAggregate.bits);
  if (!aggregate.ok)
    return err({
      kind: 'committee-key',
      index: aggregate.error,
      message:
        aggregate.error === 'aggregate'
          ? "the signing committee's aggregate_pubkey is not a valid BLS public key"
          : `member ${aggregate.error} of the signing committee, who did not sign, has no valid BLS public key`,
    });
  const message = signingRoot(
    beaconBlockHeaderRoot(attestedHeader.beacon),
    syncCommitteeDomain(network, signatureSlot),
  );
  if (!fastAggregateVerify(aggregate.value, message, syncAggregate.signature)) {
    const forkVersion = `0x${bytesToHex(network.forkVersions[fork])}`;
    return err({
      kind: 'signature',
      fork,
      forkVersion,
      message: `the sync aggregate is not the ${participants} participants' signature of the attested header on ${network.name} (fork version ${forkVersion}, ${fork})`,
    });
  }

  return ok({ participants, ...(updateNext === undefined ? {} : { nextSyncCommittee: updateNext }) });
}
