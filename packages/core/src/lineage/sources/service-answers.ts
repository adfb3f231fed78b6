/**
 * The shapes of the hosted service's lineage answers that a walk relies on, read once for
 * every source (a bundle's recorded answers, the live service): the envelope and the members
 * that steer the walk, and that every integer the walk reads was read exactly. What the record
 * and the artifacts say is the walker's to check.
 */
import { INEXACT_NUMBER, isInexactNumber, isObject, type JsonObject } from '../../input/values/json-values.js';
import { kindOf, show } from '../../json/show.js';
import { exactInteger, INTEGER_FORM, withNumbers } from './integers.js';
import { checkVersion, sameVersionExpected, type FirstVersions } from '../../json/versions.js';
import { err, ok, type Result } from '../../result.js';
import type { ProblemReason } from '../../errors.js';
import type { RecordAnswer } from './lineage-source.js';
import { spellingsDiffer } from '../../input/values/spellings.js';

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
}

const bad = (path: string, expected: string, got: unknown) =>
  err({ path, expected: `${expected}, got ${kindOf(got)}` });

/** The members of a record the walk reads as integers (record-checks.ts, cross-checks.ts); `reserves` item by item. */
const RECORD_INTEGERS = ['block_number', 'tx_index', 'log_index', 'decimals', 'reserves'] as const;
/** The members of a record read as numbers (integers.ts): decimal strings become numbers, one form for every check. */
const RECORD_NUMBERS = ['chain_id', 'block_number', 'tx_index', 'log_index', 'decimals'] as const;
/** The members of a genesis log the walk reads as integers (onchain.ts). */
const LOG_INTEGERS = ['block_number', 'tx_index', 'log_index'] as const;

/**
 * The path of the first integer in `value` (a number, or the items or members of an array or object) that is a JSON
 * number beyond 2^53-1, with the number; null when there is none.
 */
function inexactIn(value: unknown, path: string): { path: string; got: unknown } | null {
  if (isInexactNumber(value)) return { path, got: value };
  if (Array.isArray(value)) {
    const i = value.findIndex(isInexactNumber);
    return i === -1 ? null : { path: `${path}[${i}]`, got: value[i] };
  }
  if (!isObject(value)) return null;
  const name = Object.keys(value).find((key) => isInexactNumber(value[key]));
  return name === undefined ? null : { path: `${path}.${name}`, got: value[name] };
}

/**
 * The first of `members` of `object` that holds an integer read inexactly: refused as the input's fault, never left to
 * a check that would fail a claim the rounding made false (or pass one it made true).
 */
function inexactMember(object: unknown, path: string, members: readonly string[]): Read<never> | null {
  if (!isObject(object)) return null;
  for (const member of members) {
    const found = inexactIn(object[member], `${path}.${member}`);
    if (found !== null)
      return bad(found.path, `an integer as a decimal string (${INEXACT_NUMBER} when read)`, found.got);
  }
  return null;
}

/**
 * The first of `members` of `object` given in a form the walk does not read as an integer (integers.ts: a JSON number
 * or a decimal string), `reserves` item by item where it is a list: refused, naming it, as the input's fault, rather
 * than judged by a check that cannot read the claim. Absent or null claims nothing.
 */
function unreadMember(object: unknown, path: string, members: readonly string[]): Read<never> | null {
  if (!isObject(object)) return null;
  for (const member of members) {
    const value = object[member];
    if (value === undefined || value === null) continue;
    const items: Array<[string, unknown]> =
      member === 'reserves'
        ? Array.isArray(value)
          ? value.map((item, i) => [`${path}.${member}[${i}]`, item])
          : []
        : [[`${path}.${member}`, value]];
    const wrong = items.find(([, item]) => exactInteger(item) === null);
    if (wrong !== undefined) return err({ path: wrong[0], expected: `${INTEGER_FORM}, got ${show(wrong[1], 60)}` });
  }
  return null;
}

/** The members a record may spell with a leading `_` (the service's legacy names). */
const SPELLED_TWICE = ['tracing_id', 'genesis_tracing_ids', 'parent_tracing_ids'] as const;

/** `dataset` as sent: an id or table name; absent or null is an unknown dataset (empty). */
function datasetOf(data: Record<string, unknown>): string | undefined {
  const dataset = data.dataset ?? '';
  return typeof dataset === 'string' ? dataset : undefined;
}

/** What a request's chain is, for messages: the answer's `chain_id` must be it. */
const CHAIN_ASKED = "the chain asked for (the request's chain_id)";

/**
 * An answer's `chain_id` that names another chain than `chainId`, the one asked for (`conflict`), or that is not read as
 * a chain (integers.ts); null when it is the chain asked, or absent or null (an answer that names no chain claims
 * nothing). An answer for another chain is not this chain's: judged as this one's, its record or artifacts would be
 * reported as this chain's.
 */
function otherChain(response: JsonObject, chainId: number): Read<never> | null {
  const named = response.chain_id;
  if (named === undefined || named === null) return null;
  const n = exactInteger(named);
  if (n === null)
    return err({
      path: 'chain_id',
      expected: `chain ${chainId}, ${CHAIN_ASKED}, as ${INTEGER_FORM}, got ${show(named, 60)}`,
    });
  if (n === BigInt(chainId)) return null;
  return err({
    path: 'chain_id',
    expected: `chain ${chainId}, ${CHAIN_ASKED}: an answer for another chain is not this chain's, got ${n}`,
    reason: 'conflict',
  });
}

