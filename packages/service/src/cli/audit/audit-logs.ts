/**
 * `audit-logs`: whether a node's `eth_getLogs` answer for a range and filter is complete and exact,
 * checked against a complete-log proof of the same range (built from the node's blocks, or given
 * with --proof) window by window (NodeLogsCheck). One NDJSON line per discrepancy, then a summary.
 */
import { parseArgs } from 'node:util';
import { bytesToHex, hexToBytes, type ChainRegistry } from 'evm-integrity';
import { SourceError } from 'evm-integrity/audit';
import {
  NodeLogsCheck,
  NodeLogsProof,
  rpcLogsFilter,
  type NodeLogsTally,
  type RpcBlockSource,
} from 'evm-integrity/node';
import {
  LogsProofVerifier,
  verifyLogsProof,
  type LogsProofRefusal,
  type LogsProofSummary,
  type LogsRange,
} from 'evm-integrity/proof';
import { hashValue, positiveValue } from '../flags.js';
import { checkWritable } from '../io/writable.js';
import { inputName } from '../io/read-input.js';
import { InputError, UsageError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';
import { chainName, describeFilter, filterJson, logsRangeFlags, openNode, RANGE_OPTIONS } from '../logs/logs-range.js';
import { refuseStandardOutput, TempFile } from '../io/temp-output.js';
import { describeRefusal, proofChunks } from '../logs/proof-file.js';
import { withAddChainHint } from '../chain-flag.js';

interface AuditLogsIo extends CliIo {
  env?: NodeJS.ProcessEnv;
}

/** A check's outcome: its proof's summary and the tally, or the verdict that ended it first. */
type Outcome = { summary: LogsProofSummary; tally: NodeLogsTally } | { status: number; message: string };

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;

/** The refusal of a given proof as an outcome: no verdict for bytes that are no proof or an era that cannot be. */
function refused(file: string, refusal: LogsProofRefusal): Outcome {
  const status = refusal.reason === 'malformed' || refusal.reason === 'not-verifiable' ? 2 : 1;
  return { status, message: `${inputName(file)}: the proof does not hold: ${describeRefusal(refusal)}` };
}

/** The range and filter a proof covers (its preamble), read without reading the rest. */
async function proofRange(file: string): Promise<LogsRange | LogsProofRefusal> {
  const verifier = new LogsProofVerifier({ headHash: new Uint8Array(32) });
  for await (const chunk of proofChunks(file)) {
    const step = verifier.write(chunk);
    if (verifier.range !== null) return verifier.range;
    if (!step.ok) return step.error;
  }
  const end = verifier.end();
  return end.ok ? end.value : end.error;
}

/** How the proof's range differs from the flags', in words, or null when it is the same. */
function rangeDifference(proof: LogsRange, asked: LogsRange): string | null {
  const sorted = (items: readonly Uint8Array[]) => items.map(hex).sort().join(',');
  if (proof.chainId !== asked.chainId) return `it is of chain ${proof.chainId}, not of --chain ${asked.chainId}`;
  if (proof.fromBlock !== asked.fromBlock || proof.toBlock !== asked.toBlock)
    return `it covers blocks ${proof.fromBlock} to ${proof.toBlock}, not --from ${asked.fromBlock} --to ${asked.toBlock}`;
  const sameTopics =
    proof.filter.topics.length === asked.filter.topics.length &&
    proof.filter.topics.every((alternatives, i) => sorted(alternatives) === sorted(asked.filter.topics[i]!));
  if (sorted(proof.filter.addresses) !== sorted(asked.filter.addresses) || !sameTopics)
    return `its filter is ${describeFilter(proof)}, not the flags' ${describeFilter(asked)}`;
  return null;
}

/** The node's hash of block `n`, its own word. */
async function nodeHash(node: RpcBlockSource, chainId: number, n: number): Promise<string> {
  const header = await node.header(chainId, n);
  if (header === null || typeof header.hash !== 'string') throw new SourceError(`the node gives no hash of block ${n}`);
  return header.hash.toLowerCase();
}

/** With --proof FILE: the proof checked whole first (from --head-hash, or the node's hash), then compared window by window. */
async function checkGivenProof(
  file: string,
  asked: LogsRange,
  node: RpcBlockSource,
  check: NodeLogsCheck,
  given: { headHash: string | undefined; registry: ChainRegistry },
): Promise<Outcome> {
  const { headHash, registry } = given;
  const range = await proofRange(file);
  if ('reason' in range) return refused(file, range);
  const difference = rangeDifference(range, asked);
  if (difference !== null)
    throw new InputError(`--proof ${file} is not a proof of the range and filter asked: ${difference}`);
  const options = {
    headHash: hexToBytes(headHash ?? (await nodeHash(node, asked.chainId, asked.toBlock))),
    chainId: asked.chainId,
    registry,
  };
  // Logs are compared only once the whole proof is known to hold: a discrepancy against a forged proof means nothing.
  const whole = await verifyLogsProof(proofChunks(file), options);
  if (!whole.ok) return refused(file, whole.error);
  const compared = await verifyLogsProof(proofChunks(file), { ...options, onLogs: (logs) => check.add(logs) });
  if (!compared.ok) return refused(file, compared.error);
  return { summary: compared.value, tally: await check.end() };
}

/** Without --proof: the proof built from the node's blocks as the node's logs are compared, saved with --save-proof. */
async function checkNodeProof(
  asked: LogsRange,
  node: RpcBlockSource,
  check: NodeLogsCheck,
  options: { headHash: string | undefined; concurrency: number; save: TempFile | undefined; registry: ChainRegistry },
): Promise<Outcome> {
  const { concurrency, registry } = options;
  const proof = new NodeLogsProof(node, asked, { concurrency, registry });
  const unprovable = proof.unprovable();
  if (unprovable !== null) return { status: 2, message: `the range cannot be proven: ${withAddChainHint(unprovable)}` };
  const headMismatch = (hash: string) =>
    `head-mismatch at block ${asked.toBlock}: the node's block ${asked.toBlock} has hash ${hash}, not --head-hash ${options.headHash}`;
  // A node of another chain than the head hash's is told at once, before a range is fetched.
  if (options.headHash !== undefined) {
    const hash = await nodeHash(node, asked.chainId, asked.toBlock);
    if (hash !== options.headHash) return { status: 1, message: headMismatch(hash) };
  }
  options.save?.write(proof.start());
  for await (const block of proof.blocks()) {
    options.save?.write(block.record);
    await check.add(block.logs);
  }
  const summary = proof.finish();
  if (options.headHash !== undefined && hex(summary.headHash) !== options.headHash)
    return { status: 1, message: headMismatch(hex(summary.headHash)) };
  const tally = await check.end();
  await options.save?.commit();
  return { summary, tally };
}

/** The summary line: what was compared, what differs, and what the headers rest on. */
function summaryLine(
  asked: LogsRange,
  summary: LogsProofSummary,
  tally: NodeLogsTally,
  anchored: boolean,
  proof: string,
) {
  const found = Object.values(tally.discrepancies).reduce((a, b) => a + b, 0);
  return {
    summary: {
      chain_id: asked.chainId,
      from: asked.fromBlock,
      to: asked.toBlock,
      filter: filterJson(asked),
      blocks: summary.blocks,
      candidate_blocks: summary.candidateBlocks,
      receipts: summary.receipts,
      proven_logs: tally.provenLogs,
      node_logs: tally.nodeLogs,
      windows: tally.windows,
      discrepancies: tally.discrepancies,
      complete: found === 0,
      proof,
      head_hash: hex(summary.headHash),
      anchoring: anchored ? 'head_hash' : 'node',
    },
  };
}

/**
 * What the headers rest on without --head-hash: the proof file's word (its head checked against the node's hash of the
 * block), or the node's own.
 */
function unanchoredLine(proof: string | undefined, toBlock: number): string {
  const advice = `give --head-hash, the hash of block ${toBlock} from a source you trust`;
  if (proof !== undefined)
    return `the headers are the proof file's (${proof}), its head matched to the node's hash of block ${toBlock} (no --head-hash): this shows the node's eth_getLogs agrees with the proof's blocks, not that they are the chain's; ${advice}`;
  return `the headers are the node's own word (no --head-hash): this shows the node's eth_getLogs agrees with its own blocks, not that they are the chain's; ${advice}`;
}

/**
 * `audit-logs --chain C [--add-chain ID:R]… --rpc URL --from N --to M [--address A]… [--topic0 T]… [--head-hash H]
 * [--proof P | --save-proof P] [--window N]`: exit 0 when the node's eth_getLogs answer is
 * complete and exact, 1 when it dropped, invented or altered a log (or the range does not hang from
 * --head-hash, or the given proof does not hold), 2 no verdict.
 */
export async function runAuditLogs(argv: string[], io: AuditLogsIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...RANGE_OPTIONS,
      'head-hash': { type: 'string' },
      proof: { type: 'string' },
      'save-proof': { type: 'string' },
      window: { type: 'string' },
      // The lines are JSON with or without it.
      json: { type: 'boolean' },
    },
  });
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument "${positionals[0]}": audit-logs takes only flags`);
  const { range: given, rpc, concurrency, registry } = logsRangeFlags(values, io.env ?? process.env);
  const headHash = values['head-hash'] === undefined ? undefined : hashValue('--head-hash', values['head-hash']);
  if (values.proof === '-')
    throw new UsageError('--proof needs a file: the proof is read twice (checked whole, then compared)');
  if (values.proof !== undefined && values['save-proof'] !== undefined)
    throw new UsageError('--save-proof saves the proof built from the node: give it without --proof');
  refuseStandardOutput('--save-proof', values['save-proof'], 'the discrepancies');
  const window = positiveValue('--window', values.window, 2_000);
  // A file that cannot be written is refused before the node is asked anything.
  if (values['save-proof'] !== undefined) checkWritable('--save-proof', values['save-proof']);
  const { node, range } = await openNode(rpc, given);
  const check = new NodeLogsCheck(node, {
    chainId: range.chainId,
    filter: rpcLogsFilter(range.filter),
    fromBlock: range.fromBlock,
    toBlock: range.toBlock,
    window,
    onDiscrepancy: (discrepancy) => io.stdout(`${JSON.stringify(discrepancy)}\n`),
  });
  const save = values['save-proof'] === undefined ? undefined : new TempFile(values['save-proof'], '--save-proof');
  let outcome: Outcome;
  try {
    outcome =
      values.proof === undefined
        ? await checkNodeProof(range, node, check, { headHash, concurrency, save, registry })
        : await checkGivenProof(values.proof, range, node, check, { headHash, registry });
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    outcome = { status: 2, message: `no verdict: ${error.message}` };
  } finally {
    save?.remove();
  }
  if ('status' in outcome) {
    io.stderr(`evm-integrity: ${outcome.message}\n`);
    return outcome.status;
  }
  const { summary, tally } = outcome;
  const line = summaryLine(range, summary, tally, headHash !== undefined, values.proof ?? 'built from the node');
  io.stdout(`${JSON.stringify(line)}\n`);
  const { dropped, invented, altered, unreadable } = tally.discrepancies;
  const where = `${chainName(range.chainId, registry)}, blocks ${range.fromBlock} to ${range.toBlock}, ${describeFilter(range)}`;
  if (headHash === undefined) io.stderr(`evm-integrity: ${unanchoredLine(values.proof, range.toBlock)}\n`);
  if (line.summary.complete) {
    io.stderr(`evm-integrity: the node's eth_getLogs is complete and exact: ${where}: ${tally.nodeLogs} logs\n`);
    return 0;
  }
  io.stderr(
    `evm-integrity: the node's eth_getLogs is not complete and exact: ${where}: ${dropped} dropped, ${invented} invented, ${altered} altered, ${unreadable} unreadable of ${tally.provenLogs} proven logs\n`,
  );
  return 1;
}
