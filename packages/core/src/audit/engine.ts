/**
 * `auditRange`: audits every block of a range from a block source, in block order, and sums it up.
 * Fetching runs ahead of verification within a bounded window; the range is cut into chunks (the
 * unit a cross-check sees, and the unit a job queue would hand out); a parent hash that no longer
 * links is told apart as a reorg or a broken link by asking the source again.
 */
import { ChainMismatchError, SourceError } from '../errors.js';
import { checkChainId, checkWholeNumber } from '../chains/chain-arguments.js';
import { auditAnchors, auditHash } from './audit-arguments.js';
import { notTheBlockAsked, withChainAsked, type BlockJson, type BlockSource } from '../sources/block-source.js';
import type { Result } from '../result.js';
import { inlineBlockVerifier, type BlockVerifier } from '../verify/block-verifier.js';
import type { BlockRefusal, BlockReport } from '../verify/verify-block.js';
import { hashOf, judgeBlock, parentHashOf, vouchedHash, type ExpectedParent } from './block-checks.js';
import { Prefetcher, settle, type Fetched } from './prefetch.js';
import {
  AuditTally,
  type AuditEvent,
  type AuditSummary,
  type AuditTimings,
  type BlockAudit,
  type ReplacedBlock,
} from './audit-report.js';
import type { BlockTruth, CrossCheck, CrossCheckFindings } from './vocabulary.js';

export interface AuditRangeOptions {
  source: BlockSource;
  chainId: number;
  /** First and last block of the range, inclusive. */
  from: number;
  to: number;
  /**
   * Blocks fetched at once and held ahead of the audit (default 4); a function is asked again as blocks are taken (a
   * node's window, which follows its batches' size: nodeFetching).
   */
  concurrency?: number | (() => number);
  /**
   * Stops the audit between blocks, or at a block whose fetch it cuts short (a source given the same signal), without
   * a line for that block; the events so far are complete, the summary says where it stopped.
   */
  signal?: AbortSignal;
  /**
   * The hash block `from` must link to (`--head-hash`, or the last hash of a checkpoint); null when
   * the block before `from` gave no hash, so that the link cannot be checked.
   */
  anchor?: string | null;
  /**
   * How a parent_link failure of block `from` names `anchor`, e.g. `the --head-hash given` (default: the hash of the
   * block audited before it, as for every other block: right when `anchor` is the last hash of an earlier run).
   */
  anchorName?: string;
  /**
   * Hashes blocks of the range must have (`--anchor N:HASH`, `--tail-hash`): a hash proves its block and, linked, those
   * before it.
   */
  anchors?: ReadonlyMap<number, string>;
  /** Another copy of the chain's data, checked once per chunk. */
  crossCheck?: CrossCheck;
  verify?: BlockVerifier;
  /** Blocks of a chunk (default 100); chunks are aligned to multiples of it, so their ids do not depend on `from`. */
  chunkSize?: number;
  /**
   * How many blocks back a reorg is followed (default {@link DEFAULT_MAX_REORG_DEPTH}, 64); deeper, the first block that still does not link fails
   * parent_link.
   */
  maxReorgDepth?: number;
  /**
   * The blocks an earlier run of this range audited, when this run goes on after them (a resumed audit): the range's
   * first block `from`, the hash its parent had to have and how a failure names it, and the hashes of its last blocks
   * (at least maxReorgDepth of them). A reorg met at this run's first block or after is followed back into them, as
   * into the blocks this run audited; without them it could not be told from a broken link there.
   */
  earlier?: EarlierRun;
  /** A clock in milliseconds (default `performance.now`). */
  now?: () => number;
}

/** What {@link AuditRangeOptions.earlier} tells of the run a resumed audit goes on from. */
export interface EarlierRun {
  from: number;
  anchor: string | null | undefined;
  anchorName?: string;
  /** Block number to hash, of the last blocks it audited (the last line of each). */
  hashes: ReadonlyMap<number, string>;
}

const inlineVerify = inlineBlockVerifier();

/** How many blocks back a reorg is followed unless {@link AuditRangeOptions.maxReorgDepth} says otherwise. */
export const DEFAULT_MAX_REORG_DEPTH = 64;

/**
 * Why a fetch gave no block, or not the block asked for, for an `unreachable` verdict; a source of another chain stops
 * the audit (a mistake, not an outage); so does a block of another chain, and one of another number is not the block
 * asked for (notTheBlockAsked).
 */
