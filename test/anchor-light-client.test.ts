/**
 * Light-client verification (core/anchor/light-client/) on real mainnet data (fixtures/anchor/, sources in
 * fixtures/SOURCES.md): colibri-stateless' Beacon API SSZ answers across the Deneb → Electra fork and over 46
 * consecutive periods, the Portal network's Capella and Deneb vectors, helios' Capella JSON. Each chain starts
 * from a checkpoint root its source names, every update's BLS signature is checked, and each ends at the
 * finalized slot and execution block expected. Then each kind of refusal, on the same data.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyBootstrap } from '../packages/core/src/anchor/light-client/bootstrap.js';
import { CommitteeKeys } from '../packages/core/src/anchor/light-client/bls.js';
import {
  executionBlockOf,
  participantCount,
  type LightClientUpdate,
} from '../packages/core/src/anchor/light-client/containers.js';
import { forkDigest, signatureFork } from '../packages/core/src/anchor/light-client/signing.js';
import { syncCommitteeRoot } from '../packages/core/src/anchor/light-client/roots.js';
import type { LightClientState } from '../packages/core/src/anchor/light-client/state.js';
import { applyUpdate, verifyUpdate } from '../packages/core/src/anchor/light-client/update.js';
import type { Result } from '../packages/core/src/result.js';
import { MAINNET, SEPOLIA, forkSlot, type BeaconNetwork } from '../packages/core/src/anchor/networks.js';
import { beaconBlockHeaderRoot } from '../packages/core/src/anchor/ssz.js';
import { bytesToHex, hexToBytes } from '../packages/core/src/bytes/hex.js';
import {
  colibriBootstrap,
  colibriUpdates,
  heliosBootstrap,
  heliosUpdates,
  portalBootstrap,
  portalSingleUpdate,
  portalUpdates,
} from './helpers/light-client-vectors.js';
import {
  flipped,
  withBitFlipped,
  withCommitteeBranchChanged,
  withExecutionBranchChanged,
  withParticipants,
  withUpdateChanged,
} from './helpers/light-client-mutations.js';
import { FULL } from './helpers/runs.js';

const ANCHOR = new URL('../fixtures/anchor/', import.meta.url);
const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;

/** The finalized checkpoint root colibri recorded beside its bootstrap (the Beacon API's finality_checkpoints). */
const colibriCheckpoint = (name: string): Uint8Array =>
  hexToBytes(
    (
      JSON.parse(readFileSync(new URL(`colibri/checkpoint-${name}.json`, ANCHOR), 'utf8')) as {
        data: { finalized: { root: string } };
      }
    ).data.finalized.root,
  );

