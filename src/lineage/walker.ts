import { bytesEqual, bytesToHex, parseHex, strip0x } from '../bytes/hex.js';
import { bloomContains } from '../bloom/bloom.js';
import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { encodeHeader } from '../header/encode.js';
import { readRpcBlock, type RpcBlock } from '../input/json-rpc.js';
import { Problems } from '../input/problems.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { RULE_SETS } from '../receipts/rules.js';
import { receiptsCommitment } from '../receipts/root.js';
import { checkFunctionResult, decodeFunctionOutput, oneValue } from './abi.js';
import { DATASETS, datasetId } from './datasets.js';
import { check, type Check, type LineageReport, type RecordReport } from './report.js';
import { SourceError, type BlockSource, type GenesisAnswer, type LineageSource } from './source.js';
import { isObject, type JsonObject } from '../input/fields.js';

type Json = JsonObject;
const TRACING_ID = /^[0-9a-fA-F]{36}$/;
/** keccak("Sync(uint112,uint112)"): the reserves event of Uniswap-V2-style pairs. */
const SYNC_TOPIC = bytesToHex(defaultKeccak256(new TextEncoder().encode('Sync(uint112,uint112)')));

export interface WalkOptions {
  chainId: number;
  tracingId: string;
  source: LineageSource;
  /** Blocks of the genesis logs; the walk skips (never passes) log checks without them. */
  blocks?: BlockSource;
  registry?: ChainRegistry;
}

/** A genesis log as the service sends it (spec "Genesis artifacts"). */
interface GenesisLog {
  block_number: number;
  tx_index: number;
  log_index: number;
  contract_address: string;
  topics: string[];
  data: string;
  block_time?: string;
}

/** Verified facts about one block, computed once however many logs point into it. */
interface BlockFacts {
  block: RpcBlock;
  rootsMatch: boolean;
}

const hexOf = (v: unknown) => (typeof v === 'string' ? parseHex(v) : null);
/** Hex text compared as the service may spell it: with or without 0x, any case. */
const normHex = (v: unknown) => strip0x(String(v ?? '')).toLowerCase();
const sameHex = (a: unknown, b: unknown) => normHex(a) === normHex(b);
const tracingIdOf = (record: Json) => (record.tracing_id ?? record._tracing_id) as unknown;
const idList = (record: Json, name: string) => (record[name] ?? record[`_${name}`] ?? []) as unknown;
const position = (block: number, tx: number, log: number) => [block, tx, log] as const;
const notAfter = (a: readonly number[], b: readonly number[]) => a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! <= b[2]!)));

/** Reads a genesis log's members; the problem names the member. */
function readGenesisLog(value: unknown): GenesisLog | string {
  if (!isObject(value)) return 'not an object';
  for (const member of ['block_number', 'tx_index', 'log_index'] as const) {
    if (!Number.isSafeInteger(value[member]) || (value[member] as number) < 0) return `${member} is not a non-negative integer`;
  }
  if (hexOf(value.contract_address)?.length !== 20) return 'contract_address is not a 20-byte hex address';
  if (!Array.isArray(value.topics) || value.topics.some((t) => hexOf(t)?.length !== 32)) return 'topics is not an array of 32-byte hex topics';
  if (typeof value.data !== 'string' || hexOf(value.data) === null) return 'data is not hex';
  return value as unknown as GenesisLog;
}

/**
 * Walks a derived record's lineage: checks the record's shape, that every
 * genesis log is on chain (in a block whose receipts reproduce its roots and
 * whose header hashes to its hash), that every function result is
 * self-consistent, that the record agrees with its artifacts, and follows its
 * parents recursively, reporting missing ones and cycles.
 *
 * @example
 * const report = await walkLineage({ chainId: 1, tracingId, source: new BundleSource(bundle), blocks: new BundleSource(bundle) })
 * report.verdict // 'pass' | 'fail'
 */
