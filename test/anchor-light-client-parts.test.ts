/**
 * The parts of light-client verification (core/anchor/light-client/), each against a value established apart
 * from it: the networks' fork digests as their config repositories and real data publish them, the signing
 * domain and root recomputed here from the spec's formulas with @noble/hashes, the generalized indices from
 * the containers' field positions; and the decoders' refusals of malformed input, naming the field.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CommitteeKeys, fastAggregateVerify } from '../packages/core/src/anchor/light-client/bls.js';
import { verifyBootstrap } from '../packages/core/src/anchor/light-client/bootstrap.js';
import { decodeBootstrapJson, decodeUpdateJson } from '../packages/core/src/anchor/light-client/decode-json.js';
import type { SyncCommittee } from '../packages/core/src/anchor/light-client/containers.js';
import { decodeBootstrap, decodeUpdate, sszDataFork } from '../packages/core/src/anchor/light-client/decode-ssz.js';
import { splitBeaconApiList, splitPortalUpdates } from '../packages/core/src/anchor/light-client/framing.js';
import {
  branchLength,
  CURRENT_SYNC_COMMITTEE_GINDEX,
  CURRENT_SYNC_COMMITTEE_GINDEX_ELECTRA,
  EXECUTION_PAYLOAD_GINDEX,
  FINALIZED_ROOT_GINDEX,
  FINALIZED_ROOT_GINDEX_ELECTRA,
  isValidNormalizedBranch,
  NEXT_SYNC_COMMITTEE_GINDEX,
  NEXT_SYNC_COMMITTEE_GINDEX_ELECTRA,
  stateGindices,
} from '../packages/core/src/anchor/light-client/gindices.js';
import { executionPayloadHeaderRoot } from '../packages/core/src/anchor/light-client/roots.js';
import {
  computeDomain,
  DOMAIN_SYNC_COMMITTEE,
  forkDataRoot,
  forkDigest,
  signatureFork,
  signingRoot,
  syncCommitteeDomain,
} from '../packages/core/src/anchor/light-client/signing.js';
import { applyUpdate, MIN_FINALITY_PARTICIPANTS } from '../packages/core/src/anchor/light-client/update.js';
import { isValidBranch } from '../packages/core/src/anchor/merkle-branch.js';
import {
  BEACON_NETWORKS,
  beaconNetwork,
  forkAtSlot,
  forkSlot,
  FORKS,
  HOLESKY,
  HOODI,
  MAINNET,
  SEPOLIA,
} from '../packages/core/src/anchor/networks.js';
import { beaconBlockHeaderRoot } from '../packages/core/src/anchor/ssz.js';
import { bytesToHex } from '../packages/core/src/bytes/hex.js';
import type { Result } from '../packages/core/src/result.js';
import { colibriBootstrap, colibriUpdates, heliosJson } from './helpers/light-client-vectors.js';

const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : `0x${bytesToHex(bytes)}`);

function value<T, E>(result: Result<T, E>): T {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

function refusal<T, E>(result: Result<T, E>): E {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const ZERO_ROOT = new Uint8Array(32);

describe('networks', () => {
  it('mainnet, Sepolia, Holesky and Hoodi by name; every fork a 4-byte version, a 32-byte genesis validators root', () => {
    expect(beaconNetwork('mainnet')).toBe(MAINNET);
    expect(beaconNetwork('Sepolia')).toBe(SEPOLIA);
    expect(beaconNetwork('holesky')).toBe(HOLESKY);
    expect(beaconNetwork('hoodi')).toBe(HOODI);
    expect(beaconNetwork('goerli')).toBeUndefined();
    expect([...BEACON_NETWORKS.keys()]).toEqual(['mainnet', 'sepolia', 'holesky', 'hoodi']);
    for (const network of BEACON_NETWORKS.values()) {
      expect(network.genesisValidatorsRoot).toHaveLength(32);
      for (const fork of FORKS) expect(network.forkVersions[fork]).toHaveLength(4);
      // Fork epochs never go back.
      const epochs = FORKS.map((fork) => network.forkEpochs[fork]);
      expect([...epochs].sort((a, b) => a - b)).toEqual(epochs);
    }
    expect(hex(MAINNET.genesisValidatorsRoot)).toBe(
      '0x4b363db94e286120d76eb905340fdd4e54bfe9f06bf33ff6cf5ad27f511bfe95',
    );
  });

  it('the fork digests the networks publish (eth-clients README) and the real data carries', () => {
    // eth-clients/mainnet README: genesis_fork_digest, and pre_genesis_fork_digest (a zero genesis validators root).
    expect(hex(forkDigest(MAINNET, 'phase0'))).toBe('0xb5303f2a');
    expect(hex(forkDataRoot(MAINNET.forkVersions.phase0, ZERO_ROOT).slice(0, 4))).toBe('0xf5a5fd42');
    // eth-clients/sepolia README and metadata/README.md.
    expect(hex(forkDigest(SEPOLIA, 'phase0'))).toBe('0xa8fee8ee');
    expect(hex(forkDataRoot(SEPOLIA.forkVersions.phase0, ZERO_ROOT).slice(0, 4))).toBe('0xd3010778');
    // The Portal vectors and colibri's Beacon API answers.
    expect(hex(forkDigest(MAINNET, 'capella'))).toBe('0xbba4da96');
    expect(hex(forkDigest(MAINNET, 'deneb'))).toBe('0x6a95a1a9');
    expect(hex(forkDigest(MAINNET, 'electra'))).toBe('0xad532ceb');
    // From Fulu the digest mixes in the blob schedule, which a network here does not carry.
    expect(forkDigest(MAINNET, 'fulu')).toBeUndefined();
  });

  it('the existing schedule still answers: forkAtSlot at the boundaries', () => {
    expect(forkAtSlot(MAINNET, forkSlot(MAINNET, 'electra') - 1)).toBe('deneb');
    expect(forkAtSlot(MAINNET, forkSlot(MAINNET, 'electra'))).toBe('electra');
    expect(forkAtSlot(HOODI, 0)).toBe('deneb');
    expect(forkAtSlot(SEPOLIA, forkSlot(SEPOLIA, 'fulu'))).toBe('fulu');
  });
});

describe('what a sync committee signs', () => {
  const [update] = colibriUpdates('updates-1421.ssz');
  const { attestedHeader, signatureSlot } = update!.value;

  it('domain and signing root, recomputed from the spec formulas with SHA-256', () => {
    // compute_fork_data_root: hash_tree_root(ForkData) = sha256(version padded to 32 bytes || genesis_validators_root).
    const forkData = new Uint8Array(64);
    forkData.set(Uint8Array.of(0x04, 0, 0, 0));
    forkData.set(MAINNET.genesisValidatorsRoot, 32);
    // compute_domain: DOMAIN_SYNC_COMMITTEE (0x07000000) || fork_data_root[:28].
    const domain = new Uint8Array(32);
    domain.set(Uint8Array.of(0x07, 0, 0, 0));
    domain.set(sha256(forkData).subarray(0, 28), 4);
    // compute_signing_root: hash_tree_root(SigningData) = sha256(object_root || domain).
    const objectRoot = beaconBlockHeaderRoot(attestedHeader.beacon);
    const both = new Uint8Array(64);
    both.set(objectRoot);
    both.set(domain, 32);
    expect(hex(syncCommitteeDomain(MAINNET, Number(signatureSlot)))).toBe(hex(domain));
    expect(hex(computeDomain(DOMAIN_SYNC_COMMITTEE, MAINNET.forkVersions.deneb, MAINNET.genesisValidatorsRoot))).toBe(
      hex(domain),
    );
    expect(hex(signingRoot(objectRoot, domain))).toBe(hex(sha256(both)));
  });

  it("the fork version is signature_slot - 1's: at a fork's first slot, the fork before", () => {
    const electra = forkSlot(MAINNET, 'electra');
    expect(signatureFork(MAINNET, electra)).toBe('deneb');
    expect(signatureFork(MAINNET, electra + 1)).toBe('electra');
    expect(signatureFork(MAINNET, 0)).toBe('phase0');
    expect(signatureFork(MAINNET, 1)).toBe('phase0');
  });
});

describe('generalized indices', () => {
  // A container of n fields has its field i at generalized index nextPow2(n) + i; a field of a field multiplies.
  const gindex = (fields: number, index: number) => 2 ** Math.ceil(Math.log2(fields)) + index;

  it('from the containers: Altair-Deneb BeaconState (24-28 fields), Electra (37), Capella BeaconBlockBody (11)', () => {
    // finalized_checkpoint is field 20, current_sync_committee 22, next_sync_committee 23; a Checkpoint's root is its field 1 of 2.
    expect(gindex(28, 20) * 2 + 1).toBe(FINALIZED_ROOT_GINDEX);
    expect(gindex(37, 20) * 2 + 1).toBe(FINALIZED_ROOT_GINDEX_ELECTRA);
    expect([gindex(24, 22), gindex(28, 23)]).toEqual([CURRENT_SYNC_COMMITTEE_GINDEX, NEXT_SYNC_COMMITTEE_GINDEX]);
    expect([gindex(37, 22), gindex(37, 23)]).toEqual([
      CURRENT_SYNC_COMMITTEE_GINDEX_ELECTRA,
      NEXT_SYNC_COMMITTEE_GINDEX_ELECTRA,
    ]);
    // Fulu's state has 38 fields: still under 64 leaves.
    expect(gindex(38, 22)).toBe(86);
    // execution_payload is field 9 of the body, which has 11 (Capella) to 13 (Electra) fields.
    expect([gindex(11, 9), gindex(13, 9)]).toEqual([EXECUTION_PAYLOAD_GINDEX, EXECUTION_PAYLOAD_GINDEX]);
    expect(stateGindices('deneb')).toEqual({ finalizedRoot: 105, currentSyncCommittee: 54, nextSyncCommittee: 55 });
    expect(stateGindices('fulu')).toEqual({ finalizedRoot: 169, currentSyncCommittee: 86, nextSyncCommittee: 87 });
    expect([105, 169, 54, 86, 25].map(branchLength)).toEqual([6, 7, 5, 6, 4]);
  });

  it('a normalized branch: leading zero nodes only, never shorter', () => {
    const {
      header,
      currentSyncCommittee: _c,
      currentSyncCommitteeBranch: branch,
    } = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value;
    const leaf = executionPayloadHeaderRoot(header.execution, true);
    expect(isValidBranch(leaf, header.executionBranch, 25, header.beacon.bodyRoot)).toBe(true);
    expect(isValidNormalizedBranch(leaf, [ZERO_ROOT, ...header.executionBranch], 25, header.beacon.bodyRoot)).toBe(
      true,
    );
    expect(isValidNormalizedBranch(leaf, header.executionBranch.slice(1), 25, header.beacon.bodyRoot)).toBe(false);
    expect(branch).toHaveLength(5);
  });

  it("an execution payload header hashed with another fork's field count does not reach the body root", () => {
    const deneb = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value.header;
    expect(
      isValidBranch(
        executionPayloadHeaderRoot(deneb.execution, false),
        deneb.executionBranch,
        25,
        deneb.beacon.bodyRoot,
      ),
    ).toBe(false);
  });
});

describe('BLS', () => {
  const committee = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value.currentSyncCommittee;
  const update = colibriUpdates('updates-1421.ssz')[0]!.value;
  const signed = (i: number) => ((update.syncAggregate.bits[i >> 3]! >> (i & 7)) & 1) === 1;
  /** The one member of 512 who did not sign update 1421. */
  const absent = [...Array(512).keys()].find((i) => !signed(i))!;
  const infinity = new Uint8Array(48);
  infinity[0] = 0xc0;
  const offCurve = new Uint8Array(48).fill(0xaa);

  it("a non-signer's key that is the identity or off the curve is refused, by index, and decoded once", () => {
    for (const bad of [infinity, offCurve]) {
      const keys = new CommitteeKeys({
        ...committee,
        pubkeys: committee.pubkeys.map((key, i) => (i === absent ? bad : key)),
      });
      expect(keys.decodedKeys).toBe(0);
      expect(keys.participantsAggregate(update.syncAggregate.bits)).toEqual({ ok: false, error: absent });
      expect(keys.decodedKeys).toBe(2);
      expect(keys.participantsAggregate(update.syncAggregate.bits)).toEqual({ ok: false, error: absent });
      expect(keys.decodedKeys).toBe(2);
    }
    // A signer's key is not decoded (bls.ts says why): the same bad key at a signer's seat is not looked at.
    const atSigner = new CommitteeKeys({
      ...committee,
      pubkeys: committee.pubkeys.map((key, i) => (i === 0 ? offCurve : key)),
    });
    expect(signed(0)).toBe(true);
    expect(atSigner.participantsAggregate(update.syncAggregate.bits).ok).toBe(true);
  });

  it("a committee whose aggregate key is the identity or off the curve is refused as 'aggregate'", () => {
    for (const bad of [infinity, offCurve]) {
      const keys = new CommitteeKeys({ ...committee, aggregatePubkey: bad });
      expect(keys.participantsAggregate(update.syncAggregate.bits)).toEqual({ ok: false, error: 'aggregate' });
    }
  });

  it("a state whose committee has a bad non-signer's key, or a bad aggregate, refuses the update as committee-key", () => {
    const boot = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value;
    const checkpoint = beaconBlockHeaderRoot(boot.header.beacon);
    const state = value(verifyBootstrap(MAINNET, checkpoint, boot));
    const withKeys = (changed: SyncCommittee) => ({
      ...state,
      currentSyncCommittee: { ...state.currentSyncCommittee, keys: new CommitteeKeys(changed) },
    });
    const pubkeys = committee.pubkeys.map((key, i) => (i === absent ? offCurve : key));
    expect(refusal(applyUpdate(MAINNET, withKeys({ ...committee, pubkeys }), update))).toMatchObject({
      kind: 'committee-key',
      index: absent,
      message: `member ${absent} of the signing committee, who did not sign, has no valid BLS public key`,
    });
    expect(refusal(applyUpdate(MAINNET, withKeys({ ...committee, aggregatePubkey: offCurve }), update))).toEqual({
      kind: 'committee-key',
      index: 'aggregate',
      message: "the signing committee's aggregate_pubkey is not a valid BLS public key",
    });
    expect(
      refusal(applyUpdate(MAINNET, withKeys({ ...committee, pubkeys: committee.pubkeys.slice(1) }), update)),
    ).toMatchObject({ kind: 'committee-key', index: 511 });
  });

  it('participants whose keys sum to the identity, or the identity as the signature, never verify', () => {
    const signature = update.syncAggregate.signature;
    expect(fastAggregateVerify(bls12_381.G1.Point.ZERO, new Uint8Array(32), signature)).toBe(false);
    // The aggregate key set to the one non-signer's: the signers' sum, the aggregate less that key, is the identity.
    const keys = new CommitteeKeys({ ...committee, aggregatePubkey: committee.pubkeys[absent]! });
    const sum = value(keys.participantsAggregate(update.syncAggregate.bits));
    expect(sum.is0()).toBe(true);
    expect(fastAggregateVerify(sum, new Uint8Array(32), signature)).toBe(false);
    const infinitySignature = new Uint8Array(96);
    infinitySignature[0] = 0xc0;
    const two = bls12_381.G1.Point.fromBytes(committee.pubkeys[0]!).add(
      bls12_381.G1.Point.fromBytes(committee.pubkeys[1]!),
    );
    expect(fastAggregateVerify(two, new Uint8Array(32), infinitySignature)).toBe(false);
    expect(fastAggregateVerify(two, new Uint8Array(32), new Uint8Array(96))).toBe(false);
    expect(MIN_FINALITY_PARTICIPANTS).toBe(342);
  });
});