function unreachableReason(fetched: Fetched, number: number, chainId: number): string | null {
  if (!fetched.ok && fetched.error instanceof ChainMismatchError) throw fetched.error;
  if (!fetched.ok) return fetched.error instanceof Error ? fetched.error.message : String(fetched.error);
  if (fetched.block === null) return `the source does not have block ${number}`;
  return notTheBlockAsked(fetched.block, chainId, number);
}

/** An earlier run's hash as the audit compares it, lower case as `anchor` is read; null or undefined as given. */
const lowerHash = <T extends string | null | undefined>(hash: T): T => (hash?.toLowerCase() ?? hash) as T;

/**
 * A run of {@link auditRange}: iterate it for the lines; `summary()` once it is done (or at any point, for progress).
 */
export class RangeAudit implements AsyncIterable<AuditEvent> {
  private readonly tally: AuditTally;
  private readonly timings: AuditTimings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
  private readonly now: () => number;
  private readonly verify: BlockVerifier;
  private readonly chunkSize: number;
  private readonly maxReorgDepth: number;
  /** The options' source, its blocks that name no chain named as the chain asked for (withChainAsked). */
  private readonly source: BlockSource;
  /** Hashes of the blocks audited lately (by an earlier run too), for following a reorg back. */
  private readonly recent: Map<number, string>;
  /** The first block of the range, which a reorg is never followed back past, with its parent's hash and name. */
  private readonly floor: { from: number; anchor: string | null | undefined; anchorName: string | undefined };
  private audited = 0;
  private started = false;
  /** See {@link unsettledFrom}. */
  private unsettled: number | null = null;
  /**
   * With an injected verifier (a worker pool), each block's verification is started as soon as the
   * block arrives, so that the blocks of the fetch window verify in parallel while the audit judges
   * them in order. Inline verification stays lazy: started early it would only run sooner on the
   * same thread.
   */
  private readonly verifying = new WeakMap<BlockJson, Promise<Result<BlockReport, BlockRefusal>>>();

  private readonly options: AuditRangeOptions;

  /**
   * @throws TypeError or RangeError naming `chainId`, `from`, `to`, `anchor` or `anchors` where one is not what its
   * type says (a hash is text, with or without `0x`).
   */
  constructor(given: AuditRangeOptions) {
    const { chainId, from, to } = given;
    checkChainId(chainId, 'chainId');
    checkWholeNumber(from, 'from');
    checkWholeNumber(to, 'to');
    if (to < from) throw new RangeError(`to must be a block number at or after from (${from}), got ${to}`);
    const options = (this.options = {
      ...given,
      ...(given.anchor !== undefined && given.anchor !== null && { anchor: auditHash(given.anchor, 'anchor') }),
      // A resumed run's range began at the earlier run's first block: an anchor it passed is of the range still.
      ...(given.anchors !== undefined && { anchors: auditAnchors(given.anchors, given.earlier?.from ?? from, to) }),
    });
    this.tally = new AuditTally(chainId, from, to, {
      head: options.anchor ?? null,
      ...(options.anchors && { anchors: options.anchors }),
    });
    this.now = options.now ?? (() => performance.now());
    this.verify = options.verify ?? inlineVerify;
    this.chunkSize = Math.max(1, options.chunkSize ?? 100);
    this.maxReorgDepth = Math.max(1, options.maxReorgDepth ?? DEFAULT_MAX_REORG_DEPTH);
    const { earlier } = options;
    this.source = {
      block: async (chain, number) => {
        const block = await options.source.block(chain, number);
        return block === null ? null : withChainAsked(block, chain);
      },
    };
    this.recent = new Map(earlier?.hashes);
    this.floor =
      earlier === undefined
        ? { from, anchor: options.anchor, anchorName: options.anchorName }
        : { from: earlier.from, anchor: earlier.anchor, anchorName: earlier.anchorName };
  }

  /** The summary of the lines so far and of this run's time. */
  summary(): AuditSummary {
    return this.tally.summary({ ...this.timings }, this.audited);
  }

