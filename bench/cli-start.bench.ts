/**
 * A `verify block` process from start to exit, as a pipeline runs it once per block: the
 * installed command (packages/service/bin, the bundled CLI) on a typical block, against a bare
 * `node` start and the same CLI from its unbundled module tree. Median of 25 runs, milliseconds.
 */
import { spawnSync } from 'node:child_process';
import { median } from './timing.js';

const BLOCK = 'fixtures/blocks/mainnet-19426587.json';
const RUNS = 25;

function medianMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const { status } = spawnSync(process.execPath, args, { stdio: 'ignore' });
    times.push(performance.now() - started);
    if (status !== 0 && args[0] !== '-e') throw new Error(`${args.join(' ')} exited with ${status}`);
  }
  return median(times);
}

const bare = medianMs(['-e', '0']);
const bundled = medianMs(['packages/service/bin/evm-integrity.js', 'verify', 'block', BLOCK]);
const tree = medianMs([
  '--input-type=module',
  '-e',
  `const { main } = await import('./packages/service/dist/cli/main.js'); process.exitCode = await main(['verify', 'block', '${BLOCK}']);`,
]);

console.log(
  `Node ${process.version}; a verify block process on mainnet-19426587 (37 receipts), median of ${RUNS} runs\n`,
);
console.log('| process | ms |');
console.log('|---|---:|');
console.log(`| \`node -e 0\` (the floor) | ${bare.toFixed(0)} |`);
console.log(`| \`evm-integrity verify block\` (bundled CLI) | ${bundled.toFixed(0)} |`);
console.log(`| the same from the unbundled module tree | ${tree.toFixed(0)} |`);
console.log(`\nTarget: at most 90 ms: ${bundled <= 90 ? 'met' : 'missed'}.`);
