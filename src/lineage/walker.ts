import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { isObject, type JsonObject } from '../input/fields.js';
import { checkFunctionResult, decodeFunctionOutput } from './abi.js';
import { erc20Check, reservesCheck, sameHex } from './cross-checks.js';
import { DATASETS, datasetId } from './datasets.js';
import { LINEAGE_LIMITS, limitExceeded } from './limits.js';
import { checkBlock, checkLog, hexOf, readGenesisLog, type BlockContext, type BlockFacts, type GenesisLog } from './onchain.js';
import { check, type Check, type LineageReport, type RecordReport } from './report.js';
import { plain, show } from './show.js';
import type { BlockSource, GenesisAnswer, LineageSource } from './source.js';

type Json = JsonObject;
const TRACING_ID = /^[0-9a-fA-F]{36}$/;

export interface WalkOptions {
  chainId: number;
  tracingId: string;
  source: LineageSource;
  /** Blocks of the genesis logs; the walk skips (never passes) log checks without them. */
  blocks?: BlockSource;
  registry?: ChainRegistry;
}

/**
 * Units of work (a record, an artifact) between two yields to the event loop: a server that
 * runs a long audit still answers its other requests (health) meanwhile. A yield costs about
 * a millisecond: at the limits (110,000 units) some 55 ms in all.
 */
const WORK_BETWEEN_YIELDS = 2_000;
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const tracingIdOf = (record: Json) => (record.tracing_id ?? record._tracing_id) as unknown;
const idList = (record: Json, name: string) => (record[name] ?? record[`_${name}`] ?? []) as unknown;

/** A record on the path from the one asked for down to the one being walked, and the parents it has left to follow. */
interface Frame {
  key: string;
  report: RecordReport;
  parents: string[];
  next: number;
}

/**
 * Walks a derived record's lineage: checks the record's shape, that every
 * genesis log is on chain (in a block whose receipts reproduce its roots and
 * whose header hashes to its hash), that every function result is
 * self-consistent, that the record agrees with its artifacts, and follows its
 * parents depth first, reporting missing ones and cycles.
 *
 * Linear in what the sources answer, each record and block visited once; the
 * walk keeps its own stack, so a deep chain of parents cannot overflow the call
 * stack. Beyond LINEAGE_LIMITS (records, parent depth, artifacts) it stops with a
 * SourceError naming the limit: never a partial verdict.
 *
 * @example
 * const source = new BundleSource(bundle)
 * const report = await walkLineage({ chainId: 1, tracingId, source, blocks: source })
 * report.verdict // 'pass' | 'fail'
 */
