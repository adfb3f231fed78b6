/**
 * The NDJSON lines of an audit, one formatting for both ways an audit runs: `evm-integrity audit`
 * writes them as it goes, and the queue's workers store them for `audit-export` to write.
 */
import type { AuditEvent, AuditSummary } from 'evm-integrity/audit';

/** How a parent_link failure of the audit's block `--from` names the hash it must link to, both ways. */
export const HEAD_HASH_NAME = 'the --head-hash given';

/** The first line: which audit the lines belong to, without its newline. */
export function formatHeaderLine(header: { audit: object }): string {
  return JSON.stringify(header);
}

/** A block's or a reorg's line, without its newline. */
export function formatAuditLine(event: AuditEvent): string {
  return JSON.stringify(event);
}

/** The summary line, without its newline. */
export function formatSummaryLine(summary: AuditSummary): string {
  return JSON.stringify({ summary });
}
