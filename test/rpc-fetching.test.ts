/**
 * How a range audit fetches from a JSON-RPC node, over real HTTP on loopback: batches (answers
 * matched by id, a provider refusing batches in each of the ways providers do), kept-alive pooled
 * connections, and the caps that bound what a hostile node can cost (an answer over the size cap,
 * a body that never ends, a body that trickles past the time limit). The verdicts stay the ones
 * of the real fixture blocks.
 */
import { constants } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, constants as zlibConstants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { auditRange } from '../packages/core/src/audit/engine.js';
import { isReorg, type AuditEvent, type BlockAudit } from '../packages/core/src/audit/audit-report.js';
import { HttpClient, MAX_ANSWER_BYTES } from '../packages/core/src/live/http-client.js';
import { pooledTransport } from '../packages/core/src/live/http-transport.js';
import { RpcBlockSource, type RpcBlockSourceOptions } from '../packages/core/src/live/rpc-block-source.js';
import { nodeFetching } from '../packages/core/src/live/node-fetching.js';
import {
  DEFAULT_BATCH,
  JsonRpcTransport,
  MAX_SIZED_BATCH,
  SIZED_ANSWER_CHARS,
  sizedBatch,
} from '../packages/core/src/live/json-rpc-transport.js';
import { runAudit } from '../packages/service/src/cli/audit/audit.js';
import {
  fixtureChain,
  loopedChain,
  startLoopbackNode,
  type BatchRefusal,
  type LoopbackNode,
} from './helpers/loopback-rpc.js';
import { syntheticTxHash } from './helpers/synthetic-tx-hash.js';
import { loadFixture } from './helpers/fixtures.js';

const FROM = 1_000_001;
const TO = 1_000_030;
const MIB = 1024 * 1024;
const instant = () => Promise.resolve();

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function start(): Promise<LoopbackNode> {
  const node = await startLoopbackNode(1, fixtureChain(FROM, TO));
  closing.push(() => node.close());
  return node;
}

/** Has `server` listen on loopback, closed after the test; its URL. */
async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const source = (url: string, options: Partial<RpcBlockSourceOptions> = {}) =>
  new RpcBlockSource({ url, keepMiscountedReceipts: true, sleep: instant, ...options });

async function audit(s: RpcBlockSource, window: number | (() => number), to = TO) {
  const run = auditRange({ source: s, chainId: 1, from: FROM, to, concurrency: window });
  const events: AuditEvent[] = [];
  for await (const event of run) events.push(event);
  return { blocks: events.filter((e): e is BlockAudit => !isReorg(e)), summary: run.summary() };
}
const verdicts = (blocks: BlockAudit[]) => blocks.map((b) => b.verdict);

/** Block `n`'s receipts, each naming its transaction (the fixtures' of 2016 do not). */
const named = (n: number, receipts: Array<Record<string, unknown>>) =>
  receipts.map((r, i) => ({ ...r, transactionHash: `0x${(n * 1000 + i).toString(16).padStart(64, '0')}` }));
const allPass = Array.from({ length: TO - FROM + 1 }, () => 'pass');

describe('nodeFetching, the one rule of audit and of the queue workers', () => {
  it('K requests of B calls, K × B/2 blocks ahead; without batching, a block on two connections, K blocks ahead', () => {
    const settings = (given: Parameters<typeof nodeFetching>[0], batchNow: number) => {
      const { batch, connections, window } = nodeFetching(given);
      return { batch, connections, window: window(batchNow) };
    };
    expect(settings({}, 16)).toEqual({ batch: undefined, connections: 4, window: 32 });
    expect(settings({}, 100)).toEqual({ batch: undefined, connections: 4, window: 200 });
    expect(settings({ concurrency: 2, batch: 6 }, 6)).toEqual({ batch: 6, connections: 2, window: 6 });
    expect(settings({ concurrency: 3, batch: 1 }, 1)).toEqual({ batch: 1, connections: 6, window: 3 });
    expect(settings({ concurrency: 5, batch: 3 }, 3)).toEqual({ batch: 3, connections: 5, window: 5 });
  });
});

