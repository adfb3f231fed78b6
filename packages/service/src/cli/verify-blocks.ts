/**
 * `verify block FILE FILE…`: many blocks, each answered as `verify block FILE` answers it, in
 * argument order. The blocks beyond the first POOL_FROM_BYTES go to a pool of worker threads, one
 * per core, so that a long list uses every core; a short list stays on this thread, where it
 * does not pay for starting the workers.
 */
import { availableParallelism } from 'node:os';
import { ChainRegistry, type ChainInfo, type RuleSetName } from 'evm-integrity';
import { blockAnswer, verifyBlockBytes, type OperationContext, type OperationResult } from 'evm-integrity/api';
import type { BlockOutcome } from '../server/pool/block-job.js';

/**
 * Bytes of blocks verified inline before the pool is started for the rest. Measured on 2 cores
 * (bench/cli-blocks.bench.ts): below about a megabyte of blocks, starting two workers costs more
 * than they save.
 */
export const POOL_FROM_BYTES = 8_000_000;

export interface BlockFiles {
  files: readonly string[];
  /** The chains added with --chain (the workers build the same registry from them). */
  chains: readonly ChainInfo[];
  rules: RuleSetName | undefined;
  context: OperationContext;
  /** Worker threads: null, one per core once POOL_FROM_BYTES are read; 0, none; N, N from the first block. */
  workers: number | null;
  read: (file: string) => Uint8Array;
}

/** Where the blocks were verified: how many on this thread, and the worker threads that did the rest. */
export interface BlockFilesRun {
  inline: number;
  pooled: number;
  threads: Set<number>;
}

/** Verifies every file's block, calling `emit` with each answer in argument order. */
export async function verifyBlockFiles(run: BlockFiles, emit: (result: OperationResult) => void): Promise<BlockFilesRun> {
  const { files, chains, rules, context, workers, read } = run;
  const where: BlockFilesRun = { inline: 0, pooled: 0, threads: new Set() };
  const verifyContext = { registry: new ChainRegistry(chains), ...(rules && { rules }) };
  // Inline while the workers would not pay for their start (or none are wanted); the rest on the pool.
  const stayInline = (bytesRead: number) => (workers === null ? bytesRead < POOL_FROM_BYTES : workers === 0);
  let next = 0;
  for (let bytes = 0; next < files.length && stayInline(bytes); next++, where.inline++) {
    const block = read(files[next]!);
    bytes += block.byteLength;
    emit(blockAnswer(verifyBlockBytes(block, verifyContext), context));
  }
  if (next === files.length) return where;

  const { createVerifyPool, runOnPool } = await import('../server/pool/verify-pool.js');
  const pool = createVerifyPool(Math.min(workers ?? availableParallelism(), files.length - next), chains);
  // Blocks read and sent, in order: at most two per worker, so that a long list is not all in memory.
  const inFlight: Promise<BlockOutcome>[] = [];
  const settleFirst = async () => {
    const outcome = await inFlight.shift()!;
    where.pooled++;
    where.threads.add(outcome.threadId);
    emit(blockAnswer(outcome.result, context));
  };
  try {
    for (; next < files.length; next++) {
      inFlight.push(runOnPool(pool, { kind: 'block', bytes: new Uint8Array(read(files[next]!)), ...(rules && { rules }) }));
      if (inFlight.length >= 2 * pool.size) await settleFirst();
    }
    while (inFlight.length > 0) await settleFirst();
  } finally {
    // A file that cannot be read stops the run: the jobs still in flight are abandoned with the pool.
    for (const job of inFlight) job.catch(() => undefined);
    await pool.terminate();
  }
  return where;
}
