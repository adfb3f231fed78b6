/**
 * Audits over many workers: blocks per second of `audit-worker --workers N` (N processes, one chunk
 * at a time each) for N = 1, 2, 4 and 8, against a loopback JSON-RPC node that answers each call
 * after 50 ms, as a provider does, over a synthesized chain of 2,048 blocks that verify (the 30
 * consecutive mainnet fixture blocks 1000001..1000030 repeated, renumbered, linked by their
 * parent hashes and re-hashed). Fetching bounds the work (a block is one request, its header and
 * receipts batched: 50 ms), so the rate should grow almost linearly with the processes, even on 2 cores.
 *
 * Each N runs on a fresh database of the PostgreSQL at TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test). The rate is the blocks over the time from the first
 * chunk taken to the last one done, as `audit-status` computes it; the wall time includes starting
 * the processes.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { bytesToHex, defaultKeccak256, headerHash, Problems, readRpcHeader } from '../packages/core/src/index.js';

const BIN = 'packages/service/bin/evm-integrity.js';
const FROM = 1_000_001;
const BLOCKS = 2_048;
const TO = FROM + BLOCKS - 1;
const LATENCY_MS = 50;
const CHUNK_SIZE = 64;
const PROCESSES = [1, 2, 4, 8];
const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Block {
  header: Record<string, unknown>;
  receipts: unknown[];
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** The header with its hash recomputed from its fields. */
function rehash(header: Record<string, unknown>): Record<string, unknown> {
  const read = readRpcHeader({ ...header, hash: undefined }, 'header', new Problems());
  if (read?.complete === undefined) throw new Error('the header cannot be encoded');
  return { ...header, hash: `0x${bytesToHex(headerHash(read.complete))}` };
}

/** The chain: fixture i % 30 as block FROM + i, each linked to the one before. */
function synthesize(): Map<number, Block> {
  const templates = Array.from({ length: 30 }, (_, i) => {
    const { header, receipts } = JSON.parse(readFileSync(`fixtures/blocks/mainnet-${FROM + i}.json`, 'utf8'));
    return { header: header as Record<string, unknown>, receipts: receipts as unknown[] };
  });
  const chain = new Map<number, Block>();
  let parentHash = templates[0]!.header.parentHash;
  for (let n = FROM; n <= TO; n++) {
    const template = templates[(n - FROM) % 30]!;
    const header = rehash({ ...template.header, number: hex(n), parentHash });
    chain.set(n, { header, receipts: template.receipts });
    parentHash = header.hash;
  }
  return chain;
}

/** A JSON-RPC node on loopback answering every request (a call or a batch) after LATENCY_MS. */
async function startNode(chain: Map<number, Block>) {
  const txHash = (n: number, i: number) => `0x${bytesToHex(defaultKeccak256(new TextEncoder().encode(`1/${n}/${i}`)))}`;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      type Call = { id: number; method: string; params: unknown[] };
      const answer = (call: Call) => {
        const n = Number(call.params?.[0]);
        const block = chain.get(n);
        const result =
          call.method === 'eth_chainId'
            ? '0x1'
            : block === undefined
              ? null
              : call.method === 'eth_getBlockByNumber'
                ? { ...block.header, transactions: block.receipts.map((_, i) => txHash(n, i)) }
                : block.receipts;
        return { jsonrpc: '2.0', id: call.id, result };
      };
      // A batch (a JSON array of calls) is answered as one, as a node does.
      const calls = JSON.parse(body) as Call | Call[];
      const text = JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls));
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text);
      }, LATENCY_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** A command of the CLI run to its end. */
function runCommand(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  await client.query(sql);
  await client.end();
}

/** One run with `processes` worker processes on a fresh database: its rate and wall time. */
async function run(nodeUrl: string, processes: number): Promise<{ rate: number; wallS: number; passed: number }> {
  const name = `evmi_bench_${process.pid}_${processes}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  const queue = url.toString();
  try {
    const range = ['--chain', '1', '--from', String(FROM), '--to', String(TO), '--rpc', nodeUrl];
    // Not spawnSync: the node answering it is served by this process.
    const enqueued = await runCommand(['audit', ...range, '--queue', queue, '--chunk-size', String(CHUNK_SIZE)]);
    if (enqueued.status !== 0) throw new Error(`audit --queue failed: ${enqueued.stderr}`);
    const id = enqueued.stdout.trim().split('\n').at(-1)!;
    const started = performance.now();
    const worker = spawn(process.execPath, [BIN, 'audit-worker', '--queue', queue, '--workers', String(processes)], {
      stdio: 'ignore',
    });
    const client = new pg.Client({ connectionString: queue });
    await client.connect();
    const sql = `SELECT count(*) FILTER (WHERE state = 'done' AND joined)::int AS done, count(*)::int AS total,
                   extract(epoch FROM max(finished_at) - min(started_at))::float AS seconds
                 FROM evm_integrity_audit.chunks WHERE audit_id = $1`;
    let row: { done: number; total: number; seconds: number };
    for (;;) {
      row = (await client.query(sql, [id])).rows[0] as typeof row;
      if (row.done === row.total) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const wallS = (performance.now() - started) / 1000;
    const passed = (
      await client.query(
        `SELECT count(*)::int AS n FROM evm_integrity_audit.blocks WHERE audit_id = $1 AND verdict = 'pass'`,
        [id],
      )
    ).rows[0].n as number;
    await client.end();
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.kill('SIGTERM');
    });
    return { rate: BLOCKS / row.seconds, wallS, passed };
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

const node = await startNode(synthesize());
console.log(
  `audit-queue: ${BLOCKS} blocks (${FROM}..${TO}, chunks of ${CHUNK_SIZE}), a node answering each call after ${LATENCY_MS} ms`,
);
console.log('  processes  blocks/s  speed-up  wall s');
let base = 0;
let failures = 0;
for (const processes of PROCESSES) {
  const { rate, wallS, passed } = await run(node.url, processes);
  base ||= rate;
  if (passed !== BLOCKS) failures++;
  console.log(
    `  ${String(processes).padStart(9)}  ${rate.toFixed(1).padStart(8)}  ${(rate / base).toFixed(2).padStart(7)}x  ${wallS.toFixed(1).padStart(6)}${passed === BLOCKS ? '' : `  (${passed} of ${BLOCKS} passed!)`}`,
  );
}
node.close();
if (failures > 0) process.exitCode = 1;
