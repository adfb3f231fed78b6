/**
 * The server under a hostile client's load, over raw sockets on loopback: clients that never read
 * their answer, that pipeline without waiting, that half-close after their request, and one
 * account's burst of large bodies beside another account's request.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex, Problems, readRpcBlock } from '../packages/core/src/index.js';
import { receiptRootBody } from '../packages/core/src/api/index.js';
import { SCALAR_BUNDLE } from '../packages/service/src/server/scalar-bundle.js';
import { DEFAULT_CONFIG, parseConfig, type ServerConfig } from '../packages/service/src/server/config/config.js';
import { serveWithLimits } from '../packages/service/src/server/connections/connections.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { loadFixture } from './helpers/fixtures.js';
import { buildArtifact, rangeNames, toFilter } from './helpers/logs-proofs.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const KEY = 'evmi_load-test-key-auditor-0123456789abcdefghijklm';
const OTHER_KEY = 'evmi_load-test-key-other-0123456789abcdefghijklmn';
const otherAccount = { ...auditorAccount(OTHER_KEY, 'other'), id: 'other', name: 'Other' };

// 360 KB: above the pool threshold, so it is verified on a worker.
const block = readRpcBlock(loadFixture('mainnet-22869878'), new Problems())!;
const largeBody = JSON.stringify(
  receiptRootBody({ chainId: 1, receiptRoot: block.header.fields.receiptsRoot!, receipts: block.receipts }),
);
// 15537394's receipts: a huge body, long to verify.
const hugeBlock = readRpcBlock(loadFixture('mainnet-15537394'), new Problems())!;
const hugeBody = JSON.stringify(
  receiptRootBody({ chainId: 1, receiptRoot: hugeBlock.header.fields.receiptsRoot!, receipts: hugeBlock.receipts }),
);
const smallBody = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });

let server: RunningServer | undefined;
let log = capturingLogger();
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

/** The large body to the receipt-root endpoint with the account's key, over fetch. */
function postLargeBody(url: string): Promise<Response> {
  return fetch(`${url}/v1/evm/verify/receipt-root`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: largeBody,
  });
}

async function start(over: Partial<ServerConfig>): Promise<RunningServer> {
  log = capturingLogger();
  server = await startServer(
    testConfig({ host: '127.0.0.1', accounts: [auditorAccount(KEY, 'load'), otherAccount], ...over }),
    { logger: log.logger },
  );
  return server;
}

function open(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  sockets.push(socket);
  return socket;
}

