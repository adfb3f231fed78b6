import {
  blockKey,
  bundleProblem,
  lineageKey,
  rawPageKey,
  readBundle,
  type BundleIndex,
  type Recorded,
} from './format.js';
import { collectGenesis } from '../lineage/sources/genesis-pages.js';
import { plain } from '../json/show.js';
import { SourceError } from '../errors.js';
import { type BlockJson, type BlockSource } from '../sources/block-source.js';
import { type GenesisAnswer, type LineageSource, type RecordAnswer } from '../lineage/sources/lineage-source.js';

export { parseBundle, type Bundle } from './format.js';

/** The bundle lacks the answer to a request, so it cannot support the audit: the input's fault. */
const noAnswer = (what: string, hint = '') =>
  new SourceError(`the bundle has no answer to ${what}${hint}`, {
    path: 'exchanges',
    reason: 'missing',
    expected: `an answer to ${what}`,
    unanswered: true,
  });

/** A lookup as a promise, as a live source answers: what it throws becomes the rejection. */
function settled<T>(lookup: () => T): Promise<T> {
  return new Promise((resolve) => resolve(lookup()));
}

/**
 * Answers lineage requests and block lookups from a bundle, fully offline. A request is
 * answered by the first recorded exchange of its path whose identifying members are equal
 * (chain_id, tracing id in either spelling and any case, cursor with absent = null); members
 * that only shape a page are ignored. A record the bundle does not answer at all is a
 * SourceError (the bundle cannot support the audit), unlike a recorded 404 (a missing record).
 */
export class BundleSource implements LineageSource, BlockSource {
  private readonly index: BundleIndex;

  /**
   * @param bundle a bundle as parsed from JSON: checked and indexed here, a SourceError naming its first faulty member.
   */
  constructor(bundle: unknown) {
    this.index = readBundle(bundle).index;
  }

  /** A recorded answer's content; null for a 404; any other status cannot answer the walk. */
  private contentOf<T>(recorded: Recorded<T>, what: string): T | null {
    if (recorded.status === 404) return null;
    if (recorded.answer === null)
      throw bundleProblem(
        `${recorded.path}.status`,
        `200 or 404: the walk needs the answer to ${what}`,
        recorded.status,
      );
    return recorded.answer;
  }

  record(chainId: number, tracingId: string): Promise<RecordAnswer | null> {
    return settled(() => {
      const recorded = this.index.records.get(lineageKey(chainId, tracingId));
      const what = `lineage/record for tracing id ${plain(tracingId)} on chain ${chainId}`;
      if (recorded === undefined) throw noAnswer(what);
      return this.contentOf(recorded, what);
    });
  }

  genesis(chainId: number, tracingId: string): Promise<GenesisAnswer | null> {
    return collectGenesis(tracingId, (cursor) =>
      settled(() => {
        const recorded = this.index.genesisPages.get(lineageKey(chainId, tracingId, cursor));
        if (recorded === undefined) return null;
        const page = this.contentOf(recorded, `lineage/genesis for tracing id ${plain(tracingId)}`);
        return page === null
          ? null
          : { page, where: `${recorded.path}.response`, bundlePath: `${recorded.path}.response` };
      }),
    );
  }

  rawBlock(chainId: number, blockNumber: number): Promise<Record<string, unknown> | null> {
    return Promise.resolve(this.index.rawBlocks.get(blockKey(chainId, blockNumber)) ?? null);
  }

  /** Whether the bundle recorded pages of raw datasets by range (a live audit with `--service`). */
  get hasRawPages(): boolean {
    return this.index.rawPages.size > 0;
  }

  /**
   * A recorded page of a raw dataset asked for by range (`path` such as `/evm/raw/logs`), as a range
   * audit's `--service` cross-check recorded it. A page the bundle lacks, or one recorded as refused,
   * is a SourceError: the replay cannot check what the live audit did not see.
   */
  /**
   * Why the bundle has no page for a range: a chunk cut short (the recording holds the same dataset from the same block
   * to a later one: the replay could not get the block after `to`, or its range or chunk size differ), else what a
   * replay needs to ask for the ranges recorded.
   */
  private whyNoPage(path: string, chainId: number, from: number, to: number): string {
    for (const key of this.index.rawPages.keys()) {
      const [recordedPath, recordedChain, recordedFrom, recordedTo] = JSON.parse(key) as [
        string,
        number,
        number,
        number,
      ];
      if (recordedPath === path && recordedChain === chainId && recordedFrom === from && recordedTo > to)
        return ` (the recording has it for blocks ${from}-${recordedTo}: the replay asked for that chunk only up to block ${to}, as it does where it could not get block ${to + 1}, or where its --to or --chunk-size are not the recording's)`;
    }
    return " (a replay needs the recording's chunkSize, --chunk-size on the command line, and a recording with the service's cross-check, --service)";
  }

  rawPage(path: string, chainId: number, from: number, to: number, cursor: string | null): Promise<unknown> {
    return settled(() => {
      const recorded = this.index.rawPages.get(rawPageKey(path, chainId, from, to, cursor));
      const what = `${path.slice(1)} for blocks ${from}-${to} on chain ${chainId}${cursor === null ? '' : ` after cursor ${plain(cursor)}`}`;
      if (recorded === undefined) throw noAnswer(what, this.whyNoPage(path, chainId, from, to));
      if (recorded.answer === null)
        throw bundleProblem(`${recorded.path}.status`, `200: the audit needs the answer to ${what}`, recorded.status);
      return recorded.answer;
    });
  }

  block(chainId: number, blockNumber: number): Promise<BlockJson | null> {
    return Promise.resolve(this.index.blocks.get(blockKey(chainId, blockNumber)) ?? null);
  }

  pathOf(chainId: number, blockNumber: number): string | undefined {
    return this.index.blockPaths.get(blockKey(chainId, blockNumber));
  }
}
