/**
 * Micro-benchmark: @noble/hashes keccak_256 vs fastKeccak256.
 *
 *   npx tsc -p tsconfig.json --outDir /tmp/kbench && node /tmp/kbench/bench/keccak.bench.js
 *
 * For each input size, both functions are warmed up, then timed over several
 * rounds (interleaved, so machine noise hits both alike); the best round is
 * reported as us/op and MB/s (1 MB = 1e6 bytes), plus the speed-up ratio.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { fastKeccak256 } from '../src/keccak/fast-keccak.js';

type Hash = (data: Uint8Array) => Uint8Array;

const CASES: ReadonlyArray<{ label: string; size: number }> = [
  { label: '32 B', size: 32 },
  { label: '600 B', size: 600 },
  { label: '1 MiB', size: 1 << 20 },
];
const ROUNDS = 15;
const ROUND_MS = 150;

let sink = 0;

function makeInput(size: number): Uint8Array {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 131 + 7) & 0xff;
  return data;
}

/** Iterations that take roughly `ms` milliseconds. */
function calibrate(fn: Hash, data: Uint8Array, ms: number): number {
  let iters = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) sink ^= fn(data)[0]!;
    const dt = performance.now() - t0;
    if (dt >= ms / 4) return Math.max(1, Math.round((iters * ms) / dt));
    iters *= 2;
  }
}

/** Microseconds per call for one timed round. */
function timeRound(fn: Hash, data: Uint8Array, iters: number): number {
  const t0 = performance.now();
  for (let i = 0; i < iters; i++) sink ^= fn(data)[0]!;
  return ((performance.now() - t0) * 1000) / iters;
}

function main(): void {
  const data0 = makeInput(1000);
  if (Buffer.from(keccak_256(data0)).toString('hex') !== Buffer.from(fastKeccak256(data0)).toString('hex')) {
    throw new Error('fastKeccak256 disagrees with @noble/hashes');
  }
  console.log(`node ${process.version}, ${ROUNDS} rounds of ~${ROUND_MS} ms each, best round reported\n`);
  console.log('input   | noble us/op | noble MB/s | fast us/op | fast MB/s | speed-up');
  console.log('--------|-------------|------------|------------|-----------|---------');
  for (const { label, size } of CASES) {
    const data = makeInput(size);
    const fns: Hash[] = [keccak_256, fastKeccak256];
    // Warm-up (lets both functions reach optimised code) and calibration.
    const iters = fns.map((fn) => {
      calibrate(fn, data, ROUND_MS);
      return calibrate(fn, data, ROUND_MS);
    });
    const best = [Infinity, Infinity];
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < fns.length; k++) best[k] = Math.min(best[k]!, timeRound(fns[k]!, data, iters[k]!));
    }
    const [noble, fast] = best as [number, number];
    const mbps = (us: number): string => (size / us).toFixed(1);
    console.log(
      `${label.padEnd(7)} | ${noble.toFixed(3).padStart(11)} | ${mbps(noble).padStart(10)} | ` +
        `${fast.toFixed(3).padStart(10)} | ${mbps(fast).padStart(9)} | ${(noble / fast).toFixed(2).padStart(7)}x`,
    );
  }
  if (sink === 0.5) console.log(sink); // keep results observable
}

main();