describe('batches sized by their answers (no --batch)', () => {
  it('sizedBatch: as many calls as SIZED_ANSWER_CHARS holds, never under 16 (or the ceiling) nor over the ceiling', () => {
    expect(sizedBatch(2_000, MAX_SIZED_BATCH)).toBe(100); // a block of 2016: 2 KB a call
    expect(sizedBatch(60_000, MAX_SIZED_BATCH)).toBe(69); // Byzantium's fixture block
    expect(sizedBatch(250_000, MAX_SIZED_BATCH)).toBe(DEFAULT_BATCH); // a modern mainnet block
    expect(sizedBatch(2_000, 25)).toBe(25); // a node that refused 50
    expect(sizedBatch(250_000, 4)).toBe(4);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.integer({ min: 1, max: 1000 }), (chars, ceiling) => {
        const batch = sizedBatch(chars, ceiling);
        const fits = Math.floor(SIZED_ANSWER_CHARS / Math.max(1, chars));
        expect(batch).toBeLessThanOrEqual(ceiling);
        expect(batch).toBeGreaterThanOrEqual(Math.min(DEFAULT_BATCH, ceiling));
        // Within its bounds, the batch is the one whose answer fits: one call more would pass SIZED_ANSWER_CHARS.
        if (batch > DEFAULT_BATCH && batch < ceiling) expect(batch).toBe(fits);
        expect(sizedBatch(chars * 2, ceiling)).toBeLessThanOrEqual(batch);
      }),
    );
  });

  it('small blocks: requests grow to 100 calls and the window with them, every block passes', async () => {
    const node = await startLoopbackNode(1, loopedChain(FROM, 400));
    closing.push(() => node.close());
    const s = source(node.url);
    const { window } = nodeFetching({});
    const { blocks } = await audit(s, () => window(s.batchSize), FROM + 399);
    expect(blocks).toHaveLength(400);
    expect(blocks.every((b) => b.verdict === 'pass')).toBe(true);
    expect(s.batchSize).toBe(MAX_SIZED_BATCH);
    // 800 calls and the chain id: at 16 calls a request, 51 requests.
    expect(node.calls).toHaveLength(801);
    expect(node.requests).toBeLessThanOrEqual(16);
  });

  it('answers of 300 KB a call: requests stay at 16 calls', async () => {
    const pad = 'a'.repeat(300_000);
    const requests: number[] = [];
    const url = await listening(
      createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          const calls = JSON.parse(body) as Array<{ id: number }>;
          requests.push(calls.length);
          res.end(JSON.stringify(calls.map(({ id }) => ({ jsonrpc: '2.0', id, result: pad }))));
        });
      }),
    );
    const transport = new JsonRpcTransport({
      client: new HttpClient({ maxConnections: 2, maxRetries: 0 }),
      url,
      headers: {},
      where: 'the node',
      batch: 'sized',
      connections: 2,
      isRateLimit: () => false,
      maxRetries: 0,
      sleep: instant,
    });
    const ask = (count: number) =>
      Promise.all(Array.from({ length: count }, () => transport.call('eth_getBlockReceipts', ['0x1'])));
    await ask(16);
    expect(transport.batchSize).toBe(DEFAULT_BATCH);
    const answers = await ask(64);
    expect(answers.every((a) => a.result === pad)).toBe(true);
    expect(requests).toEqual([16, 16, 16, 16, 16]);
  });

  it("a node refusing batches over 40 calls (Erigon's words): the batch grows, is halved to 25 and kept, every block passes", async () => {
    const node = await startLoopbackNode(1, loopedChain(FROM, 400));
    closing.push(() => node.close());
    node.batchRefusal = 'first-call-error';
    node.maxBatch = 40;
    const s = source(node.url);
    const { window } = nodeFetching({});
    const { blocks } = await audit(s, () => window(s.batchSize), FROM + 399);
    expect(blocks.every((b) => b.verdict === 'pass')).toBe(true);
    expect(blocks).toHaveLength(400);
    expect(s.batchSize).toBe(25); // 100 → 50 → 25
  });
});

