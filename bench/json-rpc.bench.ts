/**
 * A block as a node returns it, from its JSON text to the verdict: `verifyBlock(JSON.parse(text))`,
 * the text being the fixture's chain id, header and receipts as compact JSON (the members the
 * fixtures keep), and again with every member a node's receipts and logs carry (node-answer.ts), against the receipt-root operation on the same block's request text (parseJsonBody +
 * verifyReceiptRoot, the body built by timing.ts's receiptRootText) and against the strongest
 * JavaScript peer (bench/json-rpc-peer.ts), on five large fixture blocks; the three are
 * timed in turn, one call each a round, and the medians compared. Where the fixture also has the
 * block's raw receipts (debug_getRawReceipts), `verifyBlock` is timed a fourth way with them in the
 * text: it then also decodes and compares them, a check the receipt-root operation does not make,
 * so that time is shown beside the ratio, not in it. Then whether the work is linear:
 * the cost per receipt of the core (receipts root and bloom of decoded receipts) and of the verify
 * path (`verifyBlock` of the parsed JSON) on 10,000, 100,000 and 1,000,000 unique receipts.
 * The floor of any implementation with this Keccak is printed beside them: JSON.parse of the text and
 * the Keccak of exactly what the receipts root and bloom must hash (each distinct address and topic,
 * each trie node), so that a target beyond it is seen to be out of reach, not merely missed.
 * Run with `npm run bench`; it prints each target met or NOT met.
 */
import { readFileSync } from 'node:fs';
import { parseJsonBody, verifyReceiptRoot } from '../packages/core/src/api/index.js';
import {
  defaultKeccak256,
  Problems,
  readRpcBlock,
  receiptsCommitment,
  verifyBlock,
} from '../packages/core/src/index.js';
import { createPeer } from './json-rpc-peer.js';
import { fullNodeAnswer } from './node-answer.js';
import { median, receiptRootText } from './timing.js';
import { uniqueBlock } from './unique-receipts.js';

const BLOCKS = ['mainnet-15537394', 'mainnet-15040641', 'mainnet-15040708', 'mainnet-15573637', 'mainnet-22869878'];
const ROUNDS = 21;
const RATIO_TARGET = 1.3;
const PEER_TARGET = 10;
const LINEAR_TARGET = 1.3;
/** Receipt counts of the linearity figures, and the calls each is timed. */
const SIZES = [10_000, 100_000, 1_000_000];
const LINEAR_ROUNDS = 3;
/** The block whose receipts (types 0-4, 2.4 logs each) the unique receipts are made from. */
const LINEAR_SAMPLE = 'mainnet-22869878';

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/** Milliseconds of one call. */
async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const peer = await createPeer();
const rows: string[] = [];
let ratioMet = true;
let peerMet = true;
for (const name of BLOCKS) {
  const fixture = JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8'));
  const text = JSON.stringify({ chain_id: fixture.chain_id, header: fixture.header, receipts: fixture.receipts });
  const withRaw =
    fixture.raw_receipts === undefined
      ? undefined
      : JSON.stringify({ ...JSON.parse(text), raw_receipts: fixture.raw_receipts });
  const block = JSON.parse(text);
  const receipts = readRpcBlock(block, new Problems())!.receipts;
  const logs = receipts.reduce((n, r) => n + r.logs.length, 0);
  const request = receiptRootText(block, receipts);
  const full = fullNodeAnswer(fixture);
  const verifyText = (json: string) => {
    const report = verifyBlock(JSON.parse(json));
    if (!report.ok || report.value.verdict !== 'identical')
      throw new Error(`${name}: verifyBlock did not find it identical`);
  };
  const ours = () => verifyText(text);
  const oursFull = () => verifyText(full);
  const receiptRoot = () => {
    const body = parseJsonBody(request);
    if (!body.ok || verifyReceiptRoot(body.value).verdict !== 'identical')
      throw new Error(`${name}: the receipt-root operation did not find it identical`);
  };
  const oursWithRaw = () => {
    const report = verifyBlock(JSON.parse(withRaw!));
    if (!report.ok || report.value.verdict !== 'identical' || report.value.raw_receipts?.matches !== true)
      throw new Error(`${name}: verifyBlock did not find it and its raw receipts identical`);
  };
  // The peer is fair only if it is right: its root, bloom and hash are the header's.
  const theirs = async () => {
    if (!(await peer(text)).identical) throw new Error(`${name}: the peer's root, bloom or hash is not the header's`);
  };
  // What the core hashes for this block, recorded once; the floor parses the text and hashes them.
  const hashed: Uint8Array[] = [];
  receiptsCommitment(receipts, { keccak: (data) => (hashed.push(data.slice()), defaultKeccak256(data)) });
  const floor = () => {
    JSON.parse(text);
    for (let i = 0; i < hashed.length; i++) defaultKeccak256(hashed[i]!);
  };
  for (let i = 0; i < 3; i++) {
    floor();
    ours();
    oursFull();
    receiptRoot();
    await theirs();
    if (withRaw !== undefined) oursWithRaw();
  }
  const samples: Record<'floor' | 'ours' | 'full' | 'receiptRoot' | 'peer' | 'withRaw', number[]> = {
    floor: [],
    ours: [],
    full: [],
    receiptRoot: [],
    peer: [],
    withRaw: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    samples.floor.push(await time(floor));
    samples.ours.push(await time(ours));
    samples.full.push(await time(oursFull));
    samples.receiptRoot.push(await time(receiptRoot));
    samples.peer.push(await time(theirs));
    if (withRaw !== undefined) samples.withRaw.push(await time(oursWithRaw));
  }
  const [tFloor, tOurs, tFull, tRoot, tPeer] = [
    samples.floor,
    samples.ours,
    samples.full,
    samples.receiptRoot,
    samples.peer,
  ].map(median) as [number, number, number, number, number];
  const ratio = tOurs / tRoot;
  const fullRatio = tFull / tRoot;
  const speedUp = tPeer / tOurs;
  ratioMet &&= ratio <= RATIO_TARGET && fullRatio <= RATIO_TARGET;
  peerMet &&= speedUp >= PEER_TARGET;
  rows.push(
    `| ${name} | ${(text.length / 1024).toFixed(0)} KiB | ${receipts.length} | ${logs} | ${tOurs.toFixed(2)} | ${tRoot.toFixed(2)} | **${ratio.toFixed(2)}x** | ${(full.length / 1024).toFixed(0)} KiB | ${tFull.toFixed(2)} | **${fullRatio.toFixed(2)}x** | ${tPeer.toFixed(2)} | **${speedUp.toFixed(1)}x** | ${tFloor.toFixed(2)} | ${(tPeer / tFloor).toFixed(1)}x | ${withRaw === undefined ? '—' : median(samples.withRaw).toFixed(2)} |`,
  );
}

