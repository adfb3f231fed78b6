/**
 * The checkpoint of `audit --out FILE --resume` is the output file itself: each line is written
 * whole with one write, so after a Ctrl-C, a SIGKILL or an outage the file holds every block
 * audited, in order, and at most one torn line. Resuming cuts the file after its last audited
 * block line before any unreachable block (dropping a torn line, a summary, unreachable blocks and
 * the lines after them, and a reorg line whose blocks were not re-audited yet) and continues at the
 * next block, linked to that block's hash.
 *
 * A line is taken on trust only while its digest chains to the lines before it and its block is the
 * next in the engine's order: from the first line that fails either (an edit, a deleted, moved or
 * repeated line, a file written before the lines had digests), the file is cut and the blocks are
 * audited again. Never a verdict the chain does not bind, nor a gap left unaudited.
 *
 * The file is read a chunk at a time and its lines handed on one by one, never held whole: the
 * output of a chain's history (millions of lines, gigabytes) resumes in constant memory.
 */
import { closeSync, openSync, readSync, truncateSync } from 'node:fs';
import {
  DEFAULT_MAX_REORG_DEPTH,
  vouchedHash,
  type AuditEvent,
  type AuditReorg,
  type BlockAudit,
} from 'evm-integrity/audit';
import type { RuleSetName } from 'evm-integrity';
import { formatHeaderLine, headerDigest, lineDigest } from '../../queue/audit-lines.js';
import { InputError } from '../io/usage-error.js';
import { readFailure } from '../../files/file-failures.js';

/**
 * The first line of an audit's output: which audit the lines belong to (chain, range, the anchors given), and what
 * its verdicts were made under.
 */
export interface AuditHeader {
  audit: {
    chain_id: number;
    /**
     * A chain outside the registry: the rule set `--add-chain` gives it (null: none, its blocks not verifiable). Absent
     * for a registry chain, whose rules are the registry's.
     */
    rules?: RuleSetName | null;
    from: number;
    to: number;
    head_hash?: string;
    anchors?: Record<string, string>;
    /** The checkpoint an anchor proof proved the anchors from (`--anchor-proof`, `--checkpoint`). */
    checkpoint?: string;
    /**
     * The hosted service's datasets are cross-checked (`--service`, or a recording of such an audit): a run without
     * them resumed with them, or the other way, would give verdicts of two kinds of audit in one file.
     */
    service_datasets?: true;
    /** The blocks of this chain operators vouched for (`--evidence`), by number: their hashes. */
    evidence?: Record<string, string>;
    /** Evidence learned from the anchors (`--learn-evidence`), which the anchors above decide. */
    learn_evidence?: true;
  };
}

export interface Checkpoint {
  /** The next block to audit. */
  next: number;
  /**
   * The hash of the last block audited, which block `next` must link to (null: it gave none); unset when no block was
   * audited.
   */
  lastHash?: string | null;
  /**
   * The hashes of the last blocks kept (the last line of each, where nothing in it refutes the hash: vouchedHash), as
   * many as the engine follows a reorg back: a reorg met at block `next` is followed back into them, as within a run.
   */
  hashes: Map<number, string>;
  /** The file holds the header line, which the resumed audit must not write again. */
  headerKept: boolean;
  /** The digest of the last line kept (the header's when none is), which the next line's chains on from. */
  digest: string;
  /** The first line not taken on trust, and why: it and the lines after it were cut off, their blocks to audit again. */
  dropped?: { line: number; why: string };
}

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

const isBlockLine = (line: unknown): line is BlockAudit =>
  typeof line === 'object' && line !== null && 'block_number' in line && 'verdict' in line;

/**
 * Each complete line of `fd` (without its newline) and the byte offset just after it, then a last line without a
 * newline (a torn one) as its bytes alone.
 */
function* linesOf(fd: number): Generator<{ text: string; end: number } | { torn: Buffer }> {
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
  if (carry.length > 0) yield { torn: carry };
}

/**
 * Follows the lines after the header as the audit writes them: each line's digest chained to the line before, and
 * the block numbers in the order the engine audits them (each block once, then after a reorg line the blocks it
 * replaced again; nothing after the summary).
 */
class LineOrder {
  private next: number;
  private ended = false;

