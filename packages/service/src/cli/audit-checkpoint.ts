/**
 * The checkpoint of `audit --out FILE --resume` is the output file itself: each line is written
 * whole with one write, so after a Ctrl-C, a SIGKILL or an outage the file holds every block
 * audited, in order, and at most one torn line. Resuming cuts the file after its last audited
 * block line (dropping a torn line, a summary, unreachable blocks and a reorg line whose blocks
 * were not re-audited yet) and continues at the next block, linked to that block's hash.
 *
 * The file is read a chunk at a time and its lines handed on one by one, never held whole: the
 * output of a chain's history (millions of lines, gigabytes) resumes in constant memory.
 */
import { closeSync, openSync, readSync, truncateSync } from 'node:fs';
import type { AuditEvent, BlockAudit } from 'evm-integrity/audit';
import { InputError, readFailure } from './io.js';

/** The first line of an audit's output: which audit the lines belong to (chain, range, and the anchors given). */
export interface AuditHeader {
  audit: { chain_id: number; from: number; to: number; head_hash?: string; anchors?: Record<string, string> };
}

export interface Checkpoint {
  /** The next block to audit. */
  next: number;
  /**
   * The hash of the last block audited, which block `next` must link to (null: it gave none); unset when no block was
   * audited.
   */
  lastHash?: string | null;
  /** The file holds the header line, which the resumed audit must not write again. */
  headerKept: boolean;
}

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

const isBlockLine = (line: unknown): line is BlockAudit =>
  typeof line === 'object' && line !== null && 'block_number' in line && 'verdict' in line;

/**
 * Each complete line of `fd` (without its newline) and the byte offset just after it; a last line without a newline is
 * left out.
 */
function* linesOf(fd: number): Generator<{ text: string; end: number }> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry = Buffer.alloc(0);
  let offset = 0; // of carry's first byte in the file
  for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
    const bytes = carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carry, chunk.subarray(0, read)]);
    let start = 0;
    for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
      yield { text: bytes.toString('utf8', start, newline), end: offset + newline + 1 };
      start = newline + 1;
    }
    carry = Buffer.from(bytes.subarray(start)); // a copy: the chunk is reused
    offset += start;
  }
}

/**
 * Reads `file` as the output of the audit `header` describes, hands each line kept to `onEvent`
 * (header excluded), cuts the file after its last audited block, and says where to go on.
 */
export function resumeFrom(file: string, header: AuditHeader, onEvent: (event: AuditEvent) => void): Checkpoint {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { next: header.audit.from, headerKept: false };
    throw new InputError(`--resume cannot read ${file}: ${readFailure(error)}`);
  }
  const expected = JSON.stringify(header.audit);
  let cut = 0;
  let last: BlockAudit | undefined;
  // Lines after the last audited block (a reorg line, an unreachable block): kept only if an audited block follows.
  let pending: AuditEvent[] = [];
  try {
    let n = 0;
    for (const { text, end } of linesOf(fd)) {
      n++;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new InputError(`--resume: line ${n} of ${file} is not JSON; is it the output of an audit?`);
      }
      if (n === 1) {
        const found = (value as Partial<AuditHeader>).audit;
        if (JSON.stringify(found) !== expected)
          throw new InputError(
            `--resume: ${file} is the output of another audit (${JSON.stringify(found ?? value)}), not of ${expected}`,
          );
        cut = end;
        continue;
      }
      if ((value as { summary?: unknown }).summary !== undefined) continue;
      if (isBlockLine(value) && value.verdict !== 'unreachable') {
        for (const event of pending) onEvent(event);
        pending = [];
        onEvent(value);
        last = value;
        cut = end;
      } else pending.push(value as AuditEvent);
    }
  } finally {
    closeSync(fd);
  }
  truncateSync(file, cut);
  const headerKept = cut > 0;
  if (last === undefined) return { next: header.audit.from, headerKept };
  return { next: last.block_number + 1, lastHash: last.block_hash, headerKept };
}
