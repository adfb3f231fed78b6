/**
 * Range audits from a JSON-RPC node over HTTP: `auditRange` over an `RpcBlockSource` against a
 * loopback node serving a synthesized chain (the 30 consecutive mainnet fixture blocks
 * 1000001..1000030 repeated, renumbered, linked by their parent hashes and re-hashed), and the
 * real CLI process against the same node and against three hostile nodes.
 *
 * (a) 50 ms per HTTP request, as a provider: blocks/s at concurrency 4, 8 and 16, against the
 *     bound of one block per request (c / latency), with batching off (`batch: 1`) and on.
 * (b) No latency: blocks/s of the whole chain, median of several rounds, and TCP connections
 *     opened (pooled keep-alive connections: about the concurrency, not the number of calls).
 * (c) `audit --rpc` end to end, on the fast node, 30 blocks and the whole chain: blocks/s including
 *     the process start.
 * (d) Hostile nodes (the answer to eth_getBlockReceipts is 150 MB of small objects, 300 MB, or a
 *     never-ending stream): the CLI's peak RSS, time to the error, exit code, summary printed.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auditRange } from '../packages/core/src/audit/index.js';
import { RpcBlockSource, type RpcBlockSourceOptions } from '../packages/core/src/node.js';
import { bytesToHex, defaultKeccak256, headerHash, Problems, readRpcHeader } from '../packages/core/src/index.js';
import { median } from './timing.js';

const BIN = 'packages/service/bin/evm-integrity.js';
const FROM = 1_000_001;
const LATENCY_MS = 50;

interface Block {
  header: Record<string, unknown>;
  receipts: Array<Record<string, unknown>>;
}
interface Call {
  id: number;
  method: string;
  params: unknown[];
}

/** The header with its hash recomputed from its fields. */
function rehash(header: Record<string, unknown>): Record<string, unknown> {
  const read = readRpcHeader({ ...header, hash: undefined }, 'header', new Problems());
  if (read?.complete === undefined) throw new Error('the header cannot be encoded');
  return { ...header, hash: `0x${bytesToHex(headerHash(read.complete))}` };
}

/** `count` blocks from FROM: fixture i % 30 as block FROM + i, each linked to the one before. */
function synthesize(count: number): Map<number, Block> {
  const templates = Array.from({ length: 30 }, (_, i) => {
    const { header, receipts } = JSON.parse(readFileSync(`fixtures/blocks/mainnet-${FROM + i}.json`, 'utf8'));
    return { header: header as Record<string, unknown>, receipts: receipts as Array<Record<string, unknown>> };
  });
  const chain = new Map<number, Block>();
  let parentHash = templates[0]!.header.parentHash;
  for (let n = FROM; n < FROM + count; n++) {
    const template = templates[(n - FROM) % 30]!;
    // A receipt names its block (the re-hashed block's hash and number) and its transaction, as a node's does.
    const header = rehash({ ...template.header, number: `0x${n.toString(16)}`, parentHash });
    const receipts = template.receipts.map((r, i) => ({
      ...r,
      blockHash: header.hash,
      blockNumber: header.number,
      transactionHash: `0x${bytesToHex(defaultKeccak256(new TextEncoder().encode(`1/${n}/${i}`)))}`,
    }));
    chain.set(n, { header, receipts });
    parentHash = header.hash;
  }
  return chain;
}

/** The answer of one call, as a node words it. */
function result(chain: Map<number, Block>, call: Call): unknown {
  if (call.method === 'eth_chainId') return '0x1';
  const block = chain.get(Number(call.params[0]));
  if (block === undefined) return null;
  if (call.method === 'eth_getBlockByNumber')
    return { ...block.header, transactions: block.receipts.map((r) => r.transactionHash) };
  if (call.method === 'eth_getBlockReceipts') return block.receipts;
  throw new Error(`no method ${call.method}`);
}

interface Node {
  url: string;
  latencyMs: number;
  connections: number;
  requests: number;
  close(): Promise<void>;
}

/** Starts a server, counting the TCP connections and HTTP requests it sees. */
async function listen(handle: (body: unknown, res: ServerResponse, node: Node) => void): Promise<Node> {
  const node: Node = { url: '', latencyMs: 0, connections: 0, requests: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      node.requests++;
      handle(JSON.parse(Buffer.concat(chunks).toString('utf8')), res, node);
    });
  });
  server.on('connection', () => node.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return node;
}