  constructor(
    private readonly header: AuditHeader,
    /** The digest of the last line that held. */
    public digest: string,
  ) {
    this.next = header.audit.from;
  }

  /** The line's content without its digest when it holds, else why not. */
  take(value: unknown): { content: Record<string, unknown> } | { why: string } {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { why: 'is not an object' };
    const { digest, ...content } = value as { digest?: unknown };
    if (digest === undefined) return { why: 'has no digest (written before the lines carried one, or edited)' };
    if (digest !== lineDigest(this.digest, content)) return { why: 'does not match its digest (the file was edited)' };
    const why = this.follows(content);
    if (why !== null) return { why };
    this.digest = digest;
    return { content };
  }

  /** Whether `content` may come next, and where the audit goes on after it. */
  private follows(content: Record<string, unknown>): string | null {
    if (this.ended) return 'follows the last line of the audit';
    if ('summary' in content) {
      this.ended = true;
      return null;
    }
    const { from, to } = this.header.audit;
    if ('reorg' in content) {
      const reorg = content.reorg as AuditReorg['reorg'];
      const replaced = Array.isArray(reorg?.replaced) ? reorg.replaced.map((r) => r?.block_number) : [];
      const first = this.next - replaced.length;
      const linked = replaced.every((n, i) => n === first + i);
      if (reorg?.detected_at !== this.next || replaced.length === 0 || !linked || first < from)
        return `is not a reorg of the blocks before block ${this.next}`;
      this.next = first;
      return null;
    }
    if (!isBlockLine(content)) return 'is neither a block, a reorg nor the summary';
    if (content.block_number !== this.next || this.next > to) return `is not the line of block ${this.next}`;
    this.next++;
    return null;
  }
}

/** How a refusal names the rule set of an added chain: the `--add-chain` that gave it, or none. */
const underRules = (chainId: number, rules: RuleSetName | null | undefined) =>
  rules == null ? 'without --add-chain' : `under --add-chain ${chainId}:${rules}`;

/** How a refusal names the evidence an audit stood on. */
const withEvidence = (evidence: Record<string, string> | undefined) =>
  evidence === undefined ? 'without --evidence' : `with --evidence of blocks ${JSON.stringify(evidence)}`;

/** A file whose header lacks a member may be of a version whose header did not record it. */
const OR_EARLIER = ' (or written by an earlier version, whose header line did not record it)';

/**
 * Why `file`, whose first line holds `found`, is not the output of the audit `header` describes. Where only what the
 * verdicts were made under differs (rules, evidence, datasets), the refusal names the flag and both: a resume under
 * other ones would count verdicts of two audits as one.
 */
function anotherAudit(file: string, found: unknown, header: AuditHeader): string {
  const { service_datasets: datasets, rules, evidence, learn_evidence: learn, ...rest } = header.audit;
  const held = (found ?? {}) as AuditHeader['audit'];
  const {
    service_datasets: heldDatasets,
    rules: heldRules,
    evidence: heldEvidence,
    learn_evidence: heldLearn,
    ...heldRest
  } = held;
  const another = `--resume: ${file} is the output of another audit (${JSON.stringify(found)}), not of ${JSON.stringify(header.audit)}`;
  if (JSON.stringify(heldRest) !== JSON.stringify(rest)) return another;
  const chainId = rest.chain_id;
  if (rules !== undefined && !('rules' in held))
    return `--resume: ${file} was written by an earlier version, whose header line does not record the rule set of chain ${chainId} (--add-chain), so the rules its verdicts were made under are unknown: audit the range to another file`;
  if (heldRules !== rules) {
    const wanted = heldRules === null ? 'give no --add-chain' : `give --add-chain ${chainId}:${heldRules}`;
    return `--resume: ${file} was audited ${underRules(chainId, heldRules)}, not ${underRules(chainId, rules)} as this run is: ${wanted} to resume it, or audit to another file`;
  }
  if (JSON.stringify(heldEvidence) !== JSON.stringify(evidence)) {
    const wanted =
      heldEvidence === undefined
        ? `leave out --evidence (or its blocks of chain ${chainId})`
        : 'give the same evidence';
    return `--resume: ${file} was audited ${withEvidence(heldEvidence)}, not ${withEvidence(evidence)} as this run is${heldEvidence === undefined ? OR_EARLIER : ''}: ${wanted} to resume it, or audit to another file`;
  }
  if (heldLearn !== learn)
    return heldLearn
      ? `--resume: ${file} was audited with --learn-evidence, not without it as this run is: give --learn-evidence to resume it, or audit to another file`
      : `--resume: ${file} was audited without --learn-evidence, not with it as this run is${OR_EARLIER}: leave out --learn-evidence to resume it, or audit to another file`;
  if (heldDatasets === datasets) return another;
  return heldDatasets
    ? `--resume: ${file} is the output of an audit that cross-checked the service's datasets (--service, or a recording of one); resume it with them`
    : `--resume: ${file} is the output of an audit without the service's datasets, or of one written before the header line said so (an earlier version); resume it as it was run, or audit to another file`;
}

