/**
 * Keccak-256 implementations on 32-byte (a bloom item or trie key), 600-byte (a
 * receipt or trie node) and 1 MiB inputs: @noble/hashes (the reference), our
 * unrolled JavaScript, and our WebAssembly. Median of interleaved samples after
 * warm-up; us per call, MB/s (1 MB = 1e6 bytes) and speed-up over the reference.
 * Then two inputs at once (sibling trie leaves): the two-lane WebAssembly module
 * against the WebAssembly Keccak called once for each, both digests read in place.
 */
import {
  fastKeccak256,
  nobleKeccak256,
  wasmKeccak256,
  bytesToHex,
  type Keccak256,
} from '../packages/core/src/index.js';
import { wasmKeccak256Pair, wasmKeccak256Transient } from '../packages/core/src/keccak/wasm-keccak.js';
import { median } from './timing.js';

type Loop = (data: Uint8Array, n: number) => number;

/** One loop per implementation, so that each call site stays monomorphic. */
function loopOf(hash: Keccak256): Loop {
  return (data, n) => {
    let sink = 0;
    for (let i = 0; i < n; i++) sink ^= hash(data)[0]!;
    return sink;
  };
}

const implementations: Array<[string, Keccak256]> = [
  ['noble', nobleKeccak256],
  ['js', fastKeccak256],
  ...(wasmKeccak256 === undefined ? [] : [['wasm', wasmKeccak256] as [string, Keccak256]]),
];
const loops = implementations.map(([name, hash]) => [name, loopOf(hash)] as const);

function input(size: number): Uint8Array {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 131 + 7) & 0xff;
  return data;
}

/** Calls per sample so that one sample takes about `ms`. */
function calibrate(loop: Loop, data: Uint8Array, ms: number): number {
  for (let n = 1; ; n *= 4) {
    const start = performance.now();
    loop(data, n);
    const took = performance.now() - start;
    if (took > ms / 4) return Math.max(1, Math.round((n * ms) / took));
  }
}

/** Median µs per call of each loop on `data`: warmed up, calibrated, then 11 samples each, in turn. */
function medianMicros(timed: Loop[], data: Uint8Array): number[] {
  const counts = timed.map((loop) => {
    const warmUntil = performance.now() + 300; // lets V8 tier both JS and WebAssembly up
    while (performance.now() < warmUntil) loop(data, 4);
    return calibrate(loop, data, 100);
  });
  const samples = timed.map((): number[] => []);
  for (let round = 0; round < 11; round++) {
    timed.forEach((loop, k) => {
      const start = performance.now();
      loop(data, counts[k]!);
      samples[k]!.push(((performance.now() - start) * 1000) / counts[k]!);
    });
  }
  return samples.map(median);
}

const check = input(1000);
for (const [name, hash] of implementations) {
  if (bytesToHex(hash(check)) !== bytesToHex(nobleKeccak256(check)))
    throw new Error(`${name} disagrees with @noble/hashes`);
}

console.log(`Node ${process.version}; Keccak-256, median us per call (MB/s), speed-up over noble\n`);
console.log(`| input | ${implementations.map(([name]) => name).join(' | ')} |`);
console.log(`|---|${implementations.map(() => '---:').join('|')}|`);
for (const [label, size] of [
  ['32 B', 32],
  ['600 B', 600],
  ['1 MiB', 1 << 20],
] as const) {
  const data = input(size);
  const us = medianMicros(
    loops.map(([, loop]) => loop),
    data,
  );
  const cells = us.map(
    (t) => `${t < 10 ? t.toFixed(2) : t.toFixed(0)} (${(size / t).toFixed(0)} MB/s) ${(us[0]! / t).toFixed(1)}x`,
  );
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}

const pair = wasmKeccak256Pair();
const transient = wasmKeccak256Transient;
if (pair !== undefined && transient !== undefined) {
  const pairLoops: Array<[string, (a: Uint8Array, b: Uint8Array, n: number) => number]> = [
    [
      'one at a time',
      (a, b, n) => {
        let sink = 0;
        for (let i = 0; i < n; i++) sink ^= transient(a)[0]! ^ transient(b)[0]!;
        return sink;
      },
    ],
    [
      'two at once',
      (a, b, n) => {
        let sink = 0;
        for (let i = 0; i < n; i++) sink ^= pair(a, b)[0]!;
        return sink;
      },
    ],
  ];
  console.log('\nTwo inputs hashed, median us per pair, speed-up of the two-lane module\n');
  console.log('| inputs | wasm, one at a time | wasm, two at once | speed-up |');
  console.log('|---|---:|---:|---:|');
  for (const [label, sizeA, sizeB] of [
    ['32 B + 32 B', 32, 32],
    ['600 B + 600 B', 600, 600],
    ['600 B + 1,500 B', 600, 1500],
  ] as const) {
    const a = input(sizeA);
    const b = input(sizeB).reverse();
    const check = pair(a, b);
    if (
      bytesToHex(check.slice(0, 32)) !== bytesToHex(nobleKeccak256(a)) ||
      bytesToHex(check.slice(32)) !== bytesToHex(nobleKeccak256(b))
    )
      throw new Error('the two-lane module disagrees with @noble/hashes');
    const [one, two] = medianMicros(
      pairLoops.map(
        ([, loop]) =>
          (data: Uint8Array, n: number) =>
            loop(data, b, n),
      ),
      a,
    ) as [number, number];
    console.log(`| ${label} | ${one.toFixed(2)} | ${two.toFixed(2)} | ${(one / two).toFixed(2)}x |`);
  }
}
