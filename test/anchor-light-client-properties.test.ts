/**
 * No single changed byte gets light-client data past verification (core/anchor/light-client/): on the real
 * mainnet colibri chain (fixtures/anchor/colibri/), any one byte of any branch, of the signature or of the fork
 * version, or any one participation bit, is refused, and for the reason it should be; and the participants' key sum
 * taken as the committee's aggregate key less the non-signers' keys (bls.ts) is the sum of the participants' keys,
 * computed here the plain way. The cases that reach the BLS check cost about 80 ms each, so the counts are kept
 * modest (test/helpers/runs.ts).
 */
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CommitteeKeys,
  fastAggregateVerify,
  type PublicKeyPoint,
} from '../packages/core/src/anchor/light-client/bls.js';
import { verifyBootstrap } from '../packages/core/src/anchor/light-client/bootstrap.js';
import type {
  LightClientBootstrap,
  LightClientUpdate,
  SyncCommittee,
} from '../packages/core/src/anchor/light-client/containers.js';
import { signatureFork, signingRoot, syncCommitteeDomain } from '../packages/core/src/anchor/light-client/signing.js';
import { applyUpdate } from '../packages/core/src/anchor/light-client/update.js';
import { MAINNET, type BeaconNetwork } from '../packages/core/src/anchor/networks.js';
import { beaconBlockHeaderRoot } from '../packages/core/src/anchor/ssz.js';
import { hexToBytes } from '../packages/core/src/bytes/hex.js';
import type { Result } from '../packages/core/src/result.js';
import { colibriBootstrap, colibriUpdates } from './helpers/light-client-vectors.js';
import {
  flipped,
  flippedBranch,
  withBitFlipped,
  withExecutionBranchChanged,
  withUpdateChanged,
  type UpdatePart,
} from './helpers/light-client-mutations.js';
import { FULL, runs } from './helpers/runs.js';

const checkpoint = hexToBytes(
  (
    JSON.parse(
      readFileSync(new URL('../fixtures/anchor/colibri/checkpoint-0xd9717ecc.json', import.meta.url), 'utf8'),
    ) as { data: { finalized: { root: string } } }
  ).data.finalized.root,
);
const bootstrap = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value;
const [update1421] = colibriUpdates('updates-1421.ssz');
const [update1422] = colibriUpdates('updates-1422.ssz');

