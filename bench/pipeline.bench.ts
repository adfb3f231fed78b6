/**
 * How close the whole pipeline comes to the cost of hashing, on three real blocks:
 * - core: receipts root + block bloom from decoded receipts;
 * - Keccak replay floor: the exact inputs the core hashes (recorded by wrapping its
 *   `keccak` option), hashed once each with the same Keccak: no implementation of the
 *   root can cost less;
 * - JSON text → verdict: the receipt-root operation on the request body's text
 *   (JSON.parse, validation and decoding, the core, the answer);
 * and whether the core is linear: its cost per receipt on 100,000 receipts against 100.
 * Run with `npm run bench`; it reports the targets, the 10x gate is receipts-root.bench.ts's.
 */
import { parseJsonBody, verifyReceiptRootOperation } from '../packages/core/src/api/index.js';
import { defaultKeccak256, receiptsCommitment, type Receipt } from '../packages/core/src/index.js';
import { fixtureBlock, receiptRootText, timeMs } from './timing.js';

const BLOCKS = ['mainnet-15040641', 'mainnet-22869878', 'mainnet-15537394'];
const FLOOR_TARGET = 1.5;
const TEXT_TARGET = 1.4;
const TEXT_TARGET_BLOCK = 'mainnet-15537394';
const LINEAR_TARGET = 1.3;

/** Every input the core hashes for `receipts`, in order, copied. */
function recordKeccakInputs(receipts: readonly Receipt[]): Uint8Array[] {
  const inputs: Uint8Array[] = [];
  receiptsCommitment(receipts, {
    keccak: (data) => {
      inputs.push(data.slice());
      return defaultKeccak256(data);
    },
  });
  return inputs;
}

function hashAll(inputs: readonly Uint8Array[]): void {
  for (let i = 0; i < inputs.length; i++) defaultKeccak256(inputs[i]!);
}

const core = (receipts: readonly Receipt[]) => receiptsCommitment(receipts);
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

const rows: string[] = [];
let floorMet = true;
let textRatio = NaN;
let sample: Receipt[] = [];
for (const name of BLOCKS) {
  const { block, receipts } = fixtureBlock(name);
  if (name === 'mainnet-22869878') sample = receipts;
  const logCount = receipts.reduce((n, r) => n + r.logs.length, 0);
  const text = receiptRootText(block, receipts);
  const operation = () => {
    const body = parseJsonBody(text);
    if (!body.ok) throw new Error(`${name}: the request body is not JSON`);
    return verifyReceiptRootOperation(body.value);
  };
  if (operation().verdict !== 'identical')
    throw new Error(`${name}: the receipt-root operation did not find the block identical`);
  const inputs = recordKeccakInputs(receipts);
  const hashedBytes = inputs.reduce((n, input) => n + input.length, 0);

  const runs = logCount > 5000 ? 30 : 100;
  const tFloor = timeMs(() => hashAll(inputs), runs, 10);
  const tCore = timeMs(() => core(receipts), runs, 10);
  const tText = timeMs(operation, runs, 10);
  const floorRatio = tCore / tFloor;
  floorMet &&= floorRatio <= FLOOR_TARGET;
  if (name === TEXT_TARGET_BLOCK) textRatio = tText / tCore;
  rows.push(
    `| ${name} | ${receipts.length} | ${logCount} | ${inputs.length} (${(hashedBytes / 1024).toFixed(0)} KiB) | ${tFloor.toFixed(2)} | ${tCore.toFixed(2)} | **${floorRatio.toFixed(2)}x** | ${tText.toFixed(2)} | **${(tText / tCore).toFixed(2)}x** |`,
  );
}

/**
 * `count` receipts cycling through `sample` (a real block's), so that the mix per receipt does not change with the
 * count.
 */
const cycled = (count: number) => Array.from({ length: count }, (_, i) => sample[i % sample.length]!);
const small = cycled(100);
const large = cycled(100_000);
const perSmall = timeMs(() => core(small), 200, 20) / small.length;
const perLarge = timeMs(() => core(large), 5, 1) / large.length;
const linearRatio = perLarge / perSmall;

console.log(`Node ${process.version}; median ms per block\n`);
console.log(
  '| block | receipts | logs | keccak inputs | keccak replay floor | core | core / floor | JSON text → verdict | text / core |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(
  `\nCore per receipt, receipts of mainnet-22869878 cycled: 100 receipts ${(perSmall * 1000).toFixed(2)} us, 100,000 receipts ${(perLarge * 1000).toFixed(2)} us: **${linearRatio.toFixed(2)}x**`,
);
console.log(`\nTargets: core / floor ≤ ${FLOOR_TARGET}x on each block: ${verdict(floorMet)}.`);
console.log(`         text / core ≤ ${TEXT_TARGET}x on ${TEXT_TARGET_BLOCK}: ${verdict(textRatio <= TEXT_TARGET)}.`);
console.log(
  `         100,000 / 100 receipts per receipt ≤ ${LINEAR_TARGET}x: ${verdict(linearRatio <= LINEAR_TARGET)}.\n`,
);
