/**
 * What a range audit yields and sums up: one line per block (`BlockAudit`), a line per reorg seen
 * (`AuditReorg`), and the summary. The summary is a tally of the lines, so that a resumed audit
 * (whose earlier lines are in a file) sums up exactly as an uninterrupted one.
 */
import type { EvidenceKind } from '../chains/chain-info.js';
import { AnchorTally, type Anchoring, type AnchoringSummary } from './anchors.js';
import {
  isCrossCheck,
  SUPERSEDE_WINDOW,
  type AuditCheckName,
  type AuditFailure,
  type AuditVerdict,
} from './vocabulary.js';

/**
 * One block's audit: its verdict, the failed checks with their evidence, and why when it is not verifiable or
 * unreachable.
 */
export interface BlockAudit {
  block_number: number;
  /** The hash the source gave for the block (null when it gave none). */
  block_hash: string | null;
  verdict: AuditVerdict;
  failures: AuditFailure[];
  /** Why the verdict is not_verifiable or unreachable. */
  reason?: string;
  /**
   * The weakest evidence a check that ran stood on, where it is not the chain's shipped blocks: `registry`,
   * `operator` or `configured` (docs/chains.md, "Evidence"). Absent where every check stood on shipped blocks.
   */
  evidence_kind?: Exclude<EvidenceKind, 'shipped'>;
}

/** A block the node replaced during the audit: the hash audited first, and the node's hash now. */
export interface ReplacedBlock {
  block_number: number;
  old_hash: string;
  new_hash: string | null;
}

/**
 * A reorg seen mid-audit: block `detected_at` no longer linked to the block audited before it, and
 * the node now serves other blocks in its place. The replaced blocks are audited again on the new
 * chain right after this line (their new lines supersede the old ones); `depth` is how many.
 */
export interface AuditReorg {
  reorg: { detected_at: number; depth: number; replaced: ReplacedBlock[] };
}

/** A line of the audit, in the order it happened. */
export type AuditEvent = BlockAudit | AuditReorg;

/** Whether a line of the audit is a reorg (else it is a block's line). */
export const isReorg = (event: AuditEvent): event is AuditReorg => 'reorg' in event;

/** A block's failing line, named: the block, the hash it was audited by, and the checks it failed. */
export interface FailedLine {
  block_number: number;
  block_hash: string | null;
  checks: AuditCheckName[];
}

/** Failing lines that the per-block counts (`verdicts`) leave out: how many blocks, and the first of them. */
export interface UncountedFailures {
  blocks: number;
  /** At most {@link FAILED_LINES_LISTED}: a tally's in the order it met them, a queue's by block number. */
  listed: FailedLine[];
}

/** How many blocks {@link UncountedFailures} names at most: a hostile node can make them many. */
export const FAILED_LINES_LISTED = 20;

/** Wall time of the run, and where it went (the rest is the engine itself and the consumer). */
export interface AuditTimings {
  elapsed_ms: number;
  /**
   * Waiting for the source (fetches overlap; this is the time the audit waited for them). A queue's export sums its
   * chunks', which overlap in time: there it may exceed `elapsed_ms`.
   */
  fetching_ms: number;
  /** Decoding and verifying blocks (`verify`). */
  verifying_ms: number;
  /** The cross-check of each chunk. */
  cross_checking_ms: number;
}

