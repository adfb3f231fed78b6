/**
 * A block as a node returns it, from its JSON text to the verdict: `verifyBlockText(text)` (the library's way from a
 * block's text, which the CLI's `verify block` and the service's workers take through verifyBlockBytes), the text being the fixture's chain id, header and receipts as compact JSON (the members the
 * fixtures keep), and again with every member a node's receipts and logs carry (node-answer.ts), against the receipt-root operation on the same block's request text (parseJsonBody +
 * verifyReceiptRootOperation, the body built by timing.ts's receiptRootText) and against the strongest
 * JavaScript peer (bench/json-rpc-peer.ts), on five large fixture blocks; the three are
 * timed in turn, one call each a round, and the medians compared. Where the fixture also has the
 * block's raw receipts (debug_getRawReceipts), `verifyBlock` is timed a fourth way with them in the
 * text: it then also decodes and compares them, a check the receipt-root operation does not make,
 * so that time is shown beside the ratio, not in it. Then whether the work is linear:
 * the cost per receipt of the core (receipts root and bloom of decoded receipts) and of the verify
 * path (`verifyBlock` of the parsed JSON) on 10,000, 100,000 and 1,000,000 unique receipts, in a
 * process of its own (see LINEARITY).
 * The floor of any implementation with this Keccak is printed beside them: JSON.parse of the text and
 * the Keccak of exactly what the receipts root and bloom must hash (each distinct address and topic,
 * each trie node), so that a target beyond it is seen to be out of reach, not merely missed; and the same
 * with all those permutations in a single Keccak call, the floor of a Keccak that costs nothing a call, which
 * verifyBlock from the text is held to (at most FLOOR_TARGET times it on every block), the peer's ratio beside it.
 * Run with `npm run bench`; it prints each target met or NOT met.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseJsonBody, verifyBlockText, verifyReceiptRootOperation } from '../packages/core/src/api/index.js';
import {
  bytesToHex,
  defaultKeccak256,
  Problems,
  readRpcBlock,
  receiptsCommitment,
  verifyBlock,
} from '../packages/core/src/index.js';
import { createPeer } from './json-rpc-peer.js';
import { fullNodeAnswer } from './node-answer.js';
import { median, receiptRootText } from './timing.js';
import { decodedReceipts, uniqueBlock } from './unique-receipts.js';

const BLOCKS = ['mainnet-15537394', 'mainnet-15040641', 'mainnet-15040708', 'mainnet-15573637', 'mainnet-22869878'];
const ROUNDS = 21;
const RATIO_TARGET = 1.3;
const PEER_TARGET = 10;
/** verifyBlock from the text at most this many times the floor in one Keccak call, on every block. */
const FLOOR_TARGET = 1.5;
const LINEAR_TARGET = 1.3;
/** Receipt counts of the linearity figures, and the calls each is timed. */
const SIZES = [10_000, 100_000, 1_000_000];
const LINEAR_ROUNDS = 3;
/** The block whose receipts (types 0-4, 2.4 logs each) the unique receipts are made from. */
const LINEAR_SAMPLE = 'mainnet-22869878';
/** Bytes Keccak-256 absorbs a permutation. */
const KECCAK_RATE = 136;

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/** Milliseconds of one call. */
async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * The argument that makes this file measure the linearity figures alone, in a process of its own. V8 allocates objects
 * straight into its old generation once objects made at the same place in the code have been seen to live long, as
 * decoded receipts do when a block is read whole (the raw-receipts column below does): in a process that has done so,
 * a million receipts decoded one at a time by the verify path fill the old generation, which is then collected in
 * full, marking the caller's 1.6 GB of JSON each time. The verify path is timed first in a process that has held no
 * block decoded, then again once the core's figures have held each size's receipts decoded.
 */
const LINEARITY = 'linearity';

/** Milliseconds per receipt of `rounds` calls of `fn` on `count` receipts, each after a full collection. */
async function perReceipt(count: number, fn: () => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < LINEAR_ROUNDS; round++) {
    (globalThis as { gc?: () => void }).gc?.();
    times.push((await time(fn)) / count);
  }
  return times;
}

/** Per path, the times per receipt at each size. */
type LinearFigures = Record<'fresh' | 'core' | 'afterWhole', number[][]>;

