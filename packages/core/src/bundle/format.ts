/**
 * A lineage bundle (docs/lineage.md "The bundle format"): what the hosted service answered, plus blocks,
 * for an offline audit. Read once: every member the walk relies on is checked up front (a
 * SourceError names the first faulty member by its path in the bundle) and every answer is
 * indexed by what identifies its request, so that each lookup of the walk is O(1). A request or
 * block given twice must be given identically (json/versions.ts).
 */
import { claims, isObject, type JsonObject } from '../input/values/json-values.js';
import {
  readGenesisPage,
  rawRecordFor,
  readRawBlocks,
  readRecordAnswer,
  type GenesisPage,
  type Read,
} from '../lineage/sources/service-answers.js';
import { spellingsDiffer } from '../input/values/spellings.js';
import { LINEAGE_LIMITS, limitExceeded } from '../lineage/sources/input-limits.js';
import { tooDeep } from '../json/depth.js';
import { kindOf, plain, show } from '../json/show.js';
import { checkVersion, sameVersionExpected, type FirstVersions } from '../json/versions.js';
import { SourceError } from '../errors.js';
import { type BlockJson } from '../sources/block-source.js';
import { type Exchange } from '../sources/exchange.js';
import { type RecordAnswer } from '../lineage/sources/lineage-source.js';

type Json = JsonObject;

export interface Bundle {
  base_url?: string;
  exchanges: Exchange[];
  blocks: BlockJson[];
}

/** A recorded answer the walk may ask for: where it is, its status, and its content when the status is 200. */
export interface Recorded<T> {
  path: string;
  status: number;
  answer: T | null;
}

/** The bundle's answers by request; each request has one answer (an identical repeat is indexed once). */
export interface BundleIndex {
  records: Map<string, Recorded<RecordAnswer>>;
  genesisPages: Map<string, Recorded<GenesisPage>>;
  /** The raw block record (dataset 0101) of a block; null when the exchange that lists the block has none. */
  rawBlocks: Map<string, Json | null>;
  /** Pages of a raw dataset asked for by block range (a range audit's `--service`), by {@link rawPageKey}. */
  rawPages: Map<string, Recorded<unknown>>;
  blocks: Map<string, BlockJson>;
  /** Where each block stands in the bundle (`blocks[3]`), to name a faulty member. */
  blockPaths: Map<string, string>;
}

/** The key of a lineage request: chain, tracing id (any case), and for genesis the cursor (absent = null). */
export const lineageKey = (chainId: number, tracingId: string, cursor?: string | null): string =>
  JSON.stringify([chainId, tracingId.toLowerCase(), cursor ?? null]);
/** The key of a block: chain and number. */
export const blockKey = (chainId: number, blockNumber: number): string => `${chainId}:${blockNumber}`;
/**
 * The key of a raw-dataset page asked for by range: the path (`/evm/raw/logs`), chain, range and cursor (absent =
 * null).
 */
export const rawPageKey = (path: string, chainId: number, from: number, to: number, cursor?: string | null): string =>
  JSON.stringify([path, chainId, from, to, cursor ?? null]);

const RECORD = '/evm/lineage/record';
const GENESIS = '/evm/lineage/genesis';
const RAW_BLOCKS = '/evm/raw/blocks';
const RAW_LOGS = '/evm/raw/logs';

/** The error for a bundle's member: its path, what was expected there and what it was instead. */
export function bundleProblem(path: string, expected: string, got: unknown): SourceError {
  // A string is quoted (shortened, its control characters escaped): `got "PUT"` says what is wrong, `a string` not.
  const full = `${expected}, got ${typeof got === 'string' ? show(got, 60) : kindOf(got)}`;
  return new SourceError(`${path === '' ? 'the bundle' : path}: expected ${full}`, {
    path,
    reason: got === undefined ? 'missing' : 'invalid_format',
    expected: full,
  });
}

