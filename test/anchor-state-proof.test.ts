/**
 * A beacon state's `historical_summaries` under its state root (core/anchor/state-proof.ts), on the
 * Portal Network's `historical_summaries_with_proof` vectors (fixtures/anchor/portal/, sources in
 * fixtures/SOURCES.md): Deneb's at generalized index 59, Electra's at 91. Their states are
 * consensus-spec-tests' `ssz_random` BeaconStates, as the vectors' comments say.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Fork } from '../packages/core/src/anchor/networks.js';
import {
  beaconBlockHeaderRoot,
  historicalSummariesRoot,
  type HistoricalSummary,
} from '../packages/core/src/anchor/ssz.js';
import {
  checkpointStateRoot,
  HISTORICAL_SUMMARIES_GINDEX_CAPELLA,
  HISTORICAL_SUMMARIES_GINDEX_ELECTRA,
  historicalSummariesGindex,
  verifyHistoricalSummaries,
} from '../packages/core/src/anchor/state-proof.js';
import { bytesToHex, hexToBytes } from '../packages/core/src/bytes/hex.js';
import { runs } from './helpers/runs.js';

/** One vector: the YAML's own members, and the summaries and proof its SSZ content holds. */
interface Vector {
  fork: Fork;
  stateRoot: Uint8Array;
  summariesRoot: Uint8Array;
  proof: Uint8Array[];
  contentProof: Uint8Array[];
  summaries: HistoricalSummary[];
}

function vectorOf(fork: 'deneb' | 'electra'): Vector {
  const text = readFileSync(
    new URL(
      `../fixtures/anchor/portal/historical_summaries_with_proof/${fork}/historical_summaries_with_proof.yaml`,
      import.meta.url,
    ),
    'utf8',
  );
  const member = (name: string) => hexToBytes(new RegExp(`^${name}: "0x([0-9a-f]+)"`, 'm').exec(text)![1]!);
  const proof = [...text.split('historical_summaries_state_proof:')[1]!.matchAll(/"0x([0-9a-f]{64})"/g)].map((m) =>
    hexToBytes(m[1]!),
  );
  // content_value: the fork digest (4 bytes), then HistoricalSummariesWithProof { epoch: uint64, historical_summaries
  // (an offset), proof: Vector[Bytes32, N] } and the list's 64-byte entries.
  const content = member('content_value').subarray(4);
  const listAt = new DataView(content.buffer, content.byteOffset).getUint32(8, true);
  const contentProof = Array.from({ length: (listAt - 12) / 32 }, (_, i) => content.slice(12 + 32 * i, 44 + 32 * i));
  const summaries = Array.from({ length: (content.length - listAt) / 64 }, (_, i) => ({
    blockSummaryRoot: content.slice(listAt + 64 * i, listAt + 64 * i + 32),
    stateSummaryRoot: content.slice(listAt + 64 * i + 32, listAt + 64 * i + 64),
  }));
  return {
    fork,
    stateRoot: member('beacon_state_root'),
    summariesRoot: member('historical_summaries_root'),
    proof,
    contentProof,
    summaries,
  };
}

const VECTORS = [vectorOf('deneb'), vectorOf('electra')];