const verifyRequest = (body: string, key = KEY, extra = '') =>
  `POST /v1/evm/verify/receipt-root HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** Everything the server sends on `socket` until it closes its side; `closed` once the socket is closed too. */
function received(socket: Socket): Promise<{ bytes: Buffer; closed: boolean }> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    socket.on('end', () => resolve({ bytes: Buffer.concat(chunks), closed: false }));
    socket.on('close', () => resolve({ bytes: Buffer.concat(chunks), closed: true }));
  });
}

/** The status of each answer in `text`, in order (answer bodies are JSON, never a status line). */
const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

describe('a client that never reads its answer', () => {
  it('is closed once its answer makes no progress for send_timeout_ms, mid-answer, and the server says why', async () => {
    const { port } = await start({ sendTimeoutMs: 300 });
    const readers = Array.from({ length: 4 }, () => {
      const socket = open(port);
      socket.write('GET /v1/docs/scalar.js HTTP/1.1\r\nHost: x\r\n\r\n');
      // Not read: the kernel's buffers fill, then the server's.
      socket.pause();
      return socket;
    });
    const stalled = () => log.lines.filter((l) => String(l.msg).startsWith('send deadline'));
    // Without a deadline the server holds them for good, and this waits in vain.
    await expect.poll(() => stalled().length, { timeout: 15_000 }).toBe(4);
    expect(stalled()[0]).toMatchObject({ level: 30, send_timeout_ms: 300 });
    // Read now: what the kernel held, then the close; never the whole bundle.
    const bundleBytes = readFileSync(SCALAR_BUNDLE).byteLength;
    for (const socket of readers) {
      const answer = received(socket);
      socket.resume();
      const { bytes } = await answer;
      expect(bytes.toString('latin1', 0, 15)).toBe('HTTP/1.1 200 OK');
      expect(bytes.byteLength).toBeLessThan(bundleBytes);
    }
  });

  it('a client that reads slowly, for longer than send_timeout_ms in all, gets the whole bundle intact', async () => {
    const { port } = await start({ sendTimeoutMs: 1000 });
    const socket = open(port);
    const answer = received(socket);
    socket.write('GET /v1/docs/scalar.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    // 128 KiB at a time with pauses: some 35 pauses for the 4.3 MB, each well under the deadline.
    let taken = 0;
    socket.on('data', (chunk: Buffer) => {
      taken += chunk.byteLength;
      if (taken >= 131_072) {
        taken = 0;
        socket.pause();
        setTimeout(() => socket.resume(), 60);
      }
    });
    const { bytes } = await answer;
    const split = bytes.indexOf('\r\n\r\n');
    const head = bytes.subarray(0, split).toString('latin1');
    const bundle = readFileSync(SCALAR_BUNDLE);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).toContain(`content-length: ${bundle.byteLength}`);
    expect(bytes.subarray(split + 4).equals(bundle)).toBe(true);
    expect(log.lines.filter((l) => String(l.msg).startsWith('send deadline'))).toEqual([]);
  });
});

/**
 * Reads `socket` as a slow client does: nothing for `waitMs` after the first bytes, then `everyBytes` at a time with a
 * pause of `pauseMs` after each.
 */
function readPaced(socket: Socket, pace: { waitMs: number; everyBytes: number; pauseMs: number }): void {
  let taken = 0;
  let first = true;
  socket.on('data', (chunk: Buffer) => {
    taken += chunk.byteLength;
    const pause = first ? pace.waitMs : taken >= pace.everyBytes ? pace.pauseMs : 0;
    first = false;
    if (pause === 0) return;
    taken = 0;
    socket.pause();
    setTimeout(() => socket.resume(), pause);
  });
}

/** The head and body of the one answer in `bytes`. */
function split(bytes: Buffer): { head: string; body: Buffer } {
  const end = bytes.indexOf('\r\n\r\n');
  return { head: bytes.subarray(0, end).toString('latin1'), body: bytes.subarray(end + 4) };
}

describe('a client that takes a large answer computed whole slowly', () => {
  // Every log of the Merge pair: a 3.2 MB proof (4 CU) whose answer, 5.5 MB, is more than the socket buffers hold.
  const merge = buildArtifact(rangeNames('mainnet', 15_537_393, 15_537_394), toFilter({}));
  const mergeBody = JSON.stringify({
    chain_id: 1,
    head_hash: `0x${bytesToHex(merge.headHash)}`,
    proof: `0x${bytesToHex(merge.artifact)}`,
  });
  const usedCu = async (url: string) =>
    (
      (await (await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
        cu_used: number;
      }
    ).cu_used;

  it('a client that waits a while after its first bytes, then reads, gets its verify answer whole, charged once, as one that reads at once', async () => {
    const { port, url } = await start({ sendTimeoutMs: 1000 });
    const fast = await fetch(`${url}/v1/evm/verify/logs-proof`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
      body: mergeBody,
    });
    const expected = Buffer.from(await fast.arrayBuffer());
    expect(fast.status).toBe(200);
    expect(expected.byteLength).toBeGreaterThan(5_000_000);
    const cuBefore = await usedCu(url);

    const socket = open(port);
    const answer = received(socket);
    socket.write(
      `POST /v1/evm/verify/logs-proof HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(mergeBody)}\r\nConnection: close\r\n\r\n${mergeBody}`,
    );
    // Cut at the deadline's first check, 0.4 to 0.9 s after its request with send_timeout_ms 30000 (a user check).
    readPaced(socket, { waitMs: 400, everyBytes: Infinity, pauseMs: 0 });
    const { head, body } = split((await answer).bytes);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).toContain(`content-length: ${expected.byteLength}`);
    expect(body.equals(expected)).toBe(true);
    expect(log.lines.filter((l) => String(l.msg).startsWith('send deadline'))).toEqual([]);
    expect((await usedCu(url)) - cuBefore).toBe(4);
  });

  it('one read steadily, for longer than send_timeout_ms after the kernel has taken what it holds, is sent whole', async () => {
    // 16 MB, far more than the socket buffers hold (a few MB), in the adaptor's one `end`, as a verify answer is; a
    // surrogate pair across each 64 KiB boundary, where a cut between its halves would spoil it.
    const answer = `${'a'.repeat(65_535)}\u{1F600}`.repeat(244);
    const server = createServer({ highWaterMark: 65_536 });
    const closed: string[] = [];
    serveWithLimits(
      server,
      getRequestListener(() => new Response(answer, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } })),
      {
        maxConnections: 8,
        maxConnectionsPerAddress: 8,
        headerTimeoutMs: 5000,
        maxInFlightPerConnection: 1,
        sendTimeoutMs: 2000,
        maxResponseBufferBytes: 65_536,
      },
      (reason) => closed.push(reason),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = open((server.address() as AddressInfo).port);
      const whole = received(socket);
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      // At most 3.2 MB/s: some 5 s in all; taken whole by the kernel only once it had taken the last byte, the answer
      // showed no progress for more than the deadline, and was cut.
      readPaced(socket, { waitMs: 0, everyBytes: 131_072, pauseMs: 40 });
      const { head, body } = split((await whole).bytes);
      const bytes = Buffer.from(answer);
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(head.toLowerCase()).toContain(`content-length: ${bytes.byteLength}`);
      expect(body.equals(bytes)).toBe(true);
      expect(closed).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('a client that pipelines its requests', () => {
  it('has at most max_in_flight_per_connection of them worked on at once, so its own account limit never refuses it', async () => {
    // One worker, so the jobs queue; a place each for 5 at most: more at once than that is a 503.
    const { port } = await start({ poolWorkers: 1, maxInFlightPerAccount: 5, maxInFlightPerConnection: 4 });
    const socket = open(port);
    const answers = received(socket);
    const requests = Array.from({ length: 20 }, (_, i) =>
      verifyRequest(largeBody, KEY, i === 19 ? 'Connection: close\r\n' : ''),
    );
    socket.write(requests.join(''));
    const { bytes } = await answers;
    // Without the bound, the 20 are read and queued at once and all beyond 5 are refused.
    expect(statuses(bytes.toString('latin1'))).toEqual(Array<number>(20).fill(200));
  });

  it("takes turns with other connections: a health check is answered while a keyless client's 1,000 pipelined requests for the OpenAPI document are still being answered (was: after all of them, 7 to 14 s: a user check)", async () => {
    const { port, url } = await start({});
    const pipelined = 1000;
    // The flooding client in a process of its own, reading as fast as it can, as a real client does: one in this
    // process would be held by the same event loop as the server. It says "flooding" once two answers are in, and how
    // many it has when its standard input closes.
    const flood = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').connect(${port}, '127.0.0.1');
         let answered = 0, told = false;
         s.on('data', (chunk) => {
           answered += chunk.toString('latin1').split('HTTP/1.1 200 ').length - 1;
           if (answered >= 2 && !told) { told = true; process.stdout.write('flooding\\n'); }
         });
         s.write('GET /v1/openapi.json HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'.repeat(${pipelined}));
         process.stdin.on('end', () => { process.stdout.write(answered + '\\n'); process.exit(0); });
         process.stdin.resume();`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    flood.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => flood.once('exit', resolve));
    try {
      while (!out.includes('flooding\n')) await new Promise((resolve) => setTimeout(resolve, 5));
      const health = await fetch(`${url}/v1/health`);
      expect(health.status).toBe(200);
      flood.stdin.end();
      await exited;
    } finally {
      flood.kill();
    }
    // Answered between the flood's answers, not behind them all.
    expect(Number(out.split('\n')[1])).toBeLessThan(pipelined / 2);
  });
});

