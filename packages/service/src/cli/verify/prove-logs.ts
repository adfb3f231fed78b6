/**
 * `prove logs`: a complete-log proof of a range and filter, built from a JSON-RPC node
 * (NodeLogsProof) and written as it is built, to --out (whole or not at all) or standard output.
 */
import { parseArgs } from 'node:util';
import { SourceError } from 'evm-integrity/audit';
import { NodeLogsProof } from 'evm-integrity/node';
import { monotonicMs } from '../clock.js';
import type { CliIo } from '../io/streams.js';
import { checkWritable } from '../io/writable.js';
import { UsageError } from '../io/usage-error.js';
import { withAddChainHint } from '../chain-flag.js';
import { describeSummary, headHashLine, logsRangeFlags, openNode, RANGE_OPTIONS } from '../logs/logs-range.js';
import { outputFile, TempFile, writeStdout } from '../io/temp-output.js';

interface ProveIo extends CliIo {
  /** Whether standard output and standard error are terminals (default: the process's). */
  stdoutIsTty?: boolean;
  stderrIsTty?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** One line on stderr, redrawn every second: blocks done of the range, and the rate. Returns what stops it. */
function progress(done: () => number, total: number, stderr: (text: string) => void): () => void {
  const started = monotonicMs();
  const timer = setInterval(() => {
    const rate = done() / ((monotonicMs() - started) / 1000);
    stderr(`\r${done().toLocaleString('en-US')}/${total.toLocaleString('en-US')} blocks, ${rate.toFixed(1)} blocks/s `);
  }, 1000);
  return () => {
    clearInterval(timer);
    stderr('\n');
  };
}

/**
 * `prove logs --chain C [--add-chain ID:R]… --rpc URL --from N --to M [--address A]… [--topic0 T]… [--out P]`: exit 0
 * with the proof written and its summary and head hash on stderr; 2 for bad flags, a node of
 * another chain, a range that cannot be proven, or a node that fails or serves blocks that make
 * no proof (nothing is left at --out).
 */
export async function runProveLogs(argv: string[], io: ProveIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...RANGE_OPTIONS, out: { type: 'string' } },
  });
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument "${positionals[0]}": prove logs takes only flags`);
  const { range: given, rpc, concurrency, registry } = logsRangeFlags(values, io.env ?? process.env);
  const out = outputFile(values.out);
  if (out === undefined && (io.stdoutIsTty ?? process.stdout.isTTY))
    throw new UsageError('the proof is binary: give --out FILE, or redirect standard output to a file or a pipe');
  // A file that cannot be written (a directory, no such directory) is refused before the node is asked anything.
  if (out !== undefined) checkWritable('--out', out);
  const { node, range } = await openNode(rpc, given);
  const proof = new NodeLogsProof(node, range, { concurrency, registry });
  const unprovable = proof.unprovable();
  if (unprovable !== null) {
    io.stderr(`evm-integrity: the range cannot be proven: ${withAddChainHint(unprovable)}\n`);
    return 2;
  }
  const file = out === undefined ? undefined : new TempFile(out, '--out');
  const write = (bytes: Uint8Array) => (file === undefined ? writeStdout(bytes) : file.write(bytes));
  let blocks = 0;
  let bytes = 0;
  const total = range.toBlock - range.fromBlock + 1;
  const stopProgress = (io.stderrIsTty ?? process.stderr.isTTY) ? progress(() => blocks, total, io.stderr) : undefined;
  try {
    const start = proof.start();
    await write(start);
    bytes += start.length;
    for await (const block of proof.blocks()) {
      await write(block.record);
      bytes += block.record.length;
      blocks++;
    }
    const summary = proof.finish();
    await file?.commit();
    stopProgress?.();
    io.stderr(`evm-integrity: proved ${describeSummary(summary, registry)}; ${bytes.toLocaleString('en-US')} bytes\n`);
    io.stderr(`evm-integrity: ${headHashLine(summary)}\n`);
    return 0;
  } catch (error) {
    stopProgress?.();
    if (!(error instanceof SourceError)) throw error;
    io.stderr(`evm-integrity: no proof: ${error.message}\n`);
    return 2;
  } finally {
    file?.remove();
  }
}