/** The linearity figures (run with --expose-gc), for the bench's process to print. */
async function measureLinearity(): Promise<LinearFigures> {
  const fixture = JSON.parse(readFileSync(`fixtures/blocks/${LINEAR_SAMPLE}.json`, 'utf8'));
  const verifyOf = (block: unknown) => () => {
    const report = verifyBlock(block);
    if (!report.ok || report.value.verdict !== 'identical') throw new Error('a unique block is not identical');
  };
  // A size at a time, only its block in memory; the core holds only the decoded receipts, the verify path the JSON.
  const fresh: number[][] = [];
  // The code warmed up first, untimed, as in a process that has verified blocks before (this way of reading holds none).
  const warmUp = verifyOf(uniqueBlock(fixture, SIZES[0]!));
  for (let i = 0; i < 5; i++) warmUp();
  for (const count of SIZES) fresh.push(await perReceipt(count, verifyOf(uniqueBlock(fixture, count))));
  // Then each size read whole (the core's input), and its verify path timed again after that read.
  const core: number[][] = [];
  const afterWhole: number[][] = [];
  for (const count of SIZES) {
    const block = uniqueBlock(fixture, count);
    let receipts = decodedReceipts(block);
    const { receiptsRoot } = block.header;
    block.receipts = [];
    // The root verifyBlock computed for the header, checked against the core's of the decoded receipts.
    if (`0x${bytesToHex(receiptsCommitment(receipts).receiptsRoot)}` !== receiptsRoot)
      throw new Error(`the unique block of ${count} receipts: verifyBlock's root is not the core's`);
    core.push(await perReceipt(count, () => receiptsCommitment(receipts)));
    receipts = [];
    afterWhole.push(await perReceipt(count, verifyOf(uniqueBlock(fixture, count))));
  }
  return { fresh, core, afterWhole };
}

if (process.argv[2] === LINEARITY) {
  const figures = JSON.stringify(await measureLinearity());
  await new Promise((written) => process.stdout.write(figures, written));
  process.exit(0);
}

const peer = await createPeer();
const rows: string[] = [];
let ratioMet = true;
let peerMet = true;
let floorMet = true;
/** Per block, verifyBlock over the one-call floor and the peer over verifyBlock: their ranges print beside the target. */
const overFloors: number[] = [];
const speedUps: number[] = [];
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
    const report = verifyBlockText(json);
    if (!report.ok || report.value.verdict !== 'identical')
      throw new Error(`${name}: verifyBlock did not find it identical`);
  };
  const ours = () => verifyText(text);
  const oursFull = () => verifyText(full);
  const receiptRoot = () => {
    const body = parseJsonBody(request);
    if (!body.ok || verifyReceiptRootOperation(body.value).verdict !== 'identical')
      throw new Error(`${name}: the receipt-root operation did not find it identical`);
  };
  const oursWithRaw = () => {
    const report = verifyBlockText(withRaw!);
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
  // The same Keccak permutations (an input of n bytes takes floor(n / 136) + 1) in one call: what a Keccak with
  // no cost per call would spend, so the floor of any implementation that parses with JSON.parse.
  const permutations = hashed.reduce((n, input) => n + Math.floor(input.length / KECCAK_RATE) + 1, 0);
  const oneInput = new Uint8Array(permutations * KECCAK_RATE - 1);
  const oneCallFloor = () => {
    JSON.parse(text);
    defaultKeccak256(oneInput);
  };
  for (let i = 0; i < 3; i++) {
    floor();
    oneCallFloor();
    ours();
    oursFull();
    receiptRoot();
    await theirs();
    if (withRaw !== undefined) oursWithRaw();
  }
  const samples: Record<'floor' | 'oneCall' | 'ours' | 'full' | 'receiptRoot' | 'peer' | 'withRaw', number[]> = {
    floor: [],
    oneCall: [],
    ours: [],
    full: [],
    receiptRoot: [],
    peer: [],
    withRaw: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    samples.floor.push(await time(floor));
    samples.oneCall.push(await time(oneCallFloor));
    samples.ours.push(await time(ours));
    samples.full.push(await time(oursFull));
    samples.receiptRoot.push(await time(receiptRoot));
    samples.peer.push(await time(theirs));
    if (withRaw !== undefined) samples.withRaw.push(await time(oursWithRaw));
  }
  const [tFloor, tOneCall, tOurs, tFull, tRoot, tPeer] = [
    samples.floor,
    samples.oneCall,
    samples.ours,
    samples.full,
    samples.receiptRoot,
    samples.peer,
  ].map(median) as [number, number, number, number, number, number];
  const ratio = tOurs / tRoot;
  const fullRatio = tFull / tRoot;
  const speedUp = tPeer / tOurs;
  ratioMet &&= ratio <= RATIO_TARGET && fullRatio <= RATIO_TARGET;
  peerMet &&= speedUp >= PEER_TARGET;
  const overFloor = tOurs / tOneCall;
  floorMet &&= overFloor <= FLOOR_TARGET;
  overFloors.push(overFloor);
  speedUps.push(speedUp);
  rows.push(
    `| ${name} | ${(text.length / 1024).toFixed(0)} KiB | ${receipts.length} | ${logs} | ${tOurs.toFixed(2)} | ${tRoot.toFixed(2)} | **${ratio.toFixed(2)}x** | ${(full.length / 1024).toFixed(0)} KiB | ${tFull.toFixed(2)} | **${fullRatio.toFixed(2)}x** | ${tPeer.toFixed(2)} | **${speedUp.toFixed(1)}x** | ${tFloor.toFixed(2)} | ${(tPeer / tFloor).toFixed(1)}x | ${permutations} | ${tOneCall.toFixed(2)} | **${overFloor.toFixed(2)}x** | ${(tPeer / tOneCall).toFixed(1)}x | ${withRaw === undefined ? '—' : median(samples.withRaw).toFixed(2)} |`,
  );
}

