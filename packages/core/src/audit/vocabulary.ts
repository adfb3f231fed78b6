/**
 * The vocabulary of a range audit (`auditRange`, `evm-integrity audit`): what one block's audit
 * reports, and the hook through which another copy of the chain's data (the hosted service's
 * raw datasets) is checked against the chain's truth. Shared by the range engine, its sources and
 * the cross-checks, so that each names its checks the same way.
 */
import type { BlockJson } from '../sources/block-source.js';
import type { BlockReport } from '../verify/verify-block.js';

/**
 * The name of a check. The chain's own: `header_hash`, `parent_link`, `receipts_root`,
 * `logs_bloom`, `raw_receipts`, `receipt_blooms`, `withdrawals`, `transaction_count`. The hosted service's block record (dataset 0101):
 * `service_block.<field>` (`service_block.block_hash`, `service_block.receipt_root`,
 * `service_block._computed_receipt_root`, …, and `service_block.present`); its log records
 * (dataset 0103): `service_logs.missing`, `service_logs.extra`, `service_logs.altered`.
 */
export type AuditCheckName = string;

/**
 * Whether a check is a cross-check's (another copy of the chain's data held to the chain): named `copy.check`, with a
 * dot, where the chain's own checks are single words.
 */
export const isCrossCheck = (check: AuditCheckName): boolean => check.includes('.');

/** One failed check, with what shows it (expected and found values, the record, the log's position). */
export interface AuditFailure {
  check: AuditCheckName;
  message: string;
  evidence: Record<string, unknown>;
}

/**
 * What a block's audit found: `pass`, `fail` (with its failures), `not_verifiable` (the era or chain, with why),
 * `unreachable` (the source gave up, with why).
 */
export type AuditVerdict = 'pass' | 'fail' | 'not_verifiable' | 'unreachable';

/**
 * How far back a reorg may supersede a block's verdict: older verdicts are final. What a tally keeps of each block (its
 * last line, the run of passing blocks it ends) is kept for the last this many blocks.
 */
export const SUPERSEDE_WINDOW = 1024;

/** The chain's truth about one block, as a cross-check receives it: the block as fetched and its verification. */
export interface BlockTruth {
  chainId: number;
  number: number;
  block: BlockJson;
  /** null when the block could not be verified at all (not verifiable, or refused as input). */
  report: BlockReport | null;
  /** The source's block was refused as input (`block_input`: a receipt missing from the middle, say). */
  refused?: true;
}

/**
 * Whether the block's receipts are refuted: their recomputed root is not the header's, or the block was refused as
 * input. They are then no truth for anything derived from them (the service's log records, its recomputed root): the
 * source gave wrong receipts, and the block fails `receipts_root` or `block_input` on its own.
 */
export const receiptsRefuted = (truth: BlockTruth): boolean =>
  truth.refused === true || truth.report?.receipts_root.matches === false;

/** What a cross-check found of one block. */
export interface CrossCheckFindings {
  /** The checks that failed: the block fails. */
  failures: AuditFailure[];
  /**
   * What the other copy says that the chain gives no value to check (a log record's `tx_hash` where the block gives no
   * transaction hashes), each a sentence saying so: a block that otherwise passes is then `not_verifiable`, never a
   * pass that does not cover it.
   */
  unchecked: string[];
}

/**
 * Checks another copy of a chunk of blocks against the chain's truth (the hosted service's
 * datasets). Called once per chunk, in block order; returns what it found of each block by number
 * (blocks with nothing found may be left out). Throws SourceError when its own source is unreachable
 * past its retries.
 */
export interface CrossCheck {
  /** The checks it may report, for the summary and the docs: each named `copy.check` ({@link isCrossCheck}). */
  readonly checks: readonly AuditCheckName[];
  checkChunk(truths: readonly BlockTruth[], signal?: AbortSignal): Promise<Map<number, CrossCheckFindings>>;
}
