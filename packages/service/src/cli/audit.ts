import { openSync, statSync, writeSync, closeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditRange, AuditTally, isReorg, type AuditSummary } from 'evm-integrity/audit';
import { BundleSource, ChainMismatchError, inlineBlockVerifier, SourceError, type BlockSource } from 'evm-integrity/lineage';
import { BundleRecorder, recordedServiceCrossCheck, RpcBlockSource, serviceBaseUrl, serviceCrossCheck, writeBundle } from 'evm-integrity/node';
import { resumeFrom, type AuditHeader } from './audit-checkpoint.js';
import { readBundleFile } from './bundle-file.js';
import { startBlockPool } from './block-pool.js';
import { blockRef, chainIdValue, hashValue, positiveValue, requiredBlockRef, rpcUrlOf, type BlockRef, type BlockTag } from './flags.js';
import { ruleSetName, serviceApiKey, UsageError, workersOption } from './io.js';

/** Exit status after Ctrl-C, as a shell reports a process stopped by SIGINT. */
const EXIT_INTERRUPTED = 130;

interface AuditIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether progress may be drawn on stderr (a TTY). */
  stderrIsTty?: boolean;
  /** Where EVM_DATA_SERVICE_API_KEY is read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The options of `audit`, as parseArgs reads them. */
const OPTIONS = {
  chain: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  rpc: { type: 'string' },
  'rpc-url': { type: 'string' },
  bundle: { type: 'string' },
  service: { type: 'string' },
  'head-hash': { type: 'string' },
  'tail-hash': { type: 'string' },
  anchor: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  quiet: { type: 'boolean' },
  record: { type: 'string' },
  workers: { type: 'string' },
  rules: { type: 'string' },
  'chunk-size': { type: 'string' },
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
  if (colon === -1) throw new UsageError(`--anchor: "${value}" is not N:HASH; use a block and its hash, such as 1000030:0x3f…`);
  return { block: blockRef('--anchor', value.slice(0, colon)), hash: hashValue('--anchor', value.slice(colon + 1)), flag: '--anchor' };
}

/** Where the blocks come from: exactly a bundle, or a node and/or the service. */
function checkSources(values: { bundle?: string; service?: string; record?: string }, rpc: string | undefined): void {
  if (values.bundle !== undefined && (rpc !== undefined || values.service !== undefined))
    throw new UsageError('--bundle FILE replays a recorded audit: give it without --rpc and --service');
  if (values.bundle === undefined && rpc === undefined && values.service === undefined)
    throw new UsageError('give where the blocks come from: --rpc URL (or ETH_RPC_URL), --service URL (its /evm/rpc) or --bundle FILE');
  if (values.record !== undefined && values.bundle !== undefined)
    throw new UsageError('--record needs a live source, --rpc or --service (a bundle is already a recording)');
}

/** A bundle has no node to resolve a tag: each block must be given by number. */
function refuseTagsOffline(blocks: ReadonlyArray<{ block: BlockRef; flag: string }>): void {
  const tagged = blocks.find(({ block }) => typeof block === 'string');
  if (tagged !== undefined)
    throw new UsageError(`${tagged.flag}: "${String(tagged.block)}" needs a node to resolve it, and --bundle has none; give the block number`);
}

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}": audit takes only flags`);
  const chainId = chainIdValue('--chain', values.chain);
  // ETH_RPC_URL names the node only where one is wanted: never for a replay (--bundle).
  const rpc = rpcUrlOf(values, values.bundle === undefined ? env : {});
  checkSources(values, rpc);
  const from = requiredBlockRef('--from', values.from);
  const to = requiredBlockRef('--to', values.to);
  const headHash = values['head-hash'] === undefined ? undefined : hashValue('--head-hash', values['head-hash']);
  const anchorRefs = (values.anchor ?? []).map(anchorRef);
  if (values['tail-hash'] !== undefined) anchorRefs.push({ block: to, hash: hashValue('--tail-hash', values['tail-hash']), flag: '--tail-hash' });
  if (values.bundle !== undefined) refuseTagsOffline([{ block: from, flag: '--from' }, { block: to, flag: '--to' }, ...anchorRefs]);
  if (values.resume && values.out === undefined) throw new UsageError('--resume needs --out FILE (the file is the checkpoint)');
  const concurrency = positiveValue('--concurrency', values.concurrency, 4);
  const rules = values.rules === undefined ? undefined : ruleSetName(values.rules, '--rules');
  const chunkSize = positiveValue('--chunk-size', values['chunk-size'], 100);
  return { ...values, rpc, chainId, from, to, headHash, anchorRefs, concurrency, chunkSize, rules, workers: workersOption(values.workers) ?? 0 };
}

/** Whether a block of the range or its anchors is given as a tag. */
function hasTags(options: ReturnType<typeof parse>): boolean {
  return [options.from, options.to, ...options.anchorRefs.map((a) => a.block)].some((block) => typeof block === 'string');
}