describe('decoding SSZ', () => {
  const { ssz } = colibriBootstrap('bootstrap-0xd9717ecc.ssz');
  const [update] = colibriUpdates('updates-1421.ssz');

  it("data read as another fork's layout is refused at its first offset", () => {
    expect(refusal(decodeBootstrap('electra', ssz))).toEqual({
      field: 'bootstrap',
      expected: 'its first offset at 24820, the end of its fixed part, not 24788',
    });
    expect(refusal(decodeUpdate('electra', update!.ssz)).field).toBe('update');
    expect(refusal(decodeBootstrap('capella', ssz)).field).toBe('bootstrap.header.execution');
  });

  it('truncated data, a bad offset, extra data past 32 bytes, each named', () => {
    expect(refusal(decodeBootstrap('deneb', ssz.subarray(0, 100)))).toEqual({
      field: 'bootstrap',
      expected: 'at least 24788 bytes, got 100',
    });
    const badOffset = ssz.slice();
    new DataView(badOffset.buffer).setUint32(0, 24789, true);
    expect(refusal(decodeBootstrap('deneb', badOffset)).field).toBe('bootstrap');
    // 33 bytes of extra data: the execution header is the last variable part, so trailing bytes lengthen it.
    const long = new Uint8Array(ssz.length + 40);
    long.set(ssz);
    expect(refusal(decodeBootstrap('deneb', long))).toMatchObject({ field: 'bootstrap.header.execution.extra_data' });
    expect(refusal(sszDataFork(MAINNET, ssz.subarray(0, 3))).field).toBe('data');
  });

  it('a zero finality branch with a finalized header, or a zero committee branch with a committee, is refused', () => {
    const bytes = update!.ssz.slice();
    // The LightClientUpdate's fixed part: attested offset, next committee (24624), its branch (5 nodes), finalized
    // offset, finality branch (6 nodes).
    const finalityAt = 4 + 24624 + 160 + 4;
    bytes.fill(0, finalityAt, finalityAt + 192);
    expect(refusal(decodeUpdate('deneb', bytes))).toEqual({
      field: 'update.finalized_header',
      expected: 'empty, as its finality branch is all zero hashes',
    });
    const noNext = update!.ssz.slice();
    noNext.fill(0, 4 + 24624, 4 + 24624 + 160);
    expect(refusal(decodeUpdate('deneb', noNext)).field).toBe('update.next_sync_committee');
  });
});

