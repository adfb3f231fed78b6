/**
 * Paging lineage/genesis into one answer, the same for every source: follow `cursor` until it
 * is null or a page counts 0 artifacts, refuse a cursor that repeats or leads nowhere, and stop
 * at the limits on pages and artifacts per record.
 */
import type { GenesisPage } from './service-answers.js';
import { LINEAGE_LIMITS, limitExceeded } from './input-limits.js';
import { plain, show } from '../../json/show.js';
import { SourceError } from '../../errors.js';
import { type GenesisAnswer } from './lineage-source.js';
import { sameDataset } from './datasets.js';

/** A page as a source found it, with how messages name it (`exchanges[3].response`, `the service's page 2 of …`). */
export interface PageAt {
  page: GenesisPage;
  where: string;
  /** Where the page is in a bundle, for naming the faulty member as a parameter. */
  bundlePath?: string;
}

/** Fetches the page at `cursor` (null: the first); null when there is none (a 404, or not in the bundle). */
export type FetchPage = (cursor: string | null, pageIndex: number) => Promise<PageAt | null>;

/**
 * Every page of a record's genesis, merged; null when the first page is missing (the
 * record has no genesis artifacts). Linear in the artifacts: pages are appended item by item
 * (a spread of a 100k-item page would overflow the stack).
 */
export async function collectGenesis(tracingId: string, fetchPage: FetchPage): Promise<GenesisAnswer | null> {
  const merged: GenesisAnswer = { dataset: '', logs: [], functionResults: [] };
  const subject = `the genesis of ${plain(tracingId)}`;
  const seen = new Set<string>();
  let previous: PageAt | null = null;
  /** The first page that named a dataset: the genesis is of that one. */
  let datasetAt: PageAt | null = null;
  for (let pageIndex = 0; ; pageIndex++) {
    if (pageIndex === LINEAGE_LIMITS.genesisPages)
      throw limitExceeded(
        'genesisPages',
        subject,
        previous?.bundlePath === undefined ? '' : `${previous.bundlePath}.cursor`,
      );
    const cursor: string | null = previous?.page.cursor ?? null;
    const at = await fetchPage(cursor, pageIndex);
    if (at === null) {
      if (previous === null) return null;
      throw cursorError(
        previous,
        `has the cursor ${show(cursor)}, but there is no lineage/genesis page at it`,
        `the cursor of a lineage/genesis page in the bundle, or null; there is no page at ${show(cursor)}`,
      );
    }
    const { page } = at;
    if (
      merged.logs.length + merged.functionResults.length + page.logs.length + page.functionResults.length >
      LINEAGE_LIMITS.recordArtifacts
    ) {
      throw limitExceeded(
        'recordArtifacts',
        subject,
        at.bundlePath === undefined ? '' : `${at.bundlePath}.data.genesis`,
      );
    }
    if (page.dataset !== '') {
      if (datasetAt === null) {
        merged.dataset = page.dataset;
        datasetAt = at;
      } else if (!sameDataset(page.dataset, merged.dataset)) throw otherDataset(at, datasetAt);
    }
    for (const log of page.logs) merged.logs.push(log);
    for (const result of page.functionResults) merged.functionResults.push(result);
    // An empty page ends the paging too (its count, which must be its artifacts', says 0).
    if (page.cursor === null || page.logs.length + page.functionResults.length === 0) return merged;
    if (seen.has(page.cursor))
      throw cursorError(
        at,
        `repeats the cursor ${show(page.cursor)} of an earlier page of ${subject}`,
        `a cursor not given before in this genesis, or null; ${show(page.cursor)} repeats an earlier page's`,
      );
    seen.add(page.cursor);
    previous = at;
  }
}

/**
 * A page that names another dataset than an earlier page of its genesis (`first`): which one the genesis is of cannot be
 * told, and merged, the later page's artifacts would be taken as the first's dataset's.
 */
function otherDataset(at: PageAt, first: PageAt): SourceError {
  const given = show(at.page.dataset);
  const earlier = show(first.page.dataset);
  if (at.bundlePath === undefined || first.bundlePath === undefined)
    return new SourceError(
      `${at.where} names dataset ${given}, not the dataset ${earlier} of ${first.where}: the pages of one genesis are of one dataset`,
    );
  const path = `${at.bundlePath}.data.dataset`;
  const expected = `the dataset of the earlier pages of this genesis, ${earlier} (${first.bundlePath}.data.dataset): the pages of one genesis are of one dataset, got ${given}`;
  return new SourceError(`${path}: expected ${expected}`, { path, reason: 'conflict', expected });
}

/** A page's cursor that cannot be followed: in a bundle, the cursor member named as what is wrong. */
function cursorError(at: PageAt, what: string, expected: string): SourceError {
  if (at.bundlePath === undefined) return new SourceError(`${at.where} ${what}`);
  const path = `${at.bundlePath}.cursor`;
  return new SourceError(`${path}: expected ${expected}`, { path, reason: 'invalid_format', expected });
}