/** A JSON-RPC node serving `chain`, single calls and batches, after `latencyMs` per HTTP request. */
function chainNode(chain: Map<number, Block>): Promise<Node> {
  return listen((body, res, node) => {
    const answer = (call: Call) => ({ jsonrpc: '2.0', id: call.id, result: result(chain, call) });
    const text = JSON.stringify(Array.isArray(body) ? (body as Call[]).map(answer) : answer(body as Call));
    const send = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    };
    if (node.latencyMs > 0) setTimeout(send, node.latencyMs);
    else send();
  });
}

type Hostile = '150 MB of small objects' | '300 MB of small objects' | 'a never-ending stream';

/** A node answering eth_getBlockReceipts with `kind`; other calls as `chain`'s node would. */
function hostileNode(chain: Map<number, Block>, kind: Hostile): Promise<Node> {
  return listen((body, res) => {
    const calls = Array.isArray(body) ? (body as Call[]) : [body as Call];
    if (!calls.some((c) => c.method === 'eth_getBlockReceipts')) {
      const answer = (call: Call) => ({ jsonrpc: '2.0', id: call.id, result: result(chain, call) });
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(Array.isArray(body) ? calls.map(answer) : answer(calls[0]!)));
    }
    const total = kind === 'a never-ending stream' ? Infinity : (kind.startsWith('150') ? 150 : 300) * 1e6;
    const piece = Buffer.from('{"a":1},'.repeat(8192));
    let sent = 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`${Array.isArray(body) ? '[' : ''}{"jsonrpc":"2.0","id":${calls[0]!.id},"result":[`);
    const pump = () => {
      while (sent < total) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end(`{"a":1}]}${Array.isArray(body) ? ']' : ''}`);
    };
    res.on('close', () => (sent = total + 1)); // the client went away: stop
    pump();
  });
}

/**
 * A way to fetch at concurrency c: the RpcBlockSource's options and the audit's window (blocks
 * fetched ahead), as the CLI sets them: c blocks, their header and receipts at once on 2c connections
 * (batch off), or c requests of 8 blocks each (batch 16).
 */
interface Mode {
  name: string;
  options: (c: number) => Partial<RpcBlockSourceOptions>;
  window: (c: number) => number;
}
// Options the branch under test may not have are passed untyped: the same bench measures before and after.
const MODES: Mode[] = [
  { name: 'batch off', options: (c) => JSON.parse(`{"batch":1,"connections":${2 * c}}`), window: (c) => c },
  { name: 'batch 16 ', options: (c) => JSON.parse(`{"batch":16,"connections":${c}}`), window: (c) => c * 8 },
];

/** Blocks per second of auditing `count` blocks from `node`, and whether they all passed. */
async function auditRate(node: Node, count: number, c: number, mode: Mode) {
  const source = new RpcBlockSource({ url: node.url, keepMiscountedReceipts: true, ...mode.options(c) });
  const started = performance.now();
  const audit = auditRange({ source, chainId: 1, from: FROM, to: FROM + count - 1, concurrency: mode.window(c) });
  let passed = 0;
  for await (const event of audit) {
    if ('verdict' in event && event.verdict === 'pass') passed++;
  }
  const seconds = (performance.now() - started) / 1000;
  if (passed !== count) throw new Error(`${passed} of ${count} blocks passed`);
  return count / seconds;
}

/** The CLI run to its end, with its peak RSS (VmHWM, read from /proc while it runs). */
function runCli(args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string; seconds: number; peakMb: number }>(
    (resolve) => {
      const started = performance.now();
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let peakKb = 0;
      const sample = setInterval(() => {
        try {
          const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
        } catch {
          // gone
        }
      }, 20);
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (status) => {
        clearInterval(sample);
        resolve({ status, stdout, stderr, seconds: (performance.now() - started) / 1000, peakMb: peakKb / 1024 });
      });
    },
  );
}

const fmt = (n: number) => n.toFixed(0).padStart(6);

