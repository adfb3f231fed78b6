/**
 * What `audit` is asked to do, from its flags: the chain, the range and its anchors (numbers, or
 * tags resolved once from the node), the sources, and the output's header line that a resume must
 * match.
 */
import { parseArgs } from 'node:util';
import type { BlockSource } from 'evm-integrity/audit';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_ANSWER_BYTES, MAX_ANSWER_BYTES, RpcBlockSource } from 'evm-integrity/node';
import type { AuditHeader } from './audit-checkpoint.js';
import {
  blockRef,
  hashValue,
  MAX_BATCH,
  MAX_CONCURRENCY,
  positiveValue,
  queueUrl,
  requiredBlockRef,
  rpcUrlOf,
  type BlockRef,
  type BlockTag,
  wholeValue,
} from '../flags.js';
import { UsageError } from '../io/usage-error.js';
import { addedChains, CHAIN_OPTIONS, chainValue } from '../chain-flag.js';
import { ANCHOR_OPTIONS, anchorProofFlags } from '../anchor/anchor-flags.js';
import { RefusedError } from '../io/usage-error.js';
import { inputName } from '../io/read-input.js';
import { outputFile, refuseStandardOutput } from '../io/temp-output.js';
import type { AnchoredHashes } from 'evm-integrity/anchor';
import { bytesToHex, defaultRegistry, type OperatorEvidence } from 'evm-integrity';

const MIB = 1024 * 1024;