/**
 * Reads `file` as the output of the audit `header` describes, hands each line kept to `onEvent`
 * (header excluded), cuts the file after its last audited block, and says where to go on. The
 * lines are kept up to the first that does not hold ({@link LineOrder}): from that line on, the
 * file is cut and its blocks are audited again.
 */
export function resumeFrom(file: string, header: AuditHeader, onEvent: (event: AuditEvent) => void): Checkpoint {
  const start = headerDigest(header);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { next: header.audit.from, headerKept: false, digest: start, hashes: new Map() };
    throw new InputError(`--resume cannot read ${file}: ${readFailure(error)}`);
  }
  const expected = JSON.stringify(header.audit);
  const order = new LineOrder(header, start);
  let cut = 0;
  let digest = start;
  let last: BlockAudit | undefined;
  const hashes = new Map<number, string>();
  let dropped: Checkpoint['dropped'];
  // Reorg lines after the last audited block: kept only if an audited block follows.
  let pending: AuditEvent[] = [];
  try {
    let n = 0;
    for (const line of linesOf(fd)) {
      n++;
      if ('torn' in line) {
        // A torn header is cut as any torn line; text that is not the start of this audit's header is no output of it
        // (a file of another kind ends without a newline), and is kept.
        if (n === 1 && !line.torn.equals(Buffer.from(formatHeaderLine(header)).subarray(0, line.torn.length)))
          throw new InputError(
            `--resume: ${file} holds no whole line, and what it holds is not the start of this audit's header line; is it the output of an audit?`,
          );
        break;
      }
      const { text, end } = line;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (n === 1) throw new InputError(`--resume: line ${n} of ${file} is not JSON; is it the output of an audit?`);
        dropped = { line: n, why: 'is not JSON' };
        break;
      }
      if (n === 1) {
        const found = (value as Partial<AuditHeader>).audit;
        if (JSON.stringify(found) !== expected) throw new InputError(anotherAudit(file, found ?? value, header));
        cut = end;
        continue;
      }
      const taken = order.take(value);
      if ('why' in taken) {
        dropped = { line: n, why: taken.why };
        break;
      }
      if ('summary' in taken.content) continue;
      const event = taken.content as unknown as AuditEvent;
      // The audit stopped at an unreachable block; a chunk whose cross-check was unreachable has several, and the
      // lines between them are not final either: the resume audits from the first.
      if (isBlockLine(event) && event.verdict === 'unreachable') break;
      if (isBlockLine(event)) {
        for (const earlier of pending) onEvent(earlier);
        pending = [];
        onEvent(event);
        last = event;
        hashes.delete(event.block_number);
        const hash = vouchedHash(event);
        if (hash !== null) hashes.set(event.block_number, hash);
        // The block before the deepest one a reorg replaces is linked to: one more than the depth.
        for (const [number] of hashes) if (hashes.size > DEFAULT_MAX_REORG_DEPTH + 1) hashes.delete(number);
        cut = end;
        digest = order.digest;
      } else pending.push(event);
    }
  } finally {
    closeSync(fd);
  }
  truncateSync(file, cut);
  // A block past the last kept one is an old version, from before a reorg whose blocks were not all audited again.
  for (const [number] of hashes) if (last === undefined || number > last.block_number) hashes.delete(number);
  const kept = { headerKept: cut > 0, digest, hashes, ...(dropped && { dropped }) };
  if (last === undefined) return { next: header.audit.from, ...kept };
  return { next: last.block_number + 1, lastHash: last.block_hash, ...kept };
}