describe('headers built by hand', () => {
  it('a slot past 2^53, a proposer index past uint64, a short root: refused as a header, before any hashing', () => {
    const boot = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value;
    const checkpoint = beaconBlockHeaderRoot(boot.header.beacon);
    const withBeacon = (beacon: object) => ({
      ...boot,
      header: { ...boot.header, beacon: { ...boot.header.beacon, ...beacon } },
    });
    expect(refusal(verifyBootstrap(MAINNET, checkpoint, withBeacon({ slot: 1n << 60n })))).toMatchObject({
      kind: 'header',
      header: 'bootstrap',
    });
    expect(refusal(verifyBootstrap(MAINNET, checkpoint, withBeacon({ proposerIndex: 1n << 64n }))).kind).toBe('header');
    expect(refusal(verifyBootstrap(MAINNET, checkpoint, withBeacon({ bodyRoot: new Uint8Array(31) }))).kind).toBe(
      'header',
    );
    const state = value(verifyBootstrap(MAINNET, checkpoint, boot));
    const update = colibriUpdates('updates-1421.ssz')[0]!.value;
    const attested = { ...update.attestedHeader, beacon: { ...update.attestedHeader.beacon, slot: -1n } };
    expect(refusal(applyUpdate(MAINNET, state, { ...update, attestedHeader: attested }))).toMatchObject({
      kind: 'header',
      header: 'attested',
    });
  });
});

