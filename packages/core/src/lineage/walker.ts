import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { checkFunctionResult } from './abi.js';
import { datasetId } from './sources/datasets.js';
import { LINEAGE_LIMITS, limitExceeded } from './sources/input-limits.js';
import {
  checkBlock,
  checkLog,
  placedLog,
  readGenesisLog,
  type BlockAnchors,
  type BlockContext,
  type BlockFacts,
} from './onchain.js';
import {
  artifactAgreementChecks,
  genesisCompleteCheck,
  parentsOf,
  shapeChecks,
  type ArtifactLog,
} from './record-checks.js';
import type { ProvenReceipts } from './cross-checks.js';
import {
  check,
  lineageAssurance,
  lineageVerdict,
  type Check,
  type LineageReport,
  type RecordReport,
} from './lineage-report.js';
import { kindOf, plain } from '../json/show.js';
import { checkChainId } from '../chains/chain-arguments.js';
import type { BlockSource } from '../sources/block-source.js';
import type { GenesisAnswer, LineageSource } from './sources/lineage-source.js';
import { depthFirst } from './traversal.js';
import type { BlockVerifier } from '../verify/block-verifier.js';

export interface WalkOptions {
  chainId: number;
  tracingId: string;
  source: LineageSource;
  /** Blocks of the genesis logs; the walk skips (never passes) log checks without them. */
  blocks?: BlockSource;
  registry?: ChainRegistry;
  /** Verifies the blocks' receipts elsewhere (a pool of worker threads); absent, on this thread. */
  verify?: BlockVerifier;
  /**
   * Hashes an anchor proof proves (`anchoredHashes`): a block it proves is checked against them (`block.anchor`), and
   * the report's `assurance` says how many of the blocks they prove. Absent, every block is the source's word.
   */
  anchors?: BlockAnchors;
}

/**
 * Units of work (a record, an artifact) between two yields to the event loop: a server that
 * runs a long audit still answers its other requests (health) meanwhile. A yield costs about
 * a millisecond: at the limits (110,000 units) some 55 ms in all.
 */
const WORK_BETWEEN_YIELDS = 2_000;
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** One walk: what it has found so far, and the budget it has used against LINEAGE_LIMITS. */
class LineageWalk {
  readonly records: RecordReport[] = [];
  readonly warnings: string[] = [];
  private readonly context: BlockContext;
  private readonly blocks = new Map<number, Promise<{ facts: BlockFacts | null; checks: Check[] }>>();
  private readonly lineage: string;
  private artifacts = 0;
  private work = 0;

  constructor(private readonly options: WalkOptions) {
    const registry = options.registry ?? defaultRegistry;
    const { chainId, source, blocks, verify, anchors } = options;
    this.context = {
      chainId,
      registry,
      source,
      ...(blocks && { blocks }),
      ...(verify && { verify }),
      ...(anchors && { anchors }),
    };
    this.lineage = `the lineage of ${plain(options.tracingId)}`;
  }

