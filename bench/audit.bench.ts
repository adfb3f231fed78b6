/**
 * A range audit from a recorded bundle, the offline replay path of `evm-integrity audit --bundle`:
 * the consecutive mainnet run 1000001..1000030 as a bundle, audited again and again (each audit
 * reads and parses the bundle file, then fetches, decodes and verifies every block) until enough
 * blocks have gone through. Blocks per second, and the shares of time: fetching (reading and parsing
 * the bundle, then taking blocks from it), decoding (reading the JSON-RPC blocks), verifying
 * (hashing: receipts root, bloom, header).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditRange } from '../packages/core/src/audit/index.js';
import { BundleSource } from '../packages/core/src/bundle/bundle-source.js';
import { writeBundle } from '../packages/core/src/bundle/write-bundle.js';
import type { BlockJson } from '../packages/core/src/sources/block-source.js';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';

const FROM = 1_000_001;
const TO = 1_000_030;
const AUDITS = 200;

const blocks: BlockJson[] = [];
for (let n = FROM; n <= TO; n++) {
  const { chain_id, header, receipts } = JSON.parse(readFileSync(`fixtures/blocks/mainnet-${n}.json`, 'utf8'));
  blocks.push({ chain_id, header, receipts, transaction_count: receipts.length });
}
const file = join(mkdtempSync(join(tmpdir(), 'audit-bench-')), 'range.json');
await writeBundle(file, { exchanges: [], blocks });

let loadMs = 0;
let fetchingMs = 0;
let verifyingMs = 0;
let audited = 0;
let failures = 0;
const start = performance.now();
for (let i = 0; i < AUDITS; i++) {
  const t0 = performance.now();
  const source = new BundleSource(JSON.parse(readFileSync(file, 'utf8')));
  loadMs += performance.now() - t0;
  const audit = auditRange({ source, chainId: 1, from: FROM, to: TO });
  for await (const line of audit) if ('verdict' in line && line.verdict !== 'pass') failures++;
  const { timings, blocks: done } = audit.summary();
  fetchingMs += timings.fetching_ms;
  verifyingMs += timings.verifying_ms;
  audited += done;
}
const elapsedMs = performance.now() - start;

// Decoding is inside verifyBlock: time it alone over the same blocks to split it from hashing.
const decodeStart = performance.now();
for (let i = 0; i < AUDITS; i++) for (const block of blocks) readRpcBlock(block, new Problems());
const decodingMs = performance.now() - decodeStart;

const share = (ms: number) => `${((100 * ms) / elapsedMs).toFixed(0)}%`;
console.log(
  `audit: ${AUDITS} audits of the ${TO - FROM + 1}-block mainnet run ${FROM}..${TO} from a bundle (${audited} blocks, ${failures} not passing)`,
);
console.log(`  ${(audited / (elapsedMs / 1000)).toFixed(0)} blocks/s (${elapsedMs.toFixed(0)} ms)`);
console.log(
  `  time: fetching ${share(loadMs + fetchingMs)} (bundle read and parsed ${share(loadMs)}), decoding ${share(decodingMs)}, verifying ${share(verifyingMs - decodingMs)}`,
);
if (failures > 0) process.exitCode = 1;