const isChainId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;
const isBlockNumber = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** A header's `number`: a JSON-RPC quantity (`0x…`), a decimal string or an integer. */
function blockNumberOf(value: unknown): number | undefined {
  if (isBlockNumber(value)) return value;
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]{1,13}|[0-9]{1,15})$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The error for a member that gives again, differently, what `otherAt` gave: which one is meant cannot be told. */
function bundleConflict(path: string, version: { otherAt: string; difference: string }, what: string): SourceError {
  const expected = sameVersionExpected(version.otherAt, what, version.difference);
  return new SourceError(`${path}: expected ${expected}`, { path, reason: 'conflict', expected });
}

/**
 * Whether `value`, at `path` in the bundle, is the first version of `key`, to be indexed: false for an identical
 * repeat, a SourceError naming both places for a different one.
 */
function isFirstVersion(versions: FirstVersions, key: string, path: string, value: unknown, what: string): boolean {
  const version = checkVersion(versions, key, path, value);
  if (typeof version === 'object') throw bundleConflict(path, version, what);
  return version === 'first';
}

/** What a recorded answer says, for comparing two answers to one request: its status and response. */
const answerOf = (exchange: Exchange) => ({ status: exchange.status, response: exchange.response });

/** A recorded answer's content when its status is 200, else null; a malformed 200 is the bundle's fault. */
function contentOf<T>(
  exchange: Exchange,
  path: string,
  read: (response: unknown, chainId: number) => Read<T>,
): T | null {
  if (exchange.status !== 200) return null;
  // readExchange checked the chain asked for before any answer is read.
  const result = read(exchange.response, exchange.body.chain_id as number);
  if (result.ok) return result.value;
  const { path: member, expected, reason = 'invalid_format' } = result.error;
  const at = member === '' ? `${path}.response` : `${path}.response.${member}`;
  throw new SourceError(`${at}: expected ${expected}`, { path: at, reason, expected });
}

/**
 * Refuses, in an answer to several blocks, a record of a block not asked for: which asked block it was answered for,
 * renumbered, cannot be told, so its members could not be compared with any block. (Answered for one block, a record
 * is that block's, and the walk compares its `block_number`.)
 */
function unaskedRawRecord(exchange: Exchange, path: string, asked: readonly number[]): void {
  const numbers = new Set(asked);
  const data = (exchange.response as Json).data as unknown[];
  const i = data.findIndex((row) => isObject(row) && !numbers.has(row.block_number as number));
  if (i !== -1)
    throw bundleProblem(
      `${path}.response.data[${i}].block_number`,
      'one of the blocks asked in body.block_numbers (a record answered for several blocks that names another cannot be told apart from one renumbered)',
      (data[i] as Json).block_number,
    );
}

/** The cursor a paged request sent: null for the first page (absent or null). */
function cursorOf(exchange: Exchange, path: string): string | null {
  const cursor = exchange.body.cursor ?? null;
  if (cursor !== null && typeof cursor !== 'string')
    throw bundleProblem(
      `${path}.body.cursor`,
      'the cursor sent (a string), or null or nothing for the first page',
      cursor,
    );
  return cursor;
}