/** Each tag of the range and its anchors, asked of the node once (at start) and read as a number from then on. */
async function resolveTags(options: ReturnType<typeof parse>, source: BlockSource): Promise<(block: BlockRef) => number> {
  const tags = new Set([options.from, options.to, ...options.anchorRefs.map((a) => a.block)].filter((b): b is BlockTag => typeof b === 'string'));
  const numbers = new Map<BlockTag, number>();
  for (const tag of tags) {
    if (!(source instanceof RpcBlockSource)) throw new UsageError(`"${tag}" needs a node to resolve it; give the block number`);
    numbers.set(tag, await source.blockNumberOf(tag));
  }
  return (block) => (typeof block === 'number' ? block : numbers.get(block)!);
}

/** The range and anchors in block numbers, checked: --to not before --from, each anchor inside the range and given once. */
function rangeOf(options: ReturnType<typeof parse>, number: (block: BlockRef) => number) {
  const from = number(options.from);
  const to = number(options.to);
  const named = (flag: string, block: BlockRef) => (typeof block === 'string' ? `${flag} (${block}: block ${number(block)})` : `${flag} (${block})`);
  if (to < from) throw new UsageError(`${named('--to', options.to)} must not be before ${named('--from', options.from)}`);
  return { from, to, anchors: anchorsOf(options.anchorRefs, number, from, to) };
}

/** `--anchor N:HASH` (repeatable) and `--tail-hash H` (an anchor at `--to`): block → hash, each block once, inside the range. */
function anchorsOf(given: readonly AnchorRef[], number: (block: BlockRef) => number, from: number, to: number): Map<number, string> {
  const anchors = new Map<number, string>();
  for (const { block, hash, flag } of given) {
    const n = number(block);
    if (n < from || n > to) throw new UsageError(`${flag}: block ${n} is outside the range ${from}-${to}`);
    if (anchors.has(n) && anchors.get(n) !== hash) throw new UsageError(`${flag}: block ${n} is anchored twice, to different hashes`);
    anchors.set(n, hash);
  }
  return anchors;
}

/** Where the lines go: appended to --out with one write each (a line is never half in the file but at a kill), or stdout. */
/** How to go on from `next`: --resume when the lines are in a file, else where to start and what to link to. */
function howToContinue(out: string | undefined, next: number | null): string {
  if (out !== undefined) return 'continue later with the same command and --resume';
  return `continue later with --from ${next} and, to keep the parent link, --head-hash set to the block_hash of the last block line`;
}

function openOutput(file: string | undefined, resume: boolean, io: AuditIo): { write(line: string): void; close(): void } {
  if (file === undefined) return { write: (line) => io.stdout(line), close: () => undefined };
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    size = 0;
  }
  if (!resume && size > 0) throw new UsageError(`${file} exists: add --resume to continue that audit, or remove it`);
  const fd = openSync(file, 'a');
  return { write: (line) => void writeSync(fd, line), close: () => closeSync(fd) };
}

/** One line on stderr, redrawn every second: blocks done, blocks/s, ETA, failures. Returns what stops it. */
function progress(tally: AuditTally, total: number, io: AuditIo): () => void {
  const started = performance.now();
  const before = tally.blocks;
  const draw = () => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? (tally.blocks - before) / seconds : 0;
    const eta = rate > 0 ? `${Math.ceil((total - tally.blocks) / rate)} s` : '?';
    io.stderr(`\r${tally.blocks}/${total} blocks, ${rate.toFixed(1)} blocks/s, ETA ${eta}, ${tally.failed} failed `);
  };
  const timer = setInterval(draw, 1000);
  return () => {
    clearInterval(timer);
    io.stderr('\n');
  };
}

/** The live sources: blocks from --rpc, else from the service's JSON-RPC proxy; the service's datasets when --service is given. */
function liveSources(options: ReturnType<typeof parse>, env: NodeJS.ProcessEnv, recorder: BundleRecorder | undefined) {
  const recording = recorder && { recorder };
  if (options.service === undefined) return { source: new RpcBlockSource({ url: options.rpc!, keepMiscountedReceipts: true, ...recording }) };
  const apiKey = serviceApiKey(env);
  const crossCheck = serviceCrossCheck({ url: options.service, apiKey, ...recording });
  const rpc =
    options.rpc === undefined ? { url: `${serviceBaseUrl(options.service)}/evm/rpc`, headers: { Authorization: `Bearer ${apiKey}` } } : { url: options.rpc };
  return { source: new RpcBlockSource({ ...rpc, keepMiscountedReceipts: true, ...recording }), crossCheck };
}

/** A bundle's blocks, and its recorded dataset pages when the live audit had --service. */
function recordedSources(file: string) {
  const bundle = new BundleSource(readBundleFile(file));
  return { source: bundle, ...(bundle.hasRawPages && { crossCheck: recordedServiceCrossCheck(bundle) }) };
}

/** The audit's options with its range and anchors in block numbers (tags resolved). */
type AuditOptions = Omit<ReturnType<typeof parse>, 'from' | 'to'> & ReturnType<typeof rangeOf>;