describe('batches', () => {
  it('sends many blocks per request and matches answers by id, in any order: every block passes', async () => {
    const node = await start();
    node.reverseBatches = true;
    const { blocks, summary } = await audit(source(node.url, { batch: 16, connections: 4 }), 32);
    expect(verdicts(blocks)).toEqual(allPass);
    expect(summary).toMatchObject({ complete: true, verdicts: { pass: 30 } });
    // eth_chainId, then 60 calls of 30 blocks in batches of up to 16 calls.
    expect(node.calls).toHaveLength(61);
    expect(node.requests).toBeLessThanOrEqual(1 + 8);
  });

  it.each(['gzip', 'deflate', 'deflate-raw', 'br'] as const)(
    'asks for compressed answers and reads them, %s: every block passes',
    async (compression) => {
      const node = await start();
      node.compression = compression;
      const { blocks } = await audit(source(node.url), 32);
      expect(verdicts(blocks)).toEqual(allPass);
    },
  );

  it('receipts listed out of transaction order, each with its transactionIndex: placed by it, every block passes', async () => {
    const node = await start();
    for (const [n, block] of node.blocks) {
      block.receipts = named(n, block.receipts);
      block.transactionHashes = block.receipts.map((r) => r.transactionHash as string);
      block.receipts.reverse();
    }
    const { blocks } = await audit(source(node.url), 32);
    expect(verdicts(blocks)).toEqual(allPass);
  });

  it('a receipt for another transaction than the one at its place: block_input fails, naming both, and the audit goes on (was: unreachable)', async () => {
    const node = await start();
    const block = node.blocks.get(FROM + 22)!; // 7 transactions
    block.receipts = named(FROM + 22, block.receipts);
    block.transactionHashes = block.receipts.map((r, i) =>
      i === 2 ? `0x${'ab'.repeat(32)}` : (r.transactionHash as string),
    );
    const { blocks, summary } = await audit(source(node.url), 32);
    expect(blocks[22]).toMatchObject({ block_number: FROM + 22, verdict: 'fail' });
    expect(blocks[22]!.failures.map((f) => f.check)).toEqual(['block_input']);
    expect(blocks[22]!.failures[0]!.message).toMatch(
      /receipts\[2\]\.transactionHash: expected 0x[0-9a-f…]+, the block's transactions\[2\], which it repeats, got 0x/,
    );
    expect(summary).toMatchObject({ complete: true, verdicts: { pass: 29, fail: 1 } });
  });

  it('an altered block still fails', async () => {
    const node = await start();
    const block = node.blocks.get(FROM + 4)!;
    block.receipts = block.receipts.map((r, i) => (i === 0 ? { ...r, cumulativeGasUsed: '0x1' } : r));
    const { blocks } = await audit(source(node.url), 32);
    expect(blocks[4]).toMatchObject({ block_number: FROM + 4, verdict: 'fail' });
    expect(verdicts(blocks).filter((v) => v !== 'pass')).toEqual(['fail']);
  });

  it.each<BatchRefusal>(['http-413', 'single-error', 'per-call-error', 'first-call-error'])(
    'a provider refusing batches over 3 calls (%s): the batch is halved until accepted, and every block passes',
    async (refusal) => {
      const node = await start();
      node.batchRefusal = refusal;
      node.maxBatch = 3;
      const s = source(node.url, { batch: 16, connections: 4 });
      const { blocks } = await audit(s, 32);
      expect(verdicts(blocks)).toEqual(allPass);
      expect(s.batchSize).toBe(2); // 16 → 8 → 4 → 2, kept for the run
    },
  );

  it.each<BatchRefusal>(['single-error', 'batches-not-supported'])(
    'a provider refusing every batch (%s): down to one call per request (no batching), every block passes',
    async (refusal) => {
      const node = await start();
      node.batchRefusal = refusal;
      node.maxBatch = 1;
      const s = source(node.url, { batch: 16, connections: 4 });
      const { blocks } = await audit(s, 32);
      expect(verdicts(blocks)).toEqual(allPass);
      expect(s.batchSize).toBe(1);
    },
  );

  it.each([401, 402, 403, 404])(
    'a node refusing the client (HTTP %i to every request): unreachable at once, not asked again in smaller batches',
    async (status) => {
      const node = await start();
      node.fault = () => ({ status, body: { message: 'refused' } });
      const s = source(node.url, { batch: 16, connections: 4 });
      const { blocks, summary } = await audit(s, 32);
      expect(blocks[0]).toMatchObject({ block_number: FROM, verdict: 'unreachable' });
      expect((blocks[0] as { reason: string }).reason).toMatch(new RegExp(`with HTTP ${status}$`));
      expect(summary).toMatchObject({ complete: false });
      // The requests the window sent at once, each refused once: before, 16 → 8 → 4 → 2 → 1 made 72.
      expect(node.requests).toBeLessThanOrEqual(4);
      expect(s.batchSize).toBe(16);
    },
  );

  it('a call rate-limited inside a batch (-32005) is asked again after a wait; the others are kept', async () => {
    const node = await start();
    let limited = 0;
    node.callError = (call) =>
      call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === FROM + 1 && limited++ < 2
        ? { code: -32005, message: 'limit exceeded' }
        : undefined;
    const { blocks } = await audit(source(node.url, { batch: 16 }), 8);
    expect(verdicts(blocks)).toEqual(allPass);
    expect(
      node.calls.filter((c) => c.method === 'eth_getBlockReceipts' && Number(c.params[0]) === FROM + 1),
    ).toHaveLength(3);
    expect(node.calls.filter((c) => c.method === 'eth_getBlockReceipts')).toHaveLength(30 + 2);
  });

  it('one rate-limit error object for a whole batch is waited for, not taken for a refusal of batches', async () => {
    const node = await start();
    let limited = 0;
    node.fault = (call) =>
      call.method === 'eth_getBlockByNumber' && limited++ === 0
        ? { status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'limit exceeded' } } }
        : undefined;
    const s = source(node.url, { batch: 16 });
    const { blocks } = await audit(s, 8);
    expect(verdicts(blocks)).toEqual(allPass);
    expect(s.batchSize).toBe(16);
  });

  it('a call the batch leaves unanswered fails alone, named: its block is unreachable, the ones before pass', async () => {
    const node = await start();
    node.dropFromBatch = (call) => call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === FROM + 2;
    const { blocks, summary } = await audit(source(node.url, { batch: 16 }), 8);
    expect(verdicts(blocks)).toEqual(['pass', 'pass', 'unreachable']);
    expect(blocks[2]!.reason).toMatch(
      /answered a batch of \d+ calls .* without an answer to eth_getBlockReceipts for block 1000003 \(id \d+\)/,
    );
    expect(summary).toMatchObject({ complete: false, next_block: FROM + 2 });
  });

  it('a call the batch answers twice, differently: neither answer is taken, the block is unreachable, naming it and its block (was: the call alone)', async () => {
    const node = await start();
    const twice = (call: { method: string; params: unknown[] }) =>
      call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === FROM + 2;
    node.answerTwice = (call) => (twice(call) ? [] : undefined);
    const { blocks } = await audit(source(node.url, { batch: 16 }), 8);
    expect(verdicts(blocks)).toEqual(['pass', 'pass', 'unreachable']);
    expect(blocks[2]!.reason).toMatch(
      /answered a batch of \d+ calls .* with two different answers to eth_getBlockReceipts for block 1000003 \(id \d+\)/,
    );
    // The same answer twice is one answer.
    const again = await start();
    again.answerTwice = (call) => (twice(call) ? again.blocks.get(FROM + 2)!.receipts : undefined);
    expect(verdicts((await audit(source(again.url, { batch: 16 }), 8)).blocks)).toEqual(allPass);
  });
});

