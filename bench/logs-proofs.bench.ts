/**
 * Complete-log proofs over a range of blocks: the artifact's size, the time to build it and to
 * verify it (streamed in 64 KiB chunks, and whole in memory), on real mainnet ranges and on a
 * synthetic range of 100,000 blocks written to a file and verified from it in a process of its
 * own, whose peak memory shows the verifier holds one record at a time. Then where a range
 * check's time goes: the receipts roots of its candidate blocks, ours against @ethereumjs/mpt.
 * One function per figure.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMPT } from '@ethereumjs/mpt';
import { encode } from '@ethereumjs/rlp';
import { bytesEqual, bytesToHex, orderedTrieRoot, Problems, readRpcBlock } from '../packages/core/src/index.js';
import {
  decodeRecord,
  ItemReader,
  LOGS_PROOF_SIGNATURE,
  LogsProofBuilder,
  verifyLogsProof,
  verifyLogsProofBytes,
  type LogsFilter,
  type LogsProofSummary,
} from '../packages/core/src/proof/index.js';
import { BENCH_CHAIN_ID, benchRegistry, BUSY_CONTRACT, BUSY_SHARE, syntheticChain } from './synthetic-chain.js';
import { timeMs, timeMsAsync } from './timing.js';

const CHUNK = 64 * 1024;
const SYNTHETIC_FROM = 20_000_000;
const hex = (s: string) => Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
const TRANSFER = hex('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
const en = (n: number) => n.toLocaleString('en');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : en(Math.round(n)));
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** A real range and the filter asked of it. */
interface RealRange {
  name: string;
  from: number;
  to: number;
  filter: LogsFilter;
}

const REAL: RealRange[] = [
  {
    name: 'mainnet 1,000,001-1,000,030, contract 0x276c…58d3',
    from: 1_000_001,
    to: 1_000_030,
    filter: { addresses: [hex('0x276c5c6ca8507ed7bac085fc9b9521f4f54b58d3')], topics: [] },
  },
  {
    name: 'mainnet 15,537,393-15,537,394, topic0 Transfer',
    from: 15_537_393,
    to: 15_537_394,
    filter: { addresses: [], topics: [[TRANSFER]] },
  },
  {
    name: 'mainnet 19,426,586-19,426,587, USDT',
    from: 19_426_586,
    to: 19_426_587,
    filter: { addresses: [hex('0xdac17f958d2ee523a2206206994597c13d831ec7')], topics: [] },
  },
];

/** The fixture blocks of a range, read as a source gives them (not timed). */
function readRange({ from, to }: RealRange) {
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const problems = new Problems();
    const block = readRpcBlock(JSON.parse(readFileSync(`fixtures/blocks/mainnet-${from + i}.json`, 'utf8')), problems);
    if (block?.header.complete === undefined) throw new Error(`mainnet-${from + i}: ${JSON.stringify(problems.list)}`);
    return { header: block.header.complete, receipts: block.receipts };
  });
}

/** Builds the artifact of a real range, whole in memory. */
function buildReal(range: RealRange, blocks: ReturnType<typeof readRange>) {
  const builder = new LogsProofBuilder({ chainId: 1, fromBlock: range.from, toBlock: range.to, filter: range.filter });
  const parts = [builder.start()];
  for (const { header, receipts } of blocks) {
    const built = builder.block(header, builder.needsReceipts(header) ? receipts : undefined);
    if (!built.ok) throw new Error(built.error.message);
    parts.push(built.value.record);
  }
  const summary = builder.finish();
  if (!summary.ok) throw new Error(summary.error.message);
  return { artifact: Buffer.concat(parts), summary: summary.value };
}

/** The artifact in chunks of CHUNK bytes, as a file or a request body gives it. */
function* chunks(artifact: Uint8Array): Iterable<Uint8Array> {
  for (let at = 0; at < artifact.length; at += CHUNK) yield artifact.subarray(at, at + CHUNK);
}

/** Verifies streamed, throwing unless the proof holds with the builder's summary. */
async function verifyStreamed(artifact: Uint8Array, summary: LogsProofSummary): Promise<void> {
  const verdict = await verifyLogsProof(chunks(artifact), { headHash: summary.headHash, chainId: summary.chainId });
  if (!verdict.ok || verdict.value.logs !== summary.logs) throw new Error('the proof does not verify');
}

