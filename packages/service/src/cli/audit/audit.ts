import {
  auditRange,
  AuditTally,
  ChainMismatchError,
  inlineBlockVerifier,
  isReorg,
  SourceError,
  type AuditSummary,
  type BlockSource,
  type BlockVerifier,
  type CrossCheck,
  type EarlierRun,
} from 'evm-integrity/audit';
import { admitEvidence, err, type OperatorEvidence } from 'evm-integrity';
import { writeBundle, type BundleRecorder } from 'evm-integrity/node';
import { resumeFrom, type AuditHeader } from './audit-checkpoint.js';
import { auditHeader, hasTags, parse, rangeOf, resolveTags, type AuditOptions } from './audit-options.js';
import {
  checkOutputFiles,
  headedOutput,
  howToContinue,
  openOutput,
  progress,
  statusOfVerdicts,
  type AuditOutput,
} from './audit-output.js';
import { auditRecorder, liveSources, recordedSources, recordingBaseUrl } from './audit-sources.js';
import { cannotWrite } from '../io/writable.js';
import { preMergeBasis } from '../anchor/pre-merge-basis.js';
import { InputError } from '../io/usage-error.js';
import { printable } from '../io/printable.js';
import { ChainedLines, formatHeaderLine, headerDigest, HEAD_HASH_NAME } from '../../queue/audit-lines.js';
import { registryOf, setupOf, type RegistrySetup } from '../../evidence/registry-setup.js';

import { monotonicMs } from '../clock.js';
import { EXIT_INTERRUPTED } from '../exit.js';

interface AuditIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether progress may be drawn on stderr (a TTY). */
  stderrIsTty?: boolean;
  /** Where EVM_DATA_SERVICE_API_KEY is read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** An audit ready to run: what it was asked, where its blocks come from, and its running tally. */
interface PreparedAudit {
  options: AuditOptions;
  header: AuditHeader;
  /** The blocks operators vouched for (`--evidence DIR`), read before the header line, which records them. */
  evidence: readonly OperatorEvidence[];
  source: BlockSource;
  /** Blocks fetched ahead of the audit now (audit-sources). */
  window: () => number;
  crossCheck: CrossCheck | undefined;
  recorder: BundleRecorder | undefined;
  anchors: Map<number, string> | undefined;
  tally: AuditTally;
}

/**
 * `--learn-evidence`: each block the run is anchored at (the parent of --from under --head-hash, --anchor, --tail-hash)
 * admitted as evidence for this run, its anchor the vouched hash; one line on stderr for each, learned or not and why.
 */
async function learnFromAnchors(
  run: PreparedAudit,
  evidence: readonly OperatorEvidence[],
  io: AuditIo,
): Promise<OperatorEvidence[]> {
  const { chainId, from, headHash, anchors } = run.options;
  const anchored = new Map(anchors);
  if (headHash !== undefined && from > 0) anchored.set(from - 1, headHash);
  const registry = registryOf({ chains: [], evidence });
  const learned: OperatorEvidence[] = [];
  for (const [number, hash] of [...anchored].sort(([a], [b]) => a - b)) {
    const block = await run.source.block(chainId, number).catch((error: unknown) => {
      // A node of another chain stops the audit as it would have; one that fails here fails the audit's blocks too.
      if (error instanceof ChainMismatchError || !(error instanceof SourceError)) throw error;
      return error;
    });
    const vouch = { blockHash: hash, vouchedBy: 'an anchor of this audit', vouchedAt: new Date().toISOString() };
    const admitted =
      block === null || block instanceof SourceError
        ? err({ reason: block === null ? 'the source does not have it' : block.message })
        : admitEvidence(block, { ...vouch, file: `audit anchor ${number}` }, { registry });
    if (admitted.ok) learned.push(admitted.value);
    io.stderr(
      admitted.ok
        ? `evm-integrity: --learn-evidence: block ${number} admitted as evidence for this run (receipts ${JSON.stringify(admitted.value.receipts)})\n`
        : `evm-integrity: --learn-evidence: block ${number} not admitted: ${admitted.error.reason}\n`,
    );
  }
  return learned;
}

/**
 * Where a run starts: the first block to audit, the hash it must link to, and whether the header line is already out.
 */
interface StartingPoint {
  next: number;
  anchor: string | null | undefined;
  /** How parent_link names `anchor`: the first block of the run has no block audited before it. */
  anchorName: string;
  /** With --resume, the blocks the file holds, which a reorg met at `next` is followed back into. */
  earlier?: EarlierRun;
  headerWritten: boolean;
  /** The digest the next line chains on from. */
  digest: string;
  /** With --resume, the first line not taken on trust, cut off with the rest. */
  dropped?: { line: number; why: string };
}