/** Checks one exchange's shape and indexes it when the walk may ask for it. */
function readExchange(value: unknown, path: string, index: BundleIndex, versions: FirstVersions): void {
  if (!isObject(value)) throw bundleProblem(path, 'an exchange {method, path, body, status, response}', value);
  if (value.method !== 'POST' && value.method !== 'GET')
    throw bundleProblem(`${path}.method`, '"POST" or "GET"', value.method);
  if (typeof value.path !== 'string' || !value.path.startsWith('/'))
    throw bundleProblem(
      `${path}.path`,
      'the request path relative to the base URL, such as "/evm/lineage/record"',
      value.path,
    );
  if (!isObject(value.body)) throw bundleProblem(`${path}.body`, 'the request body as sent (an object)', value.body);
  if (!Number.isSafeInteger(value.status) || (value.status as number) < 100 || (value.status as number) > 599)
    throw bundleProblem(`${path}.status`, 'the HTTP status answered (an integer 100-599)', value.status);
  if (!('response' in value)) throw bundleProblem(`${path}.response`, 'the JSON the service answered', undefined);
  const exchange = value as unknown as Exchange;
  const body = exchange.body;
  const endpoint = exchange.path.replace(/^\/v1(?=\/)/, '');
  if (endpoint !== RECORD && endpoint !== GENESIS && endpoint !== RAW_BLOCKS && endpoint !== RAW_LOGS) return; // asked for by neither a walk nor an audit
  if (!isChainId(body.chain_id))
    throw bundleProblem(`${path}.body.chain_id`, 'the chain id sent (a positive integer)', body.chain_id);
  const chainId = body.chain_id;

  if ((endpoint === RAW_BLOCKS || endpoint === RAW_LOGS) && body.block_numbers === undefined) {
    readRangePage(exchange, endpoint, chainId, path, index, versions);
    return;
  }

  if (endpoint === RAW_BLOCKS) {
    const numbers = body.block_numbers;
    if (!Array.isArray(numbers) || !numbers.every(isBlockNumber))
      throw bundleProblem(
        `${path}.body.block_numbers`,
        'the block numbers sent (an array of non-negative integers)',
        numbers,
      );
    const records = contentOf(exchange, path, readRawBlocks);
    if (records !== null && numbers.length > 1) unaskedRawRecord(exchange, path, numbers);
    for (const n of numbers) {
      const key = blockKey(chainId, n);
      const record = records === null ? null : rawRecordFor(records, numbers, n);
      const what = `the raw record of block ${n} on chain ${chainId}`;
      if (isFirstVersion(versions, `${RAW_BLOCKS} ${key}`, path, record, what)) index.rawBlocks.set(key, record);
    }
    return;
  }

  const differ = spellingsDiffer(body, 'tracing_id', `${path}.body`);
  if (differ !== null)
    throw new SourceError(`${differ.path}: expected ${differ.expected}`, {
      path: differ.path,
      reason: differ.reason,
      expected: differ.expected,
    });
  // One spelling given as null claims nothing: the other is the tracing id (as spellingsDiffer reads them).
  const tracingMember = claims(body.tracing_id) || !claims(body._tracing_id) ? 'tracing_id' : '_tracing_id';
  const tracingId = body[tracingMember];
  if (typeof tracingId !== 'string')
    throw bundleProblem(
      `${path}.body.${tracingMember}`,
      'the tracing id sent (a string, as tracing_id or _tracing_id)',
      tracingId,
    );
  if (endpoint === RECORD) {
    const key = lineageKey(chainId, tracingId);
    const answer = contentOf(exchange, path, readRecordAnswer);
    const what = `the answer to lineage/record for tracing id ${plain(tracingId)} on chain ${chainId}`;
    if (isFirstVersion(versions, `${RECORD} ${key}`, path, answerOf(exchange), what))
      index.records.set(key, { path, status: exchange.status, answer });
    return;
  }
  const cursor = cursorOf(exchange, path);
  const key = lineageKey(chainId, tracingId, cursor);
  const answer = contentOf(exchange, path, readGenesisPage);
  const what = `the answer to lineage/genesis for tracing id ${plain(tracingId)} on chain ${chainId}${cursor === null ? '' : ` after cursor ${plain(cursor)}`}`;
  if (isFirstVersion(versions, `${GENESIS} ${key}`, path, answerOf(exchange), what))
    index.genesisPages.set(key, { path, status: exchange.status, answer });
}

/** Indexes a page of a raw dataset asked for by block range, as a range audit's cross-check records it. */
function readRangePage(
  exchange: Exchange,
  endpoint: string,
  chainId: number,
  path: string,
  index: BundleIndex,
  versions: FirstVersions,
): void {
  const { from_block: from, to_block: to } = exchange.body;
  if (!isBlockNumber(from))
    throw bundleProblem(
      `${path}.body.from_block`,
      'the first block of the range sent (a non-negative integer), or block_numbers',
      from,
    );
  if (!isBlockNumber(to))
    throw bundleProblem(`${path}.body.to_block`, 'the last block of the range sent (a non-negative integer)', to);
  const cursor = cursorOf(exchange, path);
  const key = rawPageKey(endpoint, chainId, from, to, cursor);
  const what = `the answer to ${endpoint.slice(1)} for blocks ${from}-${to} on chain ${chainId}${cursor === null ? '' : ` after cursor ${plain(cursor)}`}`;
  if (isFirstVersion(versions, key, path, answerOf(exchange), what))
    index.rawPages.set(key, {
      path,
      status: exchange.status,
      answer: exchange.status === 200 ? exchange.response : null,
    });
}

