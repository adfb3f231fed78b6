/**
 * The command line's exit statuses, each defined once. A verdict is 0 (every claim held), 1 (a claim of the input is
 * false) or 2 (bad input, or nothing could be verified); 3 is a fault of the program itself, never confused with a
 * verdict; 130 and 141 are what a shell reports for a process ended by Ctrl-C and by a closed pipe. Commands whose
 * outcomes are only these return them as numbers.
 */
import type { EvidenceRefusal } from 'evm-integrity';

/** `verify`'s and `prove receipt`'s verdicts (the endpoint's `verdict`), as exit statuses. */
export const VERDICT_EXIT = { identical: 0, different: 1, invalid: 2, not_verifiable: 2 } as const;

/**
 * The exit status of many verdicts together (`verify block FILE…`'s files, an audit's blocks): 1 when any is a finding
 * (a false claim, a failed check), whatever the others gave, so that a finding is never hidden behind an input that gave
 * no verdict; else 2 when any gave none (refused, not verifiable, not reached); else 0.
 */
export function exitOfVerdicts(count: { findings: number; withoutVerdict: number }): number {
  if (count.findings > 0) return VERDICT_EXIT.different;
  return count.withoutVerdict > 0 ? VERDICT_EXIT.not_verifiable : VERDICT_EXIT.identical;
}

/** `evidence add|capture`'s refusal: 1 for a block that does not reproduce (a verdict), 2 for input that cannot be tried. */
export const EVIDENCE_EXIT: Record<EvidenceRefusal['kind'], number> = { not_reproduced: 1, invalid: 2, cannot_try: 2 };

/** A lineage's verdict, as an exit status. */
export const LINEAGE_EXIT = { pass: 0, fail: 1, not_verifiable: 2 } as const;

/** A fault of the program itself (a bug). */
export const EXIT_FAULT = 3;

/** After Ctrl-C, as a shell reports a process stopped by SIGINT. */
export const EXIT_INTERRUPTED = 130;

/**
 * When standard output cannot be written (a full disk, a file size limit): as for an `--out` FILE that cannot be
 * written, no verdict, since none reached its reader.
 */
export const EXIT_OUTPUT_FAILED = 2;

/** When the reader of standard output stops early (`… | head`), as a shell reports a process killed by SIGPIPE. */
export const EXIT_PIPE_CLOSED = 141;