describe("one account's burst of large bodies", () => {
  it("does not hold another account's request behind it: the pool's queues take turns", async () => {
    // Every body to the one worker, so the other account's small one, quick to send, waits there too.
    const { url } = await start({ poolWorkers: 1, poolThresholdBytes: 0 });
    const post = (key: string, path: string, body: string) =>
      fetch(`${url}/v1/evm/verify/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body,
      });
    const answered = async (res: Response) => {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    };
    // The order the server answered in: its log, a line per answer.
    const order = () => log.lines.filter((l) => l.msg === 'request' && l.method === 'POST').map((l) => l.account_id);
    const burst = Array.from({ length: 32 }, () => post(KEY, 'receipt-root', hugeBody).then(answered));
    // Many of the burst wait for the one worker before the other account asks.
    await expect.poll(() => server!.pool!.waiting, { timeout: 60_000 }).toBeGreaterThanOrEqual(16);
    const [doneBefore, waitingBefore] = [order().length, server!.pool!.waiting];
    await Promise.all([...burst, post(OTHER_KEY, 'logs-bloom', smallBody).then(answered)]);
    expect(order()).toHaveLength(33);
    // First come, first served, it would be answered after all of those; in turn, before most of them: after the one
    // running, the one whose turn came first, and any answered while its request was on its way.
    expect(waitingBefore).toBeGreaterThanOrEqual(16);
    expect(order().indexOf('other') - doneBefore).toBeLessThan(waitingBefore / 2);
  });
});

describe("fifty clients of one account, beyond the pool's threads", () => {
  it('are all answered 200 within the bounds derived from the threads, and /v1/health answers while they queue', async () => {
    const { url } = await start({ poolWorkers: 2 });
    // Derived, not configured: 32 queued per worker for one account, twice that in all; the start says so.
    expect(log.lines.find((l) => l.msg === 'listening')).toMatchObject({
      pool_workers: 2,
      max_in_flight: 128,
      max_in_flight_per_account: 64,
    });
    let answered = 0;
    const clients = Array.from({ length: 50 }, async () => {
      const res = await postLargeBody(url);
      const text = await res.text();
      answered++;
      return [res.status, res.headers.get('retry-after'), text.includes('"is_identical":true')] as const;
    });
    // Jobs wait for the two workers: health is answered on the event loop all the same, before the queue drains.
    await expect.poll(() => server!.pool!.waiting, { timeout: 60_000, interval: 1 }).toBeGreaterThanOrEqual(10);
    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(answered).toBeLessThan(50);
    // The constant 32 of one account refused a third of them (503); derived from two workers, none.
    expect(await Promise.all(clients)).toEqual(Array(50).fill([200, null, true]));
  });

  it('beyond a configured bound, as many as it wait for a place and are answered 200', async () => {
    // One worker, 4 places for the account and 4 waiting: eight at once are all answered, none refused.
    const { url } = await start({ poolWorkers: 1, maxInFlightPerAccount: 4, admissionWaitMs: 60_000 });
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await postLargeBody(url);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses).toEqual(Array(8).fill(200));
  });

  it('beyond a configured bound and its wait, the rest are refused 503 with Retry-After, each one answered', async () => {
    const { url } = await start({ poolWorkers: 1, maxInFlightPerAccount: 10 });
    expect(log.lines.find((l) => l.msg === 'listening')).toMatchObject({
      max_in_flight: 64,
      max_in_flight_per_account: 10,
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await postLargeBody(url);
        await res.arrayBuffer();
        return [res.status, res.headers.get('retry-after')] as const;
      }),
    );
    const served = answers.filter(([status]) => status === 200);
    expect(served.length).toBeGreaterThanOrEqual(10);
    expect(answers.filter(([status]) => status !== 200)).toEqual(Array(50 - served.length).fill([503, '1']));
  });
});

describe('a client that half-closes after its request', () => {
  it.each([
    ['a small body, verified inline', smallBody, '/v1/evm/verify/logs-bloom'],
    ['a large body, verified on a worker', largeBody, '/v1/evm/verify/receipt-root'],
  ])('%s: is answered, and charged; asked whether it is there by at most three 100 Continue', async (_, body, path) => {
    // With metrics on: neither they nor the request log ask the client again after the route has.
    const { port, url } = await start({ metricsPort: 0 });
    const usage = async () =>
      (
        (await (await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
          cu_used: number;
        }
      ).cu_used;
    const before = await usage();
    const socket = open(port);
    const answer = received(socket);
    socket.end(verifyRequest(body).replace('/v1/evm/verify/receipt-root', path));
    const text = (await answer).bytes.toString('latin1');
    // Perhaps a 100 Continue first: the server's check that the client is still there, when its side ends, once more
    // a round trip later while the answer is not begun, and before the CU are charged; never one more.
    expect(statuses(text).filter((status) => status !== 100)).toEqual([200]);
    expect(statuses(text).filter((status) => status === 100).length).toBeLessThanOrEqual(3);
    expect(text).toContain('"data"');
    expect(await usage()).toBe(before + 1);
    expect(log.lines.filter((l) => l.status === 499)).toEqual([]);
  });
});

describe('configuration of the connection limits', () => {
  it('reads the three members, and refuses a value out of range naming the member and what was expected', () => {
    expect(
      parseConfig({ max_in_flight_per_connection: 1, send_timeout_ms: 5000, max_response_buffer_bytes: 4096 }),
    ).toMatchObject({ maxInFlightPerConnection: 1, sendTimeoutMs: 5000, maxResponseBufferBytes: 4096 });
    expect(() => parseConfig({ max_in_flight_per_connection: 0 })).toThrow(
      'max_in_flight_per_connection: expected a positive integer, got 0',
    );
    expect(() => parseConfig({ send_timeout_ms: -1 })).toThrow(
      'send_timeout_ms: expected a positive number of milliseconds, got -1',
    );
    expect(() => parseConfig({ max_response_buffer_bytes: 1024 })).toThrow(
      'max_response_buffer_bytes: expected a number of bytes, at least 4096, got 1024',
    );
    expect(parseConfig({})).toMatchObject({
      maxInFlightPerConnection: DEFAULT_CONFIG.maxInFlightPerConnection,
      sendTimeoutMs: DEFAULT_CONFIG.sendTimeoutMs,
      maxResponseBufferBytes: DEFAULT_CONFIG.maxResponseBufferBytes,
    });
  });
});
