/**
 * Anchor proof files built from the real mainnet vectors in fixtures/anchor/ (sources in
 * fixtures/SOURCES.md), so tests hold the committed files to what their sources say:
 * - the checkpoint is beacon block 0x5ab5b374… at slot 11,635,710 (Deneb), whose signed block a
 *   Beacon API served (colibri-stateless test data); its state's `historical_summaries` with the
 *   5-node branch come from Lodestar's `/eth/v1/lodestar/historical_summaries` for that state;
 * - the blocks are the Portal Network's headers with proofs: one before the merge (its epoch
 *   record's root branched out of the EIP-7643 accumulator), the rest from Capella on.
 */
import { readFileSync } from 'node:fs';
import { epochOf, epochRootBranch, readAccumulator } from '../../packages/core/src/anchor/accumulator.js';
import { readSignedBeaconBlock } from '../../packages/core/src/anchor/beacon-block.js';
import { decodePostMergeProof, historicalEntryOf } from '../../packages/core/src/anchor/beacon-block-proof.js';
import { parentOf, type Node } from '../../packages/core/src/anchor/merkle-branch.js';
import { MAINNET } from '../../packages/core/src/anchor/networks.js';
import type { AnchorRecord, BlockRecord } from '../../packages/core/src/anchor/proof-file/records.js';
import { formatAnchorHead, formatAnchorRecord } from '../../packages/core/src/anchor/proof-file/write.js';
import { checkpointBlockRecord } from '../../packages/core/src/anchor/proof-file/build.js';
import {
  beaconBlockHeaderRoot,
  historicalSummariesRoot,
  type HistoricalSummary,
} from '../../packages/core/src/anchor/ssz.js';
import { listEntryBranch } from '../../packages/core/src/anchor/ssz-schema.js';
import { hexToBytes } from '../../packages/core/src/bytes/hex.js';
import { headerNumber } from '../../packages/core/src/header/header-decoding.js';
import { colibriBootstrap, colibriUpdates } from './light-client-vectors.js';
import { contentValueOf, headerWithProof } from './portal-vectors.js';

const ANCHOR = new URL('../../fixtures/anchor/', import.meta.url);
const CHECKPOINT_DIR = new URL('colibri/checkpoint-11635710/', ANCHOR);
const read = (url: URL): Uint8Array => new Uint8Array(readFileSync(url));

/** The checkpoint: the root of the beacon block at slot 11,635,710. */
export const MAINNET_CHECKPOINT = hexToBytes('0x5ab5b37414ebe99dc2c1e1e325bca79b8f659a4f0af21afdea4b38e646508e82');

/** Blocks whose Portal proofs the file carries: one before the merge, the rest Capella on. */
export const PRE_MERGE_BLOCKS = [14764013];
export const SUMMARIES_BLOCKS = [17034870, 17042287, 17062257, 19426586, 19426587, 22162263];

/** The checkpoint state's `historical_summaries` and their branch to its state root, as Lodestar served them. */
export function checkpointSummaries(): { summaries: HistoricalSummary[]; branch: Node[] } {
  const json = JSON.parse(
    readFileSync(new URL('historical_summaries_at_state_0x8cac7a92.json', CHECKPOINT_DIR), 'utf8'),
  ) as {
    data: { historical_summaries: { block_summary_root: string; state_summary_root: string }[]; proof: string[] };
  };
  return {
    summaries: json.data.historical_summaries.map((entry) => ({
      blockSummaryRoot: hexToBytes(entry.block_summary_root),
      stateSummaryRoot: hexToBytes(entry.state_summary_root),
    })),
    branch: json.data.proof.map((node) => hexToBytes(node)),
  };
}

function portalVector(number: number): { header: Uint8Array; proof: Uint8Array } {
  return headerWithProof(contentValueOf(new URL(`portal/headers_with_proof/${number}.yaml`, ANCHOR).pathname));
}

/** A pre-merge block's record: the Portal proof to its epoch record, and that record's root to the accumulator. */
export function preMergeRecord(number: number): BlockRecord {
  const { header, proof } = portalVector(number);
  const accumulator = readAccumulator(read(new URL('portal/accumulator/historical_hashes_accumulator.ssz', ANCHOR)));
  if (!accumulator.ok) throw new Error(accumulator.error);
  const epoch = epochOf(Number(headerNumber(header)));
  return {
    kind: 'block',
    header,
    proof: {
      era: 'pre-merge',
      branch: Array.from({ length: 15 }, (_, i) => proof.subarray(32 * i, 32 * i + 32)),
      epochRoot: accumulator.value.epochs[epoch]!,
      epochBranch: epochRootBranch(accumulator.value, epoch),
    },
  };
}

