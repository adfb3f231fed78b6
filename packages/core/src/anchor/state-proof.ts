/**
 * A beacon state's `historical_summaries`, proven under the state's root: the step from a
 * checkpoint (whose `BeaconBlockHeader` carries `state_root`) down to the summary of the period
 * that holds an old block. The field's generalized index moves at Electra (59 to 91: the state grew
 * past 32 fields), so the state's fork chooses it (consensus-specs, `BeaconState` of each fork).
 */
import { bytesEqual } from '../bytes/hex.js';
import { err, ok, type Result } from '../result.js';
import type { TrustedHistoricalRoot } from './beacon-block-proof.js';
import { branchRoot, type Node } from './merkle-branch.js';
import { isAtLeast, type Fork } from './networks.js';
import {
  beaconBlockHeaderRoot,
  historicalSummariesRoot,
  type BeaconBlockHeader,
  type HistoricalSummary,
} from './ssz.js';

/** `historical_summaries` in a Capella to Deneb `BeaconState` (field 27 of 28, under 32 leaves). */
export const HISTORICAL_SUMMARIES_GINDEX_CAPELLA = 59;
/** `historical_summaries` from Electra on (field 27 of 37, under 64 leaves). */
export const HISTORICAL_SUMMARIES_GINDEX_ELECTRA = 91;

/** The generalized index of `historical_summaries` in a state of `fork`, or `undefined` before Capella (no such field). */
export function historicalSummariesGindex(fork: Fork): number | undefined {
  if (!isAtLeast(fork, 'capella')) return undefined;
  return isAtLeast(fork, 'electra') ? HISTORICAL_SUMMARIES_GINDEX_ELECTRA : HISTORICAL_SUMMARIES_GINDEX_CAPELLA;
}

/**
 * The state root of the checkpoint `checkpointRoot`, when `header` is the block header it is the root of:
 * the first step down from the one hash a user trusts.
 */
export function checkpointStateRoot(checkpointRoot: Node, header: BeaconBlockHeader): Result<Node, string> {
  if (header.slot >= 2n ** 64n || header.proposerIndex >= 2n ** 64n || header.slot < 0n || header.proposerIndex < 0n)
    return err('a slot and a proposer index are 64-bit unsigned integers');
  if ([header.parentRoot, header.stateRoot, header.bodyRoot].some((root) => root.length !== 32))
    return err("a header's roots are 32 bytes each");
  if (!bytesEqual(beaconBlockHeaderRoot(header), checkpointRoot))
    return err("the beacon block header is not the checkpoint's: it does not hash to the checkpoint root");
  return ok(header.stateRoot);
}

/** Why a state's summaries are refused. */
export interface SummariesRefusal {
  readonly reason: 'no-summaries' | 'branch';
  readonly message: string;
}

/**
 * The `historical_summaries` entries of the beacon state whose root is `stateRoot`, when `summaries`
 * hash to the list's root and `proof` (5 nodes before Electra, 6 from it) leads that root to `stateRoot`:
 * each entry's `block_summary_root` then roots the old blocks of its period ({@link TrustedHistoricalRoot}).
 */
export function verifyHistoricalSummaries(
  stateRoot: Node,
  fork: Fork,
  summaries: readonly HistoricalSummary[],
  proof: readonly Node[],
): Result<readonly TrustedHistoricalRoot[], SummariesRefusal> {
  const gindex = historicalSummariesGindex(fork);
  if (gindex === undefined)
    return err({ reason: 'no-summaries', message: `a ${fork} state has no historical_summaries (Capella on)` });
  const computed = branchRoot(historicalSummariesRoot(summaries), proof, gindex);
  if (computed === undefined || !bytesEqual(computed, stateRoot))
    return err({
      reason: 'branch',
      message: `the historical_summaries do not reach the state root through the proof (generalized index ${gindex}, ${fork})`,
    });
  return ok(
    summaries.map((summary, index) => ({
      list: 'historical_summaries' as const,
      index,
      root: summary.blockSummaryRoot,
    })),
  );
}

/** `historical_roots` in a `BeaconState` (field 7): 39 under 32 leaves, 71 from Electra under 64. */
export function historicalRootsGindex(fork: Fork): number {
  return isAtLeast(fork, 'electra') ? 71 : 39;
}
