/**
 * `anchor prove --checkpoint ROOT --block N [--block M]… [--light-client [--to-period P]] --out FILE`: an anchor
 * proof file (docs/anchor.md) for mainnet blocks, made from the sources given and checked before it is written.
 * - With `--light-client`: the checkpoint's light-client bootstrap and one update a sync-committee period after it,
 *   from the beacon node's standard routes, each verified as it comes (light-client-steps.ts); they are the
 *   records after the head, and each proves its finalized header's execution block.
 * - From Capella on (block 17,034,870): a beacon node (`--beacon`) gives the checkpoint's block, its state's
 *   `historical_summaries` with their branch (Lodestar's or Nimbus's route), each block's beacon block (its slot
 *   found from its execution number, or given with `--slot`) and the 8192 block roots of its period. The execution
 *   header is rebuilt from the beacon block's payload: no execution node.
 * - Before the merge: the epoch record in `--era-dir`, the accumulator the package ships, the header from `--rpc`.
 * - From the merge to Capella: refused; those proofs need the state's `historical_roots` with a branch, which no
 *   standard beacon API serves.
 * Every input is held to the root it must reach as its record is built (core/anchor/proof-file/build.ts), and the
 * whole file is verified against the checkpoint before a byte is written.
 */
import { parseArgs } from 'node:util';
import { hexToBytes, prefixedHex } from 'evm-integrity';
import {
  anchoredHashes,
  beaconBlockHeaderRoot,
  checkpointBlockRecord,
  checkpointRecord,
  epochOf,
  executionBlockNumber,
  formatAnchorHead,
  formatAnchorRecord,
  historicalEntryOf,
  MAINNET,
  MERGE_BLOCK,
  readSignedBeaconBlock,
  SLOTS_PER_HISTORICAL_ROOT,
  SszShapeError,
  summariesBlockRecord,
  type AnchorRecord,
  type BeaconBlockParts,
  type BeaconHeaderRecord,
  type BlockRecord,
  type EpochRecord,
  type Node,
} from 'evm-integrity/anchor';
import { RpcBlockSource } from 'evm-integrity/node';
import { blockRef, MAX_CONCURRENCY, positiveValue, rpcUrlOf, wholeValue } from '../flags.js';
import type { CliIo } from '../io/streams.js';
import { outputFile, TempFile } from '../io/temp-output.js';
import { UsageError } from '../io/usage-error.js';
import { checkWritable } from '../io/writable.js';
import { BeaconApi, type SummariesWithProof } from './beacon-api.js';
import { findSlot } from './find-slot.js';
import { lightClientSteps } from './light-client-steps.js';
import { periodBlockRoots } from './period-roots.js';
import { preMergeRecord, readEpochRecordFile, shippedAccumulator } from './pre-merge.js';
import { AnchorProveError } from './prove-error.js';
import { provenFrom } from './anchor-proof.js';

/** The first execution block of Capella on mainnet (slot 6,209,538): the first a beacon API can prove. */
export const CAPELLA_FIRST_BLOCK = 17_034_870;

/** The slot of block 15,537,394, the first after the merge (its Portal Network proof names it). */
const MERGE_SLOT = 4_700_013;

/** Root fetches in flight at once by default: 8192 a period. */
const DEFAULT_CONCURRENCY = 16;

/** `anchor prove`'s flags. */
const OPTIONS = {
  beacon: { type: 'string' },
  checkpoint: { type: 'string' },
  block: { type: 'string', multiple: true },
  slot: { type: 'string', multiple: true },
  'era-dir': { type: 'string' },
  rpc: { type: 'string' },
  'rpc-url': { type: 'string' },
  out: { type: 'string' },
  concurrency: { type: 'string' },
  'light-client': { type: 'boolean' },
  'to-period': { type: 'string' },
} as const;