describe('an answer naming a member twice', () => {
  it('is refused at once, naming the member: the block is unreachable, the node not asked again', async () => {
    const node = await start();
    const receiptsOf = (call: { method: string; params: unknown[] }) =>
      call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === FROM + 2;
    node.fault = (call) =>
      receiptsOf(call) ? { status: 200, text: '{"jsonrpc":"2.0","id":1,"result":[],"result":null}' } : undefined;
    const { blocks } = await audit(source(node.url, { batch: 1 }), 8);
    expect(verdicts(blocks)).toEqual(['pass', 'pass', 'unreachable']);
    expect(blocks[2]!.reason).toMatch(
      /answered eth_getBlockReceipts with HTTP 200 and JSON naming result twice in one object/,
    );
    expect(node.calls.filter(receiptsOf)).toHaveLength(1);
  });

  it.each([false, true])(
    "in a batch's answer to one block's call (answers reversed: %s): the message names that block, whatever block the audit stops at (was: the batch's place alone, [8].result…)",
    async (reversed) => {
      const node = await start();
      node.reverseBatches = reversed;
      node.rawAnswer = (call, id) =>
        call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === FROM + 3
          ? `{"jsonrpc":"2.0","id":${id},"result":[{"logs":[{"data":"0x","data":"0x01"}]}]}`
          : undefined;
      const { blocks } = await audit(source(node.url, { batch: 16 }), 8);
      // The batch cannot be read: its first block stops the audit, and the message names the block at fault.
      expect(verdicts(blocks)).toEqual(['unreachable']);
      expect(blocks[0]!.reason).toMatch(
        /answered a batch of 16 calls .* JSON naming \[\d+\]\.result\[0\]\.logs\[0\]\.data twice in one object, in its answer to eth_getBlockReceipts for block 1000004:/,
      );
    },
  );
});