console.log(`Node ${process.version}; median ms from JSON text to verdict, ${ROUNDS} rounds interleaved\n`);
console.log(
  '| block | text | receipts | logs | verifyBlock | receipt-root op | ratio | full node answer | its verifyBlock | its ratio | peer (rlp + mpt + hash-wasm) | peer / ours | floor: JSON.parse + Keccak | peer / floor | Keccak permutations | floor in one Keccak call | verifyBlock / it | peer / it | verifyBlock with raw receipts |',
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const row of rows) console.log(row);

const linearity = spawnSync(
  process.execPath,
  ['--expose-gc', '--max-old-space-size=12288', fileURLToPath(import.meta.url), LINEARITY],
  { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 20 },
);
if (linearity.status !== 0) throw new Error(`the linearity process exited with ${linearity.status}`);
const { fresh, core, afterWhole } = JSON.parse(linearity.stdout) as LinearFigures;
const us = (ms: number) => (ms * 1000).toFixed(2);
const ratioOf = (times: number[][]) => median(times.at(-1)!) / median(times[0]!);
const linearRow = (path: string, times: number[][]) =>
  console.log(`| ${path} | ${times.map((t) => us(median(t))).join(' | ')} | **${ratioOf(times).toFixed(2)}x** |`);
console.log(`\nµs per receipt, unique receipts made from ${LINEAR_SAMPLE}'s (median of ${LINEAR_ROUNDS})\n`);
console.log(
  `| path | ${SIZES.map((n) => n.toLocaleString('en')).join(' | ')} | ${SIZES.at(-1)!.toLocaleString('en')} / ${SIZES[0]!.toLocaleString('en')} |`,
);
console.log(`|---|${SIZES.map(() => '--:').join('|')}|--:|`);
linearRow('core (receiptsCommitment of decoded receipts)', core);
linearRow('verify path (verifyBlock of the parsed JSON), a process that has held no block decoded', fresh);
linearRow('the same after the core has held each size decoded', afterWhole);
const linearMet = [core, fresh, afterWhole].every((times) => ratioOf(times) <= LINEAR_TARGET);

console.log(
  `\nTargets: verifyBlock / receipt-root op ≤ ${RATIO_TARGET}x on each block, on both texts: ${verdict(ratioMet)}.`,
);
console.log(`         peer / verifyBlock ≥ ${PEER_TARGET}x on each block: ${verdict(peerMet)}.`);
console.log(
  `         verifyBlock / one-call floor ≤ ${FLOOR_TARGET}x on every block: ${verdict(floorMet)} ` +
    `(${Math.min(...overFloors).toFixed(2)}x to ${Math.max(...overFloors).toFixed(2)}x; ` +
    `peer / verifyBlock ${Math.min(...speedUps).toFixed(1)}x to ${Math.max(...speedUps).toFixed(1)}x).`,
);
console.log(
  `         per receipt at 1,000,000 / 10,000 unique receipts ≤ ${LINEAR_TARGET}x, on each path: ${verdict(linearMet)}.\n`,
);
console.log(
  '(where peer / floor is under 10x, no implementation calling this Keccak once per input reaches 10x the peer on that block;\n' +
    ' where peer / floor in one Keccak call is under 10x, none that parses the text with JSON.parse and hashes with this Keccak does)\n',
);
