/**
 * `verify block FILE…` over many blocks, as a process from start to exit: every block on the
 * main thread (`--workers 0`) against the pool (`--workers 2`) and the default (inline up to
 * POOL_FROM_BYTES, then one worker per core). On the 30 consecutive small blocks
 * mainnet-1000001…1000030 and on six big ones. Median of 9 runs, milliseconds.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { median } from './timing.js';

const RUNS = 9;
const file = (name: string) => `fixtures/blocks/${name}.json`;
const SETS: Array<[string, string[]]> = [
  [
    '30 consecutive blocks, mainnet-1000001…1000030',
    Array.from({ length: 30 }, (_, i) => file(`mainnet-${1000001 + i}`)),
  ],
  [
    '6 big blocks (15537394, 22869878, 19426587, 15040641, 15040708, 15573637)',
    ['15537394', '22869878', '19426587', '15040641', '15040708', '15573637'].map((n) => file(`mainnet-${n}`)),
  ],
];
const MODES: Array<[string, string[]]> = [
  ['inline (`--workers 0`)', ['--workers', '0']],
  ['pool (`--workers 2`)', ['--workers', '2']],
  ['default', []],
];

function medianMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const { status } = spawnSync(
      process.execPath,
      ['packages/service/bin/evm-integrity.js', 'verify', 'block', ...args],
      { stdio: 'ignore' },
    );
    times.push(performance.now() - started);
    if (status !== 0) throw new Error(`verify block ${args.join(' ')} exited with ${status}`);
  }
  return median(times);
}

console.log(
  `Node ${process.version}, ${availableParallelism()} cores; a verify block process over many files, median of ${RUNS} runs\n`,
);
console.log(`| blocks | MB | ${MODES.map(([mode]) => mode).join(' | ')} | inline / pool |`);
console.log(`|---|---:|${MODES.map(() => '---:|').join('')}---:|`);
for (const [name, files] of SETS) {
  const mb = files.reduce((sum, f) => sum + statSync(f).size, 0) / 1e6;
  const ms = MODES.map(([, flags]) => medianMs([...files, ...flags]));
  console.log(
    `| ${name} | ${mb.toFixed(2)} | ${ms.map((t) => t.toFixed(0)).join(' | ')} | ${(ms[0]! / ms[1]!).toFixed(2)}x |`,
  );
}