describe('Fulu', () => {
  it("reads Electra's layout: the same bytes decode alike, and the fork of a Fulu slot is fulu", () => {
    const { ssz } = colibriBootstrap('bootstrap-0xb8758d4b.ssz');
    expect(decodeBootstrap('fulu', ssz)).toEqual(decodeBootstrap('electra', ssz));
    const bytes = ssz.slice();
    const at = new DataView(bytes.buffer).getUint32(0, true);
    new DataView(bytes.buffer).setBigUint64(at, BigInt(forkSlot(MAINNET, 'fulu')), true);
    expect(sszDataFork(MAINNET, bytes)).toEqual({ ok: true, value: 'fulu' });
    new DataView(bytes.buffer).setBigUint64(at, BigInt(forkSlot(MAINNET, 'bellatrix')), true);
    expect(refusal(sszDataFork(MAINNET, bytes)).expected).toMatch(/not of bellatrix/);
  });
});

describe('decoding JSON', () => {
  const bootstrap = heliosJson('bootstrap') as { version: string; data: Record<string, any> };
  const [update] = heliosJson('updates') as { version: string; data: Record<string, any> }[];

  it('a version, a member, a length, a number that is not the Beacon API form: refused, by field', () => {
    expect(refusal(decodeBootstrapJson({ ...bootstrap, version: 'altair' }))).toEqual({
      field: 'version',
      expected: 'one of capella, deneb, electra, fulu',
    });
    // Read as Deneb, a Capella header lacks the blob fields.
    expect(refusal(decodeBootstrapJson({ ...bootstrap, version: 'deneb' }))).toMatchObject({
      field: 'data.header.execution.blob_gas_used',
    });
    const committee = bootstrap.data.current_sync_committee;
    const fewer = {
      ...bootstrap,
      data: { ...bootstrap.data, current_sync_committee: { ...committee, pubkeys: committee.pubkeys.slice(1) } },
    };
    expect(refusal(decodeBootstrapJson(fewer)).field).toBe('data.current_sync_committee.pubkeys');
    const slot = { ...update!, data: { ...update!.data, signature_slot: 7061720 } };
    expect(refusal(decodeUpdateJson(slot))).toEqual({ field: 'data.signature_slot', expected: 'a decimal string' });
    const branch = { ...update!, data: { ...update!.data, finality_branch: update!.data.finality_branch.slice(1) } };
    expect(refusal(decodeUpdateJson(branch))).toEqual({
      field: 'data.finality_branch',
      expected: 'an array of 6 nodes',
    });
    const short = {
      ...update!,
      data: { ...update!.data, sync_aggregate: { ...update!.data.sync_aggregate, sync_committee_signature: '0x00' } },
    };
    expect(refusal(decodeUpdateJson(short))).toEqual({
      field: 'data.sync_aggregate.sync_committee_signature',
      expected: '96 bytes, got 1',
    });
  });

  it('a finality update has no next committee; an optimistic update neither that nor finality', () => {
    const finality = value(decodeUpdateJson(heliosJson('finality')));
    expect(finality.nextSyncCommittee).toBeUndefined();
    expect(finality.finality?.header.beacon.slot).toBe(7109344n);
    const optimistic = value(decodeUpdateJson(heliosJson('optimistic')));
    expect(optimistic.finality).toBeUndefined();
  });
});

describe('framing', () => {
  it("the Beacon API's list: a length that overruns is refused; Portal's list: a first offset that counts no offsets", () => {
    const bytes = new Uint8Array(readFileSync(new URL('../fixtures/anchor/colibri/updates-1421.ssz', import.meta.url)));
    expect(value(splitBeaconApiList(bytes))).toHaveLength(1);
    expect(refusal(splitBeaconApiList(bytes.subarray(0, bytes.length - 1))).field).toBe('item 0');
    expect(refusal(splitBeaconApiList(bytes.subarray(0, 5))).expected).toBe('an 8-byte length before its data');
    expect(value(splitBeaconApiList(new Uint8Array(0)))).toEqual([]);
    expect(refusal(splitPortalUpdates(Uint8Array.of(3, 0, 0, 0))).field).toBe('updates');
  });
});