  /** Audits one record, its parents not followed: its report, and the parents to follow. */
  async audit(
    tracingId: string,
    child: RecordReport | undefined,
    depth: number,
  ): Promise<{ node: RecordReport; children: string[] }> {
    if (this.records.length === LINEAGE_LIMITS.records) throw limitExceeded('records', this.lineage);
    if (depth > LINEAGE_LIMITS.parentDepth) throw limitExceeded('parentDepth', this.lineage);
    await this.worked();
    const { chainId, source } = this.options;
    const answer = await source.record(chainId, tracingId);
    const report: RecordReport = { tracing_id: tracingId, dataset: null, checks: [] };
    this.records.push(report);
    if (answer === null) {
      report.checks.push(
        check(
          'record.exists',
          'fail',
          tracingId,
          child === undefined
            ? 'the source has no record with this tracing id'
            : `parent of ${child.tracing_id} is missing`,
        ),
      );
      return { node: report, children: [] };
    }
    const { record } = answer;
    const id = datasetId(answer.dataset);
    // No dataset sent (absent or null) is reported as null, not as an empty name.
    report.dataset = id ?? (answer.dataset === '' ? null : answer.dataset);
    const genesis = await source.genesis(chainId, tracingId);
    report.checks.push(
      ...shapeChecks(tracingId, record, {
        id,
        given: answer.dataset,
        ...(genesis !== null && { genesis: genesis.dataset }),
      }),
    );
    const logs: ArtifactLog[] = [];
    if (genesis === null)
      report.checks.push(
        check('genesis.available', 'skipped', tracingId, 'the source has no genesis artifacts for this record'),
      );
    else report.checks.push(...(await this.artifactChecks(genesis, logs)));
    report.checks.push(
      ...artifactAgreementChecks(
        tracingId,
        record,
        { id, shown: report.dataset },
        genesis?.functionResults ?? [],
        logs,
        { chainId, ...(await this.provenBlock(record.block_number, logs)) },
      ),
    );
    // Last, so that what the artifacts delivered show is reported first; an artifact left out is seen all the same.
    const complete = genesis === null ? null : genesisCompleteCheck(tracingId, record, genesis, logs);
    if (complete !== null) report.checks.push(complete);
    return { node: report, children: parentsOf(record) };
  }

  /**
   * Each genesis log on chain, in a block whose roots its receipts reproduce; each function result self-consistent.
   * Fills `logs` with the logs read.
   */
  private async artifactChecks(genesis: GenesisAnswer, logs: ArtifactLog[]): Promise<Check[]> {
    this.artifacts += genesis.logs.length + genesis.functionResults.length;
    if (this.artifacts > LINEAGE_LIMITS.lineageArtifacts) throw limitExceeded('lineageArtifacts', this.lineage);
    const checks: Check[] = [];
    const blocksReported = new Set<number>();
    for (const [i, value] of genesis.logs.entries()) {
      await this.worked();
      const subject = `genesis.logs[${i}]`;
      const read = readGenesisLog(value);
      if (!read.ok) {
        checks.push(check('log.shape', 'fail', subject, read.error));
        continue;
      }
      const log = read.value;
      const n = log.block_number;
      if (n === null) {
        checks.push(
          check(
            'log.position',
            'skipped',
            subject,
            "not verifiable: block_number is null, so the log's block is not known and its place cannot be checked",
          ),
        );
        continue;
      }
      const block = await this.block(n);
      if (!blocksReported.has(n)) {
        blocksReported.add(n);
        checks.push(...block.checks);
      }
      // What rests on a log's place (the record's fields, its reserves) reads only logs placed in a transaction.
      if (block.facts === null) {
        const placed = placedLog(log);
        if (placed !== undefined) logs.push({ log: placed, subject });
        checks.push(check('log.position', 'skipped', subject, `block ${n} is not available`));
      } else {
        const read = checkLog({ ...log, block_number: n }, subject, block.facts, (warning) =>
          this.warnings.push(warning),
        );
        if (read.placed !== undefined)
          logs.push({
            log: read.placed,
            subject,
            failed: read.checks.some((c) => c.check === 'log.position' && c.status === 'fail'),
            ...(read.logIndex !== undefined && { logIndex: read.logIndex }),
          });
        checks.push(...read.checks);
      }
    }
    for (const [i, value] of genesis.functionResults.entries()) {
      await this.worked();
      for (const c of checkFunctionResult(value, `genesis.function_results[${i}]`))
        checks.push(check(c.check, c.status, c.path, c.reason));
    }
    return checks;
  }

  /**
   * The timestamp and receipts of the record's block when one of its genesis logs stands in it and the block is proven;
   * a block no log of the record points into is not read for it.
   */
  private async provenBlock(
    blockNumber: unknown,
    logs: readonly ArtifactLog[],
  ): Promise<{ blockTimestamp: number | undefined; blockReceipts?: ProvenReceipts }> {
    if (!logs.some(({ log }) => log.block_number === blockNumber)) return { blockTimestamp: undefined };
    const { facts } = await this.block(blockNumber as number);
    if (facts?.proven !== true) return { blockTimestamp: undefined };
    const { timestamp } = facts.block.header.fields;
    return {
      blockTimestamp: timestamp === undefined ? undefined : Number(timestamp),
      blockReceipts: facts.block.receipts,
    };
  }

