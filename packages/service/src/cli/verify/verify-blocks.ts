/**
 * `verify block FILE FILE…`: many blocks, each answered as `verify block FILE` answers it, in
 * argument order. The blocks beyond the first POOL_FROM_BYTES go to a pool of worker threads, one
 * per core, so that a long list uses every core; a short list stays on this thread, where it
 * does not pay for starting the workers. A file that cannot be read or is not JSON is answered by
 * one line naming it, and the others are still verified.
 */
import type { BlockRefusal, BlockReport, Result, RuleSetName } from 'evm-integrity';
import { registryOf, type RegistrySetup } from '../../evidence/registry-setup.js';
import { blockAnswer, verifyBlockBytes, type OperationContext, type OperationResult } from 'evm-integrity/api';
import type { BlockOutcome } from '../../workers/block-job.js';
import { InputError } from '../io/usage-error.js';
import { notJsonLine } from '../io/json-input.js';
import { bytesWithChainId } from '../chain-flag.js';

/**
 * Bytes of blocks verified inline before the pool is started for the rest. Measured on 2 cores
 * (bench/cli-blocks.bench.ts): below about a megabyte of blocks, starting two workers costs more
 * than they save.
 */
export const POOL_FROM_BYTES = 8_000_000;

export interface BlockFiles {
  files: readonly string[];
  /** The chains added with --add-chain and the operator's evidence (the workers build the same registry from them). */
  setup: RegistrySetup;
  rules: RuleSetName | undefined;
  /** `--chain`: the chain of a block that names none (a block that names another is refused in one line). */
  chainId: number | undefined;
  context: OperationContext;
  /** Worker threads: null, one per core once POOL_FROM_BYTES are read; 0, none; N, N from the first block. */
  workers: number | null;
  /** The bytes of a file (`-`: standard input); throws an InputError naming it when it cannot be read. */
  read: (file: string) => Uint8Array;
}

/** What a file gave: the endpoint's answer for its block, or the one line that says why it gave none. */
export type FileAnswer = { file: string; result: OperationResult } | { file: string; error: string };

/** Where the blocks were verified: how many on this thread, and the worker threads that did the rest. */
export interface BlockFilesRun {
  inline: number;
  pooled: number;
  threads: Set<number>;
}

/** A file's bytes (with the chain `--chain` names when it names none), or the line that says why it gives no block. */
function readBlockFile(
  file: string,
  read: (file: string) => Uint8Array,
  chainId: number | undefined,
): { bytes: Uint8Array } | { error: string } {
  try {
    return { bytes: bytesWithChainId(read(file), chainId, file) };
  } catch (error) {
    if (error instanceof InputError) return { error: error.message };
    throw error;
  }
}

/**
 * A block's verification as the command answers it; bytes that are not JSON are told in the CLI's words, naming the
 * file.
 */
function fileAnswer(
  file: string,
  bytes: Uint8Array,
  result: Result<BlockReport, BlockRefusal>,
  context: OperationContext,
): FileAnswer {
  const problem = !result.ok && result.error.kind === 'invalid' ? result.error.problems[0] : undefined;
  const notJson = notJsonLine(file, bytes, problem);
  if (notJson !== undefined) return { file, error: notJson };
  return { file, result: blockAnswer(result, context) };
}

/** Verifies every file's block, calling `emit` with each answer in argument order. */
export async function verifyBlockFiles(run: BlockFiles, emit: (answer: FileAnswer) => void): Promise<BlockFilesRun> {
  const { files, setup, rules, chainId, context, workers, read } = run;
  const where: BlockFilesRun = { inline: 0, pooled: 0, threads: new Set() };
  const verifyContext = { registry: registryOf(setup), ...(rules && { rules }) };
  // Inline while the workers would not pay for their start (or none are wanted); the rest on the pool.
  const stayInline = (bytesRead: number) => (workers === null ? bytesRead < POOL_FROM_BYTES : workers === 0);
  let next = 0;
  for (let bytes = 0; next < files.length && stayInline(bytes); next++) {
    const file = files[next]!;
    const input = readBlockFile(file, read, chainId);
    if ('error' in input) {
      emit({ file, error: input.error });
      continue;
    }
    bytes += input.bytes.byteLength;
    where.inline++;
    emit(fileAnswer(file, input.bytes, verifyBlockBytes(input.bytes, verifyContext), context));
  }
  if (next === files.length) return where;

  const { createVerifyPool, runOnPool } = await import('../../workers/verify-pool.js');
  // node:os is loaded here, not by the module: a verify block process that stays inline never needs it (0.15 ms).
  const cores = () => process.getBuiltinModule('node:os').availableParallelism();
  const pool = createVerifyPool(Math.min(workers ?? cores(), files.length - next), setup);
  // Blocks read and sent, in order: at most two per worker, so that a long list is not all in memory.
  // A file that cannot be read waits in line as an answer already made, so the order is kept.
  const inFlight: Array<{ file: string; bytes: Uint8Array; job: Promise<BlockOutcome> } | FileAnswer> = [];
  const settleFirst = async () => {
    const first = inFlight.shift()!;
    if (!('job' in first)) return emit(first);
    const outcome = await first.job;
    where.pooled++;
    where.threads.add(outcome.threadId);
    emit(fileAnswer(first.file, first.bytes, outcome.result, context));
  };
  try {
    for (; next < files.length; next++) {
      const file = files[next]!;
      const input = readBlockFile(file, read, chainId);
      if ('error' in input) inFlight.push({ file, error: input.error });
      else
        inFlight.push({
          file,
          bytes: input.bytes,
          job: runOnPool(pool, { kind: 'block', bytes: new Uint8Array(input.bytes), ...(rules && { rules }) }),
        });
      if (inFlight.length >= 2 * pool.size) await settleFirst();
    }
    while (inFlight.length > 0) await settleFirst();
  } finally {
    // On a fault, the jobs still in flight are abandoned with the pool.
    for (const entry of inFlight) if ('job' in entry) entry.job.catch(() => undefined);
    await pool.terminate();
  }
  return where;
}