export async function walkLineage(options: WalkOptions): Promise<LineageReport> {
  const registry = options.registry ?? defaultRegistry;
  const chain = registry.get(options.chainId);
  const rules = chain?.verifiable ? registry.rulesOf(chain) : RULE_SETS.ethereum;
  const warnings: string[] = [];
  const records: RecordReport[] = [];
  const blockCache = new Map<number, Promise<{ facts: BlockFacts | null; checks: Check[] }>>();
  const done = new Set<string>();

  /** Block-level checks, once per block: header hash and receipts roots. */
  const blockFacts = (n: number) => {
    let cached = blockCache.get(n);
    if (cached === undefined) {
      cached = (async () => {
        const subject = `block ${n}`;
        const json = options.blocks === undefined ? null : await options.blocks.block(options.chainId, n);
        if (json === null) return { facts: null, checks: [check('block.available', 'skipped', subject, 'the source has no such block (give a bundle with blocks, or --rpc)')] };
        const problems = new Problems();
        const block = readRpcBlock(json, problems);
        if (block === undefined) return { facts: null, checks: [check('block.available', 'fail', subject, `the block does not parse: ${problems.list[0]?.name}: ${problems.list[0]?.expected}`)] };
        const checks: Check[] = [];
        const { complete, hash, fields } = block.header;
        if (complete === undefined || hash === undefined) checks.push(check('block.header_hash', 'skipped', subject, `the header lacks ${complete === undefined ? block.header.missing.join(', ') : 'its hash'}`));
        else {
          const computed = defaultKeccak256(encodeHeader(complete));
          checks.push(bytesEqual(computed, hash) ? check('block.header_hash', 'pass', subject, 'the header hashes to the block hash') : check('block.header_hash', 'fail', subject, `the header hashes to ${bytesToHex(computed)}, not ${bytesToHex(hash)}`));
        }
        const computedRoot = receiptsCommitment(block.receipts, { rules }).receiptsRoot;
        // The raw block record is optional evidence: a source that cannot give it does not stop the walk.
        const raw = await (options.source.rawBlock?.(options.chainId, n) ?? Promise.resolve(null)).catch((error: unknown) => {
          if (error instanceof SourceError) return null;
          throw error;
        });
        const claimed: Array<[string, Uint8Array | null]> = [['header receiptsRoot', fields.receiptsRoot ?? null]];
        if (raw !== null) claimed.push(['raw block record receipt_root', hexOf(raw.receipt_root)]);
        const wrong = claimed.filter(([, root]) => root === null || !bytesEqual(root, computedRoot));
        const rootsMatch = wrong.length === 0;
        checks.push(
          rootsMatch
            ? check('block.receipts_root', 'pass', subject, `${block.receipts.length} receipts reproduce the ${claimed.map(([what]) => what).join(' and the ')}`)
            : check('block.receipts_root', 'fail', subject, `the ${block.receipts.length} receipts give ${bytesToHex(computedRoot)}, not the ${wrong.map(([what]) => what).join(' nor the ')}`),
        );
        return { facts: { block, rootsMatch }, checks };
      })();
      blockCache.set(n, cached);
    }
    return cached;
  };

  /** Per-log checks: position and content, bloom, block time. */
  const logChecks = (log: GenesisLog, subject: string, facts: BlockFacts): Check[] => {
    const { block, rootsMatch } = facts;
    const checks: Check[] = [];
    const address = hexOf(log.contract_address)!;
    const topics = log.topics.map((t) => hexOf(t)!);
    const data = hexOf(log.data)!;
    const same = (l: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array } | undefined) =>
      l !== undefined && bytesEqual(l.address, address) && l.topics.length === topics.length && l.topics.every((t, i) => bytesEqual(t, topics[i]!)) && bytesEqual(l.data, data);
    let found = false;
    if (!rootsMatch) checks.push(check('log.position', 'skipped', subject, 'the block\'s receipts do not reproduce its root, so positions in them prove nothing'));
    else {
      const receipt = block.receipts[log.tx_index];
      if (same(receipt?.logs[log.log_index])) {
        found = true;
        checks.push(check('log.position', 'pass', subject, `transaction ${log.tx_index}, log ${log.log_index} has this address, topics and data`));
      } else {
        const blockWide = block.receipts.flatMap((r, tx) => r.logs.map((l) => ({ l, tx })))[log.log_index];
        if (blockWide !== undefined && blockWide.tx === log.tx_index && same(blockWide.l)) {
          found = true;
          warnings.push(`${subject}: log_index ${log.log_index} is the block-wide position (JSON-RPC logIndex), not the position within the transaction`);
          checks.push(check('log.position', 'pass', subject, `transaction ${log.tx_index} has this log at block-wide index ${log.log_index}`));
        } else {
          checks.push(check('log.position', 'fail', subject, receipt === undefined ? `the block has no transaction ${log.tx_index}` : `transaction ${log.tx_index} has no log ${log.log_index} with this address, topics and data`));
        }
      }
    }
    const bloom = block.header.fields.logsBloom;
    if (!found || bloom === undefined) checks.push(check('log.bloom', 'skipped', subject, bloom === undefined ? 'the header has no logsBloom' : 'the log is not the chain\'s, so its bloom bits prove nothing'));
    else {
      const missing = [address, ...topics].findIndex((item) => !bloomContains(bloom, item));
      checks.push(missing === -1 ? check('log.bloom', 'pass', subject, 'its address and topics are in the block bloom') : check('log.bloom', 'fail', subject, `${missing === 0 ? 'its address' : `topic ${missing - 1}`} is not in the block bloom`));
    }
    const timestamp = block.header.fields.timestamp;
    if (log.block_time === undefined || timestamp === undefined) checks.push(check('log.block_time', 'skipped', subject, 'no block_time, or no header timestamp'));
    else {
      const seconds = Date.parse(log.block_time) / 1000;
      const expected = new Date(Number(timestamp) * 1000).toISOString();
      checks.push(seconds === Number(timestamp) ? check('log.block_time', 'pass', subject, `block_time is the header timestamp ${expected}`) : check('log.block_time', 'fail', subject, `block_time ${log.block_time} is not the header timestamp ${expected}`));
    }
    return checks;
  };

  const walk = async (tracingId: string, path: string[]): Promise<void> => {
    const key = tracingId.toLowerCase();
    done.add(key);
    const answer = await options.source.record(options.chainId, tracingId);
    const report: RecordReport = { tracing_id: tracingId, dataset: null, checks: [] };
    records.push(report);
    const add = (c: Check) => report.checks.push(c);
    if (answer === null) {
      add(check('record.exists', 'fail', tracingId, path.length === 0 ? 'the source has no record with this tracing id' : `parent of ${path[path.length - 1]} is missing`));
      return;
    }
    const record = answer.record;
    const id = datasetId(answer.dataset);
    report.dataset = id ?? answer.dataset;

    // Shape.
    const own = tracingIdOf(record);
    if (!TRACING_ID.test(tracingId)) add(check('shape.tracing_id', 'fail', tracingId, 'a tracing id is 36 hex characters (18 bytes)'));
    else if (own === undefined) add(check('shape.tracing_id', 'skipped', tracingId, 'the record carries no tracing_id'));
    else if (typeof own !== 'string' || own.toLowerCase() !== key) add(check('shape.tracing_id', 'fail', tracingId, `the record's tracing id is ${JSON.stringify(own)}`));
    else add(check('shape.tracing_id', 'pass', tracingId, `36 hex characters, matching the record${record.tracing_id === undefined ? ' (legacy _tracing_id)' : ''}`));
    const lists = ['genesis_tracing_ids', 'parent_tracing_ids'].map((name) => [name, idList(record, name)] as const);
    const badList = lists.find(([, list]) => !Array.isArray(list) || list.some((v) => typeof v !== 'string' || !TRACING_ID.test(v)));
    add(badList === undefined ? check('shape.id_lists', 'pass', tracingId, 'genesis and parent ids are lists of 36-hex tracing ids') : check('shape.id_lists', 'fail', tracingId, `${badList[0]} is not a list of 36-hex tracing ids`));
    if (id !== null && DATASETS[id] !== undefined) add(check('shape.dataset', 'pass', tracingId, `dataset ${id} (${DATASETS[id]})`));
    else add(check('shape.dataset', 'skipped', tracingId, `unknown dataset ${JSON.stringify(answer.dataset)}: generic checks only`));

    // Artifacts.
    const genesis: GenesisAnswer | null = await options.source.genesis(options.chainId, tracingId);
    const logs: Array<{ log: GenesisLog; subject: string }> = [];
    if (genesis === null) add(check('genesis.available', 'skipped', tracingId, 'the source has no genesis artifacts for this record'));
    else {
      for (const [i, value] of genesis.logs.entries()) {
        const subject = `genesis.logs[${i}]`;
        const log = readGenesisLog(value);
        if (typeof log === 'string') {
          add(check('log.shape', 'fail', subject, log));
          continue;
        }
        logs.push({ log, subject });
        const { facts, checks } = await blockFacts(log.block_number);
        for (const c of checks) if (!report.checks.some((x) => x.check === c.check && x.subject === c.subject)) add(c);
        if (facts === null) add(check('log.position', 'skipped', subject, `block ${log.block_number} is not available`));
        else logChecks(log, subject, facts).forEach(add);
      }
      for (const [i, value] of genesis.functionResults.entries()) {
        for (const c of checkFunctionResult(value, `genesis.function_results[${i}]`)) add(check(c.check, c.status, c.path, c.reason));
      }
    }

    // The record against its artifacts.
    const results = (genesis?.functionResults ?? []).filter(isObject);
    const decoded = (name: string) => {
      const result = results.find((r) => r.decoded_name === name && (record.address === undefined || sameHex(r.contract, record.address)));
      const bytes = result === undefined ? null : hexOf(result.output);
      if (bytes === null) return undefined;
      const out = decodeFunctionOutput(name, bytes);
      return out.ok ? out.value : undefined;
    };
    if (id === '0201') add(erc20Check(record, decoded, tracingId));
    else if (id === '0301') add(reservesCheck(record, logs, decoded, tracingId));
    else add(check('record.cross_check', 'skipped', tracingId, `dataset ${report.dataset} is not cross-checked: generic checks only`));
    const recordBlock = record.block_number;
    if (!Number.isSafeInteger(recordBlock)) add(check('record.not_older', 'skipped', tracingId, 'the record has no block_number'));
    else {
      const newer = logs.find(({ log }) => log.block_number > (recordBlock as number));
      add(newer === undefined ? check('record.not_older', 'pass', tracingId, `block ${recordBlock} is at or after every artifact's block`) : check('record.not_older', 'fail', tracingId, `block ${recordBlock} is older than ${newer.subject} (block ${newer.log.block_number})`));
    }

    // Parents.
    const parents = idList(record, 'parent_tracing_ids');
    for (const parent of Array.isArray(parents) ? parents.filter((p): p is string => typeof p === 'string') : []) {
      const cycleAt = [...path, key].indexOf(parent.toLowerCase());
      if (cycleAt !== -1) add(check('parents.cycle', 'fail', tracingId, `parent ${parent} closes a cycle: ${[...path, key].slice(cycleAt).concat(parent.toLowerCase()).join(' → ')}`));
      else if (!done.has(parent.toLowerCase())) await walk(parent, [...path, key]);
    }
  };

  await walk(options.tracingId, []);
  const all = records.flatMap((r) => r.checks);
  const count = (status: string) => all.filter((c) => c.status === status).length;
  return {
    chain_id: options.chainId,
    tracing_id: options.tracingId,
    verdict: count('fail') > 0 ? 'fail' : 'pass',
    summary: { pass: count('pass'), fail: count('fail'), skipped: count('skipped') },
    warnings,
    records,
  };
}