function value<T, E>(result: Result<T, E>): T {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

/** The refusal of `result`, which must be one. */
function refusal<T, E>(result: Result<T, E>): E {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

/** The finalized slot, execution block number and hash of a state. */
const finalizedOf = (state: LightClientState) => {
  const block = executionBlockOf(state.finalizedHeader);
  return {
    slot: state.finalizedHeader.beacon.slot,
    period: state.period,
    blockNumber: block.blockNumber,
    blockHash: hex(block.blockHash),
  };
};

// One chain, its states shared by the tests below: a committee's keys are decoded once each, inside the state.
const DENEB_BOOTSTRAP = colibriBootstrap('bootstrap-0xd9717ecc.ssz');
const [UPDATE_1421] = colibriUpdates('updates-1421.ssz');
const [UPDATE_1422] = colibriUpdates('updates-1422.ssz');
const S0 = value(verifyBootstrap(MAINNET, colibriCheckpoint('0xd9717ecc'), DENEB_BOOTSTRAP.value));
const S1 = value(applyUpdate(MAINNET, S0, UPDATE_1421!.value));

describe('colibri-stateless: mainnet across the Deneb → Electra fork', () => {
  it('the Deneb bootstrap of checkpoint 0xd9717ecc: slot 11,640,864, period 1421, its current committee at 54', () => {
    expect(hex(colibriCheckpoint('0xd9717ecc'))).toBe(
      '0xd9717ecc253684291f828688f311ba74d05af74c31654f6e14077669fca62f6a',
    );
    expect(DENEB_BOOTSTRAP.fork).toBe('deneb');
    expect(DENEB_BOOTSTRAP.value.currentSyncCommitteeBranch).toHaveLength(5);
    expect(finalizedOf(S0)).toEqual({
      slot: 11640864n,
      period: 1421,
      blockNumber: 22423006n,
      blockHash: '0xed77a114503aca263ab3fd8909124220f5746078a813dc0dd04c3ed8280b5b65',
    });
    expect(S0.nextSyncCommittee).toBeUndefined();
    // The keys wait for the first signature (S0's own were decoded when S1 was made, above).
    const fresh = value(verifyBootstrap(MAINNET, colibriCheckpoint('0xd9717ecc'), DENEB_BOOTSTRAP.value));
    expect(fresh.currentSyncCommittee.keys.decodedKeys).toBe(0);
  });

  it("update 1421 (Deneb, 511 signers) finalizes slot 11,640,928 and gives period 1422's committee", () => {
    expect(UPDATE_1421!.fork).toBe('deneb');
    expect(hex(UPDATE_1421!.forkDigest!)).toBe(hex(forkDigest(MAINNET, 'deneb')!));
    expect(participantCount(UPDATE_1421!.value.syncAggregate.bits)).toBe(511);
    expect(finalizedOf(S1)).toEqual({
      slot: 11640928n,
      period: 1421,
      blockNumber: 22423066n,
      blockHash: '0x3a86be4332b0dd26d0f7f442286d741938570a29d4244551d091a080c9ade455',
    });
    expect(S1.currentSyncCommittee).toBe(S0.currentSyncCommittee);
    // Only the committee's aggregate key and the one non-signer's were decoded, and the next update reuses them.
    expect(S1.currentSyncCommittee.keys.decodedKeys).toBe(2);
    expect(value(verifyUpdate(MAINNET, S1, UPDATE_1421!.value)).participants).toBe(511);
    expect(S1.currentSyncCommittee.keys.decodedKeys).toBe(2);
    expect(S1.nextSyncCommittee).toBeDefined();
  });

  it('update 1422, the first Electra period (508 signers, digest 0xad532ceb), is signed by the committee update 1421 gave', () => {
    // Electra's first slot is period 1422's first: the committee that signs it was proven in a Deneb state.
    expect(forkSlot(MAINNET, 'electra')).toBe(1422 * 8192);
    const update = UPDATE_1422!;
    expect(update.fork).toBe('electra');
    expect(hex(update.forkDigest!)).toBe('0xad532ceb');
    expect(hex(forkDigest(MAINNET, 'electra')!)).toBe('0xad532ceb');
    expect(participantCount(update.value.syncAggregate.bits)).toBe(508);
    expect(update.value.finality!.branch).toHaveLength(7);
    expect(update.value.nextSyncCommittee!.branch).toHaveLength(6);
    expect(signatureFork(MAINNET, Number(update.value.signatureSlot))).toBe('electra');
    const s2 = value(applyUpdate(MAINNET, S1, update.value));
    expect(finalizedOf(s2)).toEqual({
      slot: 11651008n,
      period: 1422,
      blockNumber: 22432991n,
      blockHash: '0xd4c1a04e15667a6a012075daee220cf04a052a3491632572bfb0e5d90736b4cb',
    });
    // The period turned: the next committee became the current one, its decoded keys (aggregate, 4 non-signers) with it.
    expect(s2.currentSyncCommittee).toBe(S1.nextSyncCommittee);
    expect(s2.currentSyncCommittee.keys.decodedKeys).toBe(5);
    expect(s2.nextSyncCommittee).toBeDefined();
  });

  it('the Electra bootstrap of checkpoint 0xb8758d4b (current committee at 86) and update 1422 reach the same header', () => {
    const bootstrap = colibriBootstrap('bootstrap-0xb8758d4b.ssz');
    expect(hex(colibriCheckpoint('0xb8758d4b'))).toBe(
      '0xb8758d4bd976e1b33e62937ed31a709dba0a855869641581bef3d2a48b527690',
    );
    expect(bootstrap.fork).toBe('electra');
    expect(bootstrap.value.currentSyncCommitteeBranch).toHaveLength(6);
    const state = value(verifyBootstrap(MAINNET, colibriCheckpoint('0xb8758d4b'), bootstrap.value));
    expect(finalizedOf(state)).toMatchObject({ slot: 11649056n, period: 1422, blockNumber: 22431112n });
    // The committee proven in the Electra state is the one update 1421 proved in the Deneb state.
    expect(hex(state.currentSyncCommittee.root)).toBe(hex(S1.nextSyncCommittee!.root));
    const across = value(applyUpdate(MAINNET, S1, UPDATE_1422!.value));
    const direct = value(applyUpdate(MAINNET, state, UPDATE_1422!.value));
    expect(hex(beaconBlockHeaderRoot(direct.finalizedHeader.beacon))).toBe(
      hex(beaconBlockHeaderRoot(across.finalizedHeader.beacon)),
    );
    expect(hex(direct.nextSyncCommittee!.root)).toBe(hex(across.nextSyncCommittee!.root));
  });
});

describe('colibri-stateless: consecutive updates from period 1347', () => {
  const bootstrap = colibriBootstrap('bootstrap-0x2e522016.ssz');
  const updates = colibriUpdates('updates-1347-46.ssz');
  // Each update costs a signature check (about a tenth of a second): a few on every push, all 46 under FULL=1.
  const count = FULL ? updates.length : 3;

  it(`the bootstrap at slot 11,034,656 and ${count} of its 46 updates, one period each`, () => {
    expect(updates).toHaveLength(46);
    let state = value(verifyBootstrap(MAINNET, colibriCheckpoint('0x2e522016'), bootstrap.value));
    expect(finalizedOf(state)).toMatchObject({ slot: 11034656n, period: 1347, blockNumber: 21820214n });
    for (const [i, update] of updates.slice(0, count).entries()) {
      expect(update.fork).toBe('deneb');
      state = value(applyUpdate(MAINNET, state, update.value));
      // The first update finalizes a header older than the bootstrap's and gives the next committee only.
      expect(state.period).toBe(1347 + i);
      expect(state.nextSyncCommittee).toBeDefined();
    }
    if (FULL)
      expect(finalizedOf(state)).toEqual({
        slot: 11403328n,
        period: 1392,
        blockNumber: 22186786n,
        blockHash: '0xdcc536449ee23f57f5a69b92b8f3504f9d5ff39a8384c70b2dc893d73672b266',
      });
    else expect(finalizedOf(state)).toMatchObject({ slot: 11051008n, period: 1349, blockNumber: 21836437n });
  });
});

describe('Portal network vectors', () => {
  it('Deneb: the bootstrap of its content key, updates 1250 and 1251, the finality update; the optimistic update refused', () => {
    const bootstrap = portalBootstrap('deneb');
    expect(bootstrap.fork).toBe('deneb');
    expect(hex(bootstrap.forkDigest!)).toBe('0x6a95a1a9');
    let state = value(verifyBootstrap(MAINNET, bootstrap.root, bootstrap.value));
    expect(finalizedOf(state)).toMatchObject({ slot: 10248000n, period: 1250 });
    const updates = portalUpdates('deneb');
    expect(updates.map((u) => u.value.signatureSlot)).toEqual([10240089n, 10248264n]);
    for (const update of updates) state = value(applyUpdate(MAINNET, state, update.value));
    expect(finalizedOf(state)).toMatchObject({ slot: 10248192n, period: 1251 });
    const finality = portalSingleUpdate('deneb', 'finality-update');
    expect(finality.value.nextSyncCommittee).toBeUndefined();
    state = value(applyUpdate(MAINNET, state, finality.value));
    expect(finalizedOf(state)).toMatchObject({ slot: 10248384n, period: 1251 });
    const optimistic = portalSingleUpdate('deneb', 'optimistic-update');
    expect(refusal(applyUpdate(MAINNET, state, optimistic.value)).kind).toBe('no-finality');
  });

  it("Capella: updates 817-819 carry update 816's committees to the bootstrap's, and the finality update to its header", () => {
    const bootstrap = portalBootstrap('capella');
    expect(hex(bootstrap.forkDigest!)).toBe(hex(forkDigest(MAINNET, 'capella')!));
    const trusted = value(verifyBootstrap(MAINNET, bootstrap.root, bootstrap.value));
    expect(finalizedOf(trusted)).toMatchObject({ slot: 6718368n, period: 820 });
    const [u816, ...later] = portalUpdates('capella');
    expect([u816!, ...later].map((u) => u.value.signatureSlot)).toEqual([6684739n, 6692952n, 6701173n, 6710699n]);
    // The updates come before the bootstrap: start from update 816's finalized header and its next committee,
    // taken as given, and check that the signed chain ends at the committee and header the checkpoint proves.
    const next = u816!.value.nextSyncCommittee!.committee;
    const given = { committee: next, root: syncCommitteeRoot(next), keys: new CommitteeKeys(next) };
    let state: LightClientState = {
      network: 'mainnet',
      finalizedHeader: u816!.value.finality!.header,
      period: 816,
      currentSyncCommittee: given,
      nextSyncCommittee: given,
    };
    for (const update of later) state = value(applyUpdate(MAINNET, state, update.value));
    expect(state.period).toBe(819);
    expect(hex(state.nextSyncCommittee!.root)).toBe(hex(trusted.currentSyncCommittee.root));
    const finality = portalSingleUpdate('capella', 'finality-update');
    state = value(applyUpdate(MAINNET, state, finality.value));
    expect(hex(beaconBlockHeaderRoot(state.finalizedHeader.beacon))).toBe(hex(bootstrap.root));
    // From the bootstrap itself the finality update is valid (506 signers) but finalizes the bootstrap's own header.
    expect(value(verifyUpdate(MAINNET, trusted, finality.value)).participants).toBe(506);
    expect(refusal(applyUpdate(MAINNET, trusted, finality.value)).kind).toBe('not-newer');
    expect(refusal(applyUpdate(MAINNET, trusted, portalSingleUpdate('capella', 'optimistic-update').value)).kind).toBe(
      'no-finality',
    );
  });
});

describe("helios' Beacon API JSON (Capella)", () => {
  it('the bootstrap of the checkpoint its sync test starts from, six updates, the finality update; the optimistic refused', () => {
    const checkpoint = hexToBytes('5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275');
    let state = value(verifyBootstrap(MAINNET, checkpoint, heliosBootstrap()));
    expect(finalizedOf(state)).toMatchObject({ slot: 7069376n, period: 862, blockNumber: 17883333n });
    for (const update of heliosUpdates('updates')) state = value(applyUpdate(MAINNET, state, update));
    expect(finalizedOf(state)).toMatchObject({ slot: 7104096n, period: 867 });
    state = value(applyUpdate(MAINNET, state, heliosUpdates('finality')[0]!));
    // The finalized block as helios' own beacon block of slot 7,109,344 has it (ethereum/testdata/blocks/).
    const block = (
      JSON.parse(readFileSync(new URL('helios/blocks/7109344.json', ANCHOR), 'utf8')) as {
        data: { message: { slot: string; body: { execution_payload: { block_number: string; block_hash: string } } } };
      }
    ).data.message;
    expect(finalizedOf(state)).toEqual({
      slot: BigInt(block.slot),
      period: 867,
      blockNumber: BigInt(block.body.execution_payload.block_number),
      blockHash: block.body.execution_payload.block_hash,
    });
    expect(refusal(applyUpdate(MAINNET, state, heliosUpdates('optimistic')[0]!)).kind).toBe('no-finality');
  });

  it('a skipped period is refused: period 864 after 862, with only 863 known', () => {
    const checkpoint = hexToBytes('5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275');
    const [u862, , u864] = heliosUpdates('updates');
    const state = value(applyUpdate(MAINNET, value(verifyBootstrap(MAINNET, checkpoint, heliosBootstrap())), u862!));
    expect(refusal(applyUpdate(MAINNET, state, u864!))).toMatchObject({
      kind: 'period',
      statePeriod: 862,
      updatePeriod: 864,
      nextCommitteeKnown: true,
    });
  });
});

describe('refusals, on the colibri chain', () => {
  const update = UPDATE_1421!.value;
  const bootstrap = DENEB_BOOTSTRAP.value;
  const checkpoint = colibriCheckpoint('0xd9717ecc');

  it('a bootstrap under another checkpoint', () => {
    expect(refusal(verifyBootstrap(MAINNET, flipped(checkpoint, 31), bootstrap)).kind).toBe('checkpoint');
    expect(refusal(verifyBootstrap(MAINNET, colibriCheckpoint('0xb8758d4b'), bootstrap)).kind).toBe('checkpoint');
  });

  it("a bootstrap's committee branch or execution branch with one byte changed", () => {
    expect(refusal(verifyBootstrap(MAINNET, checkpoint, withCommitteeBranchChanged(bootstrap, 2, 7)))).toMatchObject({
      kind: 'branch',
      branch: 'current-sync-committee',
      header: 'bootstrap',
      gindex: 54,
    });
    const header = withExecutionBranchChanged(bootstrap.header, 3, 0);
    // The header is the checkpoint's still: only its execution branch changed.
    expect(refusal(verifyBootstrap(MAINNET, checkpoint, { ...bootstrap, header }))).toMatchObject({
      kind: 'branch',
      branch: 'execution',
      header: 'bootstrap',
      gindex: 25,
    });
    const committee = {
      ...bootstrap.currentSyncCommittee,
      aggregatePubkey: flipped(bootstrap.currentSyncCommittee.aggregatePubkey, 5),
    };
    expect(refusal(verifyBootstrap(MAINNET, checkpoint, { ...bootstrap, currentSyncCommittee: committee })).kind).toBe(
      'branch',
    );
  });

  it.each([
    ['finality-branch', { branch: 'finality', header: 'attested', gindex: 105 }],
    ['next-committee-branch', { branch: 'next-sync-committee', header: 'attested', gindex: 55 }],
    ['attested-execution-branch', { branch: 'execution', header: 'attested', gindex: 25 }],
    ['finalized-execution-branch', { branch: 'execution', header: 'finalized', gindex: 25 }],
  ] as const)('Deneb update 1421, its %s with one byte changed', (part, expected) => {
    expect(refusal(applyUpdate(MAINNET, S0, withUpdateChanged(update, part, 1, 17)))).toMatchObject({
      kind: 'branch',
      ...expected,
    });
  });

  it("Electra update 1422's finality and next-committee branches at 169 and 87", () => {
    const electra = UPDATE_1422!.value;
    expect(refusal(applyUpdate(MAINNET, S1, withUpdateChanged(electra, 'finality-branch', 6, 0)))).toMatchObject({
      kind: 'branch',
      branch: 'finality',
      gindex: 169,
    });
    expect(refusal(applyUpdate(MAINNET, S1, withUpdateChanged(electra, 'next-committee-branch', 0, 31)))).toMatchObject(
      {
        kind: 'branch',
        branch: 'next-sync-committee',
        gindex: 87,
      },
    );
    // The Electra branches one node short, as a verifier at Deneb's depth would have them: refused.
    const short: LightClientUpdate = {
      ...electra,
      finality: { ...electra.finality!, branch: electra.finality!.branch.slice(1) },
    };
    expect(refusal(applyUpdate(MAINNET, S1, short))).toMatchObject({ kind: 'branch', branch: 'finality' });
  });

  it('a Deneb branch normalized with a leading zero node (consensus-specs normalize_merkle_branch) still verifies', () => {
    const normalized: LightClientUpdate = {
      ...update,
      finality: { ...update.finality!, branch: [new Uint8Array(32), ...update.finality!.branch] },
    };
    expect(value(applyUpdate(MAINNET, S0, normalized)).finalizedHeader.beacon.slot).toBe(11640928n);
    const notZero = flipped(new Uint8Array(32), 0);
    const padded: LightClientUpdate = {
      ...update,
      finality: { ...update.finality!, branch: [notZero, ...update.finality!.branch] },
    };
    expect(refusal(applyUpdate(MAINNET, S0, padded)).kind).toBe('branch');
  });

  it('the signature with one byte changed, or one participation bit flipped', () => {
    expect(refusal(applyUpdate(MAINNET, S0, withUpdateChanged(update, 'signature', 0, 50)))).toMatchObject({
      kind: 'signature',
      fork: 'deneb',
      forkVersion: '0x04000000',
    });
    // Member 0 signed; member 511's bit is the one 511 signers left clear or not: both ways are refused.
    expect(refusal(applyUpdate(MAINNET, S0, withBitFlipped(update, 0))).kind).toBe('signature');
    const clear = [...Array(512).keys()].find((i) => ((update.syncAggregate.bits[i >> 3]! >> (i & 7)) & 1) === 0)!;
    expect(refusal(applyUpdate(MAINNET, S0, withBitFlipped(update, clear))).kind).toBe('signature');
  });

  it('participation below two thirds: 341 of 512 refused by count; 342 passes the count and fails the signature', () => {
    expect(refusal(applyUpdate(MAINNET, S0, withParticipants(update, 341)))).toEqual({
      kind: 'participation',
      participants: 341,
      required: 342,
      message: '341 of 512 members signed; finality needs 342',
    });
    expect(refusal(applyUpdate(MAINNET, S0, withParticipants(update, 342))).kind).toBe('signature');
    expect(refusal(applyUpdate(MAINNET, S0, withParticipants(update, 0))).kind).toBe('participation');
  });

  it('an update without finality (an optimistic update)', () => {
    const { finality: _finality, ...optimistic } = update;
    expect(refusal(applyUpdate(MAINNET, S0, optimistic))).toMatchObject({ kind: 'no-finality' });
    expect(refusal(verifyUpdate(MAINNET, S0, optimistic)).kind).toBe('no-finality');
  });

  it('a skipped period: update 1422 on the bootstrap state, which knows only period 1421', () => {
    expect(refusal(applyUpdate(MAINNET, S0, UPDATE_1422!.value))).toMatchObject({
      kind: 'period',
      statePeriod: 1421,
      updatePeriod: 1422,
      nextCommitteeKnown: false,
    });
  });

  it('slots out of order, and the same update twice', () => {
    const early = { ...update, signatureSlot: update.attestedHeader.beacon.slot };
    expect(refusal(applyUpdate(MAINNET, S0, early))).toMatchObject({
      kind: 'slot-order',
      signatureSlot: '11641017',
      attestedSlot: '11641017',
    });
    expect(refusal(applyUpdate(MAINNET, S1, update)).kind).toBe('not-newer');
    // Valid still, against the state it already moved: its next committee is the one the state holds.
    expect(value(verifyUpdate(MAINNET, S1, update)).participants).toBe(511);
  });

  it('a next committee other than the one the state holds for that period', () => {
    const next = update.nextSyncCommittee!;
    const other = {
      ...next,
      committee: { ...next.committee, aggregatePubkey: flipped(next.committee.aggregatePubkey, 0) },
    };
    expect(refusal(verifyUpdate(MAINNET, S1, { ...update, nextSyncCommittee: other })).kind).toBe('next-committee');
  });

  it('the wrong network: Sepolia refuses the mainnet data; mainnet with Sepolia identity fails the signature', () => {
    // On Sepolia slot 11,640,864 is Fulu: the committee would be at 86, and the 5-node branch does not reach it.
    expect(refusal(verifyBootstrap(SEPOLIA, checkpoint, bootstrap))).toMatchObject({
      kind: 'branch',
      branch: 'current-sync-committee',
      gindex: 86,
    });
    expect(refusal(applyUpdate(SEPOLIA, S0, update))).toMatchObject({
      kind: 'network',
      expected: 'mainnet',
      actual: 'sepolia',
    });
    const impostor: BeaconNetwork = {
      ...MAINNET,
      forkVersions: SEPOLIA.forkVersions,
      genesisValidatorsRoot: SEPOLIA.genesisValidatorsRoot,
    };
    expect(refusal(applyUpdate(impostor, S0, update))).toMatchObject({ kind: 'signature', forkVersion: '0x90000073' });
    const otherRoot: BeaconNetwork = { ...MAINNET, genesisValidatorsRoot: flipped(MAINNET.genesisValidatorsRoot, 0) };
    expect(refusal(applyUpdate(otherRoot, S0, update)).kind).toBe('signature');
  });

  it('a header before Capella, even under its own checkpoint: it carries no execution header', () => {
    const old = { ...bootstrap.header, beacon: { ...bootstrap.header.beacon, slot: 6_000_000n } };
    expect(
      refusal(verifyBootstrap(MAINNET, beaconBlockHeaderRoot(old.beacon), { ...bootstrap, header: old })),
    ).toMatchObject({
      kind: 'unsupported-fork',
      header: 'bootstrap',
      fork: 'bellatrix',
    });
  });
});
