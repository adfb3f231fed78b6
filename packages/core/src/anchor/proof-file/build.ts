/**
 * The records a prover writes, built from what a beacon node, an epoch record and an execution node give,
 * and checked as they are built: each input must hash to the root the record will be verified against, so
 * a source that serves a wrong block, wrong roots or a wrong header makes a refusal naming what did not
 * match, never a file that fails later. The network's data is fetched by the caller (the CLI's `anchor
 * prove`); nothing here does I/O.
 */
import { checkBytes } from '../../bytes/check-bytes.js';
import { bytesEqual, prefixedHex } from '../../bytes/hex.js';
import { headerNumberIfAny } from '../../header/header-decoding.js';
import { kindOf } from '../../json/show.js';
import { defaultKeccak256 } from '../../keccak/keccak.js';
import { err, ok, type Result } from '../../result.js';
import {
  EPOCH_SIZE,
  epochOf,
  epochRecordBranch,
  epochRootBranch,
  MERGE_BLOCK,
  type EpochRecord,
  type TrustedEpochRoots,
} from '../accumulator.js';
import { bodyInBlockBranch, executionHashInBody, type BeaconBlockParts } from '../beacon-block.js';
import { historicalEntryOf } from '../beacon-block-proof.js';
import { executionHeaderOf, type ExecutionHeader } from '../execution-header.js';
import { parentOf, type Node } from '../merkle-branch.js';
import { forkAtSlot, isAtLeast, type BeaconNetwork } from '../networks.js';
import {
  beaconBlockHeaderRoot,
  historicalSummariesRoot,
  SLOTS_PER_HISTORICAL_ROOT,
  vectorRoot,
  type BeaconBlockHeader,
  type HistoricalSummary,
} from '../ssz.js';
import { branchOf, listEntryBranch } from '../ssz-schema.js';
import { checkpointStateRoot, verifyHistoricalSummaries } from '../state-proof.js';
import type { BeaconHeaderRecord, BlockRecord } from './records.js';

/** `historical_summaries` has a limit of 2^24 entries. */
const SUMMARIES_DEPTH = 24;

/**
 * The checkpoint's `beacon-header` record, carrying its state's `historical_summaries`, when the header hashes
 * to the checkpoint and the summaries with their branch (a Lodestar `historical_summaries` answer) reach its
 * state root.
 */
export function checkpointRecord(
  network: BeaconNetwork,
  checkpoint: Node,
  header: BeaconBlockHeader,
  summaries: readonly HistoricalSummary[],
  branch: readonly Node[],
): Result<BeaconHeaderRecord, string> {
  const stateRoot = checkpointStateRoot(checkpoint, header);
  if (!stateRoot.ok) return stateRoot;
  const fork = forkAtSlot(network, Number(header.slot));
  const proven = verifyHistoricalSummaries(stateRoot.value, fork, summaries, branch);
  if (!proven.ok) return err(`the checkpoint's state (slot ${header.slot}): ${proven.error.message}`);
  return ok({
    kind: 'beacon-header',
    header,
    historicalSummaries: { root: historicalSummariesRoot(summaries), branch: [...branch] },
  });
}

/** A beacon block's execution header and the branch of its hash to the beacon block root. */
interface ExecutionInBlock {
  readonly header: ExecutionHeader;
  readonly beaconBlockRoot: Node;
  readonly executionBranch: Node[];
}

/** The execution header rebuilt from `block`'s payload, and its hash's branch up to the block's root. */
function executionInBlock(block: BeaconBlockParts): Result<ExecutionInBlock, string> {
  if (!isAtLeast(block.fork, 'bellatrix'))
    return err(`slot ${block.header.slot} is ${block.fork}: a beacon block before Bellatrix has no execution payload`);
  const header = executionHeaderOf(block);
  if (!header.ok) return header;
  const inBody = executionHashInBody(block.fork, block.body);
  return ok({
    header: header.value,
    beaconBlockRoot: beaconBlockHeaderRoot(block.header),
    executionBranch: [...inBody.branch, ...bodyInBlockBranch(block.header)],
  });
}

/**
 * The `block` record of the checkpoint's own beacon block (`beacon-block`): its execution hash's branch to
 * the checkpoint root. `block` must be the checkpoint's block; the verifier holds it to the header the file's
 * `beacon-header` record gives.
 */
export function checkpointBlockRecord(checkpoint: Node, block: BeaconBlockParts): Result<BlockRecord, string> {
  const found = executionInBlock(block);
  if (!found.ok) return found;
  if (!bytesEqual(found.value.beaconBlockRoot, checkpoint))
    return err(
      `the beacon block of slot ${block.header.slot} is ${prefixedHex(found.value.beaconBlockRoot)}, not the checkpoint`,
    );
  return ok({
    kind: 'block',
    header: found.value.header.rlp,
    proof: {
      era: 'beacon-block',
      slot: Number(block.header.slot),
      beaconBlockRoot: found.value.beaconBlockRoot,
      executionBranch: found.value.executionBranch,
    },
  });
}

