/**
 * A `verify block` process from start to exit, as a pipeline runs it once per block: the
 * installed command (packages/service/bin, the bundled CLI) on a typical block, against a bare
 * `node -e 0` start and the same CLI from its unbundled module tree, on the Node running the bench;
 * and the command's first run, its compile cache empty (a fresh NODE_COMPILE_CACHE directory each
 * time). They are run in turn within each round, so that a busy machine slows them alike. Target
 * (issues 18 and 32): the command, its cache filled, takes at most 1.5 times what `node -e 0` takes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './timing.js';

const BLOCK = 'fixtures/blocks/mainnet-19426587.json';
const ROUNDS = 25;
const TARGET_RATIO = 1.5;

const PROCESSES = {
  bare: ['-e', '0'],
  bundled: ['packages/service/bin/evm-integrity.js', 'verify', 'block', BLOCK],
  cold: ['packages/service/bin/evm-integrity.js', 'verify', 'block', BLOCK],
  tree: [
    '--input-type=module',
    '-e',
    `const { main } = await import('./packages/service/dist/cli/main.js'); process.exitCode = await main(['verify', 'block', '${BLOCK}']);`,
  ],
} as const;
type Name = keyof typeof PROCESSES;
const NAMES = Object.keys(PROCESSES) as Name[];

/** Milliseconds of one process from spawn to exit; throws when the CLI does not verify the block. */
function runMs(name: Name): number {
  // The cold run's compile cache: a directory of its own, empty, removed after it.
  const cache = name === 'cold' ? mkdtempSync(join(tmpdir(), 'cli-start-')) : undefined;
  const env = cache === undefined ? process.env : { ...process.env, NODE_COMPILE_CACHE: cache };
  const started = performance.now();
  const { status } = spawnSync(process.execPath, PROCESSES[name], { stdio: 'ignore', env });
  const ms = performance.now() - started;
  if (cache !== undefined) rmSync(cache, { recursive: true, force: true });
  if (status !== 0) throw new Error(`${PROCESSES[name].join(' ')} exited with ${status}`);
  return ms;
}

// One run of each first: the CLI's first run fills Node's compile cache, which later runs read.
for (const name of NAMES) runMs(name);
const times: Record<Name, number[]> = { bare: [], bundled: [], cold: [], tree: [] };
for (let round = 0; round < ROUNDS; round++) for (const name of NAMES) times[name].push(runMs(name));
const [bare, bundled, cold, tree] = NAMES.map((name) => median(times[name])) as [number, number, number, number];
const ratio = bundled / bare;

console.log(
  `Node ${process.version}; a verify block process on mainnet-19426587 (37 receipts), median of ${ROUNDS} interleaved rounds\n`,
);
console.log('| process | ms | × `node -e 0` |');
console.log('|---|---:|---:|');
console.log(`| \`node -e 0\` (the floor) | ${bare.toFixed(0)} | 1.00 |`);
console.log(`| \`evm-integrity verify block\` (bundled CLI) | ${bundled.toFixed(0)} | ${ratio.toFixed(2)} |`);
console.log(`| the same, its first run (compile cache empty) | ${cold.toFixed(0)} | ${(cold / bare).toFixed(2)} |`);
console.log(`| the same from the unbundled module tree | ${tree.toFixed(0)} | ${(tree / bare).toFixed(2)} |`);
console.log(
  `\nTarget: at most ${TARGET_RATIO}x \`node -e 0\` (${(TARGET_RATIO * bare).toFixed(0)} ms): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x).`,
);
