/** What the benches share: how a duration is measured, and the real blocks they run on. */
import { readFileSync } from 'node:fs';
import { receiptRootBody } from '../packages/core/src/api/index.js';
import { hexToBytes, Problems, readRpcReceipts, type Receipt } from '../packages/core/src/index.js';

/** The middle value (the upper one of an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median milliseconds of `runs` calls of a synchronous `fn`, after `warmup` calls. */
export function timeMs(fn: () => unknown, runs: number, warmup = 0): number {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** The same for a `fn` that may return a promise, awaited. */
export async function timeMsAsync(fn: () => unknown, runs: number, warmup = 0): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * Median milliseconds of each of `fns` (each may return a promise, awaited), their samples taken in
 * turn within each of `runs` rounds, so that a machine busy with other work slows them alike.
 */
export async function timeMsInterleaved(fns: readonly (() => unknown)[], runs: number, warmup = 0): Promise<number[]> {
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn();
  const samples = fns.map((): number[] => []);
  for (let i = 0; i < runs; i++)
    for (const [k, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      samples[k]!.push(performance.now() - start);
    }
  return samples.map(median);
}

/** A fixture block as JSON, and its receipts decoded (bytes and bigints, as a block builder holds them). */
export function fixtureBlock(name: string): { block: any; receipts: Receipt[] } {
  const block = JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8'));
  return { block, receipts: readRpcReceipts(block.receipts, 'receipts', new Problems())! };
}

/** The receipt-root request text of a fixture block (its JSON, and its receipts decoded), as a client sends it. */
export function receiptRootText(block: any, receipts: readonly Receipt[]): string {
  return JSON.stringify(
    receiptRootBody({
      chainId: 1,
      receiptRoot: hexToBytes(block.header.receiptsRoot),
      blockNumber: Number(block.header.number),
      receipts,
    }),
  );
}