console.log(`Node ${process.version}; median ms from JSON text to verdict, ${ROUNDS} rounds interleaved\n`);
console.log(
  '| block | text | receipts | logs | verifyBlock | receipt-root op | ratio | full node answer | its verifyBlock | its ratio | peer (rlp + mpt + hash-wasm) | peer / ours | floor: JSON.parse + Keccak | peer / floor | verifyBlock with raw receipts |',
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const row of rows) console.log(row);

// Linearity, a size at a time (only its block in memory), each call after a full collection (node --expose-gc), so
// that no call pays for the garbage of another. The verify path holds the parsed JSON, as its caller does; the core
// holds only the decoded receipts.
const collect = () => (globalThis as { gc?: () => void }).gc?.();
const fixture = JSON.parse(readFileSync(`fixtures/blocks/${LINEAR_SAMPLE}.json`, 'utf8'));
const core: number[][] = [];
const verify: number[][] = [];
for (const count of SIZES) {
  let { block, receipts } = uniqueBlock(fixture, count);
  const times: number[] = [];
  for (let round = 0; round < LINEAR_ROUNDS; round++) {
    collect();
    times.push(
      (await time(() => {
        const report = verifyBlock(block);
        if (!report.ok || report.value.verdict !== 'identical') throw new Error('a unique block is not identical');
      })) / count,
    );
  }
  verify.push(times);
  block = undefined;
  const coreTimes: number[] = [];
  for (let round = 0; round < LINEAR_ROUNDS; round++) {
    collect();
    coreTimes.push((await time(() => receiptsCommitment(receipts))) / count);
  }
  core.push(coreTimes);
  receipts = [];
}
const us = (ms: number) => (ms * 1000).toFixed(2);
const coreRatio = median(core.at(-1)!) / median(core[0]!);
const verifyRatio = median(verify.at(-1)!) / median(verify[0]!);
console.log(`\nµs per receipt, unique receipts made from ${LINEAR_SAMPLE}'s (median of ${LINEAR_ROUNDS})\n`);
console.log(
  `| path | ${SIZES.map((n) => n.toLocaleString('en')).join(' | ')} | ${SIZES.at(-1)!.toLocaleString('en')} / ${SIZES[0]!.toLocaleString('en')} |`,
);
console.log(`|---|${SIZES.map(() => '--:').join('|')}|--:|`);
console.log(
  `| core (receiptsCommitment) | ${core.map((t) => us(median(t))).join(' | ')} | **${coreRatio.toFixed(2)}x** |`,
);
console.log(
  `| verify path (verifyBlock of the parsed JSON) | ${verify.map((t) => us(median(t))).join(' | ')} | **${verifyRatio.toFixed(2)}x** |`,
);

console.log(
  `\nTargets: verifyBlock / receipt-root op ≤ ${RATIO_TARGET}x on each block, on both texts: ${verdict(ratioMet)}.`,
);
console.log(`         peer / verifyBlock ≥ ${PEER_TARGET}x on each block: ${verdict(peerMet)}.`);
console.log(
  `         per receipt at 1,000,000 / 10,000 unique receipts ≤ ${LINEAR_TARGET}x: core ${verdict(coreRatio <= LINEAR_TARGET)}, verify path ${verdict(verifyRatio <= LINEAR_TARGET)}.\n`,
);
console.log(
  '(where peer / floor is under 10x, no implementation with this Keccak reaches 10x the peer on that block)\n',
);