/** The options of `audit`, as parseArgs reads them. */
const OPTIONS = {
  ...CHAIN_OPTIONS,
  // The output is NDJSON with or without it.
  json: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  rpc: { type: 'string' },
  'rpc-url': { type: 'string' },
  bundle: { type: 'string' },
  service: { type: 'string' },
  'head-hash': { type: 'string' },
  'tail-hash': { type: 'string' },
  anchor: { type: 'string', multiple: true },
  ...ANCHOR_OPTIONS,
  concurrency: { type: 'string' },
  batch: { type: 'string' },
  'max-answer-mb': { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  quiet: { type: 'boolean' },
  record: { type: 'string' },
  evidence: { type: 'string' },
  'learn-evidence': { type: 'boolean' },
  'chunk-size': { type: 'string' },
  queue: { type: 'string' },
  'chunk-timeout': { type: 'string' },
  'chunk-retries': { type: 'string' },
} as const;

/** An anchor as given: the block (a number or a tag), its hash, and the flag that gave it. */
interface AnchorRef {
  block: BlockRef;
  hash: string;
  flag: string;
}

/** `--anchor N:HASH`: N a block (number or tag), HASH with or without 0x. */
function anchorRef(value: string): AnchorRef {
  const colon = value.lastIndexOf(':');
  if (colon === -1)
    throw new UsageError(`--anchor: "${value}" is not N:HASH; use a block and its hash, such as 1000030:0x3f…`);
  return {
    block: blockRef('--anchor', value.slice(0, colon)),
    hash: hashValue('--anchor', value.slice(colon + 1)),
    flag: '--anchor',
  };
}

/** Where the blocks come from: exactly a bundle, or a node and/or the service. */
function checkSources(
  values: { bundle?: string; service?: string; record?: string; batch?: string; 'max-answer-mb'?: string },
  rpc: string | undefined,
): void {
  if (values.bundle !== undefined && (rpc !== undefined || values.service !== undefined))
    throw new UsageError('--bundle FILE replays a recorded audit: give it without --rpc and --service');
  if (values.bundle === undefined && rpc === undefined && values.service === undefined)
    throw new UsageError(
      'give where the blocks come from: --rpc URL (or ETH_RPC_URL), --service URL (its /evm/rpc) or --bundle FILE',
    );
  if (values.record !== undefined && values.bundle !== undefined)
    throw new UsageError('--record needs a live source, --rpc or --service (a bundle is already a recording)');
  const fetching = (['batch', 'max-answer-mb'] as const).find((f) => values[f] !== undefined);
  if (fetching !== undefined && values.bundle !== undefined)
    throw new UsageError(`--${fetching} is an option of a node (--rpc, --service): a bundle is read from a file`);
}

/** The workers' cap on a node's answer: the default, which `audit-worker` has no flag to change. */
const WORKERS_CAP = `the workers take a node's answers up to the default cap, ${DEFAULT_MAX_ANSWER_BYTES / 1024 / 1024} MiB`;

/** Each flag of a run on this machine that --queue refuses, and what stands for it with a queue. */
const NOT_WITH_QUEUE: Readonly<Record<string, string>> = {
  bundle: 'the workers fetch from the node of --rpc',
  service: 'the workers fetch from the node of --rpc',
  out: 'audit-export ID --queue URL --out FILE writes the lines',
  resume: 'enqueuing the same audit again adds no chunk twice, and hands parked chunks back',
  record: 'the workers record nothing; record a run on one machine',
  quiet: 'audit --queue prints no progress',
  'max-answer-mb': WORKERS_CAP,
};

/**
 * `--queue URL` enqueues the audit for workers, which fetch from a node of their own: it needs --rpc, and the flags of a
 * run on this machine (an output file, a recording, how to ask the node) have no meaning there; the refusal says what
 * stands for each. The queue's own flags need it.
 */
function checkQueue(values: Record<string, unknown>, rpc: string | undefined): string | undefined {
  const queue = values.queue as string | undefined;
  if (queue === undefined) {
    const stray = ['chunk-timeout', 'chunk-retries'].find((flag) => values[flag] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} is an option of --queue`);
    return undefined;
  }
  const local = Object.keys(NOT_WITH_QUEUE).find((f) => values[f] !== undefined);
  if (local !== undefined)
    throw new UsageError(
      `--queue enqueues the audit for workers: give it without --${local} (${NOT_WITH_QUEUE[local]})`,
    );
  if (rpc === undefined) throw new UsageError('--queue needs --rpc URL (or ETH_RPC_URL): the node the workers ask');
  return queueUrl('--queue', queue);
}

/** A bundle has no node to resolve a tag: each block must be given by number. */
function refuseTagsOffline(blocks: ReadonlyArray<{ block: BlockRef; flag: string }>): void {
  const tagged = blocks.find(({ block }) => typeof block === 'string');
  if (tagged !== undefined)
    throw new UsageError(
      `${tagged.flag}: "${String(tagged.block)}" needs a node to resolve it, and --bundle has none; give the block number`,
    );
}

/** The flags read and checked, blocks still as given (numbers or tags). */
export function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}": audit takes only flags`);
  const chainId = chainValue('--chain', values.chain);
  // ETH_RPC_URL names the node only where one is wanted: never for a replay (--bundle).
  const rpc = rpcUrlOf(values, values.bundle === undefined ? env : {});
  // The queue's own refusals first: with --queue only --rpc is a source.
  const queue = checkQueue(values, rpc);
  checkSources(values, rpc);
  const from = requiredBlockRef('--from', values.from);
  const to = requiredBlockRef('--to', values.to);
  const headHash = values['head-hash'] === undefined ? undefined : hashValue('--head-hash', values['head-hash']);
  // An anchor proof stands in for every hash the user would otherwise give.
  const anchorProof = anchorProofFlags(values, {
    '--head-hash': values['head-hash'],
    '--tail-hash': values['tail-hash'],
    '--anchor': values.anchor,
  });
  if (anchorProof?.file === '-') throw new UsageError('--anchor-proof: give a FILE (audit reads no standard input)');
  const anchorRefs = (values.anchor ?? []).map(anchorRef);
  if (values['tail-hash'] !== undefined)
    anchorRefs.push({ block: to, hash: hashValue('--tail-hash', values['tail-hash']), flag: '--tail-hash' });
  if (values.bundle !== undefined)
    refuseTagsOffline([{ block: from, flag: '--from' }, { block: to, flag: '--to' }, ...anchorRefs]);
  const out = outputFile(values.out);
  if (values.resume && out === undefined)
    throw new UsageError('--resume needs --out FILE (the file is the checkpoint)');
  refuseStandardOutput('--record', values.record, "the audit's lines");
  const concurrency = positiveValue('--concurrency', values.concurrency, DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
  // Not given, the source sizes its batches by the answers (RpcBlockSourceOptions.batch).
  const batch = values.batch === undefined ? undefined : positiveValue('--batch', values.batch, 1, MAX_BATCH);
  const maxAnswerMb = positiveValue(
    '--max-answer-mb',
    values['max-answer-mb'],
    DEFAULT_MAX_ANSWER_BYTES / MIB,
    MAX_ANSWER_BYTES / MIB,
  );
  // A chain outside the registry (a devnet) is verified by the rule set --add-chain gives it.
  const added = addedChains(values['add-chain']);
  // An audit is of one chain: a devnet added under another id would be a flag that silently does nothing.
  const other = added.find((chain) => chain.chainId !== chainId);
  if (other !== undefined)
    throw new UsageError(`--add-chain adds chain ${other.chainId}, but the audit is of chain ${chainId} (--chain)`);
  const rules = added[0]?.rules;
  // Queue workers build their registry from the built-in chains alone: evidence a run leans on must reach every one.
  const evidenceFlag =
    values.evidence !== undefined ? '--evidence' : values['learn-evidence'] ? '--learn-evidence' : null;
  if (evidenceFlag !== null && queue !== undefined)
    throw new UsageError(`${evidenceFlag} is for an audit on this machine: queue workers do not take evidence yet`);
  if (values['learn-evidence'] && headHash === undefined && anchorRefs.length === 0 && anchorProof === undefined)
    throw new UsageError(
      '--learn-evidence needs an anchor to learn from: --head-hash, --anchor N:HASH, --tail-hash (each a hash you trust) or --anchor-proof',
    );
  // With --queue, not given, the queue's own default applies (runEnqueue).
  const chunkSize = positiveValue('--chunk-size', values['chunk-size'], 100);
  return {
    ...values,
    out,
    rpc,
    chainId,
    from,
    to,
    headHash,
    anchorRefs,
    anchorProof,
    concurrency,
    batch,
    maxAnswerBytes: maxAnswerMb * MIB,
    chunkSize,
    rules,
    queue,
    chunkTimeout: positiveValue('--chunk-timeout', values['chunk-timeout'], 600),
    chunkRetries: wholeValue('--chunk-retries', values['chunk-retries'], 4),
  };
}

/** Whether a block of the range or its anchors is given as a tag. */
export function hasTags(options: ReturnType<typeof parse>): boolean {
  return [options.from, options.to, ...options.anchorRefs.map((a) => a.block)].some(
    (block) => typeof block === 'string',
  );
}

/** Each tag of the range and its anchors, asked of the node once (at start) and read as a number from then on. */
export async function resolveTags(
  options: ReturnType<typeof parse>,
  source: BlockSource,
): Promise<(block: BlockRef) => number> {
  const tags = new Set(
    [options.from, options.to, ...options.anchorRefs.map((a) => a.block)].filter(
      (b): b is BlockTag => typeof b === 'string',
    ),
  );
  const numbers = new Map<BlockTag, number>();
  for (const tag of tags) {
    if (!(source instanceof RpcBlockSource))
      throw new UsageError(`"${tag}" needs a node to resolve it; give the block number`);
    numbers.set(tag, await source.blockNumberOf(tag));
  }
  return (block) => (typeof block === 'number' ? block : numbers.get(block)!);
}

/**
 * The range and anchors in block numbers, checked: --to not before --from, each anchor inside the range and given once.
 * With an anchor proof (`anchored`, verified already), its blocks of the range are the anchors, block `from - 1` the
 * head hash, and the checkpoint is named; a proof of no block of the range is refused (RefusedError, exit 1).
 */
export function rangeOf(
  options: ReturnType<typeof parse>,
  number: (block: BlockRef) => number,
  anchored?: AnchoredHashes,
): {
  from: number;
  to: number;
  anchors: Map<number, string>;
  headHash?: string;
  checkpoint?: string | undefined;
} {
  const from = number(options.from);
  const to = number(options.to);
  const named = (flag: string, block: BlockRef) =>
    typeof block === 'string' ? `${flag} (${block}: block ${number(block)})` : `${flag} (${block})`;
  if (to < from)
    throw new UsageError(`${named('--to', options.to)} must not be before ${named('--from', options.from)}`);
  if (anchored === undefined) return { from, to, anchors: anchorsOf(options.anchorRefs, number, from, to) };
  return { from, to, ...anchoredRange(anchored, options.anchorProof!.file, from, to) };
}

/**
 * The anchors an anchor proof gives a range: every block of it the file proves, and the parent of its first block as
 * the head hash when the file proves that; refused when it proves no block of the range.
 */
function anchoredRange(
  anchored: AnchoredHashes,
  file: string,
  from: number,
  to: number,
): { anchors: Map<number, string>; headHash?: string; checkpoint: string | undefined } {
  const hex = (hash: Uint8Array) => `0x${bytesToHex(hash)}`;
  const within = anchored.blocks.filter((block) => block.number >= BigInt(from) && block.number <= BigInt(to));
  if (within.length === 0) {
    const proven = anchored.blocks.map((block) => block.number).join(', ');
    throw new RefusedError(
      `${inputName(file)}: the anchor proof proves no block of the range ${from}-${to} from checkpoint ${anchored.checkpoint} (it proves ${proven || 'none'})`,
    );
  }
  const anchors = new Map(within.map((block) => [Number(block.number), hex(block.hash)]));
  const parent = from > 0 ? anchored.at(from - 1) : undefined;
  // The checkpoint is named only when a block rests on it (undefined also replaces the --checkpoint flag's value):
  // pre-merge records rest on the accumulator alone.
  const onCheckpoint = [...within, ...(parent === undefined ? [] : [parent])].some(
    (block) => anchored.checkpointOf(block) !== null,
  );
  return {
    anchors: new Map([...anchors].sort(([a], [b]) => a - b)),
    ...(parent !== undefined && { headHash: hex(parent.hash) }),
    checkpoint: onCheckpoint ? anchored.checkpoint : undefined,
  };
}

/**
 * `--anchor N:HASH` (repeatable) and `--tail-hash H` (an anchor at `--to`): block → hash, each block once, inside the
 * range.
 */
function anchorsOf(
  given: readonly AnchorRef[],
  number: (block: BlockRef) => number,
  from: number,
  to: number,
): Map<number, string> {
  const anchors = new Map<number, string>();
  for (const { block, hash, flag } of given) {
    const n = number(block);
    if (n < from || n > to) throw new UsageError(`${flag}: block ${n} is outside the range ${from}-${to}`);
    if (anchors.has(n) && anchors.get(n) !== hash)
      throw new UsageError(`${flag}: block ${n} is anchored twice, to different hashes`);
    anchors.set(n, hash);
  }
  return anchors;
}

/** The flags as `parse` reads them. */
export type AuditFlags = ReturnType<typeof parse>;

/** The audit's options with its range and anchors in block numbers (tags resolved). */
export type AuditOptions = Omit<ReturnType<typeof parse>, 'from' | 'to'> & ReturnType<typeof rangeOf>;

/**
 * The first line of the output: the audit's chain (with the rule set --add-chain gives one outside the registry),
 * range and anchors, and what else its verdicts stand on (the service's datasets cross-checked, operators' evidence),
 * which a resume must match.
 */
export function auditHeader(
  options: AuditOptions,
  serviceDatasets: boolean,
  evidence: readonly OperatorEvidence[],
): AuditHeader {
  const { chainId, from, to, headHash, anchors, checkpoint } = options;
  // A registry chain's rules are the registry's, which no flag changes: its header is as earlier versions wrote it.
  const added = defaultRegistry.get(chainId) === undefined;
  // Evidence is the block a hash names (its admission checked the block against it): the hashes say which. Evidence of
  // another chain changes no verdict of this one.
  const vouched = evidence
    .filter((e) => e.chainId === chainId)
    .map((e) => [e.block, e.vouch.blockHash.toLowerCase()] as const)
    .sort(([a], [b]) => a - b);
  return {
    audit: {
      chain_id: chainId,
      ...(added && { rules: options.rules ?? null }),
      from,
      to,
      ...(serviceDatasets && { service_datasets: true }),
      ...(headHash !== undefined && { head_hash: headHash.toLowerCase() }),
      ...(anchors.size > 0 && { anchors: Object.fromEntries([...anchors].sort(([a], [b]) => a - b)) }),
      ...(checkpoint !== undefined && { checkpoint }),
      ...(vouched.length > 0 && { evidence: Object.fromEntries(vouched) }),
      ...(options['learn-evidence'] && { learn_evidence: true }),
    },
  };
}