async function main() {
  const extra = process.argv.slice(2);
  const only = (part: string) => extra.length === 0 || extra.includes(part);
  const chain = synthesize(960);
  const node = await chainNode(chain);

  if (only('latency')) {
    node.latencyMs = LATENCY_MS;
    console.log(`(a) ${LATENCY_MS} ms per HTTP request; bound = concurrency / latency, one block per request`);
    for (const c of [4, 8, 16]) {
      const count = c * 24;
      const bound = c / (LATENCY_MS / 1000);
      const rates: string[] = [];
      for (const mode of MODES) {
        const samples: number[] = [];
        for (let round = 0; round < 3; round++) samples.push(await auditRate(node, count, c, mode));
        rates.push(`${mode.name} ${fmt(median(samples))} blocks/s (${((median(samples) / bound) * 100).toFixed(0)}%)`);
      }
      console.log(`  concurrency ${String(c).padStart(2)} (bound ${bound}): ${rates.join(', ')}`);
    }
    node.latencyMs = 0;
  }

  if (only('fast')) {
    console.log(`(b) no latency, ${chain.size} blocks, concurrency 4, median of 5 rounds after 1 warm-up`);
    // Interleaved rounds: the machine's noise falls on both modes alike. Each run has its own
    // source, so its own pool of connections.
    const samples = MODES.map(() => [] as number[]);
    const connections = MODES.map(() => [] as number[]);
    for (const mode of MODES) await auditRate(node, chain.size, 4, mode);
    for (let round = 0; round < 5; round++)
      for (const [i, mode] of MODES.entries()) {
        const [opened, requests] = [node.connections, node.requests];
        samples[i]!.push(await auditRate(node, chain.size, 4, mode));
        connections[i]!.push(node.connections - opened);
        if (round === 0) console.log(`  ${mode.name}: ${node.requests - requests} HTTP requests a run`);
      }
    for (const [i, mode] of MODES.entries())
      console.log(
        `  ${mode.name}: ${fmt(median(samples[i]!))} blocks/s, TCP connections a run ${median(connections[i]!)}`,
      );
  }

  if (only('cli')) {
    // The issue's figure: the CLI on the 30 consecutive mainnet blocks, 181 blocks/s before (main 1c911c5).
    const TARGET_30 = 3 * 181;
    for (const count of [30, chain.size]) {
      const range = ['--chain', '1', '--from', String(FROM), '--to', String(FROM + count - 1), '--quiet'];
      const runs = [];
      for (let i = 0; i < 9; i++) runs.push(await runCli(['audit', ...range, '--rpc', node.url]));
      const seconds = median(runs.map((r) => r.seconds));
      const summaries = runs
        .map((r) => r.stdout.trim().split('\n').at(-1) ?? '')
        .filter((l) => l.includes('"summary"'));
      // The audit's own rate, from its summary: fetching and verifying, without the process start.
      const inside = median(summaries.map((l) => Number(/"blocks_per_second":([\d.]+)/.exec(l)?.[1] ?? Number.NaN)));
      const rate = count / seconds;
      console.log(
        `(c) audit --rpc, ${count} blocks, median of ${runs.length} runs: exit ${runs.map((r) => r.status).join('/')}, ` +
          `${fmt(rate)} blocks/s with the process start (${(seconds * 1000).toFixed(0)} ms), ` +
          `${fmt(inside)} blocks/s by its summary, peak RSS ${fmt(Math.max(...runs.map((r) => r.peakMb)))} MB, ` +
          `summary printed ${summaries.length}/${runs.length}` +
          (count === 30
            ? `; target ≥ ${TARGET_30} blocks/s with the start: ${rate >= TARGET_30 ? 'met' : 'NOT met'}`
            : ''),
      );
    }
  }
  await node.close();

  if (only('hostile')) {
    console.log('(d) hostile nodes, audit --rpc of 2 blocks');
    for (const kind of ['150 MB of small objects', '300 MB of small objects', 'a never-ending stream'] as const) {
      const hostile = await hostileNode(chain, kind);
      const run = await runCli(
        ['audit', '--chain', '1', '--from', String(FROM), '--to', String(FROM + 1)].concat(['--rpc', hostile.url]),
      );
      await hostile.close();
      const summary = run.stdout.includes('"summary"');
      const reason = /"reason":"([^"]*)"/.exec(run.stdout)?.[1] ?? run.stderr.trim().split('\n').at(-1);
      console.log(
        `  ${kind.padEnd(24)}: exit ${run.status}, ${run.seconds.toFixed(1)} s, peak RSS ${run.peakMb.toFixed(0)} MB, ` +
          `summary ${summary ? 'printed' : 'missing'}; ${reason?.slice(0, 160)}`,
      );
    }
  }
}

await main();
