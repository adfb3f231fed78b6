/**
 * The server under a hostile client's load, over raw sockets on loopback: clients that never read
 * their answer, that pipeline without waiting, that half-close after their request, and one
 * account's burst of large bodies beside another account's request.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';
import { receiptRootBody } from '../packages/core/src/api/index.js';
import { SCALAR_BUNDLE } from '../packages/service/src/server/scalar-bundle.js';
import { DEFAULT_CONFIG, parseConfig, type ServerConfig } from '../packages/service/src/server/config/config.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { loadFixture } from './helpers/fixtures.js';
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
