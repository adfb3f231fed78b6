/** Outcome of one check: pass, fail, or skipped (with why: a skip is never a pass). */
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
  /** `fail` when any check failed; skipped checks do not fail a report, nor pass it. */
  verdict: 'pass' | 'fail';
  summary: { pass: number; fail: number; skipped: number };
  /** Warnings that do not fail a check, e.g. a block-wide log_index. */
  warnings: string[];
  records: RecordReport[];
}

export const check = (name: string, status: CheckStatus, subject: string, reason: string): Check => ({ check: name, status, subject, reason });