/** A Capella-on block's record: the Portal proof, and its `historical_summaries` entry branched out of the list. */
export function summariesRecord(number: number, summaries: readonly HistoricalSummary[]): BlockRecord {
  const { header, proof } = portalVector(number);
  const decoded = decodePostMergeProof(MAINNET, proof);
  if (!decoded.ok) throw new Error(decoded.error);
  const { slot, beaconBlockRoot, beaconBlockProof, executionBlockProof } = decoded.value;
  const { index } = historicalEntryOf(MAINNET, slot);
  const leaves = summaries.map((entry) => parentOf(entry.blockSummaryRoot, entry.stateSummaryRoot));
  return {
    kind: 'block',
    header,
    proof: {
      era: 'historical-summaries',
      slot,
      beaconBlockRoot,
      executionBranch: executionBlockProof,
      blockRootsBranch: beaconBlockProof,
      summary: { index, ...summaries[index]!, branch: listEntryBranch(leaves, index, 24) },
    },
  };
}

/** The records of the mainnet file after its head. */
export function mainnetRecords(): AnchorRecord[] {
  const { header } = readSignedBeaconBlock(MAINNET, read(new URL('block_0x5ab5b374.ssz', CHECKPOINT_DIR)));
  const { summaries, branch } = checkpointSummaries();
  return [
    { kind: 'beacon-header', header, historicalSummaries: { root: historicalSummariesRoot(summaries), branch } },
    ...PRE_MERGE_BLOCKS.map(preMergeRecord),
    ...SUMMARIES_BLOCKS.map((number) => summariesRecord(number, summaries)),
  ];
}

/** The whole mainnet anchor proof file, as `fixtures/anchor/mainnet-checkpoint-11635710.jsonl` holds it. */
export function mainnetAnchorFile(records: readonly AnchorRecord[] = mainnetRecords()): string {
  const lines = [
    formatAnchorHead({ network: 'mainnet', checkpoint: MAINNET_CHECKPOINT }),
    ...records.map(formatAnchorRecord),
  ];
  return lines.join('\n') + '\n';
}

/** The light-client checkpoint: the finalized block 0xd9717ecc… at slot 11,640,864 (Deneb, period 1421). */
export const ELECTRA_CHECKPOINT = hexToBytes('0xd9717ecc253684291f828688f311ba74d05af74c31654f6e14077669fca62f6a');

/**
 * Light-client steps across the Electra fork, as the Beacon API served them (colibri-stateless test data):
 * the bootstrap of 0xd9717ecc…, the update of period 1421 (Deneb) and that of period 1422 (Electra).
 */
export function electraRecords(): AnchorRecord[] {
  return [
    { kind: 'bootstrap', fork: 'deneb', ssz: colibriBootstrap('bootstrap-0xd9717ecc.ssz').ssz },
    ...['updates-1421.ssz', 'updates-1422.ssz'].flatMap((name) =>
      colibriUpdates(name).map((update): AnchorRecord => ({ kind: 'update', fork: update.fork, ssz: update.ssz })),
    ),
  ];
}

/** The light-client anchor file over the Electra fork, as `fixtures/anchor/mainnet-light-client-1421-1422.jsonl` holds it. */
export function electraAnchorFile(records: readonly AnchorRecord[] = electraRecords()): string {
  const lines = [
    formatAnchorHead({ network: 'mainnet', checkpoint: ELECTRA_CHECKPOINT }),
    ...records.map(formatAnchorRecord),
  ];
  return lines.join('\n') + '\n';
}

/** An Electra checkpoint: the root of beacon block 0x79565f02… at slot 11,650,092. */
export const ELECTRA_BLOCK_CHECKPOINT = hexToBytes(
  '0x79565f02d76684cbe8e705b8a355bf89f8602c639e6b8b634f7a6537ec5028c1',
);

/**
 * From that checkpoint back one header to its parent 0xc742b5d7… (slot 11,650,091), whose payload is execution
 * block 22,432,102: its header rebuilt from the payload, and its hash's branch to the parent's root.
 */
export function electraWalkRecords(): AnchorRecord[] {
  const dir = new URL('colibri/block-22432102/', ANCHOR);
  const child = readSignedBeaconBlock(MAINNET, read(new URL('block_0x79565f02.ssz', dir)));
  const parent = readSignedBeaconBlock(MAINNET, read(new URL('block_0xc742b5d7.ssz', dir)));
  const block = checkpointBlockRecord(beaconBlockHeaderRoot(parent.header), parent);
  if (!block.ok) throw new Error(block.error);
  return [
    { kind: 'beacon-header', header: child.header },
    { kind: 'beacon-header', header: parent.header },
    block.value,
  ];
}

/** The walk-back file, as `fixtures/anchor/mainnet-electra-22432102.jsonl` holds it. */
export function electraWalkFile(records: readonly AnchorRecord[] = electraWalkRecords()): string {
  const lines = [
    formatAnchorHead({ network: 'mainnet', checkpoint: ELECTRA_BLOCK_CHECKPOINT }),
    ...records.map(formatAnchorRecord),
  ];
  return lines.join('\n') + '\n';
}
