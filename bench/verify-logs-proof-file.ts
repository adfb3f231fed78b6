/**
 * Run by logs-proofs.bench.ts in a process of its own, so that its peak memory is the verifier's
 * alone: verifies the logs proof in file argv[2] (of the synthetic bench chain) against head hash
 * argv[3], streaming it in 64 KiB chunks, and prints one line of JSON: the time (wall and CPU),
 * the summary and the memory taken.
 */
import { createReadStream } from 'node:fs';
import { hexToBytes } from '../packages/core/src/index.js';
import { verifyLogsProof } from '../packages/core/src/proof/index.js';
import { BENCH_CHAIN_ID, benchRegistry } from './synthetic-chain.js';

const [path, headHex] = process.argv.slice(2);
if (path === undefined || headHex === undefined) throw new Error('usage: verify-logs-proof-file.js FILE HEAD_HASH');

/** The chunks of `source`, noting the largest heap in use seen between them. */
async function* sampled(source: AsyncIterable<Buffer>, peak: { heapUsed: number }): AsyncIterable<Uint8Array> {
  for await (const chunk of source) {
    peak.heapUsed = Math.max(peak.heapUsed, process.memoryUsage().heapUsed);
    yield chunk;
  }
}

const rssBefore = process.memoryUsage().rss;
const peak = { heapUsed: 0 };
const cpuBefore = process.cpuUsage();
const start = performance.now();
const verdict = await verifyLogsProof(sampled(createReadStream(path, { highWaterMark: 64 * 1024 }), peak), {
  headHash: hexToBytes(headHex),
  chainId: BENCH_CHAIN_ID,
  registry: benchRegistry,
});
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
if (!verdict.ok) throw new Error(verdict.error.message);
const { blocks, candidateBlocks, receipts, logs } = verdict.value;
console.log(
  JSON.stringify({
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    blocks,
    candidateBlocks,
    receipts,
    logs,
    rssBefore,
    maxRss: process.resourceUsage().maxRSS * 1024,
    peakHeapUsed: peak.heapUsed,
  }),
);