/** The summary of an audit, the last line of its output as `{"summary": …}`. */
export interface AuditSummary {
  chain_id: number;
  from: number;
  to: number;
  /** Distinct blocks with a verdict (a block audited again after a reorg counts once, by its last verdict). */
  blocks: number;
  verdicts: Record<AuditVerdict, number>;
  /** Blocks failing each check, by their last verdict. */
  failed_checks: Record<AuditCheckName, number>;
  reorgs: number;
  /** Every block of [from, to] has a verdict other than unreachable. */
  complete: boolean;
  /** The first block without a verdict (null when complete). */
  next_block: number | null;
  /** Blocks audited by this run per second of its wall time. */
  blocks_per_second: number;
  /** Shares of this run's wall time: fetching, verifying, cross_checking (0..1: a timing over `elapsed_ms`, capped at 1). */
  time_share: { fetching: number; verifying: number; cross_checking: number };
  timings: AuditTimings;
  /** The range's anchors and the blocks they prove: without one, passing blocks are consistent, not authentic. */
  anchoring: AnchoringSummary;
  /**
   * On a resumed audit, the verdicts of `blocks` and `verdicts` taken from the checkpoint file rather than checked by
   * this run (the rest were): a block of the file that this run audited again (after a reorg) is this run's. Absent
   * when the audit did not resume.
   */
  carried_over?: { blocks: number; verdicts: Record<AuditVerdict, number> };
  /**
   * Blocks whose failing line a reorg then replaced: `verdicts` counts each block by its last line, but what the node
   * served first failed all the same, and a finding is never hidden (the CLI's exit status is 1). Absent when none.
   */
  replaced_failures?: UncountedFailures;
}

/**
 * Sums audit lines into a summary. Only the last verdict of each block counts: a verdict that a
 * reorg supersedes is taken back. Keeps the counts and the last {@link SUPERSEDE_WINDOW} blocks.
 */
export class AuditTally {
  private readonly verdicts: Record<AuditVerdict, number> = { pass: 0, fail: 0, not_verifiable: 0, unreachable: 0 };
  /** Of {@link verdicts}, those still counted by a line an earlier run wrote ({@link carry}). */
  private readonly carriedVerdicts: Record<AuditVerdict, number> = {
    pass: 0,
    fail: 0,
    not_verifiable: 0,
    unreachable: 0,
  };
  private readonly carriedLines = new WeakSet<BlockAudit>();
  private readonly failedChecks: Record<AuditCheckName, number> = {};
  private readonly recent = new Map<number, BlockAudit>();
  private readonly replacedFailures: UncountedFailures = { blocks: 0, listed: [] };
  /** The blocks within the last {@link SUPERSEDE_WINDOW} counted in {@link replacedFailures}: each block once. */
  private readonly replacedFailed = new Set<number>();
  private reorgs = 0;
  private highest: number;
  /**
   * The last block of the run from `from` whose blocks all have a verdict other than unreachable: the next block is the
   * one after it. Counted, not `from` plus the blocks audited: a distributed audit's export has no line for a parked
   * chunk's blocks, and the blocks after them would put the next block past the gap.
   */
  private covered: number;
  private readonly anchors: AnchorTally;

  constructor(
    readonly chainId: number,
    readonly from: number,
    readonly to: number,
    anchoring: Anchoring = {},
  ) {
    this.highest = from - 1;
    this.covered = from - 1;
    this.anchors = new AnchorTally(from, to, anchoring);
  }

  private count(audit: BlockAudit, sign: 1 | -1): void {
    this.verdicts[audit.verdict] += sign;
    if (this.carriedLines.has(audit)) this.carriedVerdicts[audit.verdict] += sign;
    for (const check of new Set(audit.failures.map((f) => f.check)))
      this.failedChecks[check] = (this.failedChecks[check] ?? 0) + sign;
  }

  add(event: AuditEvent): void {
    this.anchors.add(event);
    if (isReorg(event)) {
      this.reorgs++;
      return;
    }
    const earlier = this.recent.get(event.block_number);
    if (earlier !== undefined) {
      this.count(earlier, -1);
      if (earlier.verdict === 'fail') this.replaceFailing(earlier, event);
    }
    this.count(event, 1);
    this.recent.set(event.block_number, event);
    this.highest = Math.max(this.highest, event.block_number);
    this.recent.delete(this.highest - SUPERSEDE_WINDOW);
    this.replacedFailed.delete(this.highest - SUPERSEDE_WINDOW);
    this.cover(event);
  }

