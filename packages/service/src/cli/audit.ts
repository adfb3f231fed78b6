import { openSync, statSync, writeSync, closeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditRange, AuditTally, isReorg, type AuditSummary } from 'evm-integrity/audit';
import { BundleSource, ChainMismatchError, inlineBlockVerifier, SourceError, type BlockSource } from 'evm-integrity/lineage';
import { BundleRecorder, recordedServiceCrossCheck, RpcBlockSource, serviceBaseUrl, serviceCrossCheck, writeBundle } from 'evm-integrity/node';
import { resumeFrom, type AuditHeader } from './audit-checkpoint.js';
import { readBundleFile } from './bundle-file.js';
import { startBlockPool } from './block-pool.js';
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

const HASH = /^0x[0-9a-fA-F]{64}$/;

function blockNumber(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new UsageError(`${flag} N is required (a block number, a non-negative integer)`);
  return n;
}

function positive(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      chain: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      rpc: { type: 'string' },
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
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const chainId = Number(values.chain);
  if (values.chain === undefined || !/^\d+$/.test(values.chain) || !Number.isSafeInteger(chainId) || chainId < 1)
    throw new UsageError('--chain ID is required (a positive integer)');
  const from = blockNumber(values.from, '--from');
  const to = blockNumber(values.to, '--to');
  if (to < from) throw new UsageError(`--to (${to}) must not be before --from (${from})`);
  if (values.bundle !== undefined && (values.rpc !== undefined || values.service !== undefined))
    throw new UsageError('--bundle FILE replays a recorded audit: give it without --rpc and --service');
  if (values.bundle === undefined && values.rpc === undefined && values.service === undefined)
    throw new UsageError('give where the blocks come from: --rpc URL, --service URL (its /evm/rpc) or --bundle FILE');
  const headHash = values['head-hash'];
  if (headHash !== undefined && !HASH.test(headHash)) throw new UsageError(`--head-hash must be a 32-byte 0x hash, got "${headHash}"`);
  const anchors = anchorsOf(values.anchor ?? [], values['tail-hash'], from, to);
  if (values.resume && values.out === undefined) throw new UsageError('--resume needs --out FILE (the file is the checkpoint)');
  if (values.record !== undefined && values.bundle !== undefined)
    throw new UsageError('--record needs a live source, --rpc or --service (a bundle is already a recording)');
  const concurrency = positive(values.concurrency, '--concurrency', 4);
  const rules = values.rules === undefined ? undefined : ruleSetName(values.rules, '--rules');
  const chunkSize = positive(values['chunk-size'], '--chunk-size', 100);
  return { ...values, chainId, from, to, headHash, anchors, concurrency, chunkSize, rules, workers: workersOption(values.workers) ?? 0 };
}

/** `--anchor N:HASH` (repeatable) and `--tail-hash H` (an anchor at `--to`): block → hash, each block once, inside the range. */
function anchorsOf(given: readonly string[], tailHash: string | undefined, from: number, to: number): Map<number, string> {
  const anchors = new Map<number, string>();
  const add = (n: number, hash: string, flag: string) => {
    if (n < from || n > to) throw new UsageError(`${flag}: block ${n} is outside the range ${from}-${to}`);
    if (anchors.has(n) && anchors.get(n) !== hash.toLowerCase()) throw new UsageError(`${flag}: block ${n} is anchored twice, to different hashes`);
    anchors.set(n, hash.toLowerCase());
  };
  for (const anchor of given) {
    const [block = '', hash = '', ...rest] = anchor.split(':');
    if (rest.length > 0 || !/^\d+$/.test(block) || !Number.isSafeInteger(Number(block)) || !HASH.test(hash))
      throw new UsageError(`--anchor must be N:HASH (a block number and its 32-byte 0x hash), got "${anchor}"`);
    add(Number(block), hash, '--anchor');
  }
  if (tailHash !== undefined) {
    if (!HASH.test(tailHash)) throw new UsageError(`--tail-hash must be a 32-byte 0x hash, got "${tailHash}"`);
    add(to, tailHash, '--tail-hash');
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

/** The first line of the output: the audit's chain, range and anchors, which a resume must match. */
function auditHeader(options: ReturnType<typeof parse>): AuditHeader {
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
  const options = parse(argv);
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
  const recorder = options.record === undefined ? undefined : new BundleRecorder();
  // Before the output is opened: a missing key, a bad URL or a node of another chain leaves no file behind.
  const { source, crossCheck } = options.bundle === undefined ? liveSources(options, io.env ?? process.env, recorder) : recordedSources(options.bundle);
  // A node of another chain is a mistake, told in one line (exit 2); one that cannot be reached is the audit's to report.
  await (source as BlockSource).checkChain?.(options.chainId).catch((error: unknown) => {
    if (error instanceof ChainMismatchError) throw error;
  });
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