describe('connections', () => {
  it('are kept alive and pooled: 30 blocks one call per request on 2 connections open 2, not 61', async () => {
    const node = await start();
    const { blocks } = await audit(source(node.url, { batch: 1, connections: 2 }), 1);
    expect(verdicts(blocks)).toEqual(allPass);
    expect(node.requests).toBe(61);
    expect(node.connections).toBeGreaterThanOrEqual(1);
    expect(node.connections).toBeLessThanOrEqual(2);
  });

  it('at most `connections` at once, whatever the blocks ahead', async () => {
    const node = await start();
    node.delayMs = 5; // requests overlap
    const { blocks } = await audit(source(node.url, { batch: 2, connections: 4 }), 30);
    expect(verdicts(blocks)).toEqual(allPass);
    expect(node.requests).toBeGreaterThan(30);
    expect(node.connections).toBeLessThanOrEqual(4);
  });

  it('a kept-alive connection the server resets as it is reused: sent again at once on a new one, not failed', async () => {
    // The server resets every connection at its second request, as one whose idle timeout has just run out.
    const seen = new WeakMap<object, number>();
    let connections = 0;
    const server = createServer((req, res) => {
      const count = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, count);
      if (count > 1) return void req.socket.resetAndDestroy();
      req.resume().on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}'));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // No retries: a reset that reached the client's rules would fail the second call.
    const client = new HttpClient({ maxRetries: 0, maxConnections: 1 });
    const call = () => client.post(url, '{}', {}, { who: 'the node', what: 'eth_chainId' }, () => ({ kind: 'final' }));
    expect((await call()).json).toMatchObject({ result: '0x1' });
    expect((await call()).json).toMatchObject({ result: '0x1' });
    expect(connections).toBe(2);
  });
});

type Hostile = 'endless' | 'declared' | 'trickle' | 'gzip bomb';

/**
 * A node that answers eth_getBlockReceipts (alone or in a batch) with a hostile body: an endless
 * stream of small objects, a Content-Length of 2 MiB, a byte every 20 ms forever, or 2 KiB of gzip
 * that decompress to 2 MiB; other calls
 * as a node would, for block FROM.
 */
