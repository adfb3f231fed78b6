/**
 * The hosted service's raw datasets of a chunk of blocks, checked against the chain: its block
 * records (0101, `POST /evm/raw/blocks`) and log records (0103, `POST /evm/raw/logs`), fetched a
 * page at a time for the whole chunk (a few requests per chunk, never one per block) through
 * the service's client rules, then checked block by block.
 */
import { isObject, type JsonObject } from '../input/values/json-values.js';
import type { BundleSource } from '../bundle/bundle-source.js';
import { ServiceClient, type ServiceClientOptions } from '../live/service-client.js';
import type { ExchangeRecorder } from '../sources/exchange.js';
import { show } from '../json/show.js';
import { SourceError } from '../errors.js';
import { checkServiceBlock, SERVICE_BLOCK_CHECKS } from './service-block.js';
import { checkServiceLogs, SERVICE_LOGS_CHECKS } from './service-logs.js';
import { groupBy, integerOf } from './service-values.js';
import type { BlockTruth, CrossCheck, CrossCheckFindings } from './vocabulary.js';

/** The raw datasets the audit reads: block records (0101) and log records (0103). */
export type RawDataset = 'blocks' | 'logs';

export interface ServiceDatasetsOptions extends Omit<ServiceClientOptions, 'baseUrl'> {
  /** The service's base URL, ending with `/v1` (added when missing). */
  url: string;
  /** `limit` of each page, default 1000 (the service's maximum). */
  pageLimit?: number;
  /** Receives every page as answered, so that the audit can be replayed from a bundle. */
  recorder?: ExchangeRecorder;
}

/** Where the pages of a raw dataset come from: the live service, or the pages a bundle recorded. */
export type RawPages = (path: string, body: JsonObject) => Promise<unknown>;

/** Pages from the live service, through its client rules; each one recorded when there is a recorder. */
function livePages(options: ServiceDatasetsOptions): RawPages {
  const client = new ServiceClient({ ...options, baseUrl: options.url });
  const { recorder } = options;
  return async (path, body) =>
    (await client.post(path, body, false, recorder && ((exchange) => recorder.addExchange(exchange)))).json;
}

/** Pages from a bundle that recorded a live audit's `--service` checks. */
function recordedPages(bundle: BundleSource): RawPages {
  return (path, body) =>
    bundle.rawPage(
      path,
      body.chain_id as number,
      body.from_block as number,
      body.to_block as number,
      typeof body.cursor === 'string' ? body.cursor : null,
    );
}

/** One page of a raw dataset for chain `chainId`: `{chain_id, data: [records], cursor, count | page_count}`. */
function readPage(json: unknown, what: string, chainId: number): { records: JsonObject[]; cursor: string | null } {
  const unusable = (member: string, expected: string, value: unknown) =>
    new SourceError(
      `the service's answer to ${what} is unusable: ${member}: expected ${expected}, got ${show(value, 60)}`,
    );
  if (!isObject(json)) throw unusable('the body', 'a JSON object {chain_id, data, cursor, count}', json);
  // A page that names another chain holds that chain's records: held to this chain's blocks, they would be reported as
  // this chain's. One that names none claims nothing.
  const named = json.chain_id ?? null;
  if (named !== null && integerOf(named) !== chainId)
    throw unusable(
      'chain_id',
      `chain ${chainId}, the chain asked for (the request's chain_id): an answer for another chain is not this chain's`,
      integerOf(named) ?? named,
    );
  const { data } = json;
  if (!Array.isArray(data)) throw unusable('data', 'an array of records', data);
  const bad = data.findIndex((record) => !isObject(record) || integerOf(record.block_number) === null);
  if (bad !== -1) throw unusable(`data[${bad}]`, 'a record with its block_number', data[bad]);
  const cursor = json.cursor ?? null;
  if (cursor !== null && typeof cursor !== 'string')
    throw unusable('cursor', "the next page's cursor (a string) or null", cursor);
  // The count is the page's own number of records: one that says otherwise leaves the page's end unknown (a count
  // of 0 under records and a cursor would end the paging there, the pages after it never read). Given under both
  // names, each must say it.
  for (const countName of ['count', 'page_count'] as const) {
    const count = json[countName];
    if (count !== undefined && count !== null && count !== data.length)
      throw unusable(countName, `the number of records on the page, ${data.length}`, count);
  }
  return { records: data as JsonObject[], cursor };
}

/**
 * Reads the raw datasets of a block range from the live service: every page, until the cursor is
 * null or a page is empty. A cursor the service gave before is a SourceError (a loop), as is a
 * 4xx other than 429 (a 401 names the API key), or a failure still there after the retries.
 */