/** What the command line asks for, checked before any source is asked anything. */
interface ProveRequest {
  readonly checkpoint: Node;
  /** The blocks in the order given, each once. */
  readonly blocks: readonly number[];
  readonly slots: readonly number[];
  readonly beacon: string | undefined;
  readonly eraDir: string | undefined;
  readonly rpcUrl: string | undefined;
  /** Undefined for standard output (`--out -`). */
  readonly out: string | undefined;
  readonly concurrency: number;
  /** Whether the light-client steps are written, and the last period they reach (undefined: the node's latest). */
  readonly lightClient: boolean;
  readonly toPeriod: number | undefined;
}

/** A beacon block root given to `flag`: 64 hex digits with or without 0x. */
function rootValue(flag: string, value: string): Node {
  const hex = value.replace(/^0[xX]/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new UsageError(`${flag}: "${value}" is not a beacon block root; use 64 hex digits, with or without 0x`);
  return hexToBytes(hex);
}

/** An execution block number given to `--block`: a tag names no block here (no execution node resolves it). */
function blockNumberValue(value: string): number {
  if (/^(latest|finalized|safe)$/i.test(value))
    throw new UsageError(`--block: "${value}" is a tag; anchor prove takes block numbers (decimal or 0x hex)`);
  if (!/^(0[xX][0-9a-fA-F_]+|[0-9_]+)$/.test(value))
    throw new UsageError(`--block: "${value}" is not a block number; use decimal or 0x hex`);
  return blockRef('--block', value) as number;
}

/** Whether `value` is an http or https URL with a host. */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

/** Why a block between the merge and Capella cannot be proven here. */
function beforeCapella(number: number): AnchorProveError {
  return new AnchorProveError(
    'not-provable',
    `not provable from this beacon API: block ${number} is between the merge and Capella (${MERGE_BLOCK} to ${CAPELLA_FIRST_BLOCK - 1}), whose proofs need the state's historical_roots with their branch to the state root, which no standard beacon API serves`,
  );
}

function requestOf(argv: string[], env: NodeJS.ProcessEnv): ProveRequest {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument "${positionals[0]}": anchor prove takes only flags`);
  if (values.checkpoint === undefined)
    throw new UsageError('--checkpoint is required: the root of a finalized beacon block you trust');
  const checkpoint = rootValue('--checkpoint', values.checkpoint);
  const lightClient = values['light-client'] === true;
  if (values.block === undefined && !lightClient)
    throw new UsageError(
      '--block is required: the number of an execution block to prove (or --light-client for the finalized ones)',
    );
  const blocks = [...new Set((values.block ?? []).map(blockNumberValue))];
  if (values['to-period'] !== undefined && !lightClient)
    throw new UsageError('--to-period bounds the light-client updates: give it with --light-client');
  const toPeriod = values['to-period'] === undefined ? undefined : wholeValue('--to-period', values['to-period'], 0);
  if (lightClient && values.beacon === undefined)
    throw new UsageError('--light-client: give the beacon node to take the light-client steps from (--beacon URL)');
  if (values.out === undefined)
    throw new UsageError('--out is required: the file to write the proof to, or - for standard output');
  const slots = (values.slot ?? []).map((slot) => wholeValue('--slot', slot, 0));
  const concurrency = positiveValue('--concurrency', values.concurrency, DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
  const preMerge = blocks.filter((n) => n < MERGE_BLOCK);
  const postMerge = blocks.filter((n) => n >= MERGE_BLOCK);
  // Refused before anything is asked of a node: no source given here could prove them.
  const bellatrix = postMerge.find((n) => n < CAPELLA_FIRST_BLOCK);
  if (bellatrix !== undefined) throw beforeCapella(bellatrix);
  const rpcUrl = rpcUrlOf(values, env);
  if (preMerge.length > 0) {
    if (values['era-dir'] === undefined)
      throw new UsageError(
        `block ${preMerge[0]} is before the merge: give --era-dir DIR holding its epoch record (${`epoch-record-${String(epochOf(preMerge[0]!)).padStart(5, '0')}.ssz`})`,
      );
    if (rpcUrl === undefined)
      throw new UsageError(
        `block ${preMerge[0]} is before the merge: its header comes from an execution node (--rpc URL, or ETH_RPC_URL)`,
      );
  }
  if (postMerge.length > 0 && values.beacon === undefined)
    throw new UsageError(
      `block ${postMerge[0]} is after the merge: give the beacon node to prove it from (--beacon URL)`,
    );
  if (slots.length > 0 && postMerge.length === 0)
    throw new UsageError('--slot names the beacon slot of a block after the merge, and no --block is one');
  if (values.beacon !== undefined && !isHttpUrl(values.beacon))
    throw new UsageError(`--beacon: "${values.beacon}" is not a beacon node's URL; use http://… or https://…`);
  return {
    checkpoint,
    blocks,
    slots,
    beacon: values.beacon,
    eraDir: values['era-dir'],
    rpcUrl,
    out: outputFile(values.out),
    concurrency,
    lightClient,
    toPeriod,
  };
}

/** A beacon block the node served, read; bytes that are not one are the node's fault. */
function readBlock(api: BeaconApi, id: string, ssz: Uint8Array): BeaconBlockParts {
  try {
    return readSignedBeaconBlock(MAINNET, ssz);
  } catch (error) {
    if (error instanceof SszShapeError || error instanceof RangeError)
      throw new AnchorProveError('source', `the beacon node at ${api.where} served block ${id}: ${error.message}`);
    throw error;
  }
}

/** The checkpoint's block and its state's summaries, each held to the checkpoint. */
interface Checkpoint {
  readonly block: BeaconBlockParts;
  readonly number: bigint;
  readonly summaries: SummariesWithProof;
  readonly record: BeaconHeaderRecord;
}

/**
 * The checkpoint's block (its root must be the checkpoint) and its state's summaries with their proof, made into
 * the file's `beacon-header` record; a node without the block, or without a summaries route, is refused.
 */
async function checkpointOf(api: BeaconApi, checkpoint: Node): Promise<Checkpoint> {
  const id = prefixedHex(checkpoint);
  const ssz = await api.signedBlock(id);
  if (ssz === null)
    throw new AnchorProveError(
      'not-provable',
      `the beacon node at ${api.where} has no block ${id} (--checkpoint): give the root of a finalized block it holds`,
    );
  const block = readBlock(api, id, ssz);
  const root = beaconBlockHeaderRoot(block.header);
  if (prefixedHex(root) !== id)
    throw new AnchorProveError(
      'source',
      `the beacon node at ${api.where} served a block whose root is ${prefixedHex(root)} for ${id}`,
    );
  const stateRoot = prefixedHex(block.header.stateRoot);
  const summaries = await api.historicalSummaries(stateRoot);
  if (summaries === null)
    throw new AnchorProveError(
      'not-provable',
      `not provable from this beacon API: ${api.where} serves no historical_summaries with their proof for the checkpoint's state ${stateRoot} (Lodestar's /eth/v1/lodestar/states/{state_id}/historical_summaries or Nimbus's /nimbus/v1/debug/beacon/states/{state_id}/historical_summaries serve them)`,
    );
  const record = checkpointRecord(MAINNET, checkpoint, block.header, summaries.summaries, summaries.proof);
  if (!record.ok) throw new AnchorProveError('refused', `the beacon node at ${api.where}: ${record.error}`);
  return { block, number: executionBlockNumber(block), summaries, record: record.value };
}

/** The post-merge blocks' records, from one beacon node. */
class BeaconProver {
  /** Beacon blocks read so far, by slot (searches and `--slot` fill it). */
  readonly #bySlot = new Map<number, BeaconBlockParts | null>();
  /** Each period's roots, fetched once however many blocks it holds. */
  readonly #periods = new Map<number, Promise<Node[]>>();

  constructor(
    readonly api: BeaconApi,
    readonly checkpointRoot: Node,
    readonly checkpoint: Checkpoint,
    readonly concurrency: number,
    readonly progress: (line: string) => void,
  ) {}

  /** The block at `slot`, null for an empty slot. */
  async blockAt(slot: number): Promise<BeaconBlockParts | null> {
    if (!this.#bySlot.has(slot)) {
      const ssz = await this.api.signedBlock(String(slot));
      this.#bySlot.set(slot, ssz === null ? null : readBlock(this.api, `at slot ${slot}`, ssz));
    }
    return this.#bySlot.get(slot)!;
  }

  /** Block `number`'s beacon block: at a slot `--slot` named, else searched for between the merge and the checkpoint. */
  async beaconBlockOf(number: number, hinted: ReadonlyMap<number, BeaconBlockParts>): Promise<BeaconBlockParts> {
    const given = hinted.get(number);
    if (given !== undefined) return given;
    const { block, number: top } = this.checkpoint;
    const target = BigInt(number);
    const slot = await findSlot(
      target,
      {
        lo: MERGE_SLOT + (number - MERGE_BLOCK),
        hi: Number(block.header.slot) - Number(top - target),
        below: number - MERGE_BLOCK,
        above: Number(top - target),
      },
      async (probe) => {
        const found = await this.blockAt(probe);
        return found === null ? undefined : executionBlockNumber(found);
      },
    );
    return (await this.blockAt(slot))!;
  }

  /** The block roots of `period`. */
  roots(period: number): Promise<Node[]> {
    let roots = this.#periods.get(period);
    if (roots === undefined) {
      let done = 0;
      this.progress(`fetching the ${SLOTS_PER_HISTORICAL_ROOT} block roots of period ${period}`);
      roots = periodBlockRoots(this.api, period, this.concurrency, () => {
        if (++done % 1024 === 0) this.progress(`period ${period}: ${done}/${SLOTS_PER_HISTORICAL_ROOT} block roots`);
      });
      this.#periods.set(period, roots);
    }
    return roots;
  }

  /** Block `number`'s record. */
  async record(number: number, hinted: ReadonlyMap<number, BeaconBlockParts>): Promise<BlockRecord> {
    const { block: top, number: topNumber, summaries } = this.checkpoint;
    if (BigInt(number) > topNumber)
      throw new AnchorProveError(
        'not-provable',
        `block ${number} is after the checkpoint (slot ${top.header.slot}, execution block ${topNumber}): a checkpoint proves only the blocks before it`,
      );
    if (BigInt(number) === topNumber) return built(number, checkpointBlockRecord(this.checkpointRoot, top));
    const block = await this.beaconBlockOf(number, hinted);
    const slot = Number(block.header.slot);
    const period = Math.floor(slot / SLOTS_PER_HISTORICAL_ROOT);
    if (historicalEntryOf(MAINNET, slot).index >= summaries.summaries.length)
      throw new AnchorProveError(
        'not-provable',
        `block ${number} (slot ${slot}) is in period ${period}, the checkpoint's own (slot ${top.header.slot}): its root is in no historical_summaries entry yet; use a checkpoint from a later period`,
      );
    const roots = await this.roots(period);
    return built(number, summariesBlockRecord(MAINNET, block, roots, summaries.summaries));
  }
}

/** A record, or the refusal naming the block. */
function built(number: number, record: { ok: true; value: BlockRecord } | { ok: false; error: string }): BlockRecord {
  if (!record.ok) throw new AnchorProveError('refused', `block ${number}: ${record.error}`);
  return record.value;
}

/** The blocks `--slot` names, by their execution numbers; a slot holding none of the blocks asked for is refused. */
async function hintedBlocks(
  prover: BeaconProver,
  slots: readonly number[],
  blocks: readonly number[],
): Promise<Map<number, BeaconBlockParts>> {
  const hinted = new Map<number, BeaconBlockParts>();
  for (const slot of slots) {
    const block = await prover.blockAt(slot);
    if (block === null)
      throw new AnchorProveError(
        'not-provable',
        `--slot ${slot}: the beacon node at ${prover.api.where} has no block there`,
      );
    const number = Number(executionBlockNumber(block));
    if (!blocks.includes(number))
      throw new AnchorProveError(
        'not-provable',
        `--slot ${slot} holds execution block ${number}, which no --block names`,
      );
    hinted.set(number, block);
  }
  return hinted;
}

/**
 * `anchor prove …` (argv after `anchor prove`): writes the anchor proof file to --out (whole or not at all) or to
 * standard output (`--out -`); one line a block on stderr. Exit 0 written; 2 bad flags, a source that fails, a block
 * that cannot be proven (one line saying why; nothing is written); 3 a bug.
 * @example await runAnchorProve(['--beacon', url, '--checkpoint', root, '--block', '22017690', '--out', 'p.jsonl'], io)
 */
export async function runAnchorProve(
  argv: string[],
  io: CliIo & { env?: NodeJS.ProcessEnv; stderrIsTty?: boolean },
): Promise<number> {
  const request = requestOf(argv, io.env ?? process.env);
  // A file that cannot be written is refused before any node is asked anything.
  if (request.out !== undefined) checkWritable('--out', request.out);
  const byNumber = new Map<number, BlockRecord>();
  let headerRecord: BeaconHeaderRecord | undefined;
  const tty = io.stderrIsTty ?? process.stderr.isTTY;
  const api = request.beacon === undefined ? undefined : new BeaconApi(request.beacon);
  // Verified step by step before anything else is fetched: a node that serves a false step is refused early.
  const steps = request.lightClient
    ? await lightClientSteps(api!, request.checkpoint, request.toPeriod, (line) => {
        if (tty) io.stderr(`evm-integrity: ${line}\n`);
      })
    : undefined;
  const postMerge = request.blocks.filter((n) => n >= MERGE_BLOCK);
  if (postMerge.length > 0) {
    const checkpoint = await checkpointOf(api!, request.checkpoint);
    headerRecord = checkpoint.record;
    const prover = new BeaconProver(api!, request.checkpoint, checkpoint, request.concurrency, (line) => {
      if (tty) io.stderr(`evm-integrity: ${line}\n`);
    });
    const hinted = await hintedBlocks(prover, request.slots, postMerge);
    for (const number of postMerge) byNumber.set(number, await prover.record(number, hinted));
  }
  const preMerge = request.blocks.filter((n) => n < MERGE_BLOCK);
  if (preMerge.length > 0) {
    const accumulator = shippedAccumulator();
    const rpc = new RpcBlockSource({ url: request.rpcUrl! });
    const records = new Map<number, EpochRecord>();
    for (const number of preMerge) {
      const epoch = epochOf(number);
      if (!records.has(epoch)) records.set(epoch, readEpochRecordFile(request.eraDir!, epoch));
      byNumber.set(number, await preMergeRecord(number, records.get(epoch)!, accumulator, rpc));
    }
  }
  const records: AnchorRecord[] = [
    ...(steps?.records ?? []),
    ...(headerRecord === undefined ? [] : [headerRecord]),
    ...request.blocks.map((number) => byNumber.get(number)!),
  ];
  const text = `${[formatAnchorHead({ network: MAINNET.name, checkpoint: request.checkpoint }), ...records.map(formatAnchorRecord)].join('\n')}\n`;
  // The file is verified as a verifier will: a file that does not verify is a bug here, never written. Its
  // light-client steps are checked a second time so, on fresh states: each update again costs its signature check
  // (about a tenth of a second: only the aggregate key and the non-signers' keys are decoded, core bls.ts).
  const verdict = anchoredHashes(text, request.checkpoint, null);
  if (!verdict.ok)
    throw new Error(`the proof made does not verify: line ${verdict.error.line}: ${verdict.error.message}`);
  const out = new TempFile(request.out, '--out');
  try {
    out.write(text);
    await out.commit();
  } finally {
    out.remove();
  }
  for (const block of verdict.value.blocks)
    io.stderr(
      `evm-integrity: block ${block.number} ${prefixedHex(block.hash)} (${block.via}${block.slot === undefined ? '' : `, slot ${block.slot}`})\n`,
    );
  // What proves each block, counted as anchor verify counts it: a pre-merge block rests on the accumulator.
  io.stderr(
    `evm-integrity: ${provenFrom(verdict.value)}; ${Buffer.byteLength(text).toLocaleString('en-US')} bytes${request.out === undefined ? '' : ` to ${request.out}`}\n`,
  );
  return 0;
}