/** The signals that stop an audit between blocks, and the status a shell reports for each. */
const STOP_SIGNALS_EXIT: Record<string, number> = { SIGINT: EXIT_INTERRUPTED, SIGTERM: 143, SIGHUP: 129 };
const STOP_SIGNALS = Object.keys(STOP_SIGNALS_EXIT) as NodeJS.Signals[];

const CHECKPOINT_HASH = "the hash of the checkpoint's last block (--resume)";

const NO_TIME = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };

/**
 * The flags read, the sources opened and the range resolved, before any output is opened: a
 * missing key or a bad URL leaves no file behind (nor does a node of another chain: see below).
 */
async function prepareAudit(argv: string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<PreparedAudit> {
  const given = parse(argv, env);
  checkOutputFiles(given);
  // An anchor proof is verified before any source is asked anything: a file refused stops the audit here.
  // Loaded only then: an audit without one loads none of the anchor's code.
  const anchored =
    given.anchorProof === undefined
      ? undefined
      : (await import('../anchor/anchor-proof.js')).provenByAnchor(given.anchorProof, given.chainId);
  // A range given in numbers is checked before any source is asked anything.
  const numbered = hasTags(given) ? undefined : rangeOf(given, (block) => block as number, anchored);
  const recorder = auditRecorder(given);
  const { source, window, crossCheck } =
    given.bundle === undefined
      ? liveSources(given, env, recorder, signal)
      : recordedSources(given.bundle, given.concurrency);
  // A node of another chain is a mistake, told in one line (exit 2); one that cannot be reached is the audit's to
  // report. A range in numbers has the chain id asked with the first blocks' calls, a round trip less: the audit
  // then stops at the ChainMismatchError before its first line (runAudit), and the output file is made at that line.
  // Tags are resolved, and an audit enqueued, only once the node is known to serve the chain; a node that cannot be
  // asked is refused for the queue too, whose workers would fetch from it and park every chunk after its retries.
  if (numbered === undefined || given.queue !== undefined)
    await (source as BlockSource).checkChain?.(given.chainId).catch((error: unknown) => {
      if (error instanceof ChainMismatchError) throw error;
      if (given.queue !== undefined)
        throw new InputError(
          `the audit is not enqueued: its node (--rpc) could not be asked its chain id: ${(error as Error).message}`,
        );
    });
  // Tags (latest, finalized, safe) are resolved once, here: the audit and its header name numbers.
  const options: AuditOptions = {
    ...given,
    ...(numbered ?? rangeOf(given, await resolveTags(given, source), anchored)),
  };
  const anchors = options.anchors.size > 0 ? options.anchors : undefined;
  const tally = new AuditTally(options.chainId, options.from, options.to, {
    head: options.headHash ?? null,
    ...(anchors && { anchors }),
    ...(options.checkpoint !== undefined && { checkpoint: options.checkpoint }),
  });
  const { evidence } = await setupOf([], options.evidence);
  return {
    options,
    header: auditHeader(options, crossCheck !== undefined, evidence),
    evidence,
    source,
    window,
    crossCheck,
    recorder,
    anchors,
    tally,
  };
}

/** From the start of the range, or, with --resume, after the last block line of the file (its lines counted again). */
function startingPoint({ options, header, tally }: PreparedAudit): StartingPoint {
  if (!options.resume)
    return {
      next: options.from,
      anchor: options.headHash,
      anchorName: HEAD_HASH_NAME,
      headerWritten: false,
      digest: headerDigest(header),
    };
  const checkpoint = resumeFrom(options.out!, header, (event) => tally.carry(event));
  const resumed = checkpoint.next > options.from;
  return {
    next: checkpoint.next,
    anchor: resumed ? checkpoint.lastHash : options.headHash,
    anchorName: resumed ? CHECKPOINT_HASH : HEAD_HASH_NAME,
    headerWritten: checkpoint.headerKept,
    digest: checkpoint.digest,
    ...(resumed && {
      earlier: { from: options.from, anchor: options.headHash, anchorName: HEAD_HASH_NAME, hashes: checkpoint.hashes },
    }),
    ...(checkpoint.dropped && { dropped: checkpoint.dropped }),
  };
}

/** How a run of the engine ended: its summary, why it stopped at an unreachable block, and RangeAudit.unsettledFrom. */
interface Streamed {
  summary: AuditSummary | undefined;
  unreachable: string | undefined;
  unsettledFrom: number | null;
}

/**
 * Audits the blocks from `start.next`, writing a line for each; the engine's summary and why it stopped when a block
 * was unreachable.
 */
async function streamAudit(
  run: PreparedAudit,
  start: StartingPoint,
  output: AuditOutput,
  context: { verify: BlockVerifier | undefined; signal: AbortSignal; io: AuditIo; lines: ChainedLines },
): Promise<Streamed> {
  const { options, tally } = run;
  if (start.next > options.to) return { summary: undefined, unreachable: undefined, unsettledFrom: null };
  const audit = auditRange({
    source: run.source,
    chainId: options.chainId,
    from: start.next,
    to: options.to,
    concurrency: run.window,
    chunkSize: options.chunkSize,
    signal: context.signal,
    now: monotonicMs,
    ...(start.anchor !== undefined && { anchor: start.anchor, anchorName: start.anchorName }),
    ...(start.earlier && { earlier: start.earlier }),
    ...(run.anchors && { anchors: run.anchors }),
    ...(context.verify && { verify: context.verify }),
    ...(run.crossCheck && { crossCheck: run.crossCheck }),
  });
  const { io } = context;
  const stopProgress =
    io.stderrIsTty && !options.quiet ? progress(tally, options.to - options.from + 1, io.stderr) : undefined;
  let unreachable: string | undefined;
  try {
    for await (const event of audit) {
      // After Ctrl-C no line is written: a block whose requests were cut short is not unreachable.
      if (context.signal.aborted) break;
      tally.add(event);
      output.write(`${context.lines.line(event)}\n`);
      if (!isReorg(event) && event.verdict === 'unreachable') unreachable = event.reason;
    }
  } catch (error) {
    // A request abandoned at Ctrl-C fails as aborted (a dataset page, say): the interrupt, not a fault.
    if (!context.signal.aborted) throw error;
  } finally {
    stopProgress?.();
  }
  return { summary: audit.summary(), unreachable, unsettledFrom: audit.unsettledFrom() };
}

/**
 * The summary line and the exit status: 1 a block failed (also where a later block was unreachable), 2 a block was
 * unreachable, 130 interrupted (no summary line).
 */
function conclude(
  run: PreparedAudit,
  streamed: Streamed,
  output: { out: AuditOutput; lines: ChainedLines },
  interrupted: boolean,
  io: AuditIo,
): number {
  const { summary, unreachable, unsettledFrom } = streamed;
  const timings = summary?.timings ?? NO_TIME;
  const total = {
    ...run.tally.summary(timings, summary === undefined ? 0 : summary.blocks),
    // What the summary still counts from the file: a block a reorg had this run audit again is this run's.
    ...(run.options.resume && { carried_over: run.tally.carriedOver() }),
  };
  const { out, from, headHash } = run.options;
  const next = total.next_block;
  // Where to start again, linked to the block before it: a block before it that gave no hash (a node's block without
  // one, which failed block_input) is audited again, so that the block after it is judged as an unbroken run judges it
  // (its parent link not verifiable), never linked to a hash that is not its parent's.
  // Without a file to resume, where the source failed while a reorg was followed back: from the first block the
  // reorg may have replaced, as the engine says, linked to the block before it (the last block audited may be the old
  // chain's, and the new chain's next block would fail parent_link). --resume follows the reorg into the file instead.
  const unsettled = out === undefined && next !== null && unsettledFrom !== null && unsettledFrom < next;
  let start = unsettled ? unsettledFrom : next;
  while (start !== null && start > from && run.tally.hashOf(start - 1) === null) start--;
  const link = start !== null && start > from ? run.tally.hashOf(start - 1) : headHash;
  const backedOff = unsettled
    ? ` (a reorg was being followed back when the audit stopped: the blocks audited from ${start} on may be the old chain's)`
    : '';
  const advice = `${howToContinue(out, start, link)}${backedOff}`;
  // The summary's next_block is where to go on, as the advice says.
  if (unsettled) total.next_block = start;
  if (interrupted) {
    io.stderr(`evm-integrity: interrupted before block ${next}; ${advice}\n`);
    return EXIT_INTERRUPTED;
  }
  output.out.write(`${output.lines.line({ summary: total })}\n`);
  if (total.verdicts.unreachable === 0) return statusOfVerdicts(total, io.stderr);
  // A source's words (a node's error message, a number it gave) drive no terminal.
  const why = printable(unreachable ?? 'the source is unreachable');
  // A recording lacks what it lacks: the same replay again would stop at the same block.
  const then =
    run.options.bundle === undefined
      ? advice
      : `the recording ${run.options.bundle} cannot replay this audit past it (record it again from the live sources, with the same --chunk-size)`;
  return statusOfVerdicts(total, io.stderr, `stopped at block ${next}: ${why}; ${then}`);
}

/**
 * `--record FILE`: what the live sources fetched, written as a bundle (also after a failure: what was fetched is kept).
 */
async function saveRecording({ options, recorder }: PreparedAudit): Promise<void> {
  if (recorder === undefined) return;
  const { exchanges, blocks } = recorder.toBundle(recordingBaseUrl(options));
  await writeBundle(options.record!, { exchanges, blocks }).catch((error: unknown) => {
    throw cannotWrite('--record', options.record!, error);
  });
}

/**
 * What `--anchor-proof` anchors, said once at the start: the blocks of the range it proves, and the checkpoint, or the
 * pre-merge accumulator when no block rests on the checkpoint.
 */
function anchoredLine({ anchors, from, headHash, checkpoint, anchorProof }: AuditOptions): string {
  const blocks = [...anchors.keys()].join(', ');
  const head = headHash === undefined ? '' : `; block ${from} must link to block ${from - 1}'s proven hash`;
  const basis = checkpoint === undefined ? `${preMergeBasis()}, not from the checkpoint` : `checkpoint ${checkpoint}`;
  return `--anchor-proof ${anchorProof!.file}: block${anchors.size === 1 ? '' : 's'} ${blocks} anchored from ${basis}${head}`;
}

/**
 * `audit …`: exit 0 every block passes, 1 a block fails (however the audit then ended, but for an interrupt), 2 a block
 * not verifiable, bad input or an unreachable source (and none failed), 130 interrupted.
 */
export async function runAudit(argv: string[], io: AuditIo): Promise<number> {
  // Ctrl-C aborts it: the audit stops between blocks, and the sources abandon their requests in flight and their waits
  // (otherwise a node that holds a request keeps the process past its time limit and retries, minutes).
  const controller = new AbortController();
  const run = await prepareAudit(argv, io.env ?? process.env, controller.signal);
  if (run.options.queue !== undefined)
    return (await import('./audit-enqueue.js')).runEnqueue(run.options, run.header, io);
  if (run.options.anchorProof !== undefined) io.stderr(`evm-integrity: ${anchoredLine(run.options)}\n`);
  const start = startingPoint(run);
  if (start.dropped)
    io.stderr(
      `evm-integrity: --resume: line ${start.dropped.line} of ${run.options.out} ${start.dropped.why}: the file is cut there, and the blocks from ${start.next} are audited again\n`,
    );
  // A recording is written when the audit ends: one killed (SIGKILL, a crash) left none of the blocks its file holds.
  const unrecorded = run.recorder?.missingBlocks(run.options.chainId, run.options.from, start.next - 1) ?? 0;
  if (unrecorded > 0)
    io.stderr(
      `evm-integrity: --record ${run.options.record}: ${unrecorded} of the blocks before ${start.next}, audited before the audit was stopped without writing its recording (SIGKILL, a crash), are not in it and will not be; audit the range again without --resume to record it whole\n`,
    );
  const opened = openOutput(run.options.out, io.stdout);
  const output = start.headerWritten ? opened : headedOutput(opened, `${formatHeaderLine(run.header)}\n`);
  // SIGTERM and SIGHUP (a supervisor's stop, a closed terminal) stop it as Ctrl-C does, with what it fetched recorded;
  // the status is the shell's for each signal.
  let stoppedBy: NodeJS.Signals | undefined;
  const interrupt = (signal: NodeJS.Signals) => {
    stoppedBy ??= signal;
    controller.abort();
  };
  for (const signal of STOP_SIGNALS) process.once(signal, interrupt);
  const { rules } = run.options;
  const learned = run.options['learn-evidence'] ? await learnFromAnchors(run, run.evidence, io) : [];
  const setup: RegistrySetup = { chains: [], evidence: [...run.evidence, ...learned] };
  // The blocks of a chain outside the registry are verified by the rule set --add-chain gives it.
  const inline = rules === undefined && setup.evidence.length === 0;
  const verify = inline ? undefined : inlineBlockVerifier({ rules, registry: registryOf(setup) });
  try {
    const lines = new ChainedLines(start.digest);
    const streamed = await streamAudit(run, start, output, { verify, signal: controller.signal, io, lines });
    const written = { out: output, lines };
    const status = conclude(run, streamed, written, controller.signal.aborted, io);
    return status === EXIT_INTERRUPTED && stoppedBy !== undefined ? STOP_SIGNALS_EXIT[stoppedBy]! : status;
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    // A later block refused (one of another chain) stops the audit without its summary: a block that failed before it
    // still makes the status 1.
    return statusOfVerdicts(run.tally.summary(NO_TIME, 0), io.stderr, printable(error.message));
  } finally {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, interrupt);
    output.close();
    await saveRecording(run);
  }
}
