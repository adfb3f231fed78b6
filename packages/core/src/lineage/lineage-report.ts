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
   * `fail` when any check failed; else `not_verifiable` when a check was skipped (among them a
   * field held to the chain by nothing checked, such as one that rests only on a function result),
   * or when a record had no block checked on chain; else `pass`: every check ran and passed, every
   * field of every record is held to the chain. It covers every record walked: a record inherits
   * its parents' verdicts.
   */
  verdict: 'pass' | 'fail' | 'not_verifiable';
  /**
   * Why the verdict is not `pass`: the first failed or skipped check, or that no block was checked; null for a pass.
   */
  reason: string | null;
  /**
   * What the blocks of the genesis logs are, beside the verdict: `authentic` when an anchor proof proves the hash of
   * every block checked on chain (they are the chain's), `partly_authentic` when it proves some, `consistent` when it
   * proves none or none was given: each block hashes to its hash and reproduces its commitments, but its hash is the
   * source's word (a bundle's, a node's), and a source could give a forged block consistent in itself.
   */
  assurance: LineageAssurance;
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
 * The verdict of a lineage's records: a failure fails it; a skip leaves it not verifiable, and so does a record none
 * of whose genesis logs was checked on chain: its claims would stand on its artifacts alone (a function result is
 * checked only against itself), however well its parents are held to the chain.
 */
export function lineageVerdict(records: readonly RecordReport[]): Pick<LineageReport, 'verdict' | 'reason'> {
  const checks = records.flatMap((r) => r.checks);
  const describe = (c: Check) => `${c.check} (${c.subject}): ${c.reason}`;
  const failed = checks.find((c) => c.status === 'fail');
  if (failed !== undefined) return { verdict: 'fail', reason: describe(failed) };
  const skipped = checks.find((c) => c.status === 'skipped');
  if (skipped !== undefined) return { verdict: 'not_verifiable', reason: describe(skipped) };
  const unheld = records.find((r) => !r.checks.some((c) => c.check === 'block.header_hash' && c.status === 'pass'));
  if (unheld !== undefined)
    return {
      verdict: 'not_verifiable',
      reason: `no block was checked on chain for record ${unheld.tracing_id}: it has no genesis log whose block could be verified, so nothing it claims is held to the chain`,
    };
  return { verdict: 'pass', reason: null };
}

/** How far the blocks of a lineage are the chain's ({@link LineageReport.assurance}). */
export type LineageAssurance = 'authentic' | 'partly_authentic' | 'consistent';

/**
 * The assurance of a lineage's records: of the blocks checked on chain (`block.header_hash` passed), how many an anchor
 * proof proved (`block.anchor` passed).
 */
export function lineageAssurance(records: readonly RecordReport[]): LineageAssurance {
  const blocks = (name: string) =>
    new Set(
      records.flatMap((r) => r.checks.filter((c) => c.check === name && c.status === 'pass').map((c) => c.subject)),
    );
  const checked = blocks('block.header_hash');
  const anchored = [...blocks('block.anchor')].filter((subject) => checked.has(subject)).length;
  if (anchored === 0) return 'consistent';
  return anchored === checked.size ? 'authentic' : 'partly_authentic';
}