describe('historical_summaries under a state root', () => {
  it('the generalized index by fork: none before Capella, 59 to Deneb, 91 from Electra', () => {
    expect(historicalSummariesGindex('bellatrix')).toBeUndefined();
    expect(historicalSummariesGindex('capella')).toBe(HISTORICAL_SUMMARIES_GINDEX_CAPELLA);
    expect(historicalSummariesGindex('deneb')).toBe(59);
    expect(historicalSummariesGindex('electra')).toBe(HISTORICAL_SUMMARIES_GINDEX_ELECTRA);
    expect(historicalSummariesGindex('fulu')).toBe(91);
  });

  it.each(VECTORS)(
    '$fork: the summaries hash to the vector root, and the proof leads it to the state root',
    (vector) => {
      expect(vector.contentProof.map(bytesToHex)).toEqual(vector.proof.map(bytesToHex));
      expect(vector.proof).toHaveLength(vector.fork === 'electra' ? 6 : 5);
      expect(bytesToHex(historicalSummariesRoot(vector.summaries))).toBe(bytesToHex(vector.summariesRoot));
      const proven = verifyHistoricalSummaries(vector.stateRoot, vector.fork, vector.summaries, vector.proof);
      expect(proven.ok).toBe(true);
      if (!proven.ok) return;
      expect(proven.value).toHaveLength(vector.summaries.length);
      expect(proven.value.at(-1)).toEqual({
        list: 'historical_summaries',
        index: vector.summaries.length - 1,
        root: vector.summaries.at(-1)!.blockSummaryRoot,
      });
    },
  );

  it.each(VECTORS)("$fork: the other fork's index, and a state before Capella, are refused", (vector) => {
    const other: Fork = vector.fork === 'electra' ? 'deneb' : 'electra';
    expect(verifyHistoricalSummaries(vector.stateRoot, other, vector.summaries, vector.proof)).toMatchObject({
      ok: false,
      error: { reason: 'branch' },
    });
    expect(verifyHistoricalSummaries(vector.stateRoot, 'bellatrix', vector.summaries, vector.proof)).toMatchObject({
      ok: false,
      error: { reason: 'no-summaries' },
    });
  });

  it.each(VECTORS)(
    `$fork: any changed byte of the proof, a summary or the state root is refused (${runs(100)} runs)`,
    (vector) => {
      fc.assert(
        fc.property(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 2 }), (at, bit, what) => {
          const proof = vector.proof.map((node) => node.slice());
          const summaries = vector.summaries.map((s) => ({
            blockSummaryRoot: s.blockSummaryRoot.slice(),
            stateSummaryRoot: s.stateSummaryRoot.slice(),
          }));
          const stateRoot = vector.stateRoot.slice();
          const flip = (bytes: Uint8Array) => (bytes[at % 32]! ^= 1 << (bit % 8));
          if (what === 0) flip(proof[at % proof.length]!);
          else if (what === 1) {
            const summary = summaries[at % summaries.length]!;
            flip(bit % 2 === 0 ? summary.blockSummaryRoot : summary.stateSummaryRoot);
          } else flip(stateRoot);
          expect(verifyHistoricalSummaries(stateRoot, vector.fork, summaries, proof).ok).toBe(false);
        }),
        { numRuns: runs(100) },
      );
    },
  );

  it.each(VECTORS)('$fork: a summary left out or added is refused', (vector) => {
    expect(verifyHistoricalSummaries(vector.stateRoot, vector.fork, vector.summaries.slice(1), vector.proof).ok).toBe(
      false,
    );
    expect(
      verifyHistoricalSummaries(
        vector.stateRoot,
        vector.fork,
        [...vector.summaries, vector.summaries[0]!],
        vector.proof,
      ).ok,
    ).toBe(false);
  });
});

describe("a checkpoint's beacon block header", () => {
  // helios' mainnet test bootstrap (fixtures/anchor/helios/bootstrap.json) and the checkpoint its sync test starts
  // from (ethereum/tests/sync.rs): the header's hash_tree_root is that checkpoint.
  const CHECKPOINT = hexToBytes('5afc212a7924789b2bc86acad3ab3a6ffb1f6e97253ea50bee7f4f51422c9275');
  const beacon = (
    JSON.parse(readFileSync(new URL('../fixtures/anchor/helios/bootstrap.json', import.meta.url), 'utf8')) as {
      data: { header: { beacon: Record<string, string> } };
    }
  ).data.header.beacon;
  const header = {
    slot: BigInt(beacon.slot!),
    proposerIndex: BigInt(beacon.proposer_index!),
    parentRoot: hexToBytes(beacon.parent_root!),
    stateRoot: hexToBytes(beacon.state_root!),
    bodyRoot: hexToBytes(beacon.body_root!),
  };

  it('mainnet slot 7,069,376: the header hashes to the checkpoint, which then gives its state root', () => {
    expect(bytesToHex(beaconBlockHeaderRoot(header))).toBe(bytesToHex(CHECKPOINT));
    expect(checkpointStateRoot(CHECKPOINT, header)).toEqual({ ok: true, value: header.stateRoot });
  });

  it(`any changed field is refused (${runs(100)} runs)`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.nat(), (field, at) => {
        const changed = {
          ...header,
          parentRoot: header.parentRoot.slice(),
          stateRoot: header.stateRoot.slice(),
          bodyRoot: header.bodyRoot.slice(),
        };
        if (field === 0) changed.slot += BigInt(1 + (at % 1000));
        else if (field === 1) changed.proposerIndex ^= BigInt(1 << (at % 20));
        else [changed.parentRoot, changed.stateRoot, changed.bodyRoot][field - 2]![at % 32]! ^= 1 << (at % 8);
        expect(checkpointStateRoot(CHECKPOINT, changed).ok).toBe(false);
      }),
      { numRuns: runs(100) },
    );
  });

  it('a slot past 64 bits and a root of another length are refused', () => {
    expect(checkpointStateRoot(CHECKPOINT, { ...header, slot: 2n ** 64n })).toMatchObject({ ok: false });
    expect(checkpointStateRoot(CHECKPOINT, { ...header, bodyRoot: new Uint8Array(31) })).toMatchObject({ ok: false });
  });
});