/**
 * The `block` record of a block from Capella on, through its period's `block_roots` (all 8192 roots of
 * the period, empty slots holding the root before them, as the state kept them) and that period's entry
 * in the checkpoint state's `historical_summaries`. Refused when the roots do not hash to the entry's
 * `block_summary_root`, when the block is not the one the roots hold at its slot, or when its period is
 * not a completed one of the checkpoint's state.
 */
export function summariesBlockRecord(
  network: BeaconNetwork,
  block: BeaconBlockParts,
  blockRoots: readonly Node[],
  summaries: readonly HistoricalSummary[],
): Result<BlockRecord, string> {
  const slot = Number(block.header.slot);
  if (!isAtLeast(block.fork, 'capella'))
    return err(
      `slot ${slot} is ${block.fork}: a block before Capella is proven through historical_roots, not historical_summaries`,
    );
  const period = Math.floor(slot / SLOTS_PER_HISTORICAL_ROOT);
  const { index } = historicalEntryOf(network, slot);
  if (index >= summaries.length)
    return err(
      `slot ${slot} is in period ${period} (historical_summaries entry ${index}), which the checkpoint's state has not summarized yet (${summaries.length} entries): use a checkpoint from a later period`,
    );
  if (blockRoots.length !== SLOTS_PER_HISTORICAL_ROOT)
    return err(`a period's block roots are ${SLOTS_PER_HISTORICAL_ROOT}, not ${blockRoots.length}`);
  const summary = summaries[index]!;
  if (!bytesEqual(vectorRoot(blockRoots), summary.blockSummaryRoot))
    return err(
      `the block roots of period ${period} do not hash to historical_summaries[${index}].block_summary_root ${prefixedHex(summary.blockSummaryRoot)}`,
    );
  const found = executionInBlock(block);
  if (!found.ok) return found;
  const at = slot % SLOTS_PER_HISTORICAL_ROOT;
  if (!bytesEqual(blockRoots[at]!, found.value.beaconBlockRoot))
    return err(
      `the beacon block of slot ${slot} is ${prefixedHex(found.value.beaconBlockRoot)}, but the period's block_roots hold ${prefixedHex(blockRoots[at]!)} there`,
    );
  const leaves = summaries.map((entry) => parentOf(entry.blockSummaryRoot, entry.stateSummaryRoot));
  return ok({
    kind: 'block',
    header: found.value.header.rlp,
    proof: {
      era: 'historical-summaries',
      slot,
      beaconBlockRoot: found.value.beaconBlockRoot,
      executionBranch: found.value.executionBranch,
      blockRootsBranch: branchOf(blockRoots, at, Math.log2(SLOTS_PER_HISTORICAL_ROOT)),
      summary: { index, ...summary, branch: listEntryBranch(leaves, index, SUMMARIES_DEPTH) },
    },
  });
}

/**
 * The `block` record of a block before the merge: `header` (its RLP, from any source: it is held to the
 * record's hash) in its epoch record, and that record's root in the accumulator. Refused when the epoch
 * record is not the accumulator's or the header is not the one it holds.
 */
export function preMergeBlockRecord(
  header: Uint8Array,
  record: EpochRecord,
  accumulator: TrustedEpochRoots,
): Result<BlockRecord, string> {
  checkBytes(header, 'header');
  const given: unknown = record;
  if (typeof given !== 'object' || given === null || !('blockHashes' in given))
    throw new TypeError(`record must be an epoch record as readEpochRecord reads it, got ${kindOf(given)}`);
  const number = headerNumberIfAny(header);
  if (number === undefined) return err('the header is not a block header RLP');
  const blockNumber = Number(number);
  if (blockNumber >= MERGE_BLOCK)
    return err(`block ${blockNumber} is at or after the merge (${MERGE_BLOCK}): no epoch record holds it`);
  const epoch = epochOf(blockNumber);
  const epochRoot = accumulator.epochs[epoch];
  if (epochRoot === undefined || !bytesEqual(record.root, epochRoot))
    return err(`the epoch record is not epoch ${epoch}'s: its root is not the accumulator's`);
  const hash = defaultKeccak256(header);
  const held = record.blockHashes[blockNumber % EPOCH_SIZE];
  if (held === undefined)
    return err(`epoch record ${epoch} holds ${record.blockHashes.length} blocks, none of them block ${blockNumber}`);
  if (!bytesEqual(hash, held))
    return err(
      `the header of block ${blockNumber} hashes to ${prefixedHex(hash)}, but epoch record ${epoch} holds ${prefixedHex(held)}`,
    );
  return ok({
    kind: 'block',
    header,
    proof: {
      era: 'pre-merge',
      branch: epochRecordBranch(record, blockNumber),
      epochRoot,
      epochBranch: epochRootBranch(accumulator, epoch),
    },
  });
}
