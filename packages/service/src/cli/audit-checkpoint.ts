/**
 * The checkpoint of `audit --out FILE --resume` is the output file itself: each line is written
 * whole with one write, so after a Ctrl-C, a SIGKILL or an outage the file holds every block
 * audited, in order, and at most one torn line. Resuming cuts the file after its last audited
 * block line (dropping a torn line, a summary, unreachable blocks and a reorg line whose blocks
 * were not re-audited yet) and continues at the next block, linked to that block's hash.
 */
import { readFileSync, truncateSync } from 'node:fs';
import type { AuditEvent, BlockAudit } from 'evm-integrity/audit';
import { UsageError } from './io.js';

/** The first line of an audit's output: which audit the lines belong to. */
export interface AuditHeader {
  audit: { chain_id: number; from: number; to: number };
}

export interface Checkpoint {
  /** The lines kept, header excluded, for the summary. */
  events: AuditEvent[];
  /** The next block to audit and the hash it must link to (undefined: the range's own anchor). */
  next: number;
  anchor: string | undefined;
}

const isBlockLine = (line: unknown): line is BlockAudit => typeof line === 'object' && line !== null && 'block_number' in line && 'verdict' in line;

/** Reads `file` as the output of the audit `header` describes, cuts it after its last audited block, and says where to go on. */
export function resumeFrom(file: string, header: AuditHeader): Checkpoint {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], next: header.audit.from, anchor: undefined };
    throw new UsageError(`--resume cannot read ${file}: ${(error as Error).message}`);
  }
  const lines: Array<{ value: unknown; end: number }> = [];
  let at = 0;
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', at)) {
    try {
      lines.push({ value: JSON.parse(text.slice(at, newline)), end: newline + 1 });
    } catch {
      throw new UsageError(`--resume: line ${lines.length + 1} of ${file} is not JSON; is it the output of an audit?`);
    }
    at = newline + 1;
  }
  const first = lines[0]?.value as Partial<AuditHeader> | undefined;
  const expected = JSON.stringify(header.audit);
  if (first !== undefined && JSON.stringify(first.audit) !== expected)
    throw new UsageError(`--resume: ${file} is the output of another audit (${JSON.stringify(first.audit ?? first)}), not of ${expected}`);
  let last = -1;
  lines.forEach(({ value }, i) => {
    if (isBlockLine(value) && value.verdict !== 'unreachable') last = i;
  });
  const kept = lines.slice(1, last + 1).map((l) => l.value as AuditEvent);
  const cut = last === -1 ? (lines[0]?.end ?? 0) : lines[last]!.end;
  truncateSync(file, Buffer.byteLength(text.slice(0, cut), 'utf8'));
  if (last === -1) return { events: [], next: header.audit.from, anchor: undefined };
  const block = lines[last]!.value as BlockAudit;
  return { events: kept, next: block.block_number + 1, anchor: block.block_hash ?? undefined };
}
