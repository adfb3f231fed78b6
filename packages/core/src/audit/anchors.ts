/**
 * What the anchors of a range audit prove. A block's hash commits to its parent's hash, and so to
 * every block before it, never to one after. An anchor (`--anchor N:HASH`, `--tail-hash`: a hash
 * the user holds for block N from elsewhere) therefore proves block N and, through the unbroken
 * parent links of passing blocks, the blocks before it back to the first break. The head hash
 * (`--head-hash`) ties block `from` to a known block before the range: continuity, which proves
 * nothing about the range itself, since a forged block can name any parent.
 *
 * Without an anchor, passing blocks are consistent (each hashes to its hash, reproduces its
 * commitments, and links to the one before), not authentic: a node could serve a whole forged
 * chain that is consistent in itself.
 */
import { SUPERSEDE_WINDOW, type AuditVerdict } from './vocabulary.js';

/** What the tally reads of an audit's line: a block's number, hash and verdict, or the blocks a reorg replaced. */
type Line =
  | { block_number: number; block_hash: string | null; verdict: AuditVerdict }
  | { reorg: { replaced: ReadonlyArray<{ block_number: number }> } };

/** How much of the range its anchors prove. */
export type Assurance = 'authentic' | 'partly_authentic' | 'consistent';

/** The anchors of an audit and what they prove, in the summary. */
export interface AnchoringSummary {
  /** The hash block `from` must link to (`--head-hash`), or null. */
  head_hash: string | null;
  /** Each anchor: its hash, and whether the block's hash is it (null: the audit has not reached it). */
  anchors: Array<{ block_number: number; hash: string; matches: boolean | null }>;
  /** The block ranges an anchor proves, inclusive, in order. */
  authenticated: Array<[number, number]>;
  authenticated_blocks: number;
  /** authentic: every block of the range is proven by an anchor; partly_authentic: some are; consistent: none is. */
  assurance: Assurance;
  /**
   * With an anchor proof (`--anchor-proof FILE --checkpoint ROOT`): the checkpoint that proves the anchors' hashes.
   * Absent otherwise: the anchors are hashes the user gave.
   */
  checkpoint?: string;
}

/** The anchors of a range: the head hash, and the hashes of blocks within it. */
export interface Anchoring {
  head?: string | null;
  anchors?: ReadonlyMap<number, string>;
  /** The checkpoint an anchor proof proved the anchors from, when they came from one. */
  checkpoint?: string;
}

/** Follows the audit's lines, in the order written, to tell which blocks an anchor proves. */
export class AnchorTally {
  private readonly anchors: ReadonlyMap<number, string>;
  /** First block of the current run of passing, linked blocks; null when the last block did not pass. */
  private runStart: number | null = null;
  private last: number | null = null;
  /**
   * For each of the last {@link SUPERSEDE_WINDOW} blocks, the first block of the run of passing, linked blocks it ends
   * (null: it did not pass). A reorg from block N on goes on from N - 1's run: the new block N links to N - 1, so an
   * anchor after it proves the blocks before N again, though a line it replaced had broken the run.
   */
  private readonly runStarts = new Map<number, number | null>();
  private readonly reached = new Map<number, boolean>();
  private proven: Array<[number, number]> = [];

  constructor(
    private readonly from: number,
    private readonly to: number,
    private readonly anchoring: Anchoring = {},
  ) {
    this.anchors = anchoring.anchors ?? new Map();
  }

  add(event: Line): void {
    if ('reorg' in event) {
      this.takeBack(Math.min(...event.reorg.replaced.map((r) => r.block_number)));
      return;
    }
    this.addBlock(event);
  }

  private addBlock(audit: Extract<Line, { verdict: AuditVerdict }>): void {
    const n = audit.block_number;
    const anchor = this.anchors.get(n);
    // A block the source gave no hash for (unreachable) is no block to compare: its anchor is not reached.
    if (anchor !== undefined && audit.block_hash !== null)
      this.reached.set(n, audit.block_hash === anchor.toLowerCase());
    if (audit.verdict !== 'pass') this.runStart = null;
    else if (this.runStart === null || this.last !== n - 1) this.runStart = n;
    this.last = n;
    this.runStarts.set(n, this.runStart);
    this.runStarts.delete(n - SUPERSEDE_WINDOW);
    if (anchor !== undefined && this.runStart !== null) this.prove(this.runStart, n);
  }

  private prove(first: number, last: number): void {
    const previous = this.proven.at(-1);
    if (previous !== undefined && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else this.proven.push([first, last]);
  }

  /**
   * A reorg from block `first` on: what was proven from there is taken back; the blocks before it stay linked, and the
   * run goes on from the one block `first - 1` ends (none where it failed, or is older than the window).
   */
  private takeBack(first: number): void {
    this.proven = this.proven.filter(([a]) => a < first).map(([a, b]) => [a, Math.min(b, first - 1)]);
    for (const n of this.reached.keys()) if (n >= first) this.reached.delete(n);
    for (const n of this.runStarts.keys()) if (n >= first) this.runStarts.delete(n);
    this.runStart = this.runStarts.get(first - 1) ?? null;
    this.last = first - 1;
  }

  summary(): AnchoringSummary {
    const authenticated = this.proven.map(([a, b]) => [a, b] as [number, number]);
    const count = authenticated.reduce((sum, [a, b]) => sum + b - a + 1, 0);
    const anchors = [...this.anchors].sort(([a], [b]) => a - b);
    return {
      head_hash: this.anchoring.head?.toLowerCase() ?? null,
      anchors: anchors.map(([n, hash]) => ({
        block_number: n,
        hash: hash.toLowerCase(),
        matches: this.reached.get(n) ?? null,
      })),
      authenticated,
      authenticated_blocks: count,
      assurance: count === this.to - this.from + 1 ? 'authentic' : count > 0 ? 'partly_authentic' : 'consistent',
      ...(this.anchoring.checkpoint !== undefined && { checkpoint: this.anchoring.checkpoint.toLowerCase() }),
    };
  }
}