/** Figure 1: real ranges: size, candidate blocks, logs, build and verify times. */
async function realRanges(): Promise<void> {
  console.log(
    '| real range, filter | blocks | with receipts | logs proven | artifact bytes | build ms | verify ms, streamed | verify ms, whole |',
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
  for (const range of REAL) {
    const blocks = readRange(range);
    const { artifact, summary } = buildReal(range, blocks);
    const build = timeMs(() => buildReal(range, blocks), 15, 3);
    const streamed = await timeMsAsync(() => verifyStreamed(artifact, summary), 15, 3);
    const verifyWhole = () => verifyLogsProofBytes(artifact, { headHash: summary.headHash });
    if (!verifyWhole().ok) throw new Error(`${range.name}: the proof does not verify whole`);
    const whole = timeMs(verifyWhole, 15, 3);
    console.log(
      `| ${range.name} | ${summary.blocks} | ${summary.candidateBlocks} (${en(summary.receipts)} receipts) | ${en(summary.logs)} | ${en(artifact.length)} | ${ms(build)} | ${ms(streamed)} | ${ms(whole)} |`,
    );
  }
  console.log(
    '\nBuild: from the decoded blocks (reading the JSON not timed). Streamed: verifyLogsProof over 64 KiB chunks; whole: verifyLogsProofBytes.\n',
  );
}

/** What writing a synthetic artifact took. */
interface Written {
  summary: LogsProofSummary;
  bytes: number;
  busyBlocks: number;
  buildMs: number;
  totalMs: number;
}

/** Generates `count` synthetic blocks one at a time, building their proof into `path` as they come. */
async function writeSynthetic(path: string, count: number): Promise<Written> {
  const start = performance.now();
  const chain = syntheticChain(SYNTHETIC_FROM);
  const builder = new LogsProofBuilder(
    {
      chainId: BENCH_CHAIN_ID,
      fromBlock: SYNTHETIC_FROM,
      toBlock: SYNTHETIC_FROM + count - 1,
      filter: { addresses: [BUSY_CONTRACT], topics: [] },
    },
    { registry: benchRegistry },
  );
  const out = createWriteStream(path);
  const write = async (bytes: Uint8Array) => {
    if (!out.write(bytes)) await once(out, 'drain');
  };
  await write(builder.start());
  let parentHash: Uint8Array = new Uint8Array(32);
  let busyBlocks = 0;
  let buildMs = 0;
  for (let i = 0; i < count; i++) {
    const { header, receipts, busy } = chain.next(parentHash);
    const t = performance.now();
    const built = builder.block(header, builder.needsReceipts(header) ? receipts : undefined);
    buildMs += performance.now() - t;
    if (!built.ok) throw new Error(built.error.message);
    await write(built.value.record);
    parentHash = built.value.hash;
    if (busy) busyBlocks++;
  }
  out.end();
  await once(out, 'close');
  const summary = builder.finish();
  if (!summary.ok) throw new Error(summary.error.message);
  const totalMs = performance.now() - start;
  return {
    summary: summary.value,
    bytes: statSync(path).size,
    busyBlocks,
    buildMs,
    totalMs,
  };
}

/** What the verifying process reports. */
interface Verified {
  ms: number;
  cpuMs: number;
  logs: number;
  rssBefore: number;
  maxRss: number;
  peakHeapUsed: number;
}

/** Verifies the file in a process of its own, started with `nodeFlags`: its time and memory. */
function verifyInChild(path: string, headHash: Uint8Array, nodeFlags: string[] = []): Verified {
  const script = fileURLToPath(new URL('./verify-logs-proof-file.js', import.meta.url));
  const args = [...nodeFlags, script, path, bytesToHex(headHash)];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }));
}

/** Old-space size the capped verification runs in: far below the artifact, so it passes only if the verifier streams. */
const HEAP_CAP_MIB = 16;