  /** Block-level checks, once per block however many logs of however many records point into it. */
  private block(n: number) {
    let cached = this.blocks.get(n);
    if (cached === undefined) this.blocks.set(n, (cached = checkBlock(n, this.context)));
    return cached;
  }

  /** Counts a unit of work, and lets the event loop run every WORK_BETWEEN_YIELDS units. */
  private async worked() {
    if (++this.work % WORK_BETWEEN_YIELDS === 0) await yieldToEventLoop();
  }
}

/** Whether `value` is an object with each of `methods` as a function. */
const hasMethods = (value: unknown, ...methods: string[]) =>
  typeof value === 'object' &&
  value !== null &&
  methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/**
 * Walks a derived record's lineage: checks the record's shape, that every
 * genesis log is on chain (in a block whose receipts reproduce its roots and
 * whose header hashes to its hash), that every function result is
 * self-consistent, that the record agrees with its artifacts and that every
 * field of it is held to the chain (a field resting only on a function result is
 * not verifiable), and follows its parents depth first, reporting missing ones
 * and cycles.
 *
 * Linear in what the sources answer, each record and block visited once; the
 * walk keeps its own stack, so a deep chain of parents cannot overflow the call
 * stack. Beyond LINEAGE_LIMITS (records, parent depth, artifacts) it stops with a
 * SourceError naming the limit: never a partial verdict.
 *
 * @throws TypeError or RangeError naming `chainId` where it is not a non-negative integer given as a number, and
 * TypeError naming `tracingId` where it is not a string: looked up as they are, they would be a record or chain the
 * source has not, which they are not. TypeError naming `source` where it is no lineage source (`record` and `genesis`
 * methods), and `blocks` where it is given and no block source (a `block` method). RangeError naming `anchors` where
 * they prove blocks of another chain.
 * @example
 * const source = new BundleSource(bundle)
 * const report = await walkLineage({ chainId: 1, tracingId, source, blocks: source })
 * report.verdict // 'pass' | 'fail' | 'not_verifiable'
 */
export async function walkLineage(options: WalkOptions): Promise<LineageReport> {
  checkChainId(options.chainId, 'chainId');
  if (typeof options.tracingId !== 'string')
    throw new TypeError(`tracingId must be a string, got ${kindOf(options.tracingId)}`);
  // Checked here, not met as a property read of undefined deep in the walk.
  const { source, blocks } = options as { source: unknown; blocks: unknown };
  if (!hasMethods(source, 'record', 'genesis'))
    throw new TypeError(
      `source must be a lineage source (an object with record and genesis methods, such as a BundleSource), got ${kindOf(source)}`,
    );
  if (blocks !== undefined && !hasMethods(blocks, 'block'))
    throw new TypeError(
      `blocks must be a block source (an object with a block method, such as a BundleSource), or absent, got ${kindOf(blocks)}`,
    );
  // Hashes of another chain would hold this chain's blocks to blocks they are not.
  const otherChain = options.anchors?.chainRefusal(options.chainId);
  if (otherChain != null) throw new RangeError(`anchors: ${otherChain.message}`);
  const walk = new LineageWalk(options);
  await depthFirst<RecordReport>(options.tracingId, {
    visit: (tracingId, child, depth) => walk.audit(tracingId, child, depth),
    cycle: (report, parent, cycle) =>
      report.checks.push(
        check('parents.cycle', 'fail', report.tracing_id, `parent ${parent} closes a cycle: ${cycle}`),
      ),
  });
  const all = walk.records.flatMap((r) => r.checks);
  const count = (status: string) => all.filter((c) => c.status === status).length;
  return {
    chain_id: options.chainId,
    tracing_id: options.tracingId,
    ...lineageVerdict(walk.records),
    assurance: lineageAssurance(walk.records),
    summary: { pass: count('pass'), fail: count('fail'), skipped: count('skipped') },
    warnings: walk.warnings,
    records: walk.records,
  };
}