async function hostileNode(kind: Hostile): Promise<{ url: string; closed: Promise<void> }> {
  const fixture = loadFixture(`mainnet-${FROM}`);
  const header = { ...fixture.header, transactions: fixture.receipts.map((_, i) => syntheticTxHash(1, FROM, i)) };
  const timers = new Set<NodeJS.Timeout>();
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const calls = (Array.isArray(body) ? body : [body]) as Array<{ id: number; method: string }>;
      if (calls.some((c) => c.method === 'eth_getBlockReceipts')) return hostile(res, kind, () => ended());
      const answers = calls.map((c) => ({
        jsonrpc: '2.0',
        id: c.id,
        result: c.method === 'eth_chainId' ? '0x1' : header,
      }));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
  });
  /** Writes the hostile body until the client goes away (then `gone`). */
  const hostile = (res: ServerResponse, how: Hostile, gone: () => void) => {
    res.on('close', gone);
    if (how === 'gzip bomb') {
      const bomb = gzipSync(' '.repeat(2 * MIB));
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Content-Length': String(bomb.length),
      });
      return void res.end(bomb);
    }
    if (how === 'declared') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(2 * MIB) });
      return void res.end(' '.repeat(2 * MIB));
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":1,"result":[');
    if (how === 'trickle') {
      const timer = setInterval(() => res.write(' '), 20);
      timers.add(timer);
      return void res.on('close', () => clearInterval(timer));
    }
    const piece = '{"a":1},'.repeat(4096);
    const pump = () => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(
    () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed };
}

describe('answers read in pieces', () => {
  it('a body arriving a few bytes at a time, its characters of 2 to 4 bytes split between pieces, reads as written; two at once each their own', async () => {
    const answers = [
      { jsonrpc: '2.0', id: 1, result: { note: 'é€😀'.repeat(40), hex: '0x'.padEnd(5000, 'ab') } },
      { jsonrpc: '2.0', id: 2, result: { note: '€😀é'.repeat(900), list: Array.from({ length: 300 }, (_, i) => i) } },
    ];
    const server = createServer((req, res) => {
      const bytes = Buffer.from(JSON.stringify(answers[Number(req.url?.slice(1))]));
      res.writeHead(200, { 'content-type': 'application/json' });
      // 7-byte pieces, each written after the last one has been flushed: the client reads many chunks.
      const write = (at: number): void => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, at + 7), () => setImmediate(() => write(at + 7)));
      };
      write(0);
    });
    const url = await listening(server);
    const client = new HttpClient({ maxRetries: 0 });
    const label = { who: 'the node', what: 'a call' };
    const read = await Promise.all(
      [0, 1].map((i) => client.post(`${url}/${i}`, '{}', {}, label, () => ({ kind: 'final' }))),
    );
    expect(read.map((answer) => answer.json)).toEqual(answers);
  });
});

