/**
 * The shapes of the hosted service's lineage answers that a walk relies on, read once for
 * every source (a bundle's recorded answers, the live service): the envelope and the members
 * that steer the walk. What the record and the artifacts say is the walker's to check.
 */
import { isObject, type JsonObject } from '../input/json-values.js';
import { kindOf } from '../json/show.js';
import { checkVersion, sameVersionExpected, type FirstVersions } from '../json/versions.js';
import { err, ok, type Result } from '../result.js';
import type { ProblemReason } from '../input/problems.js';
import type { RecordAnswer } from './lineage-source.js';

/**
 * The answer, or the member (a path relative to the response) that is not what the spec says, and why when it is
 * not its format (`conflict`: it contradicts another member).
 */
export type Read<T> = Result<T, { path: string; expected: string; reason?: ProblemReason }>;

/** One page of `POST /evm/lineage/genesis`. */
export interface GenesisPage {
  dataset: string;
  logs: unknown[];
  functionResults: unknown[];
  /** The next page's cursor; null on the last page. */
  cursor: string | null;
  /** Artifacts on this page: `count` (or `page_count`) as sent, else the lists' lengths. */
  count: number;
}

const bad = (path: string, expected: string, got: unknown) =>
  err({ path, expected: `${expected}, got ${kindOf(got)}` });

/** `dataset` as sent: an id or table name; absent or null is an unknown dataset (empty). */
function datasetOf(data: Record<string, unknown>): string | undefined {
  const dataset = data.dataset ?? '';
  return typeof dataset === 'string' ? dataset : undefined;
}

/** `{chain_id, data: {dataset, record}}`. */
export function readRecordAnswer(response: unknown): Read<RecordAnswer> {
  if (!isObject(response)) return bad('', 'a JSON object {chain_id, data}', response);
  const data = response.data;
  if (!isObject(data)) return bad('data', 'an object {dataset, record}', data);
  const dataset = datasetOf(data);
  if (dataset === undefined) return bad('data.dataset', 'a dataset id or table name (a string)', data.dataset);
  if (!isObject(data.record)) return bad('data.record', 'the record (an object)', data.record);
  return ok({ dataset, record: data.record });
}

/** `{chain_id, data: {dataset, _tracing_id, genesis: {logs, function_results}}, cursor, count}`. */
export function readGenesisPage(response: unknown): Read<GenesisPage> {
  if (!isObject(response)) return bad('', 'a JSON object {chain_id, data, cursor, count}', response);
  const data = response.data;
  if (!isObject(data)) return bad('data', 'an object {dataset, genesis}', data);
  const dataset = datasetOf(data);
  if (dataset === undefined) return bad('data.dataset', 'a dataset id or table name (a string)', data.dataset);
  const genesis = data.genesis;
  if (!isObject(genesis)) return bad('data.genesis', 'an object {logs, function_results}', genesis);
  // An empty list may be left out.
  const logs = genesis.logs ?? [];
  if (!Array.isArray(logs)) return bad('data.genesis.logs', 'an array of logs', logs);
  const functionResults = genesis.function_results ?? [];
  if (!Array.isArray(functionResults))
    return bad('data.genesis.function_results', 'an array of function results', functionResults);
  const cursor = response.cursor ?? null;
  if (cursor !== null && typeof cursor !== 'string')
    return bad('cursor', "the next page's cursor (a string) or null", cursor);
  const countName = response.count !== undefined ? 'count' : 'page_count';
  const count = response[countName] ?? logs.length + functionResults.length;
  if (!Number.isSafeInteger(count) || (count as number) < 0)
    return bad(countName, 'the number of artifacts on the page (a non-negative integer)', count);
  return ok({ dataset, logs, functionResults, cursor, count: count as number });
}

/**
 * `{chain_id, data: [raw block records]}` (dataset 0101): the records by block number; an entry that is no object with
 * an integer `block_number` is skipped. A block listed twice must be listed identically (json/versions.ts).
 */
export function readRawBlocks(response: unknown): Read<Map<number, JsonObject>> {
  const data = isObject(response) ? response.data : undefined;
  if (!Array.isArray(data)) return bad('data', 'the raw block records (an array)', data);
  const versions: FirstVersions = new Map();
  const records = new Map<number, JsonObject>();
  for (const [i, row] of data.entries()) {
    if (!isObject(row) || !Number.isSafeInteger(row.block_number)) continue;
    const n = row.block_number as number;
    const version = checkVersion(versions, String(n), `data[${i}]`, row);
    if (version === 'first') records.set(n, row);
    else if (version !== 'repeat')
      return err({
        path: `data[${i}]`,
        expected: sameVersionExpected(version.otherAt, `the record of block ${n}`),
        reason: 'conflict',
      });
  }
  return ok(records);
}