/** Checks one block's shape (its full reading is the walker's) and indexes it by chain and number. */
function readBlock(value: unknown, path: string, index: BundleIndex, versions: FirstVersions): void {
  if (!isObject(value)) throw bundleProblem(path, 'a block {chain_id, header, receipts} in the JSON-RPC format', value);
  if (!isChainId(value.chain_id))
    throw bundleProblem(`${path}.chain_id`, "the block's chain id (a positive integer)", value.chain_id);
  if (!isObject(value.header))
    throw bundleProblem(
      `${path}.header`,
      'the block header (an object, as eth_getBlockByNumber answers it)',
      value.header,
    );
  const n = blockNumberOf(value.header.number);
  if (n === undefined)
    throw bundleProblem(`${path}.header.number`, 'the block number (a 0x quantity or an integer)', value.header.number);
  if (!Array.isArray(value.receipts))
    throw bundleProblem(`${path}.receipts`, "the block's complete receipts (an array)", value.receipts);
  const key = blockKey(value.chain_id, n);
  if (isFirstVersion(versions, `block ${key}`, path, value, `block ${n} of chain ${value.chain_id}`)) {
    index.blocks.set(key, value as BlockJson);
    index.blockPaths.set(key, path);
  }
}

/**
 * Checks a parsed bundle and indexes its answers, in one linear pass. Throws a SourceError
 * naming the first faulty member (`exchanges[3].body.cursor`), or the limit the bundle is
 * beyond (LINEAGE_LIMITS: exchanges, blocks, JSON nesting).
 */
export function readBundle(json: unknown): { bundle: Bundle; index: BundleIndex } {
  if (!isObject(json)) throw bundleProblem('', 'a bundle: a JSON object {base_url, exchanges, blocks}', json);
  const { exchanges, blocks = [] } = json;
  if (!Array.isArray(exchanges)) {
    const what = isObject(json.header) && Array.isArray(json.receipts) ? ' (this is a block, not a bundle)' : '';
    throw bundleProblem(
      'exchanges',
      `the hosted service's recorded request/response pairs (an array)${what}`,
      exchanges,
    );
  }
  if (!Array.isArray(blocks))
    throw bundleProblem('blocks', 'blocks in the JSON-RPC format (an array), or nothing', blocks);
  if (json.base_url !== undefined && typeof json.base_url !== 'string')
    throw bundleProblem('base_url', 'the base URL of the service (a string), or nothing', json.base_url);
  if (exchanges.length > LINEAGE_LIMITS.bundleExchanges)
    throw limitExceeded('bundleExchanges', `the bundle (${exchanges.length} exchanges)`, 'exchanges');
  if (blocks.length > LINEAGE_LIMITS.bundleBlocks)
    throw limitExceeded('bundleBlocks', `the bundle (${blocks.length} blocks)`, 'blocks');

  const index: BundleIndex = {
    records: new Map(),
    genesisPages: new Map(),
    rawBlocks: new Map(),
    rawPages: new Map(),
    blocks: new Map(),
    blockPaths: new Map(),
  };
  const versions: FirstVersions = new Map();
  exchanges.forEach((exchange, i) => readExchange(exchange, `exchanges[${i}]`, index, versions));
  blocks.forEach((block, i) => readBlock(block, `blocks[${i}]`, index, versions));
  // Last, so that a faulty member is named as such before the nesting below it is.
  const deep = tooDeep(json, LINEAGE_LIMITS.jsonDepth);
  if (deep !== null) throw limitExceeded('jsonDepth', 'the bundle', deep);
  const bundle: Bundle = {
    ...(typeof json.base_url === 'string' && { base_url: json.base_url }),
    exchanges: exchanges as Exchange[],
    blocks: blocks as BlockJson[],
  };
  return { bundle, index };
}

/** Checks a parsed bundle's shape (see {@link readBundle}) and returns it typed. */
export function parseBundle(json: unknown): Bundle {
  return readBundle(json).bundle;
}