describe('answers that fail or arrive oddly as they are read', () => {
  const answer = { jsonrpc: '2.0', id: 1, result: { hex: '0x'.padEnd(3000, 'ab') } };
  const text = JSON.stringify(answer);

  /** A server whose every answer `respond` writes on the raw socket, its headers included. */
  const rawServer = (respond: (socket: import('node:net').Socket) => void) =>
    listening(createServer((req, res) => req.resume().on('end', () => respond(res.socket!))));
  /** A server (not yet listening) whose every answer is `body` under `Content-Encoding: encoding`. */
  const compressedServer = (encoding: string, body: Buffer) =>
    createServer((req, res) =>
      req.resume().on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': encoding });
        res.end(body);
      }),
    );
  const head = (length: number, encoding?: string) =>
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${encoding === undefined ? '' : `Content-Encoding: ${encoding}\r\n`}\r\n`;
  const post = (url: string) =>
    new HttpClient({ maxRetries: 0 }).post(url, '{}', {}, { who: 'the node', what: 'a call' }, () => ({
      kind: 'final',
    }));

  it('a body cut short by a closed connection: said so, not "aborted"', async () => {
    const url = await rawServer((socket) => {
      socket.write(head(text.length) + text.slice(0, 100));
      setTimeout(() => socket.destroy(), 20);
    });
    await expect(post(url)).rejects.toThrow(
      /the node answered a call with a network error: the connection closed before the answer was complete, still after 0 retries/,
    );
  });

  it('a bare deflate body cut after its first byte: the same', async () => {
    const body = deflateRawSync(text);
    const url = await rawServer((socket) => {
      socket.write(head(body.length, 'deflate'));
      socket.write(body.subarray(0, 1));
      setTimeout(() => socket.destroy(), 20);
    });
    await expect(post(url)).rejects.toThrow(/the connection closed before the answer was complete/);
  });

  it('deflate bodies, zlib or bare, whose first two bytes come in two pieces: read as sent', async () => {
    for (const body of [deflateSync(text), deflateRawSync(text)]) {
      const url = await rawServer((socket) => {
        socket.write(head(body.length, 'deflate'));
        socket.write(body.subarray(0, 1), () => setTimeout(() => socket.write(body.subarray(1)), 20));
      });
      expect((await post(url)).json).toEqual(answer);
    }
  });

  it.each([
    ['gzip', (body: Buffer) => gzipSync(body)],
    ['deflate', (body: Buffer) => deflateRawSync(body)],
  ] as const)(
    'a %s answer over the cap whose whole body is in: its connection is ended, and the next request, on a pool of one, gets another (a node that never closes an idle connection)',
    async (encoding, compress) => {
      // 20 MiB of a random KiB over and over compress to about 200 KB, in before the client has read 1 MiB of it
      // decompressed (the cap): most of the body is then still unread, in the response and the socket.
      const block = randomBytes(1024);
      const bomb = compress(Buffer.concat(Array.from({ length: 20 * 1024 }, () => block)));
      let connections = 0;
      const server = compressedServer(encoding, bomb);
      server.keepAliveTimeout = 0;
      server.on('connection', () => connections++);
      const url = await listening(server);
      const client = new HttpClient({ maxRetries: 0, maxConnections: 1, maxAnswerBytes: MIB, timeoutMs: 5_000 });
      for (const request of [1, 2]) {
        const answered = client.post(url, '{}', {}, { who: 'the node', what: 'a call' }, () => ({ kind: 'final' }));
        const waited = new Promise((resolve) => setTimeout(resolve, 10_000, `request ${request} still waits`));
        await expect(Promise.race([answered, waited])).rejects.toThrow(/the node answered a call with more than 1 MiB/);
      }
      expect(connections).toBe(2);
    },
  );

  it.each([
    ['br', (body: Buffer) => brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } })],
    ['gzip', (body: Buffer) => gzipSync(body, { level: 1 })],
    ['deflate', (body: Buffer) => deflateRawSync(body, { level: 1 })],
  ] as const)(
    'a %s body given up on (its signal aborted) stops decompressing, though the whole of it is in',
    async (encoding, compress) => {
      // 64 MiB of spaces: a few KB of brotli, in at once; hundreds of pieces once decompressed.
      const url = await listening(compressedServer(encoding, compress(Buffer.alloc(64 * MIB, 0x20))));
      const abort = new AbortController();
      const answer = await pooledTransport(1)(url, { headers: {}, body: '{}', signal: abort.signal });
      let after = 0;
      const read = async () => {
        for await (const piece of answer.body!) {
          expect(piece.length).toBeGreaterThan(0);
          if (abort.signal.aborted) after++;
          else abort.abort();
        }
      };
      await expect(read()).rejects.toThrow(/aborted/i);
      // What the decompressor had made before the abort may still be read; no more.
      expect(after).toBeLessThan(8);
    },
  );

  it('a body that is not what its Content-Encoding says, or empty under it: the encoding named, and what was wrong', async () => {
    const plain = await rawServer((socket) => socket.write(head(text.length, 'gzip') + text));
    await expect(post(plain)).rejects.toThrow(
      /the node answered a call with a body not valid under its Content-Encoding, gzip: incorrect header check \(Z_DATA_ERROR\), still after 0 retries/,
    );
    for (const encoding of ['gzip', 'deflate']) {
      const empty = await rawServer((socket) => socket.write(head(0, encoding)));
      await expect(post(empty)).rejects.toThrow(
        `a body not valid under its Content-Encoding, ${encoding}: unexpected end of file (Z_BUF_ERROR)`,
      );
    }
  });
});

describe('caps on what a node costs', () => {
  it('a cap past what one string holds (511 MiB) is refused when the client is made, not met as a network error mid-audit', () => {
    expect(new HttpClient({ maxRetries: 0, maxAnswerBytes: MAX_ANSWER_BYTES })).toBeInstanceOf(HttpClient);
    for (const maxAnswerBytes of [MAX_ANSWER_BYTES + 1, 0, Number.NaN])
      expect(() => new HttpClient({ maxRetries: 0, maxAnswerBytes })).toThrow(
        new RangeError(`maxAnswerBytes: expected 1 to ${511 * MIB} bytes, got ${maxAnswerBytes}`),
      );
    expect(MAX_ANSWER_BYTES + 1).toBeLessThan(constants.MAX_STRING_LENGTH);
    expect(MAX_ANSWER_BYTES + MIB).toBeGreaterThan(constants.MAX_STRING_LENGTH);
  });

  it.each<Hostile>(['endless', 'declared', 'gzip bomb'])(
    'an answer over the size cap (%s) is abandoned: the block is unreachable, naming the node, the method and the cap',
    async (kind) => {
      const node = await hostileNode(kind);
      const { blocks, summary } = await audit(source(node.url, { maxAnswerBytes: MIB }), 4, FROM + 3);
      expect(verdicts(blocks)).toEqual(['unreachable']);
      expect(blocks[0]!.reason).toMatch(
        /^the JSON-RPC node at http:\/\/127\.0\.0\.1:\d+ answered eth_getBlockReceipts with more than 1 MiB, the cap on an answer/,
      );
      expect(summary).toMatchObject({ complete: false, next_block: FROM, verdicts: { unreachable: 1 } });
      await node.closed; // the request was aborted: the node saw the client go
    },
  );

  it('the default cap, 32 MiB, stops an endless answer too', async () => {
    const node = await hostileNode('endless');
    const { blocks } = await audit(source(node.url), 4, FROM + 3);
    expect(blocks[0]!.reason).toMatch(/eth_getBlockReceipts with more than 32 MiB/);
  });

  it('a body that trickles past the time limit is cut there: the limit covers the whole answer', async () => {
    const node = await hostileNode('trickle');
    const { blocks } = await audit(source(node.url, { timeoutMs: 300, maxRetries: 0 }), 4, FROM + 3);
    expect(verdicts(blocks)).toEqual(['unreachable']);
    expect(blocks[0]!.reason).toMatch(/eth_getBlockReceipts.* no answer in time/);
  });

  it.each<[string, LoopbackNode['fault']]>([
    ['a request the node holds', () => ({ hang: true })],
    ['the wait before a retry (HTTP 500)', () => ({ status: 500 })],
  ])('a signal abandons %s at once: the block rejects with the abort, and is not asked again', async (_, fault) => {
    const node = await start();
    node.fault = fault;
    const controller = new AbortController();
    // The real waits between retries (sleep left to the client): the abort must end them too.
    const held = source(node.url, { signal: controller.signal, sleep: undefined, checkChainId: false }).block(1, FROM);
    while (node.requests === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const abortedAt = performance.now();
    controller.abort();
    await expect(held).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - abortedAt).toBeLessThan(250); // the first retry waits 500 ms, the time limit 60 s
    expect(node.requests).toBe(1);
  });

  it('the CLI: --max-answer-mb 1 against an endless answer exits 2 with the block unreachable and a summary', async () => {
    const node = await hostileNode('endless');
    let stdout = '';
    const status = await runAudit(
      ['--chain', '1', '--from', String(FROM), '--to', String(FROM + 3), '--rpc', node.url, '--max-answer-mb', '1'],
      { stdout: (text) => void (stdout += text), stderr: () => undefined, stderrIsTty: false },
    );
    expect(status).toBe(2);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.block_number === FROM)).toMatchObject({
      verdict: 'unreachable',
      reason: expect.stringMatching(
        /eth_getBlockReceipts with more than 1 MiB, the cap on an answer \(maxAnswerBytes; audit's --max-answer-mb on the command line\)/,
      ),
    });
    expect(lines.at(-1)!.summary).toMatchObject({ complete: false, verdicts: { unreachable: 1 } });
  });
});