export async function walkLineage(options: WalkOptions): Promise<LineageReport> {
  const registry = options.registry ?? defaultRegistry;
  const context: BlockContext = { chainId: options.chainId, registry, source: options.source, ...(options.blocks && { blocks: options.blocks }) };
  const warnings: string[] = [];
  const records: RecordReport[] = [];
  const blockCache = new Map<number, Promise<{ facts: BlockFacts | null; checks: Check[] }>>();
  const lineage = `the lineage of ${plain(options.tracingId)}`;
  let artifacts = 0;
  let work = 0;
  /** Counts a unit of work, and lets the event loop run every WORK_BETWEEN_YIELDS units. */
  const worked = async () => {
    if (++work % WORK_BETWEEN_YIELDS === 0) await yieldToEventLoop();
  };

  /** Block-level checks, once per block however many logs of however many records point into it. */
  const blockFacts = (n: number) => {
    let cached = blockCache.get(n);
    if (cached === undefined) blockCache.set(n, (cached = checkBlock(n, context)));
    return cached;
  };

  /** Audits one record, its parents not followed: its report, and the parents to follow. */
  const audit = async (tracingId: string, childId: string | undefined): Promise<{ report: RecordReport; parents: string[] }> => {
    const key = tracingId.toLowerCase();
    await worked();
    const answer = await options.source.record(options.chainId, tracingId);
    const report: RecordReport = { tracing_id: tracingId, dataset: null, checks: [] };
    records.push(report);
    const add = (c: Check) => report.checks.push(c);
    if (answer === null) {
      add(check('record.exists', 'fail', tracingId, childId === undefined ? 'the source has no record with this tracing id' : `parent of ${childId} is missing`));
      return { report, parents: [] };
    }
    const record = answer.record;
    const id = datasetId(answer.dataset);
    report.dataset = id ?? answer.dataset;

    // Shape.
    const own = tracingIdOf(record);
    if (!TRACING_ID.test(tracingId)) add(check('shape.tracing_id', 'fail', tracingId, 'a tracing id is 36 hex characters (18 bytes)'));
    else if (own === undefined) add(check('shape.tracing_id', 'skipped', tracingId, 'the record carries no tracing_id'));
    else if (typeof own !== 'string' || own.toLowerCase() !== key) add(check('shape.tracing_id', 'fail', tracingId, `the record's tracing id is ${show(own)}`));
    else add(check('shape.tracing_id', 'pass', tracingId, `36 hex characters, matching the record${record.tracing_id === undefined ? ' (legacy _tracing_id)' : ''}`));
    const lists = ['genesis_tracing_ids', 'parent_tracing_ids'].map((name) => [name, idList(record, name)] as const);
    const badList = lists.find(([, list]) => !Array.isArray(list) || list.some((v) => typeof v !== 'string' || !TRACING_ID.test(v)));
    add(badList === undefined ? check('shape.id_lists', 'pass', tracingId, 'genesis and parent ids are lists of 36-hex tracing ids') : check('shape.id_lists', 'fail', tracingId, `${badList[0]} is not a list of 36-hex tracing ids`));
    if (id !== null && DATASETS[id] !== undefined) add(check('shape.dataset', 'pass', tracingId, `dataset ${id} (${DATASETS[id]})`));
    else add(check('shape.dataset', 'skipped', tracingId, `unknown dataset ${show(answer.dataset)}: generic checks only`));

    // Artifacts.
    const genesis: GenesisAnswer | null = await options.source.genesis(options.chainId, tracingId);
    const logs: Array<{ log: GenesisLog; subject: string }> = [];
    if (genesis === null) add(check('genesis.available', 'skipped', tracingId, 'the source has no genesis artifacts for this record'));
    else {
      artifacts += genesis.logs.length + genesis.functionResults.length;
      if (artifacts > LINEAGE_LIMITS.lineageArtifacts) throw limitExceeded('lineageArtifacts', lineage);
      const blocksReported = new Set<number>();
      for (const [i, value] of genesis.logs.entries()) {
        await worked();
        const subject = `genesis.logs[${i}]`;
        const read = readGenesisLog(value);
        if (!read.ok) {
          add(check('log.shape', 'fail', subject, read.error));
          continue;
        }
        const log = read.value;
        logs.push({ log, subject });
        const { facts, checks } = await blockFacts(log.block_number);
        if (!blocksReported.has(log.block_number)) {
          blocksReported.add(log.block_number);
          checks.forEach(add);
        }
        if (facts === null) add(check('log.position', 'skipped', subject, `block ${log.block_number} is not available`));
        else checkLog(log, subject, facts, (warning) => warnings.push(warning)).forEach(add);
      }
      for (const [i, value] of genesis.functionResults.entries()) {
        await worked();
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
    else add(check('record.cross_check', 'skipped', tracingId, `dataset ${plain(report.dataset)} is not cross-checked: generic checks only`));
    const recordBlock = record.block_number;
    if (!Number.isSafeInteger(recordBlock)) add(check('record.not_older', 'skipped', tracingId, 'the record has no block_number'));
    else {
      const newer = logs.find(({ log }) => log.block_number > (recordBlock as number));
      add(newer === undefined ? check('record.not_older', 'pass', tracingId, `block ${recordBlock} is at or after every artifact's block`) : check('record.not_older', 'fail', tracingId, `block ${recordBlock} is older than ${newer.subject} (block ${newer.log.block_number})`));
    }

    const parents = idList(record, 'parent_tracing_ids');
    return { report, parents: Array.isArray(parents) ? parents.filter((p): p is string => typeof p === 'string') : [] };
  };

  // Depth first with an explicit stack: `path` holds the records from the one asked for down to the one being walked.
  const path: Frame[] = [];
  const onPath = new Map<string, number>();
  const visited = new Set<string>();
  const enter = async (tracingId: string, childId?: string) => {
    if (records.length === LINEAGE_LIMITS.records) throw limitExceeded('records', lineage);
    if (path.length > LINEAGE_LIMITS.parentDepth) throw limitExceeded('parentDepth', lineage);
    const key = tracingId.toLowerCase();
    visited.add(key);
    const { report, parents } = await audit(tracingId, childId);
    onPath.set(key, path.length);
    path.push({ key, report, parents, next: 0 });
  };
  /** The cycle from path[from] back to it, shortened in the middle when long. */
  const cycle = (from: number, closing: string) => {
    const keys = (frames: Frame[]) => frames.map((f) => f.key);
    const length = path.length - from;
    const shown = length <= 6 ? keys(path.slice(from)) : [...keys(path.slice(from, from + 3)), `… ${length - 5} more …`, ...keys(path.slice(-2))];
    return [...shown, closing].join(' → ');
  };

  await enter(options.tracingId);
  while (path.length > 0) {
    const frame = path[path.length - 1]!;
    if (frame.next === frame.parents.length) {
      path.pop();
      onPath.delete(frame.key);
      continue;
    }
    const parent = frame.parents[frame.next++]!;
    const parentKey = parent.toLowerCase();
    const cycleAt = onPath.get(parentKey);
    if (cycleAt !== undefined) frame.report.checks.push(check('parents.cycle', 'fail', frame.report.tracing_id, `parent ${parent} closes a cycle: ${cycle(cycleAt, parentKey)}`));
    else if (!visited.has(parentKey)) await enter(parent, frame.report.tracing_id);
  }

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
