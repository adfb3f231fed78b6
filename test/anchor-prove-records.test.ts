/**
 * The records a prover builds (core/anchor/proof-file/build.ts) from what a beacon node and the Portal
 * Network give, on real mainnet data (fixtures/anchor/, sources in fixtures/SOURCES.md): the checkpoint
 * 0x5ab5b374… with its state's summaries, the Deneb block of slot 11,233,367 with the 8192 block roots of
 * its period, the checkpoint's own block, and blocks 1,000,001 to 1,000,050 with their epoch record. Each
 * file they make verifies and proves the hashes nodes serve; any input that does not hash to its root is
 * refused, naming what did not match.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkpointBlockRecord,
  checkpointRecord,
  formatAnchorHead,
  formatAnchorRecord,
  MAINNET,
  preMergeBlockRecord,
  readAccumulator,
  readEpochRecord,
  readSignedBeaconBlock,
  summariesBlockRecord,
  SszShapeError,
  verifyAnchorProof,
  type AnchorRecord,
  type HistoricalSummary,
  type Node,
  type TrustedEpochRoots,
} from '../packages/core/src/anchor/index.js';
import { beaconBlockBodyType } from '../packages/core/src/anchor/beacon-block.js';
import { bytes32Vector, vectorRoot } from '../packages/core/src/anchor/ssz.js';
import { containerParts, fieldIndex } from '../packages/core/src/anchor/ssz-schema.js';
import { bytesToHex, encodeHeader, hexToBytes, Problems, readRpcHeader } from '../packages/core/src/index.js';
import {
  accumulatorRoot,
  epochOf,
  epochRecordBranch,
  MERGE_BLOCK,
  verifyPreMergeHeader,
} from '../packages/core/src/anchor/accumulator.js';
import { defaultKeccak256 } from '../packages/core/src/keccak/keccak.js';
import { checkpointSummaries, MAINNET_CHECKPOINT } from './helpers/anchor-files.js';
import { contentValueOf, headerWithProof } from './helpers/portal-vectors.js';
import { loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';

const ANCHOR = new URL('../fixtures/anchor/', import.meta.url);
const read = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, ANCHOR)));
const hex = (bytes: Uint8Array): string => `0x${bytesToHex(bytes)}`;

const CHECKPOINT_BLOCK = readSignedBeaconBlock(MAINNET, read('colibri/checkpoint-11635710/block_0x5ab5b374.ssz'));
const DENEB_BLOCK = readSignedBeaconBlock(MAINNET, read('colibri/block-22017690/block_0xae5b4dfc.ssz'));
const ELECTRA_BLOCK = readSignedBeaconBlock(MAINNET, read('colibri/block-22432102/block_0xc742b5d7.ssz'));
const PERIOD_1371 = bytes32Vector(read('colibri/block-22017690/period_1371_block_roots.ssz'));
const { summaries: SUMMARIES, branch: SUMMARIES_BRANCH } = checkpointSummaries();
const EPOCH_122 = read('portal/accumulator/epoch-record-00122.ssz');

function accumulator(): TrustedEpochRoots {
  const read_ = readAccumulator(read('portal/accumulator/historical_hashes_accumulator.ssz'));
  if (!read_.ok) throw new Error(read_.error);
  return read_.value;
}

const value = <T>(result: { ok: true; value: T } | { ok: false; error: string }): T => {
  if (!result.ok) throw new Error(result.error);
  return result.value;
};

const fileOf = (records: readonly AnchorRecord[]): string =>
  [formatAnchorHead({ network: 'mainnet', checkpoint: MAINNET_CHECKPOINT }), ...records.map(formatAnchorRecord)].join(
    '\n',
  );

const headerRecord = () =>
  value(checkpointRecord(MAINNET, MAINNET_CHECKPOINT, CHECKPOINT_BLOCK.header, SUMMARIES, SUMMARIES_BRANCH));

/** A fixture block's header as its RLP (fixtures/blocks/, as a node served it). */
function fixtureHeader(number: number): { rlp: Uint8Array; hash: string } {
  const { header } = loadFixture(`mainnet-${number}`);
  const problems = new Problems();
  const read_ = readRpcHeader(header, 'header', problems);
  if (read_?.complete === undefined) throw new Error(`mainnet-${number}: not a complete header`);
  return { rlp: encodeHeader(read_.complete), hash: header['hash'] as string };
}

describe('the checkpoint record', () => {
  it('the checkpoint block header with its state’s 662 summaries and their branch', () => {
    const record = headerRecord();
    expect(record.header.slot).toBe(11635710n);
    expect(record.historicalSummaries?.branch).toHaveLength(5);
  });

  it('is refused for another checkpoint, or a summary the branch does not hold', () => {
    const other = hexToBytes('0x' + '33'.repeat(32));
    const refused = checkpointRecord(MAINNET, other, CHECKPOINT_BLOCK.header, SUMMARIES, SUMMARIES_BRANCH);
    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/does not hash to the checkpoint root/) });
    const changed: HistoricalSummary[] = SUMMARIES.map((entry, i) =>
      i === 613 ? { ...entry, stateSummaryRoot: new Uint8Array(32) } : entry,
    );
    expect(
      checkpointRecord(MAINNET, MAINNET_CHECKPOINT, CHECKPOINT_BLOCK.header, changed, SUMMARIES_BRANCH),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the checkpoint's state \(slot 11635710\): the historical_summaries do not reach/),
    });
  });
});

