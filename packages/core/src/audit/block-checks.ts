/**
 * The chain's own checks of one block, from its verification and its neighbours: `header_hash`,
 * `receipts_root`, `logs_bloom`, `raw_receipts`, `receipt_blooms`, `withdrawals` (from `verifyBlock`), `parent_link`, `anchor`
 * and `transaction_count`; and the verdict they make. A block passes only when every one of them
 * ran and passed.
 */
import type { EvidenceKind } from '../chains/chain-info.js';
import { TRANSACTION_COUNT_MEMBERS } from '../input/json-rpc/restated-members.js';
import { describeProblems, type InvalidInput } from '../input/values/problems.js';
import type { BlockJson } from '../sources/block-source.js';
import { isObject } from '../input/values/json-values.js';
import type { Result } from '../result.js';
import type { BlockRefusal, BlockReport, Comparison } from '../verify/verify-block.js';
import type { BlockAudit } from './audit-report.js';
import type { AuditFailure } from './vocabulary.js';

/**
 * A member of a block's header as the source gave it; undefined where the header is no object (a source of the
 * library's user may give anything: the block's verification names it, `block_input`).
 */
const headerMember = (block: BlockJson, name: string): unknown =>
  isObject(block.header) ? block.header[name] : undefined;

/** The claimed hash of a block as the source gave it, lower case; null when it gave none. */
export function hashOf(block: BlockJson): string | null {
  const hash = headerMember(block, 'hash');
  return typeof hash === 'string' ? hash.toLowerCase() : null;
}

/** The claimed parent hash of a block, lower case; null when it gave none. */
export function parentHashOf(block: BlockJson): string | null {
  const parentHash = headerMember(block, 'parentHash');
  return typeof parentHash === 'string' ? parentHash.toLowerCase() : null;
}

/**
 * The hash a block's line names, when nothing in the line says it is false: null where the source gave none, where the
 * header does not hash to it (`header_hash`), or where the block was refused as input (`block_input`: its hash never
 * checked). Only such a hash is a block a reorg may have replaced: one that never was a block's is the source's error,
 * whatever it answers later, and its line stands (the block after it fails parent_link).
 */
export function vouchedHash(audit: BlockAudit): string | null {
  if (audit.block_hash === null) return null;
  return audit.failures.some((f) => f.check === 'header_hash' || f.check === 'block_input') ? null : audit.block_hash;
}

/** A comparison of the report that failed, as an audit failure. */
function comparisonFailure(check: string, what: string, comparison: Comparison): AuditFailure[] {
  if (comparison.matches !== false) return [];
  return [
    {
      check,
      message: `${what} does not match`,
      evidence: { expected: comparison.expected, computed: comparison.computed },
    },
  ];
}

/** Whether every problem of a refused block is its list or count of transactions against its receipts. */
const onlyCountProblems = (refusal: InvalidInput): boolean =>
  refusal.count === refusal.problems.length &&
  refusal.problems.every((p) => p.reason === 'conflict' && TRANSACTION_COUNT_MEMBERS.includes(p.name));

/** The number of transactions the source says the block has: its `transaction_count`, else its header's list's. */
function sourceCount(block: BlockJson): unknown {
  if (block.transaction_count !== undefined) return block.transaction_count;
  const transactions = headerMember(block, 'transactions');
  const transactionCount = headerMember(block, 'transactionCount');
  return Array.isArray(transactions) ? transactions.length : transactionCount;
}

/**
 * The transaction count against the receipts: failed where the block's reader refused the block for its list or count of
 * transactions alone, by the one rule it holds them to (restated-members' `transactionCounts`, which knows Bor's
 * state-sync transaction), so that an audit and a verification of the same block cannot disagree.
 */
function transactionCountFailure(block: BlockJson, verified: Result<BlockReport, BlockRefusal>): AuditFailure[] {
  if (verified.ok || verified.error.kind === 'chain_not_supported' || !onlyCountProblems(verified.error)) return [];
  return [
    {
      check: 'transaction_count',
      message: `the block's transactions do not match its receipts: ${describeProblems(verified.error)} (receipts_root and logs_bloom not judged: the receipts are incomplete)`,
      evidence: { transactions: sourceCount(block), receipts: block.receipts.length },
    },
  ];
}

/**
 * What a block's parentHash must be: the hash of the block audited before it (or the head anchor),
 * `undefined` when nothing comes before it (the range's first block without `--head-hash`), or
 * `null` when the block before it gave no hash, so that the link cannot be checked.
 */
export type ExpectedParent = string | null | undefined;

/** What a block's parentHash must be, as parent_link names it when nothing says otherwise. */
const AUDITED_BEFORE = 'the hash of the block audited before it';

/** Why a block whose own checks pass is `not_verifiable` when the block before it gave no hash. */
const PARENT_UNKNOWN = 'parent_link: the block before it gave no hash, so its parent link cannot be checked';

/**
 * A block's line judged by its own checks (as judgeBlock judges it when the block before it gave no hash), linked to
 * what its parentHash must be: the line judgeBlock writes for that block with `expectedParent`. A job queue that audited
 * a block before the block before it had a line links it so once it has, by this one rule.
 */
