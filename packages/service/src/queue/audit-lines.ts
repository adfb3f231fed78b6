/**
 * The NDJSON lines of an audit, one formatting for both ways an audit runs: `evm-integrity audit`
 * writes them as it goes, and the queue's workers store them for `audit-export` to write.
 *
 * Each line written after the header carries a `digest` that chains it to every line before it:
 * sha256 of the previous line's digest (the first line's: sha256 of the header), a newline, and the
 * line without its digest as canonical JSON (members sorted by name, no whitespace). The digest binds
 * the content, not the text, so the queue's export (whose stored lines come back with their members
 * reordered) has the same digests as a single machine's audit. It is not keyed: it catches an edit,
 * a deleted, reordered or repeated line by anyone who does not compute the chain again, not a forger
 * who does (docs/audit.md, "Resume").
 */
import { createHash } from 'node:crypto';
import type { AuditEvent, AuditSummary } from 'evm-integrity/audit';

/** How a parent_link failure of the audit's block `--from` names the hash it must link to, both ways. */
export const HEAD_HASH_NAME = 'the --head-hash given';

/** The first line: which audit the lines belong to, without its newline. */
export function formatHeaderLine(header: { audit: object }): string {
  return JSON.stringify(header);
}

/** A block's or a reorg's line as the queue stores it (without digest: the chain is made at export), no newline. */
export function formatAuditLine(event: AuditEvent): string {
  return JSON.stringify(event);
}

/** JSON with the members of each object sorted by name and no whitespace: one text for one content. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item ?? null)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonical(member)}`).join(',')}}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The digest the line after the header starts the chain from. */
export const headerDigest = (header: { audit: object }): string => sha256(canonical(header));

/** The digest of a line whose content (without its `digest` member) is `content`, after a line of digest `previous`. */
export const lineDigest = (previous: string, content: object): string => sha256(`${previous}\n${canonical(content)}`);

/** Writes the lines after the header, each with its digest chained to the line before. */
export class ChainedLines {
  /** Chains on from `previous`: the header's digest, or a checkpoint's last line's. */
  constructor(private previous: string) {}

  /** The line of `content` with its digest, without its newline. */
  line(content: AuditEvent | { summary: AuditSummary }): string {
    this.previous = lineDigest(this.previous, content);
    return JSON.stringify({ ...content, digest: this.previous });
  }
}
