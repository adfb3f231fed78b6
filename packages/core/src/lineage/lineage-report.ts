/** Outcome of one check: pass, fail, or skipped (could not run for lack of data, with why: a skip is never a pass). */
export type CheckStatus = 'pass' | 'fail' | 'skipped';

export interface Check {
  /** Dotted name, e.g. `log.position`, `record.reserves`. */
  check: string;
  status: CheckStatus;
  reason: string;
  /** What the check is about, e.g. `genesis.logs[0]`, `block 19426587`. */
  subject: string;
}

/** The checks of one record of the lineage (the one asked for, or a parent). */
export interface RecordReport {
  tracing_id: string;
  dataset: string | null;
  checks: Check[];
}

export interface LineageReport {
  chain_id: number;
  tracing_id: string;
  /**
   * `fail` when any check failed; else `not_verifiable` when a check was skipped, or when no
   * block was checked on chain (nothing of the lineage was held to the chain); else `pass`:
   * every check ran and passed.
   */
  verdict: 'pass' | 'fail' | 'not_verifiable';
  /**
   * Why the verdict is not `pass`: the first failed or skipped check, or that no block was checked; null for a pass.
   */
  reason: string | null;
  summary: { pass: number; fail: number; skipped: number };
  /** Warnings that do not fail a check, e.g. a block-wide log_index. */
  warnings: string[];
  records: RecordReport[];
}

/** One check of a lineage report: its name, status, what it is about and why. */
export const check = (name: string, status: CheckStatus, subject: string, reason: string): Check => ({
  check: name,
  status,
  subject,
  reason,
});

/**
 * The verdict of a lineage's checks: a failure fails it; a skip, or no block checked on chain, leaves it not
 * verifiable.
 */
export function lineageVerdict(checks: readonly Check[]): Pick<LineageReport, 'verdict' | 'reason'> {
  const describe = (c: Check) => `${c.check} (${c.subject}): ${c.reason}`;
  const failed = checks.find((c) => c.status === 'fail');
  if (failed !== undefined) return { verdict: 'fail', reason: describe(failed) };
  const skipped = checks.find((c) => c.status === 'skipped');
  if (skipped !== undefined) return { verdict: 'not_verifiable', reason: describe(skipped) };
  if (!checks.some((c) => c.check === 'block.header_hash' && c.status === 'pass'))
    return {
      verdict: 'not_verifiable',
      reason: 'no block was checked on chain: the lineage has no genesis log whose block could be verified',
    };
  return { verdict: 'pass', reason: null };
}