describe('a block from Capella on, through its period’s block roots', () => {
  it('block 22,017,690 (slot 11,233,367): a file that verifies and proves the hash block 22,017,691 names as parent', () => {
    const record = value(summariesBlockRecord(MAINNET, DENEB_BLOCK, PERIOD_1371, SUMMARIES));
    expect(record.proof).toMatchObject({ era: 'historical-summaries', slot: 11233367, summary: { index: 613 } });
    const verdict = verifyAnchorProof(fileOf([headerRecord(), record]), MAINNET_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.blocks.map((block) => [Number(block.number), hex(block.hash), block.via, block.slot])).toEqual(
      [
        [
          22017690,
          '0x32e6892ef9fb67f8a3be3ff95795a458e71d42b50af7015b975f3b032581b686',
          'historical-summaries',
          11233367,
        ],
      ],
    );
  });

  it('any changed root of the period is refused: the roots no longer hash to the summary', () => {
    fc.assert(
      fc.property(fc.nat(8191), fc.nat(31), fc.integer({ min: 1, max: 255 }), (slot, byte, flip) => {
        const roots = PERIOD_1371.map((root, i) => {
          if (i !== slot) return root;
          const changed = Uint8Array.from(root);
          changed[byte]! ^= flip;
          return changed;
        });
        expect(summariesBlockRecord(MAINNET, DENEB_BLOCK, roots, SUMMARIES)).toEqual({
          ok: false,
          error: `the block roots of period 1371 do not hash to historical_summaries[613].block_summary_root ${hex(SUMMARIES[613]!.blockSummaryRoot)}`,
        });
      }),
      { numRuns: runs(50) },
    );
  });

  it('a block the roots do not hold at its slot is refused, even under roots that hash to their summary', () => {
    const roots: Node[] = PERIOD_1371.map((root, i) => (i === 11233367 % 8192 ? new Uint8Array(32) : root));
    const summaries = SUMMARIES.map((entry, i) =>
      i === 613 ? { ...entry, blockSummaryRoot: vectorRoot(roots) } : entry,
    );
    expect(summariesBlockRecord(MAINNET, DENEB_BLOCK, roots, summaries)).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^the beacon block of slot 11233367 is 0xae5b4dfc.*, but the period's block_roots hold 0x0{64} there$/,
      ),
    });
  });

  it('a block of a period the checkpoint’s state has not summarized is refused: the Electra block of slot 11,650,091', () => {
    expect(summariesBlockRecord(MAINNET, ELECTRA_BLOCK, PERIOD_1371, SUMMARIES)).toEqual({
      ok: false,
      error:
        "slot 11650091 is in period 1422 (historical_summaries entry 664), which the checkpoint's state has not summarized yet (662 entries): use a checkpoint from a later period",
    });
  });

  it('a header the payload does not hash to is refused before any record is made', () => {
    const body = Uint8Array.from(DENEB_BLOCK.body);
    const bodyType = beaconBlockBodyType('deneb');
    const payload = containerParts(bodyType, body)[fieldIndex(bodyType, 'execution_payload')]!;
    // The payload's last byte: inside its last withdrawal's amount, which the withdrawals root commits to.
    payload[payload.length - 1]! ^= 1;
    expect(summariesBlockRecord(MAINNET, { ...DENEB_BLOCK, body }, PERIOD_1371, SUMMARIES)).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^the header rebuilt from the execution payload of slot 11233367 \(deneb, block 22017690\)/,
      ),
    });
  });
});

describe('the checkpoint’s own block', () => {
  it('block 22,417,908 by its execution branch alone, after the header record', () => {
    const record = value(checkpointBlockRecord(MAINNET_CHECKPOINT, CHECKPOINT_BLOCK));
    const verdict = verifyAnchorProof(fileOf([headerRecord(), record]), MAINNET_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.blocks.map((block) => [Number(block.number), block.via, block.slot])).toEqual([
      [22417908, 'beacon-block', 11635710],
    ]);
  });

  it('another block is refused as not the checkpoint', () => {
    expect(checkpointBlockRecord(MAINNET_CHECKPOINT, DENEB_BLOCK)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the beacon block of slot 11233367 is 0xae5b4dfc[0-9a-f]{56}, not the checkpoint$/),
    });
  });
});

