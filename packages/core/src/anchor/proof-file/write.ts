/**
 * Lines of an anchor proof file from its records: the inverse of records.ts, for provers and tests.
 * Each call returns one line without its newline.
 */
import { prefixedHex } from '../../bytes/hex.js';
import type { Node } from '../merkle-branch.js';
import type { BeaconBlockHeader } from '../ssz.js';
import {
  ANCHOR_PROOF_VERSION,
  type AnchorProofHead,
  type AnchorRecord,
  type BlockProof,
  type StateField,
} from './records.js';

const nodes = (branch: readonly Node[]): string[] => branch.map((node) => prefixedHex(node));

const headerJson = (header: BeaconBlockHeader): Record<string, string> => ({
  slot: header.slot.toString(),
  proposer_index: header.proposerIndex.toString(),
  parent_root: prefixedHex(header.parentRoot),
  state_root: prefixedHex(header.stateRoot),
  body_root: prefixedHex(header.bodyRoot),
});

const fieldJson = (field: StateField): Record<string, unknown> => ({
  root: prefixedHex(field.root),
  branch: nodes(field.branch),
});

/** The members every post-merge proof has. */
const inBeaconBlock = (proof: { slot: number; beaconBlockRoot: Node; executionBranch: readonly Node[] }) => ({
  slot: proof.slot,
  beacon_block_root: prefixedHex(proof.beaconBlockRoot),
  execution_branch: nodes(proof.executionBranch),
});

function proofJson(proof: BlockProof): Record<string, unknown> {
  switch (proof.era) {
    case 'pre-merge':
      return {
        era: proof.era,
        branch: nodes(proof.branch),
        epoch_root: prefixedHex(proof.epochRoot),
        epoch_branch: nodes(proof.epochBranch),
      };
    case 'beacon-block':
      return { era: proof.era, ...inBeaconBlock(proof) };
    case 'historical-summaries':
      return {
        era: proof.era,
        ...inBeaconBlock(proof),
        block_roots_branch: nodes(proof.blockRootsBranch),
        summary: {
          index: proof.summary.index,
          block_summary_root: prefixedHex(proof.summary.blockSummaryRoot),
          state_summary_root: prefixedHex(proof.summary.stateSummaryRoot),
          branch: nodes(proof.summary.branch),
        },
      };
    case 'historical-roots':
      return {
        era: proof.era,
        ...inBeaconBlock(proof),
        block_roots_branch: nodes(proof.blockRootsBranch),
        batch: { index: proof.batch.index, root: prefixedHex(proof.batch.root), branch: nodes(proof.batch.branch) },
      };
  }
}

/** The first line of a file. */
export function formatAnchorHead(head: AnchorProofHead): string {
  return JSON.stringify({
    anchor_proof: ANCHOR_PROOF_VERSION,
    network: head.network,
    checkpoint: prefixedHex(head.checkpoint),
  });
}

/** One record's line. */
export function formatAnchorRecord(record: AnchorRecord): string {
  switch (record.kind) {
    case 'beacon-header':
      return JSON.stringify({
        kind: record.kind,
        header: headerJson(record.header),
        ...(record.historicalSummaries ? { historical_summaries: fieldJson(record.historicalSummaries) } : {}),
        ...(record.historicalRoots ? { historical_roots: fieldJson(record.historicalRoots) } : {}),
      });
    case 'bootstrap':
    case 'update':
      return JSON.stringify({ kind: record.kind, fork: record.fork, ssz: prefixedHex(record.ssz) });
    case 'block':
      return JSON.stringify({ kind: record.kind, header: prefixedHex(record.header), proof: proofJson(record.proof) });
  }
}