export class ServiceDatasets {
  private readonly pages: RawPages;
  private readonly pageLimit: number;

  /** @param from the live service's options, or the pages a bundle recorded */
  constructor(
    from: ServiceDatasetsOptions | RawPages,
    pageLimit = typeof from === 'function' ? 1000 : (from.pageLimit ?? 1000),
  ) {
    this.pages = typeof from === 'function' ? from : livePages(from);
    this.pageLimit = pageLimit;
  }

  /** Every record of `dataset` for blocks `from` to `to` (inclusive), in the service's order. */
  async records(
    dataset: RawDataset,
    chainId: number,
    from: number,
    to: number,
    signal?: AbortSignal,
  ): Promise<Array<Record<string, unknown>>> {
    const path = `/evm/raw/${dataset}`;
    const records: JsonObject[] = [];
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (let page = 1; ; page++) {
      signal?.throwIfAborted();
      if (page > MAX_PAGES)
        throw new SourceError(
          `the service gave more than ${MAX_PAGES} pages of raw/${dataset} for blocks ${from}-${to} and its cursor does not end (if the blocks truly hold that many records, lower the audit's chunkSize, --chunk-size on the command line)`,
        );
      const body = {
        chain_id: chainId,
        from_block: from,
        to_block: to,
        limit: this.pageLimit,
        ...(cursor !== null && { cursor }),
      };
      const read = readPage(await this.pages(path, body), `raw/${dataset} ${from}-${to} (page ${page})`, chainId);
      records.push(...read.records);
      if (read.cursor === null || read.records.length === 0) return records;
      if (seen.has(read.cursor))
        throw new SourceError(
          `the service gave cursor ${show(read.cursor, 60)} twice for raw/${dataset} ${from}-${to}: its pages loop`,
        );
      seen.add(read.cursor);
      cursor = read.cursor;
    }
  }
}

/**
 * Pages of one request at most: a cursor that never ends (distinct cursors, pages that never
 * empty) would otherwise hold the audit and its memory forever. At the page limit of 1000 records,
 * ten million records: 100 blocks of the busiest mainnet blocks hold a fifth of that.
 */
const MAX_PAGES = 10_000;

/** Records by their block number (readPage has checked that each has one). */
const byBlock = (records: readonly JsonObject[]) => groupBy(records, (record) => integerOf(record.block_number)!);

/**
 * The hosted service's raw datasets as a range audit's cross-check: for each chunk, its block
 * and log records (two paged requests for the whole chunk), then per block
 * {@link checkServiceBlock} and {@link checkServiceLogs}. Records of blocks outside the chunk
 * are not looked at (the service was asked for the chunk's range only).
 *
 * @example
 * const crossCheck = serviceCrossCheck({ url: 'https://service.example/v1', apiKey: process.env.EVM_DATA_SERVICE_API_KEY! })
 */
export function serviceCrossCheck(options: ServiceDatasetsOptions): CrossCheck {
  return datasetsCrossCheck(new ServiceDatasets(options));
}

/**
 * The same cross-check over the pages a bundle recorded (`audit --service … --record F`), so that
 * `audit --bundle F` replays the dataset checks offline with the same lines.
 */
export function recordedServiceCrossCheck(bundle: BundleSource): CrossCheck {
  return datasetsCrossCheck(new ServiceDatasets(recordedPages(bundle)));
}

function datasetsCrossCheck(datasets: ServiceDatasets): CrossCheck {
  return {
    checks: [...SERVICE_BLOCK_CHECKS, ...SERVICE_LOGS_CHECKS],
    async checkChunk(truths: readonly BlockTruth[], signal?: AbortSignal): Promise<Map<number, CrossCheckFindings>> {
      const findings = new Map<number, CrossCheckFindings>();
      if (truths.length === 0) return findings;
      const from = truths.reduce((least, t) => Math.min(least, t.number), Infinity);
      const to = truths.reduce((most, t) => Math.max(most, t.number), -Infinity);
      const chainId = truths[0]!.chainId;
      const [blocks, logs] = await Promise.all([
        datasets.records('blocks', chainId, from, to, signal).then(byBlock),
        datasets.records('logs', chainId, from, to, signal).then(byBlock),
      ]);
      for (const truth of truths) {
        const block = checkServiceBlock(truth, blocks.get(truth.number) ?? []);
        const log = checkServiceLogs(truth, logs.get(truth.number) ?? []);
        const failures = [...block.failures, ...log.failures];
        const unchecked = [...block.unchecked, ...log.unchecked];
        if (failures.length > 0 || unchecked.length > 0) findings.set(truth.number, { failures, unchecked });
      }
      return findings;
    },
  };
}