function value<T, E>(result: Result<T, E>): T {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

const S0 = value(verifyBootstrap(MAINNET, checkpoint, bootstrap));
const S1 = value(applyUpdate(MAINNET, S0, update1421!.value));

const BRANCHES: readonly UpdatePart[] = [
  'finality-branch',
  'next-committee-branch',
  'attested-execution-branch',
  'finalized-execution-branch',
];

/** One change: a byte of a branch or of the signature, a participation bit, a byte of the signing fork's version. */
const change = fc.oneof(
  fc.record({
    part: fc.constantFrom(...BRANCHES),
    node: fc.nat(),
    at: fc.nat(31),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({
    part: fc.constant('signature' as const),
    node: fc.constant(0),
    at: fc.nat(95),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ part: fc.constant('bit' as const), index: fc.nat(511) }),
  fc.record({ part: fc.constant('fork-version' as const), at: fc.nat(3), mask: fc.integer({ min: 1, max: 255 }) }),
);

/** `network` with byte `at` of the version its signature at `signatureSlot` uses changed. */
function withVersionChanged(network: BeaconNetwork, signatureSlot: bigint, at: number, mask: number): BeaconNetwork {
  const fork = signatureFork(network, Number(signatureSlot));
  return {
    ...network,
    forkVersions: { ...network.forkVersions, [fork]: flipped(network.forkVersions[fork], at, mask) },
  };
}

describe('a single change to a real update is refused', () => {
  it.each([
    ['Deneb update 1421 on the bootstrap state', () => S0, update1421!.value, runs(60)],
    ['Electra update 1422 on the state after 1421', () => S1, update1422!.value, runs(30)],
  ] as const)('%s', (_name, state, update, numRuns) => {
    // The unchanged update is accepted: each refusal below is the change's.
    expect(applyUpdate(MAINNET, state(), update).ok).toBe(true);
    fc.assert(
      fc.property(change, (c) => {
        let network = MAINNET;
        let changed = update;
        if (c.part === 'bit') changed = withBitFlipped(update, c.index);
        else if (c.part === 'fork-version') network = withVersionChanged(MAINNET, update.signatureSlot, c.at, c.mask);
        else changed = withUpdateChanged(update, c.part, c.node, c.at, c.mask);
        const result = applyUpdate(network, state(), changed);
        expect(result.ok).toBe(false);
        if (!result.ok)
          expect(result.error.kind).toBe(BRANCHES.includes(c.part as UpdatePart) ? 'branch' : 'signature');
      }),
      { numRuns },
    );
  });
});

describe('a single change to a real bootstrap is refused', () => {
  it(`any byte of its header's beacon fields, its execution branch, its committee or its committee branch (${runs(200)} runs)`, () => {
    const beaconFields = ['parentRoot', 'stateRoot', 'bodyRoot'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom('beacon', 'execution-branch', 'key', 'aggregate', 'committee-branch'),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (part, which, at, mask) => {
          let changed: LightClientBootstrap;
          const { header, currentSyncCommittee: committee } = bootstrap;
          if (part === 'beacon') {
            const field = beaconFields[which % 3]!;
            changed = {
              ...bootstrap,
              header: { ...header, beacon: { ...header.beacon, [field]: flipped(header.beacon[field], at, mask) } },
            };
          } else if (part === 'execution-branch')
            changed = { ...bootstrap, header: withExecutionBranchChanged(header, which, at, mask) };
          else if (part === 'key') {
            const pubkeys = committee.pubkeys.map((key, i) => (i === which % 512 ? flipped(key, at, mask) : key));
            changed = { ...bootstrap, currentSyncCommittee: { ...committee, pubkeys } };
          } else if (part === 'aggregate')
            changed = {
              ...bootstrap,
              currentSyncCommittee: { ...committee, aggregatePubkey: flipped(committee.aggregatePubkey, at, mask) },
            };
          else
            changed = {
              ...bootstrap,
              currentSyncCommitteeBranch: flippedBranch(bootstrap.currentSyncCommitteeBranch, which, at, mask),
            };
          const result = verifyBootstrap(MAINNET, checkpoint, changed);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.error.kind).toBe(part === 'beacon' ? 'checkpoint' : 'branch');
        },
      ),
      { numRuns: runs(200) },
    );
  });
});

/** Whether member `i`'s bit is set in `bits` (SSZ bitvector order), read here apart from the library's reader. */
const bitSet = (bits: Uint8Array, i: number) => ((bits[i >> 3]! >> (i & 7)) & 1) === 1;

/** The bits of a 512-member committee with every member signing but `absent`. */
function bitsWithout(absent: readonly number[]): Uint8Array {
  const bits = new Uint8Array(64).fill(0xff);
  for (const i of absent) bits[i >> 3]! &= ~(1 << (i & 7));
  return bits;
}

/** The oracle: every key decoded, the participants' keys added one by one (what the library did before). */
function plainSum(points: readonly PublicKeyPoint[], bits: Uint8Array): PublicKeyPoint {
  return points.reduce((sum, point, i) => (bitSet(bits, i) ? sum.add(point) : sum), bls12_381.G1.Point.ZERO);
}

/** The root a real update's committee signed: its attested header in the domain of its signature slot. */
const signedRoot = (update: LightClientUpdate) =>
  signingRoot(
    beaconBlockHeaderRoot(update.attestedHeader.beacon),
    syncCommitteeDomain(MAINNET, Number(update.signatureSlot)),
  );

describe("the participants' key sum: the aggregate key less the non-signers' keys", () => {
  // A committee and the real update it signed. Decoding a committee's 512 keys for the oracle costs about a
  // second, so a push compares on period 1421's; FULL=1 adds period 1422's (the Electra update) and 1347's.
  const cases: [string, SyncCommittee, LightClientUpdate][] = [
    ['period 1421 (Deneb update 1421)', bootstrap.currentSyncCommittee, update1421!.value],
  ];
  if (FULL)
    cases.push(
      ['period 1422 (Electra update 1422)', update1421!.value.nextSyncCommittee!.committee, update1422!.value],
      [
        'period 1347 (Deneb)',
        colibriBootstrap('bootstrap-0x2e522016.ssz').value.currentSyncCommittee,
        colibriUpdates('updates-1347-46.ssz')[0]!.value,
      ],
    );

  it.each(cases)('%s: the real bits, then any 0 to 170 non-signers', (_name, committee, update) => {
    const points = committee.pubkeys.map((key) => bls12_381.G1.Point.fromBytes(key));
    // The oracle's own sums agree with the committee: all 512 keys make its aggregate key, and the real
    // participants' keys verify the real signature.
    expect(plainSum(points, bitsWithout([])).equals(bls12_381.G1.Point.fromBytes(committee.aggregatePubkey))).toBe(
      true,
    );
    const real = update.syncAggregate.bits;
    expect(fastAggregateVerify(plainSum(points, real), signedRoot(update), update.syncAggregate.signature)).toBe(true);
    // One object across the runs: the keys it decoded for one set of non-signers serve the next sets.
    const keys = new CommitteeKeys(committee);
    const same = (bits: Uint8Array) => {
      const sum = keys.participantsAggregate(bits);
      expect(sum.ok).toBe(true);
      if (sum.ok) expect(sum.value.equals(plainSum(points, bits))).toBe(true);
    };
    same(real);
    fc.assert(
      fc.property(
        // The count drawn first, evenly: sets of a hundred or more non-signers are as likely as small ones.
        fc.integer({ min: 0, max: 170 }).chain((n) => fc.uniqueArray(fc.nat(511), { minLength: n, maxLength: n })),
        (absent) => same(bitsWithout(absent)),
      ),
      { numRuns: runs(100) },
    );
    expect(keys.decodedKeys).toBeLessThanOrEqual(513);
  });

  it.each([
    ['Deneb update 1421 on the bootstrap state', () => S0, update1421!.value, runs(20)],
    ['Electra update 1422 on the state after 1421', () => S1, update1422!.value, runs(20)],
  ] as const)('%s: any one participation bit flipped is refused as the signature', (_name, state, update, numRuns) => {
    fc.assert(
      fc.property(fc.nat(511), (index) => {
        const result = applyUpdate(MAINNET, state(), withBitFlipped(update, index));
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.kind).toBe('signature');
      }),
      { numRuns },
    );
  });
});