type Decoded = (name: string) => unknown;

/** ERC-20 (0201): name, symbol and decimals equal the decoded function results. */
function erc20Check(record: Json, decoded: Decoded, subject: string): Check {
  const members = [
    ['name', decoded('name')],
    ['symbol', decoded('symbol')],
    ['decimals', decoded('decimals')],
  ] as const;
  const present = members.filter(([, v]) => v !== undefined);
  if (present.length === 0) return check('record.erc20', 'skipped', subject, 'no decodable name, symbol or decimals result among the artifacts');
  // The decoded results are one-value outputs: read by the same rule as the service's decoded_output.
  const valueOf = (v: unknown) => {
    const one = oneValue(v);
    return one.ok ? one.value : undefined;
  };
  const wrong = present.find(([member, v]) => String(valueOf(v)) !== String(record[member]));
  if (wrong !== undefined) return check('record.erc20', 'fail', subject, `${wrong[0]} is ${JSON.stringify(record[wrong[0]])} but the function result decodes to ${JSON.stringify(valueOf(wrong[1]))}`);
  return check('record.erc20', 'pass', subject, `${present.map(([m]) => m).join(', ')} equal the decoded function results`);
}

/**
 * Uniswap-V2-style reserves (0301): the reserves of the last Sync event of the
 * record's own pool at or before its position, and of getReserves where present.
 */