export function linkParent(
  line: BlockAudit,
  parentHash: string | null,
  expectedParent: ExpectedParent,
  expectedName = AUDITED_BEFORE,
): BlockAudit {
  if (expectedParent === null) return line;
  const { reason, ...judged } = line;
  if (expectedParent !== undefined && parentHash !== expectedParent.toLowerCase()) {
    const failure: AuditFailure = {
      check: 'parent_link',
      message: `the parentHash is not ${expectedName}`,
      evidence: { expected: expectedParent.toLowerCase(), found: parentHash },
    };
    return { ...judged, verdict: 'fail', failures: [failure, ...line.failures] };
  }
  return reason === PARENT_UNKNOWN ? { ...judged, verdict: 'pass' } : line;
}

/** An anchor of the range (`--anchor N:HASH`, `--tail-hash`): the block's hash must be the one given. */
function anchorFailure(block: BlockJson, anchor: string | undefined): AuditFailure[] {
  if (anchor === undefined || hashOf(block) === anchor.toLowerCase()) return [];
  return [
    {
      check: 'anchor',
      message: 'the block hash is not the anchor given for this block',
      evidence: { expected: anchor.toLowerCase(), found: hashOf(block) },
    },
  ];
}

/** What a block is judged against besides its own data. */
export interface BlockLinks {
  expectedParent: ExpectedParent;
  /**
   * How parent_link names `expectedParent` when it is not the hash of the block audited before (the first block of a
   * run: the hash the run was given to link to).
   */
  expectedParentName?: string;
  /** The hash this block must have, when the range is anchored at it. */
  anchor?: string;
}

/** From the weakest kind of evidence up: a block line names the weakest its checks stood on. */
const EVIDENCE_ORDER: readonly EvidenceKind[] = ['configured', 'operator', 'registry', 'shipped'];

/** The weakest evidence a check of the report that ran stood on, unless it is the chain's shipped blocks. */
function weakestEvidence(report: BlockReport): Exclude<EvidenceKind, 'shipped'> | undefined {
  const kinds = [report.block_hash, report.receipts_root, report.logs_bloom].flatMap((c) =>
    c.evidence === undefined ? [] : [c.evidence.kind],
  );
  const weakest = EVIDENCE_ORDER.find((kind) => kinds.includes(kind));
  return weakest === undefined || weakest === 'shipped' ? undefined : weakest;
}

/**
 * Judges one block. It passes only when every check ran and passed: its verification is
 * `identical` and its parent link was checked. A block whose verification is `not_verifiable`
 * (its chain, era, or a check without evidence), or whose parent link cannot be checked, is
 * `not_verifiable` unless a check that ran fails. A block the verifier refuses as input fails
 * `block_input`.
 */
export function judgeBlock(
  number: number,
  block: BlockJson,
  verified: Result<BlockReport, BlockRefusal>,
  links: BlockLinks,
): BlockAudit {
  const line = judgeOwnChecks(number, block, verified, links.anchor);
  return linkParent(line, parentHashOf(block), links.expectedParent, links.expectedParentName);
}

/** A block judged by every check but its parent link, as though the block before it gave no hash. */
function judgeOwnChecks(
  number: number,
  block: BlockJson,
  verified: Result<BlockReport, BlockRefusal>,
  anchor: string | undefined,
): BlockAudit {
  const countFailures = transactionCountFailure(block, verified);
  const failures = [...anchorFailure(block, anchor), ...countFailures];
  const named = { block_number: number, block_hash: hashOf(block) };
  if (!verified.ok) {
    const base = named;
    const refusal = verified.error;
    if (refusal.kind === 'chain_not_supported') {
      if (failures.length > 0) return { ...base, verdict: 'fail', failures };
      return {
        ...base,
        verdict: 'not_verifiable',
        failures,
        reason: `the chain is not in the registry: ${refusal.hint}`,
      };
    }
    // The reader refused the block for its count of transactions alone: transaction_count says it, and the header is
    // not in doubt.
    if (countFailures.length > 0) return { ...base, verdict: 'fail', failures };
    failures.push({
      check: 'block_input',
      message: `the source gave a block that cannot be read: ${describeProblems(refusal)}`,
      evidence: { problems: refusal.problems },
    });
    return { ...base, verdict: 'fail', failures };
  }
  const report = verified.value;
  const weakest = weakestEvidence(report);
  const base = { ...named, ...(weakest !== undefined && { evidence_kind: weakest }) };
  failures.push(...comparisonFailure('header_hash', 'the hash of the header', report.block_hash));
  failures.push(...comparisonFailure('receipts_root', 'the receipts root', report.receipts_root));
  failures.push(...comparisonFailure('logs_bloom', 'the logs bloom', report.logs_bloom));
  if (report.raw_receipts !== null && !report.raw_receipts.matches) {
    failures.push({
      check: 'raw_receipts',
      message: "the source's consensus receipts differ from their encoding",
      evidence: { ...report.raw_receipts },
    });
  }
  if (report.receipt_blooms !== null && !report.receipt_blooms.matches) {
    failures.push({
      check: 'receipt_blooms',
      message: "a receipt's own logsBloom, as the source gave it, is not the bloom of its logs",
      evidence: { ...report.receipt_blooms },
    });
  }
  if (report.withdrawals !== null && !report.withdrawals.matches) {
    failures.push({
      check: 'withdrawals',
      message: "the root of the withdrawals the block lists is not its header's withdrawalsRoot",
      evidence: { ...report.withdrawals },
    });
  }
  if (failures.length > 0) return { ...base, verdict: 'fail', failures };
  if (report.verdict !== 'identical')
    return { ...base, verdict: 'not_verifiable', failures, reason: report.reason ?? 'not verifiable' };
  return { ...base, verdict: 'not_verifiable', failures, reason: PARENT_UNKNOWN };
}