  /**
   * Counts a failing line that `by`, a later line of its block, supersedes, once for its block, as
   * {@link replacedFailures}. Not its cross-checks' failures where `by` is of another block (a reorg replaced it): the
   * other copy, read after the reorg, may hold the block that replaced it, and `by` holds the copy to that block.
   */
  private replaceFailing(line: BlockAudit, by: BlockAudit): void {
    const replaced = line.block_hash?.toLowerCase() !== by.block_hash?.toLowerCase();
    const failures = replaced ? line.failures.filter((f) => !isCrossCheck(f.check)) : line.failures;
    if (failures.length === 0 || this.replacedFailed.has(line.block_number)) return;
    this.replacedFailed.add(line.block_number);
    this.replacedFailures.blocks++;
    if (this.replacedFailures.listed.length < FAILED_LINES_LISTED)
      this.replacedFailures.listed.push({
        block_number: line.block_number,
        block_hash: line.block_hash,
        checks: [...new Set(failures.map((f) => f.check))],
      });
  }

  /**
   * Adds a line an earlier run wrote (the file a resumed audit goes on with): counted as {@link add} counts it, and as
   * carried over for as long as it is its block's last line (a reorg this run meets may audit the block again).
   */
  carry(event: AuditEvent): void {
    if (!isReorg(event)) this.carriedLines.add(event);
    this.add(event);
  }

  /** The blocks, and their verdicts, that the summary counts by a line {@link carry} added: a resume's `carried_over`. */
  carriedOver(): NonNullable<AuditSummary['carried_over']> {
    const verdicts = { ...this.carriedVerdicts };
    return { blocks: Object.values(verdicts).reduce((a, b) => a + b, 0), verdicts };
  }

  /**
   * Moves {@link covered} by `audit`: back before a block now unreachable, and on over the blocks with a verdict after
   * it (those a reorg audits again are within the kept window, so a run broken by one is joined again).
   */
  private cover(audit: BlockAudit): void {
    if (audit.verdict === 'unreachable') {
      this.covered = Math.min(this.covered, audit.block_number - 1);
      return;
    }
    const verdictOf = (block: number) => this.recent.get(block)?.verdict;
    while (this.covered < this.to) {
      const next = verdictOf(this.covered + 1);
      if (next === undefined || next === 'unreachable') break;
      this.covered++;
    }
  }

  /**
   * The hash the last verdict of `block` names (null where the source gave none), or undefined for a
   * block without a verdict or older than the last {@link SUPERSEDE_WINDOW} blocks.
   */
  hashOf(block: number): string | null | undefined {
    return this.recent.get(block)?.block_hash;
  }

  /** The blocks whose last verdict is fail. */
  get failed(): number {
    return this.verdicts.fail;
  }

  /** The blocks with a verdict, unreachable ones included. */
  get blocks(): number {
    return this.verdicts.pass + this.verdicts.fail + this.verdicts.not_verifiable + this.verdicts.unreachable;
  }

  summary(timings: AuditTimings, auditedThisRun: number): AuditSummary {
    const audited = this.blocks - this.verdicts.unreachable;
    const complete = audited === this.to - this.from + 1 && this.verdicts.unreachable === 0;
    const share = (ms: number) => (timings.elapsed_ms > 0 ? Math.min(1, ms / timings.elapsed_ms) : 0);
    const failedChecks = Object.fromEntries(Object.entries(this.failedChecks).filter(([, n]) => n > 0));
    return {
      chain_id: this.chainId,
      from: this.from,
      to: this.to,
      blocks: this.blocks,
      verdicts: { ...this.verdicts },
      failed_checks: failedChecks,
      reorgs: this.reorgs,
      complete,
      next_block: complete ? null : this.covered + 1,
      blocks_per_second: timings.elapsed_ms > 0 ? auditedThisRun / (timings.elapsed_ms / 1000) : 0,
      time_share: {
        fetching: share(timings.fetching_ms),
        verifying: share(timings.verifying_ms),
        cross_checking: share(timings.cross_checking_ms),
      },
      timings,
      anchoring: this.anchors.summary(),
      ...(this.replacedFailures.blocks > 0 && {
        replaced_failures: { blocks: this.replacedFailures.blocks, listed: [...this.replacedFailures.listed] },
      }),
    };
  }
}