function reservesCheck(record: Json, logs: Array<{ log: GenesisLog; subject: string }>, decoded: Decoded, subject: string): Check {
  const reserves = record.reserves;
  if (!Array.isArray(reserves) || reserves.length !== 2) return check('record.reserves', 'skipped', subject, 'not a two-token reserves record');
  const pool = normHex(record.address);
  const at = position(Number(record.block_number), Number(record.tx_index ?? Infinity), Number(record.log_index ?? Infinity));
  const syncs = logs.filter(({ log }) => normHex(log.topics[0]) === SYNC_TOPIC && normHex(log.contract_address) === pool && notAfter(position(log.block_number, log.tx_index, log.log_index), at));
  const last = syncs.sort((a, b) => (notAfter(position(a.log.block_number, a.log.tx_index, a.log.log_index), position(b.log.block_number, b.log.tx_index, b.log.log_index)) ? -1 : 1)).at(-1);
  const sources: Array<[string, [bigint, bigint]]> = [];
  if (last !== undefined) {
    const data = hexOf(last.log.data)!;
    if (data.length === 64) sources.push([`the Sync at ${last.subject}`, [BigInt(`0x${bytesToHex(data.subarray(0, 32))}`), BigInt(`0x${bytesToHex(data.subarray(32))}`)]]);
  }
  const get = decoded('getReserves');
  if (isObject(get)) sources.push(['getReserves', [BigInt(String(get.reserve0)), BigInt(String(get.reserve1))]]);
  if (sources.length === 0) return check('record.reserves', 'skipped', subject, `no Sync log of pool ${pool} at or before the record, and no getReserves result`);
  let claimed: [bigint, bigint];
  try {
    claimed = [BigInt(String(reserves[0])), BigInt(String(reserves[1]))];
  } catch {
    return check('record.reserves', 'fail', subject, `reserves ${JSON.stringify(reserves)} are not integers`);
  }
  const wrong = sources.find(([, r]) => r[0] !== claimed[0] || r[1] !== claimed[1]);
  if (wrong !== undefined) return check('record.reserves', 'fail', subject, `reserves [${claimed.join(', ')}] differ from ${wrong[0]}: [${wrong[1].join(', ')}]`);
  return check('record.reserves', 'pass', subject, `reserves equal ${sources.map(([s]) => s).join(' and ')}`);
}