/** The first line of the output: the audit's chain, range and anchors, which a resume must match. */
function auditHeader(options: AuditOptions): AuditHeader {
  const { chainId, from, to, headHash, anchors } = options;
  return {
    audit: {
      chain_id: chainId,
      from,
      to,
      ...(headHash !== undefined && { head_hash: headHash.toLowerCase() }),
      ...(anchors.size > 0 && { anchors: Object.fromEntries([...anchors].sort(([a], [b]) => a - b)) }),
    },
  };
}

/** `audit …`: exit 0 every block passes (not_verifiable does not fail), 1 a block fails, 2 bad input or an unreachable source, 130 interrupted. */
export async function runAudit(argv: string[], io: AuditIo): Promise<number> {
  const given = parse(argv, io.env ?? process.env);
  // A range given in numbers is checked before any source is asked anything.
  const numbered = hasTags(given) ? undefined : rangeOf(given, (block) => block as number);
  const recorder = given.record === undefined ? undefined : new BundleRecorder();
  // Before the output is opened: a missing key, a bad URL or a node of another chain leaves no file behind.
  const { source, crossCheck } = given.bundle === undefined ? liveSources(given, io.env ?? process.env, recorder) : recordedSources(given.bundle);
  // A node of another chain is a mistake, told in one line (exit 2); one that cannot be reached is the audit's to report.
  await (source as BlockSource).checkChain?.(given.chainId).catch((error: unknown) => {
    if (error instanceof ChainMismatchError) throw error;
  });
  // Tags (latest, finalized, safe) are resolved once, here: the audit and its header name numbers.
  const options: AuditOptions = { ...given, ...(numbered ?? rangeOf(given, await resolveTags(given, source))) };
  const header = auditHeader(options);
  const anchors = options.anchors.size > 0 ? options.anchors : undefined;
  const tally = new AuditTally(options.chainId, options.from, options.to, { head: options.headHash ?? null, ...(anchors && { anchors }) });
  let next = options.from;
  let anchor: string | null | undefined = options.headHash;
  let headerWritten = false;
  if (options.resume) {
    const checkpoint = resumeFrom(options.out!, header, (event) => tally.add(event));
    next = checkpoint.next;
    headerWritten = checkpoint.headerKept;
    if (checkpoint.next > options.from) anchor = checkpoint.lastHash;
  }
  const output = openOutput(options.out, options.resume === true, io);
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  let stopProgress: (() => void) | undefined;
  const pool = options.workers > 0 ? await startBlockPool(options.workers, options.rules) : undefined;
  // The blocks of a chain outside the registry are verified by the rule set --rules names.
  const verify = pool?.verify ?? (options.rules === undefined ? undefined : inlineBlockVerifier({ rules: options.rules }));
  try {
    if (!headerWritten) output.write(`${JSON.stringify(header)}\n`);
    let summary: AuditSummary | undefined;
    let unreachable: string | undefined;
    if (next <= options.to) {
      const audit = auditRange({
        source,
        chainId: options.chainId,
        from: next,
        to: options.to,
        concurrency: options.concurrency,
        chunkSize: options.chunkSize,
        signal: controller.signal,
        ...(anchor !== undefined && { anchor }),
        ...(anchors && { anchors }),
        ...(verify && { verify }),
        ...(crossCheck && { crossCheck }),
      });
      if (io.stderrIsTty && !options.quiet) stopProgress = progress(tally, options.to - options.from + 1, io);
      for await (const event of audit) {
        tally.add(event);
        output.write(`${JSON.stringify(event)}\n`);
        if (!isReorg(event) && event.verdict === 'unreachable') unreachable = event.reason;
      }
      summary = audit.summary();
    }
    const total = tally.summary(
      summary?.timings ?? { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 },
      summary === undefined ? 0 : summary.blocks,
    );
    if (controller.signal.aborted) {
      io.stderr(`evm-integrity: interrupted before block ${total.next_block}; ${howToContinue(options.out, total.next_block)}\n`);
      return EXIT_INTERRUPTED;
    }
    output.write(`${JSON.stringify({ summary: total })}\n`);
    if (total.verdicts.unreachable > 0) {
      io.stderr(
        `evm-integrity: stopped at block ${total.next_block}: ${unreachable ?? 'the source is unreachable'}; ${howToContinue(options.out, total.next_block)}\n`,
      );
      return 2;
    }
    return total.verdicts.fail > 0 ? 1 : 0;
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    io.stderr(`evm-integrity: ${error.message}\n`);
    return 2;
  } finally {
    stopProgress?.();
    process.removeListener('SIGINT', interrupt);
    output.close();
    await pool?.terminate();
    if (recorder !== undefined) {
      const { exchanges, blocks } = recorder.toBundle(options.service === undefined ? '' : serviceBaseUrl(options.service));
      await writeBundle(options.record!, { exchanges, blocks });
    }
  }
}