/** `{chain_id, data: {dataset, record}}`, an answer for chain `chainId`. */
export function readRecordAnswer(response: unknown, chainId: number): Read<RecordAnswer> {
  if (!isObject(response)) return bad('', 'a JSON object {chain_id, data}', response);
  const chain = otherChain(response, chainId);
  if (chain !== null) return chain;
  const data = response.data;
  if (!isObject(data)) return bad('data', 'an object {dataset, record}', data);
  const dataset = datasetOf(data);
  if (dataset === undefined) return bad('data.dataset', 'a dataset id or table name (a string)', data.dataset);
  if (!isObject(data.record)) return bad('data.record', 'the record (an object)', data.record);
  for (const name of SPELLED_TWICE) {
    const differ = spellingsDiffer(data.record, name, 'data.record');
    if (differ !== null) return err(differ);
  }
  return (
    inexactMember(data.record, 'data.record', RECORD_INTEGERS) ??
    unreadMember(data.record, 'data.record', [...RECORD_NUMBERS, 'reserves']) ??
    ok({ dataset, record: withNumbers(data.record, RECORD_NUMBERS) })
  );
}

/** `{chain_id, data: {dataset, _tracing_id, genesis: {logs, function_results}}, cursor, count}`, for chain `chainId`. */
export function readGenesisPage(response: unknown, chainId: number): Read<GenesisPage> {
  if (!isObject(response)) return bad('', 'a JSON object {chain_id, data, cursor, count}', response);
  const chain = otherChain(response, chainId);
  if (chain !== null) return chain;
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
  // An artifact's own id in both spellings, disagreeing, would account for either id unseen (genesis.complete).
  for (const [list, name] of [
    [logs, 'logs'],
    [functionResults, 'function_results'],
  ] as const)
    for (const [i, artifact] of list.entries()) {
      const differ = isObject(artifact) ? spellingsDiffer(artifact, 'tracing_id', `data.genesis.${name}[${i}]`) : null;
      if (differ !== null) return err(differ);
    }
  const inexact = inexactArtifact(logs, functionResults);
  if (inexact !== null) return inexact;
  // Paging stops at a page that counts 0: a count its own lists contradict would end it early (a later page, never
  // read, held artifacts) or say the page holds what it does not. Given under both names, each must hold.
  const held = logs.length + functionResults.length;
  for (const countName of ['count', 'page_count'] as const) {
    const count = response[countName];
    if (count === undefined || count === null) continue;
    if (!Number.isSafeInteger(count) || (count as number) < 0)
      return bad(countName, 'the number of artifacts on the page (a non-negative integer)', count);
    if (count !== held)
      return err({
        path: countName,
        expected: `the number of artifacts on the page: ${held} (${logs.length} in data.genesis.logs, ${functionResults.length} in data.genesis.function_results), got ${count as number}`,
        reason: 'conflict',
      });
  }
  const read = logs.map((log: unknown) => (isObject(log) ? withNumbers(log, LOG_INTEGERS) : log));
  return ok({ dataset, logs: read, functionResults, cursor });
}

/** A raw/blocks answer (dataset 0101): its records by block number, and its first record whatever block it names. */
export interface RawBlocks {
  byNumber: Map<number, JsonObject>;
  first: JsonObject | null;
}

/**
 * `{chain_id, data: [raw block records]}` (dataset 0101), an answer for chain `chainId`: the records by block number (an entry that is no object with
 * an integer `block_number` is left out of them) and the first record. A block listed twice must be listed identically
 * (json/versions.ts).
 */
export function readRawBlocks(response: unknown, chainId: number): Read<RawBlocks> {
  const chain = isObject(response) ? otherChain(response, chainId) : null;
  if (chain !== null) return chain;
  const data = isObject(response) ? response.data : undefined;
  if (!Array.isArray(data)) return bad('data', 'the raw block records (an array)', data);
  const versions: FirstVersions = new Map();
  const byNumber = new Map<number, JsonObject>();
  for (const [i, row] of data.entries()) {
    if (!isObject(row) || !Number.isSafeInteger(row.block_number)) continue;
    const n = row.block_number as number;
    const version = checkVersion(versions, String(n), `data[${i}]`, row);
    if (version === 'first') byNumber.set(n, row);
    else if (version !== 'repeat')
      return err({
        path: `data[${i}]`,
        expected: sameVersionExpected(version.otherAt, `the record of block ${n}`, version.difference),
        reason: 'conflict',
      });
  }
  return ok({ byNumber, first: data.find(isObject) ?? null });
}

/**
 * The record a raw/blocks answer gives for block `n` of the blocks `asked`: the one of that number; else, when `n` was
 * the only block asked, the answer's first record, whatever block it names: it was answered for `n`, and the walk
 * compares its `block_number` with the block (a record renumbered must fail, not vanish).
 */
export function rawRecordFor(answer: RawBlocks, asked: readonly number[], n: number): JsonObject | null {
  return answer.byNumber.get(n) ?? (asked.length === 1 && asked[0] === n ? answer.first : null);
}

/** The first genesis log or function result with an integer read inexactly (a function result's `decoded_output`), or a log position in a form not read. */
function inexactArtifact(logs: readonly unknown[], functionResults: readonly unknown[]): Read<never> | null {
  for (const [i, log] of logs.entries()) {
    const path = `data.genesis.logs[${i}]`;
    const found = inexactMember(log, path, LOG_INTEGERS) ?? unreadMember(log, path, LOG_INTEGERS);
    if (found !== null) return found;
  }
  for (const [i, result] of functionResults.entries()) {
    const found = inexactMember(result, `data.genesis.function_results[${i}]`, ['decoded_output']);
    if (found !== null) return found;
  }
  return null;
}