  /**
   * Where the audit stopped while it was following a reorg back (the source could not give a block it asked again):
   * the first block whose line the reorg may have replaced, `maxReorgDepth` blocks before the block that did not link
   * (never before the range's first block). A run that goes on from this one without its hashes (`earlier`) must start
   * there, linked to the block before it: linked to the last block audited, which the reorg may have replaced, the
   * new chain's block fails `parent_link`. Null when the audit did not stop so.
   */
  unsettledFrom(): number | null {
    return this.unsettled;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<AuditEvent, AuditSummary, undefined> {
    if (this.started) throw new SourceError('a range audit runs once; call auditRange again');
    this.started = true;
    const start = this.now();
    try {
      for await (const event of this.events()) {
        this.tally.add(event);
        yield event;
      }
    } finally {
      this.timings.elapsed_ms = this.now() - start;
    }
    return this.summary();
  }

  private async timed<T>(
    what: 'fetching_ms' | 'verifying_ms' | 'cross_checking_ms',
    work: () => Promise<T>,
  ): Promise<T> {
    const t0 = this.now();
    try {
      return await work();
    } finally {
      this.timings[what] += this.now() - t0;
    }
  }

  /** Verifies and judges one block linked to `parent`, and remembers its hash. */
  private async auditBlock(
    number: number,
    block: BlockJson,
    parent: ExpectedParent,
  ): Promise<{ audit: BlockAudit; truth: BlockTruth }> {
    const started = this.verifying.get(block);
    this.verifying.delete(block);
    const verified = await this.timed('verifying_ms', () => started ?? this.verify(block));
    const anchor = this.options.anchors?.get(number);
    // The range's first block links to the anchor it was given, whatever reorg came before; this run's first, when an
    // earlier run audited the blocks before it, to the last of them, unless a reorg replaced that one: then to the
    // block audited before it, as any other block.
    const name =
      number === this.floor.from
        ? this.floor.anchorName
        : number === this.options.from && parent === this.options.anchor
          ? this.options.anchorName
          : undefined;
    const audit = judgeBlock(number, block, verified, {
      expectedParent: parent,
      ...(name && { expectedParentName: name }),
      ...(anchor !== undefined && { anchor }),
    });
    // A hash the block's own checks refute is no earlier chain to follow a reorg back into.
    const hash = vouchedHash(audit);
    if (hash !== null) this.recent.set(number, hash);
    else this.recent.delete(number);
    this.recent.delete(number - this.maxReorgDepth - 1);
    this.audited++;
    return {
      audit,
      truth: {
        chainId: this.options.chainId,
        number,
        block,
        report: verified.ok ? verified.value : null,
        ...(!verified.ok && verified.error.kind === 'invalid' && { refused: true }),
      },
    };
  }

  /**
   * Block `number`, whose parentHash is `parentHash`, does not link to the block audited before it. Asks the source for
   * that block again: the same hash is a broken link (null); another is a reorg, followed back while the new blocks do
   * not link to the ones audited, at most maxReorgDepth blocks and never before the range's first block. A block asked
   * again that has the hash audited ends the walk: it was not replaced, and the block after it, if its link is broken,
   * fails parent_link.
   */
  private async followReorg(number: number, parentHash: string | null): Promise<BlockJson[] | null> {
    const replacements: BlockJson[] = [];
    let linksTo = parentHash;
    for (let n = number - 1; n >= this.floor.from && replacements.length < this.maxReorgDepth; n--) {
      const audited = this.recent.get(n);
      if (audited === undefined || linksTo === audited) break;
      const now = await this.askAgain(n);
      if (hashOf(now) === audited) return n === number - 1 ? null : replacements;
      replacements.unshift(now);
      linksTo = parentHashOf(now);
    }
    return replacements;
  }

  /** Block `number` asked of the source again; a SourceError saying why where the source cannot give it. */
  private async askAgain(number: number): Promise<BlockJson> {
    const fetched = await this.timed('fetching_ms', () => settle(this.source, this.options.chainId, number));
    const reason = unreachableReason(fetched, number, this.options.chainId);
    if (reason !== null) throw new SourceError(reason);
    return (fetched as { block: BlockJson }).block;
  }

  /**
   * Block `number` (`block`, fetched ahead) does not link to the block audited before it (`parent`): the blocks a reorg
   * replaced, followed back ({@link followReorg}), and the block to audit at `number`. Where the block before it is
   * unchanged, `block` itself may be the stale one (fetched ahead of a reorg the node then made, or a side block it gave
   * once): asked again, another hash is the block to audit, its own link judged in turn. The same hash asks the block
   * before it once more (the node may have gone back meanwhile from a side chain it was on at the first question): another
   * hash there is a reorg, followed back; the same again is a broken link, which the block as first given fails
   * (parent_link).
   */
  private async judgeLink(
    number: number,
    block: BlockJson,
    parent: string,
  ): Promise<{ replacements: BlockJson[]; block: BlockJson }> {
    const replacements = await this.followReorg(number, parentHashOf(block));
    if (replacements !== null) return { replacements, block };
    const again = await this.askAgain(number);
    // The same hash: the first answer is judged, never healed by the second (a node that forged it once).
    if (hashOf(again) === hashOf(block))
      return { replacements: (await this.followReorg(number, parentHashOf(block))) ?? [], block };
    if (parentHashOf(again) === parent) return { replacements: [], block: again };
    return { replacements: (await this.followReorg(number, parentHashOf(again))) ?? [], block: again };
  }

  /**
   * The reorg line for the blocks before `number` that `replacements` replaced, and those blocks audited again; the
   * hash the block `number` must then link to.
   */
  private async replaceBlocks(
    number: number,
    replacements: BlockJson[],
  ): Promise<{ lines: Array<{ event: AuditEvent; truth?: BlockTruth }>; parent: ExpectedParent }> {
    const first = number - replacements.length;
    const replaced: ReplacedBlock[] = replacements.map((b, i) => ({
      block_number: first + i,
      old_hash: this.recent.get(first + i)!,
      new_hash: hashOf(b),
    }));
    const lines: Array<{ event: AuditEvent; truth?: BlockTruth }> = [
      { event: { reorg: { detected_at: number, depth: replaced.length, replaced } } },
    ];
    let parent: ExpectedParent =
      first === this.floor.from ? lowerHash(this.floor.anchor) : (this.recent.get(first - 1) ?? null);
    for (const [i, replacement] of replacements.entries()) {
      const { audit, truth } = await this.auditBlock(first + i, replacement, parent);
      parent = audit.block_hash;
      lines.push({ event: audit, truth });
    }
    return { lines, parent };
  }

  /** See {@link auditReorgBack}. */
  static async reorgBack(options: ReorgBackOptions): Promise<AuditEvent[]> {
    const run = new RangeAudit({ ...options, from: options.at, to: options.at });
    const replacements = await run.followReorg(options.at, options.parentHash);
    if (replacements === null || replacements.length === 0) return [];
    return (await run.replaceBlocks(options.at, replacements)).lines.map((l) => l.event);
  }

  /** The source, with each block's verification started when it arrives. */
  private verifiedOnArrival(source: BlockSource): BlockSource {
    return {
      block: async (chainId, number) => {
        const block = await source.block(chainId, number);
        if (block !== null) {
          const verified = this.verify(block);
          verified.catch(() => undefined); // awaited, and its failure seen, when the block is audited
          this.verifying.set(block, verified);
        }
        return block;
      },
    };
  }

  /** The lines of the audit; buffered per chunk when a cross-check must see the chunk first. */
  private async *events(): AsyncGenerator<AuditEvent> {
    const { source } = this;
    const { chainId, from, to, signal, crossCheck } = this.options;
    const prefetcher = new Prefetcher(
      this.options.verify === undefined ? source : this.verifiedOnArrival(source),
      chainId,
      from,
      to,
      this.options.concurrency ?? 4,
    );
    let parent: ExpectedParent = this.options.anchor;
    let chunk: Array<{ event: AuditEvent; truth?: BlockTruth }> = [];
    let crossCheckReached = true;
    /** The chunk's lines, cross-checked first when there is a cross-check. */
    const flush = async (): Promise<AuditEvent[]> => {
      if (crossCheck !== undefined && chunk.length > 0)
        crossCheckReached = await this.crossCheckChunk(crossCheck, chunk);
      const events = chunk.map((c) => c.event);
      chunk = [];
      return events;
    };
    /** Adds a line to the chunk; without a cross-check, the line is final at once. */
    const emit = async (event: AuditEvent, truth?: BlockTruth): Promise<AuditEvent[]> => {
      chunk.push({ event, ...(truth && { truth }) });
      return crossCheck === undefined ? flush() : [];
    };

    for (let number = from; number <= to; number++) {
      if (signal?.aborted || !crossCheckReached) break;
      const fetched = await this.timed('fetching_ms', () => prefetcher.take(number));
      let reason = unreachableReason(fetched, number, chainId);
      let block = fetched.ok ? fetched.block : null;
      let replacements: BlockJson[] = [];
      // Block `from` is followed back too when an earlier run audited the blocks before it.
      const linkedBack = number > from || this.recent.has(number - 1);
      if (reason === null && typeof parent === 'string' && linkedBack && parentHashOf(block!) !== parent) {
        try {
          ({ replacements, block } = await this.judgeLink(number, block!, parent));
        } catch (error) {
          reason = (error as Error).message;
          this.unsettled = Math.max(this.floor.from, number - this.maxReorgDepth);
        }
      }
      if (reason !== null) {
        // A fetch the signal cut short is no fault of the source: no line for the block.
        if (signal?.aborted) break;
        yield* await flush();
        yield* await emit({ block_number: number, block_hash: null, verdict: 'unreachable', failures: [], reason });
        break;
      }
      if (replacements.length > 0) {
        const replaced = await this.replaceBlocks(number, replacements);
        for (const { event, truth } of replaced.lines) yield* await emit(event, truth);
        parent = replaced.parent;
      }
      const { audit, truth } = await this.auditBlock(number, block!, parent);
      parent = audit.block_hash;
      yield* await emit(audit, truth);
      if (number === to || (number + 1) % this.chunkSize === 0) yield* await flush();
    }
    yield* await flush();
  }

  /**
   * Runs the cross-check over the chunk's latest audit of each block and adds its failures; a block that passed, of
   * which the other copy says what the chain cannot check, is not verifiable. When
   * its source is unreachable, the chunk's blocks are unreachable and the audit stops (false), as
   * for an unreachable block source, so that a resume starts again at this chunk.
   */
  private async crossCheckChunk(
    crossCheck: CrossCheck,
    chunk: Array<{ event: AuditEvent; truth?: BlockTruth }>,
  ): Promise<boolean> {
    const latest = new Map<number, { event: BlockAudit; truth: BlockTruth }>();
    for (const { event, truth } of chunk)
      if (truth !== undefined) latest.set(truth.number, { event: event as BlockAudit, truth });
    const truths = [...latest.values()].map((l) => l.truth);
    if (truths.length === 0) return true;
    let found: Map<number, CrossCheckFindings>;
    try {
      found = await this.timed('cross_checking_ms', () => crossCheck.checkChunk(truths, this.options.signal));
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      for (const { event } of latest.values())
        Object.assign(event, { verdict: 'unreachable', reason: error.message, failures: [] });
      return false;
    }
    for (const [number, { failures, unchecked }] of found) {
      const entry = latest.get(number);
      if (entry === undefined) continue;
      if (failures.length > 0) {
        entry.event.failures.push(...failures);
        entry.event.verdict = 'fail';
        delete entry.event.reason;
      } else if (unchecked.length > 0 && entry.event.verdict === 'pass') {
        // A pass covers every claim of the other copy: one the chain cannot check makes the block not verifiable.
        entry.event.verdict = 'not_verifiable';
        entry.event.reason = unchecked.join('; ');
      }
    }
    return true;
  }
}

/**
 * What {@link auditReorgBack} is given: an audit's options without its range (its blocks audited so far are `earlier`),
 * and the block whose parentHash does not link to the last of them.
 */
export interface ReorgBackOptions extends Omit<
  AuditRangeOptions,
  'from' | 'to' | 'anchor' | 'anchorName' | 'crossCheck' | 'signal' | 'earlier'
> {
  earlier: EarlierRun;
  /** The block that does not link, and the parentHash it was audited with. */
  at: number;
  parentHash: string | null;
}

/**
 * The lines {@link auditRange} writes when block `at` does not link to the block audited before it, for a job queue
 * that audited the blocks on both sides apart: the reorg line and the blocks it replaced audited again, by the same
 * walk back (a block asked again unchanged ends it; a block whose line refutes its own hash is never followed into).
 * None when it is no reorg (a broken link: block `at` then fails parent_link). Throws SourceError when the source cannot
 * give a block asked again, where auditRange writes block `at` unreachable.
 */
export function auditReorgBack(options: ReorgBackOptions): Promise<AuditEvent[]> {
  return RangeAudit.reorgBack(options);
}

/**
 * Audits blocks `from`..`to` of a chain from `source`.
 *
 * @throws TypeError or RangeError naming `chainId`, `from` or `to` where it is not a non-negative integer given as a
 * number (or `to` is before `from`).
 * @example
 * const audit = auditRange({ source: new RpcBlockSource({ url, keepMiscountedReceipts: true }), chainId: 1, from: 1_000_001, to: 1_000_030 })
 * for await (const line of audit) console.log(JSON.stringify(line))
 * console.log(audit.summary())
 */
export function auditRange(options: AuditRangeOptions): RangeAudit {
  return new RangeAudit(options);
}
