/**
 * No single changed byte gets light-client data past verification (core/anchor/light-client/): on the real
 * mainnet colibri chain (fixtures/anchor/colibri/), any one byte of any branch, of the signature or of the fork
 * version, or any one participation bit, is refused, and for the reason it should be. The cases that reach the
 * BLS check cost about 80 ms each, so the counts are kept modest (test/helpers/runs.ts).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyBootstrap } from '../packages/core/src/anchor/light-client/bootstrap.js';
import type { LightClientBootstrap } from '../packages/core/src/anchor/light-client/containers.js';
import { signatureFork } from '../packages/core/src/anchor/light-client/signing.js';
import { applyUpdate } from '../packages/core/src/anchor/light-client/update.js';
import { MAINNET, type BeaconNetwork } from '../packages/core/src/anchor/networks.js';
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
import { runs } from './helpers/runs.js';

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