/** Figure 2: synthetic ranges of 10,000 and 100,000 blocks, written to a file and verified from it. */
async function syntheticRanges(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'logs-proof-bench-'));
  const built: string[] = [];
  const verified: string[] = [];
  try {
    for (const count of [10_000, 100_000]) {
      const path = join(dir, `${count}.elp`);
      const w = await writeSynthetic(path, count);
      const runs = Array.from({ length: 3 }, () => verifyInChild(path, w.summary.headHash));
      const capped = verifyInChild(path, w.summary.headHash, [`--max-old-space-size=${HEAP_CAP_MIB}`]);
      if ([...runs, capped].some((r) => r.logs !== w.summary.logs)) throw new Error('the verifier proves other logs');
      const v = runs.sort((x, y) => x.ms - y.ms)[1]!;
      const range = `${en(count)} blocks`;
      built.push(
        `| ${range} | ${en(w.busyBlocks)} | ${en(w.summary.candidateBlocks)} (${en(w.summary.receipts)} receipts) | ${en(w.summary.logs)} | ${mib(w.bytes)} MiB | ${en(Math.round(w.bytes / count))} | ${(w.totalMs / 1000).toFixed(1)} | ${(w.buildMs / 1000).toFixed(1)} |`,
      );
      verified.push(
        `| ${range} | ${(v.ms / 1000).toFixed(2)} | ${(v.cpuMs / 1000).toFixed(2)} | ${en(Math.round(count / (v.ms / 1000)))} | ${((v.ms * 1000) / count).toFixed(1)} | ${mib(Math.max(...runs.map((r) => r.maxRss)))} MiB (${mib(v.rssBefore)}) | ${mib(Math.max(...runs.map((r) => r.peakHeapUsed)))} MiB | ${(capped.ms / 1000).toFixed(2)} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    '| synthetic range | blocks the contract logs in | with receipts | logs proven | artifact | bytes per block | generate + build s | of which build s |',
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
  for (const row of built) console.log(row);
  console.log(
    `\nOne contract logs in ${BUSY_SHARE * 100}% of blocks; 0 to 40 receipts a block, 0 to 3 logs a receipt from 2,000 other contracts. The other blocks with receipts are the blooms' false positives.\n`,
  );
  console.log(
    `| verify from the file | s | CPU s | blocks/s | µs per block | peak RSS (at start) | peak heap used | s, heap capped at ${HEAP_CAP_MIB} MiB |`,
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
  for (const row of verified) console.log(row);
  console.log(
    `\nA process of its own reads the file in 64 KiB chunks: median of 3 runs, peak memory the largest of the 3, and one more run with --max-old-space-size=${HEAP_CAP_MIB}.\n`,
  );
}

/** The encoded receipts of each candidate block of an artifact. */
function candidateReceipts(artifact: Uint8Array): Uint8Array[][] {
  const reader = new ItemReader();
  reader.push(artifact);
  reader.take(LOGS_PROOF_SIGNATURE.length);
  reader.nextItem();
  const out: Uint8Array[][] = [];
  for (let item = reader.nextItem(); item instanceof Uint8Array; item = reader.nextItem()) {
    const record = decodeRecord(item);
    if (typeof record !== 'string' && record.receipts !== null) out.push(record.receipts);
  }
  return out;
}

/** One @ethereumjs/mpt trie per block, one `put` of rlp(i) per receipt: the roots. */
async function ethereumjsRoots(blocks: Uint8Array[][]): Promise<Uint8Array[]> {
  const roots: Uint8Array[] = [];
  for (const receipts of blocks) {
    const trie = await createMPT();
    for (const [i, receipt] of receipts.entries()) await trie.put(encode(i), receipt);
    roots.push(trie.root());
  }
  return roots;
}

/** Figure 3: the receipts roots of the candidate blocks, against the whole verification. */
async function whereTheTimeGoes(): Promise<void> {
  console.log(
    '| real range | candidate blocks | receipts | verify ms, whole | their roots, evm-integrity ms | their roots, @ethereumjs/mpt ms | ratio |',
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  for (const range of REAL) {
    const { artifact, summary } = buildReal(range, readRange(range));
    const blocks = candidateReceipts(artifact);
    const ours = blocks.map((receipts) => orderedTrieRoot(receipts));
    const theirs = await ethereumjsRoots(blocks);
    if (ours.some((root, i) => !bytesEqual(root, theirs[i]!))) throw new Error(`${range.name}: the roots differ`);
    const verify = timeMs(() => verifyLogsProofBytes(artifact, { headHash: summary.headHash }), 15, 3);
    const oursMs = timeMs(() => blocks.map((receipts) => orderedTrieRoot(receipts)), 15, 3);
    const theirsMs = await timeMsAsync(() => ethereumjsRoots(blocks), 5, 1);
    console.log(
      `| ${range.name} | ${blocks.length} | ${en(summary.receipts)} | ${ms(verify)} | ${ms(oursMs)} | ${ms(theirsMs)} | **${(theirsMs / oursMs).toFixed(1)}x** |`,
    );
  }
  console.log(
    "\nThe roots are recomputed from the artifact's encoded receipts; both sides' roots are asserted equal. The rest of a verification decodes each receipt, rebuilds the block's bloom and matches the logs.\n",
  );
}

console.log(`Node ${process.version}; complete-log proofs over ranges of blocks\n`);
await realRanges();
await syntheticRanges();
await whereTheTimeGoes();