describe('blocks before the merge, through their epoch record', () => {
  it('the last epoch, 1896, which the merge ended after 5,362 blocks: its record is read, and proves its last block as the Portal proof of block 15,537,393 does (was: refused, "an epoch record is 8192 header records": a user check)', () => {
    const last = MERGE_BLOCK - 1;
    const { header, proof } = headerWithProof(
      contentValueOf(new URL('portal/headers_with_proof/15537393.yaml', ANCHOR).pathname),
    );
    const portal = Array.from({ length: 15 }, (_, i) => proof.subarray(i * 32, i * 32 + 32));
    // The real record is not in the fixtures: one of the same count, block 15,537,393's entry the real one (its hash,
    // and its total difficulty, the Portal proof's first node), the others made up.
    const ssz = new Uint8Array(5362 * 64);
    for (let i = 0; i < ssz.length; i++) ssz[i] = (i * 131 + 7) & 0xff;
    ssz.set(defaultKeccak256(header), 5361 * 64);
    ssz.set(portal[0]!, 5361 * 64 + 32);
    const record = readEpochRecord(ssz);
    expect(record.blockHashes).toHaveLength(5362);
    expect(epochOf(last)).toBe(1896);
    const branch = epochRecordBranch(record, last);
    // The length its proofs mix in, 5,362, as the Portal proof's last node.
    expect(hex(branch[14]!)).toBe(hex(portal[14]!));
    expect(hex(branch[0]!)).toBe(hex(portal[0]!));
    // The shipped accumulator with epoch 1896's root this record's (its SSZ: two offsets, then the epochs' roots), held
    // to the root that makes: the record the prover builds verifies under it.
    const shipped = read('portal/accumulator/historical_hashes_accumulator.ssz');
    const changed = Uint8Array.from(shipped);
    changed.set(record.root, 8 + 1896 * 32);
    const epochs = [...accumulator().epochs];
    epochs[1896] = record.root;
    const trusted = value(readAccumulator(changed, accumulatorRoot(epochs)));
    const built = value(preMergeBlockRecord(header, record, trusted));
    expect(built).toMatchObject({ kind: 'block', proof: { era: 'pre-merge' } });
    expect(verifyPreMergeHeader({ header }, branch, trusted)).toEqual({
      ok: true,
      value: { blockHash: defaultKeccak256(header), blockNumber: last },
    });
  });

  it('epoch record 122 hashes to the accumulator’s root of epoch 122 (the accumulator checked against EIP-7643)', () => {
    expect(readEpochRecord(EPOCH_122).root).toEqual(accumulator().epochs[122]);
  });

  it('blocks 1,000,001 to 1,000,050, headers as nodes serve them: a file that proves each fixture’s hash', () => {
    const record = readEpochRecord(EPOCH_122);
    const trusted = accumulator();
    const numbers = Array.from({ length: 50 }, (_, i) => 1000001 + i).filter((n) => n <= 1000030 || n >= 1000040);
    const records = numbers.map((n) => value(preMergeBlockRecord(fixtureHeader(n).rlp, record, trusted)));
    const verdict = verifyAnchorProof(fileOf(records), MAINNET_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.blocks.map((block) => [Number(block.number), hex(block.hash), block.via])).toEqual(
      numbers.map((n) => [n, fixtureHeader(n).hash, 'pre-merge']),
    );
  });

  it('refuses a header the record does not hold, another epoch’s record, a block after the merge', () => {
    const record = readEpochRecord(EPOCH_122);
    const header = Uint8Array.from(fixtureHeader(1000010).rlp);
    header[header.length - 1]! ^= 1; // the nonce's last byte: still a header, another hash
    expect(preMergeBlockRecord(header, record, accumulator())).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^the header of block 1000010 hashes to 0x[0-9a-f]{64}, but epoch record 122 holds 0x[0-9a-f]{64}$/,
      ),
    });
    const changed = Uint8Array.from(EPOCH_122);
    changed[64 * 10 + 40]! ^= 1; // a total difficulty
    expect(preMergeBlockRecord(fixtureHeader(1000010).rlp, readEpochRecord(changed), accumulator())).toEqual({
      ok: false,
      error: "the epoch record is not epoch 122's: its root is not the accumulator's",
    });
    // 8191 records are an epoch record (the last epoch's is short), but not epoch 122's: its count is in its root.
    expect(
      preMergeBlockRecord(fixtureHeader(1000010).rlp, readEpochRecord(EPOCH_122.subarray(64)), accumulator()),
    ).toEqual({
      ok: false,
      error: "the epoch record is not epoch 122's: its root is not the accumulator's",
    });
    for (const bytes of [EPOCH_122.subarray(1), new Uint8Array(0), new Uint8Array(EPOCH_122.length + 64)])
      expect(() => readEpochRecord(bytes), `${bytes.length} bytes`).toThrow(SszShapeError);
    expect(preMergeBlockRecord(fixtureHeader(22431084).rlp, record, accumulator())).toEqual({
      ok: false,
      error: 'block 22431084 is at or after the merge (15537394): no epoch record holds it',
    });
  });
});
