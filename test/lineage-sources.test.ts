/**
 * The live sources of a lineage audit, against local fake servers on loopback:
 * a fake hosted service that replays a small bundle and injects faults by
 * request number (429, 5xx, 4xx, network errors), and a fake JSON-RPC node
 * serving real fixture blocks, with and without eth_getBlockReceipts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  bytesToHex,
  hexToBytes,
  defaultRegistry,
  Problems,
  readRpcBlock,
  receiptsCommitment,
  RULE_SETS,
} from '../packages/core/src/index.js';
import { checkBlock } from '../packages/core/src/lineage/onchain.js';
import { auditRange } from '../packages/core/src/audit/engine.js';
import type { BlockAudit } from '../packages/core/src/audit/audit-report.js';
import { BundleSource } from '../packages/core/src/bundle/bundle-source.js';
import { RpcBlockSource } from '../packages/core/src/live/rpc-block-source.js';
import { NodeLogsProof } from '../packages/core/src/live/node-logs-proof.js';
import { BundleRecorder } from '../packages/core/src/bundle/recorder.js';
import { ServiceSource } from '../packages/core/src/live/service-source.js';
import { writeBundle } from '../packages/core/src/bundle/write-bundle.js';
import { LINEAGE_LIMITS } from '../packages/core/src/lineage/sources/input-limits.js';
import { SourceError } from '../packages/core/src/errors.js';
import { type Exchange } from '../packages/core/src/sources/exchange.js';
import { loadFixture } from './helpers/fixtures.js';

type Json = Record<string, any>;

/** Listens on 127.0.0.1, a free port; resolves to the base URL. */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers });
  res.end(text);
}

/** A fake sleep: records every delay and returns at once. */
function fakeSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

const errorEnvelope = (status: number, code: string, message: string, extra: Json = {}) => ({
  error: {
    code,
    http_status: status,
    message,
    hint: `how to fix ${code}`,
    docs_url: 'https://example.invalid/docs',
    ...extra,
  },
});

// ---------------------------------------------------------------------------
// The fake hosted service
// ---------------------------------------------------------------------------

const KEY = 'evmi_test-key-0123456789abcdef';
const TRACING = 'aa'.repeat(18);
const LOOPING = 'bb'.repeat(18);
const MISSING = 'cc'.repeat(18);
const TABLE = 'svc_evm.b0301_liquidity_pools_reserves_v1';
const BLOCK = 19426587;

const genesisLog = (logIndex: number) => ({
  block_number: BLOCK,
  tx_hash: 'ab'.repeat(32),
  tx_index: 9,
  log_index: logIndex,
  contract_address: '51'.repeat(20),
  topics: ['1c'.repeat(32)],
  data: '00'.repeat(64),
  block_time: '2024-03-13T13:58:47.000Z',
  extra_member: 'kept',
});
const functionResult = (name: string) => ({
  contract: '51'.repeat(20),
  selector: '0902f1ac',
  decoded_name: name,
  output: '00',
  decoded_output: { reserve0: '1', reserve1: '2', block_timestamp_last: 3 },
});
const RECORD = {
  chain_id: 1,
  address: '51'.repeat(20),
  block_number: BLOCK,
  tx_index: 9,
  log_index: 4,
  reserves: ['1', '2'],
  _tracing_id: TRACING,
  _genesis_tracing_ids: ['dd'.repeat(18)],
  _parent_tracing_ids: [],
  unknown_member: { nested: true },
};
const RAW_BLOCK = {
  block_number: BLOCK,
  block_hash: 'f8e2f40d98fe5862bc947c8c83d34799c50fb344d7445d020a8a946d891b62ee',
  receipt_root: '59c3691e83e0ddeafeedd07f5e30850cc6c963e85327aa1201fbe1f731ff3dbc',
  _tracing_id: 'ee'.repeat(18),
};
const genesisPage = (
  tracingId: string,
  logs: unknown[],
  results: unknown[],
  cursor: string | null,
  countName: 'count' | 'page_count',
) => ({
  chain_id: 1,
  data: { dataset: '0301', _tracing_id: tracingId, genesis: { logs, function_results: results } },
  cursor,
  [countName]: logs.length + results.length,
});

/** What the fake service replays: a record, a genesis of 3 pages, a raw block, and a genesis whose cursor repeats. */
const SERVED: Exchange[] = [
  {
    method: 'POST',
    path: '/evm/lineage/record',
    body: { chain_id: 1, tracing_id: TRACING },
    status: 200,
    response: { chain_id: 1, data: { dataset: TABLE, record: RECORD } },
  },
  {
    method: 'POST',
    path: '/evm/lineage/genesis',
    body: { chain_id: 1, tracing_id: TRACING },
    status: 200,
    response: genesisPage(TRACING, [genesisLog(0)], [], 'page-2', 'count'),
  },
  {
    method: 'POST',
    path: '/evm/lineage/genesis',
    body: { chain_id: 1, tracing_id: TRACING, cursor: 'page-2' },
    status: 200,
    response: genesisPage(TRACING, [genesisLog(1)], [functionResult('getReserves')], 'page-3', 'page_count'),
  },
  {
    method: 'POST',
    path: '/evm/lineage/genesis',
    body: { chain_id: 1, tracing_id: TRACING, cursor: 'page-3' },
    status: 200,
    response: genesisPage(TRACING, [], [functionResult('token0')], null, 'count'),
  },
  {
    method: 'POST',
    path: '/evm/lineage/genesis',
    body: { chain_id: 1, tracing_id: LOOPING },
    status: 200,
    response: genesisPage(LOOPING, [genesisLog(0)], [], 'again', 'count'),
  },
  {
    method: 'POST',
    path: '/evm/lineage/genesis',
    body: { chain_id: 1, tracing_id: LOOPING, cursor: 'again' },
    status: 200,
    response: genesisPage(LOOPING, [genesisLog(1)], [], 'again', 'count'),
  },
  {
    method: 'POST',
    path: '/evm/raw/blocks',
    body: { chain_id: 1, block_numbers: [BLOCK] },
    status: 200,
    response: { chain_id: 1, meta: {}, data: [RAW_BLOCK], cursor: null, count: 1 },
  },
];

/** A fault the fake answers instead of the replay: status, body, headers. */
type Fault = { status: number; body: unknown; headers?: Record<string, string> };
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  text: string;
  body: Json;
  /** What the fake answered. */
  status: number;
  response: unknown;
}

const service = {
  server: undefined as unknown as Server,
  url: '',
  received: [] as Received[],
  /** Request number (1-based, counted since the last reset) → the fault answered instead. */
  faults: new Map<number, Fault>(),
};

/** The replayed exchange for a request: same path, chain, tracing id (either spelling) and cursor (absent = null). */
function replay(path: string, body: Json): Exchange | undefined {
  const tracing = (b: Json) => b.tracing_id ?? b._tracing_id;
  return SERVED.find(
    (e) =>
      e.path === path &&
      e.body.chain_id === body.chain_id &&
      tracing(e.body) === tracing(body) &&
      (e.body.cursor ?? null) === (body.cursor ?? null) &&
      JSON.stringify(e.body.block_numbers) === JSON.stringify(body.block_numbers),
  );
}

beforeAll(async () => {
  service.server = createServer(async (req, res) => {
    const text = await readBody(req);
    const number = service.received.length + 1;
    const body = JSON.parse(text) as Json;
    const path = (req.url ?? '').replace(/^\/v1/, '');
    const entry: Received = { path: req.url ?? '', headers: req.headers, text, body, status: 0, response: undefined };
    service.received.push(entry);
    const answer = (status: number, response: unknown, headers?: Record<string, string>) => {
      entry.status = status;
      entry.response = response;
      send(res, status, response, headers);
    };
    const fault = service.faults.get(number);
    if (fault !== undefined) return answer(fault.status, fault.body, fault.headers);
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return answer(401, errorEnvelope(401, 'UNAUTHORIZED', 'Invalid or missing API key'));
    const exchange = replay(path, body);
    if (exchange === undefined) return answer(404, errorEnvelope(404, 'NOT_FOUND', 'No record with this tracing id'));
    answer(exchange.status, exchange.response);
  });
  service.url = `${await listen(service.server)}/v1`;
});
afterAll(() => close(service.server));
beforeEach(() => {
  service.received = [];
  service.faults = new Map();
});

const source = (
  options: {
    recorder?: BundleRecorder;
    maxRetries?: number;
    fetch?: typeof fetch;
    baseUrl?: string;
    apiKey?: string;
  } = {},
) => {
  const { delays, sleep } = fakeSleep();
  return { delays, source: new ServiceSource({ baseUrl: service.url, apiKey: KEY, sleep, ...options }) };
};
const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
};

describe('ServiceSource against a fake hosted service', () => {
  it('POSTs lineage/record with the bearer key and JSON, and passes a full table name through', async () => {
    const { source: s } = source();
    const answer = await s.record(1, TRACING);
    expect(answer).toEqual({ dataset: TABLE, record: RECORD });
    expect(service.received).toHaveLength(1);
    const [request] = service.received;
    expect(request!.path).toBe('/v1/evm/lineage/record');
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toEqual({ chain_id: 1, tracing_id: TRACING });
  });

  it('merges every genesis page (count or page_count), sending limit and the previous cursor', async () => {
    const { delays, sleep } = fakeSleep();
    const s = new ServiceSource({ baseUrl: service.url, apiKey: KEY, sleep, pageLimit: 2 });
    const answer = await s.genesis(1, TRACING);
    expect(answer).toEqual({
      dataset: '0301',
      logs: [genesisLog(0), genesisLog(1)],
      functionResults: [functionResult('getReserves'), functionResult('token0')],
    });
    expect(service.received.map((r) => r.body)).toEqual([
      { chain_id: 1, tracing_id: TRACING, limit: 2 },
      { chain_id: 1, tracing_id: TRACING, limit: 2, cursor: 'page-2' },
      { chain_id: 1, tracing_id: TRACING, limit: 2, cursor: 'page-3' },
    ]);
    expect(
      service.received.every(
        (r) => r.path === '/v1/evm/lineage/genesis' && r.headers.authorization === `Bearer ${KEY}`,
      ),
    ).toBe(true);
    expect(delays).toEqual([]);
  });

  it('uses the default page limit of 250', async () => {
    await source().source.genesis(1, TRACING);
    expect(service.received[0]!.body.limit).toBe(250);
  });

  it('stops paging at count 0 even when a cursor is given', async () => {
    service.faults.set(1, { status: 200, body: genesisPage(TRACING, [], [], 'more', 'count') });
    expect(await source().source.genesis(1, TRACING)).toEqual({ dataset: '0301', logs: [], functionResults: [] });
    expect(service.received).toHaveLength(1);
  });

  it('refuses a page whose count its own lists contradict: a count of 0 beside an artifact and a cursor ended paging', async () => {
    service.faults.set(1, {
      status: 200,
      body: { ...genesisPage(TRACING, [genesisLog(0)], [], 'page-2', 'count'), count: 0 },
    });
    const error = await rejection(source().source.genesis(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(
      /count: expected the number of artifacts on the page: 1 \(1 in data\.genesis\.logs, 0 in data\.genesis\.function_results\), got 0/,
    );
  });

  it('refuses a genesis whose cursor repeats', async () => {
    const error = await rejection(source().source.genesis(1, LOOPING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(/repeats the cursor "again"/);
    expect(service.received.map((r) => r.body.cursor)).toEqual([undefined, 'again']);
  });

  it('answers rawBlock with the data row of the block, null when there is none', async () => {
    const { source: s } = source();
    expect(await s.rawBlock(1, BLOCK)).toEqual(RAW_BLOCK);
    expect(service.received[0]!.path).toBe('/v1/evm/raw/blocks');
    expect(service.received[0]!.body).toEqual({ chain_id: 1, block_numbers: [BLOCK] });
    service.faults.set(2, { status: 200, body: { chain_id: 1, data: [], cursor: null, count: 0 } });
    expect(await s.rawBlock(1, BLOCK)).toBeNull();
    // A record answered for the block that names another is still its answer: the walk compares its block_number.
    const renumbered = { ...RAW_BLOCK, block_number: BLOCK + 1 };
    service.faults.set(3, { status: 200, body: { chain_id: 1, data: [renumbered], cursor: null, count: 1 } });
    expect(await s.rawBlock(1, BLOCK)).toEqual(renumbered);
  });

  it('rawBlock: the row of the block listed twice alike is the answer; listed twice differently, a SourceError', async () => {
    const { source: s } = source();
    const answer = (...data: unknown[]) => ({ chain_id: 1, data, cursor: null, count: data.length });
    service.faults.set(1, { status: 200, body: answer(RAW_BLOCK, { ...RAW_BLOCK }) });
    expect(await s.rawBlock(1, BLOCK)).toEqual(RAW_BLOCK);
    service.faults.set(2, { status: 200, body: answer(RAW_BLOCK, { ...RAW_BLOCK, receipt_root: 'ab'.repeat(32) }) });
    const error = await rejection(s.rawBlock(1, BLOCK));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toBe(
      `the service's answer to raw/blocks ${BLOCK} is unusable: data[1]: expected the same as data[0] (the record of block ${BLOCK}, given twice, must be given identically), got another version (they differ at receipt_root)`,
    );
  });

  it('returns null for a 404 on lineage/record and lineage/genesis (a missing record)', async () => {
    const { source: s, delays } = source();
    expect(await s.record(1, MISSING)).toBeNull();
    expect(await s.genesis(1, MISSING)).toBeNull();
    expect(service.received.map((r) => r.status)).toEqual([404, 404]);
    expect(delays).toEqual([]);
  });

  it('on 429 waits at least Retry-After, then backs off exponentially', async () => {
    const tooMany = {
      status: 429,
      body: errorEnvelope(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests', { details: { retry_after_seconds: 9 } }),
      headers: { 'Retry-After': '2' },
    };
    service.faults.set(1, tooMany);
    service.faults.set(2, tooMany);
    const { source: s, delays } = source();
    expect(await s.record(1, TRACING)).toEqual({ dataset: TABLE, record: RECORD });
    expect(service.received.map((r) => r.status)).toEqual([429, 429, 200]);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays[1]).toBeGreaterThanOrEqual(2 * delays[0]!);
    expect(delays).toEqual([2000, 4000]);
  });

  it('falls back to details.retry_after_seconds, then to 1 s, when Retry-After is absent', async () => {
    service.faults.set(1, {
      status: 429,
      body: errorEnvelope(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests', { details: { retry_after_seconds: 3 } }),
    });
    service.faults.set(2, {
      status: 429,
      body: { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: 'a string, the short form' } },
    });
    const { source: s, delays } = source();
    await s.record(1, TRACING);
    expect(delays).toEqual([3000, 6000]);

    service.received = [];
    service.faults = new Map([
      [1, { status: 429, body: { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' } } }],
    ]);
    const second = source();
    await second.source.record(1, TRACING);
    expect(second.delays).toEqual([1000]);
  });

  it('gives up after 5 retries of 429 with a SourceError', async () => {
    for (let n = 1; n <= 6; n++)
      service.faults.set(n, {
        status: 429,
        body: errorEnvelope(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests'),
        headers: { 'Retry-After': '2' },
      });
    const { source: s, delays } = source();
    const error = await rejection(s.record(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toContain('POST /evm/lineage/record');
    expect(error.message).toContain('429 RATE_LIMIT_EXCEEDED: Too many requests');
    expect(error.message).toContain('after 5 retries');
    expect(service.received).toHaveLength(6);
    expect(delays).toEqual([2000, 4000, 8000, 16000, 32000]);
  });

  it('honours maxRetries', async () => {
    for (let n = 1; n <= 6; n++)
      service.faults.set(n, {
        status: 503,
        body: errorEnvelope(503, 'SERVICE_UNAVAILABLE', 'Saturated', { details: null }),
      });
    const { source: s, delays } = source({ maxRetries: 2 });
    await expect(s.record(1, TRACING)).rejects.toThrow(/503 SERVICE_UNAVAILABLE.*after 2 retries/);
    expect(service.received).toHaveLength(3);
    expect(delays).toEqual([500, 1000]);
  });

  it('does not wait for a Retry-After longer than the client allows (an exhausted CU allowance)', async () => {
    service.faults.set(1, {
      status: 429,
      body: errorEnvelope(429, 'RATE_LIMIT_EXCEEDED', 'CU allowance exhausted'),
      headers: { 'Retry-After': '86400' },
    });
    const { source: s, delays } = source();
    await expect(s.record(1, TRACING)).rejects.toThrow(/asks to wait 86400 s/);
    expect(service.received).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries 503 twice with exponential backoff from 0.5 s, then succeeds', async () => {
    service.faults.set(1, {
      status: 503,
      body: errorEnvelope(503, 'SERVICE_UNAVAILABLE', 'Saturated', { retryable: true, details: null }),
    });
    service.faults.set(2, {
      status: 503,
      body: errorEnvelope(503, 'SERVICE_UNAVAILABLE', 'Saturated', { details: null }),
    });
    const { source: s, delays } = source();
    expect(await s.record(1, TRACING)).toEqual({ dataset: TABLE, record: RECORD });
    expect(service.received.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(delays).toEqual([500, 1000]);
  });

  it('retries a 5xx whose body is not an envelope (a gateway page)', async () => {
    service.faults.set(1, { status: 502, body: '<html>Bad gateway</html>' });
    const { source: s, delays } = source();
    expect(await s.record(1, TRACING)).not.toBeNull();
    expect(delays).toEqual([500]);
  });

  it('does not retry a 500 with retryable false', async () => {
    service.faults.set(1, {
      status: 500,
      body: errorEnvelope(500, 'INTERNAL_SERVER_ERROR', 'Unexpected fault', {
        retryable: false,
        details: { incident_id: 'inc-1' },
      }),
    });
    const { source: s, delays } = source();
    const error = await rejection(s.record(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toContain('POST /evm/lineage/record');
    expect(error.message).toContain('HTTP 500 INTERNAL_SERVER_ERROR: Unexpected fault');
    expect(error.message).toContain('not retried');
    expect(service.received).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('does not retry a 400', async () => {
    service.faults.set(1, {
      status: 400,
      body: errorEnvelope(400, 'BAD_REQUEST', 'Invalid parameter tracing_id', {
        details: {
          invalid_parameters: [{ name: 'tracing_id', location: 'body', reason: 'invalid_format', expected: '36 hex' }],
        },
      }),
    });
    const { source: s, delays } = source();
    const error = await rejection(s.genesis(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(
      /POST \/evm\/lineage\/genesis with HTTP 400 BAD_REQUEST: Invalid parameter tracing_id \(hint: how to fix BAD_REQUEST\); not retried/,
    );
    expect(service.received).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('does not retry a 401 and says the key was refused, without showing the key', async () => {
    const { delays, sleep } = fakeSleep();
    const s = new ServiceSource({ baseUrl: service.url, apiKey: 'evmi_wrong-key', sleep });
    const error = await rejection(s.record(1, TRACING));
    expect(error.message).toMatch(/401 UNAUTHORIZED.*API key was refused/);
    expect(error.message).not.toContain('evmi_wrong-key');
    expect(service.received).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries network errors like a 503', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (++calls === 1)
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' }),
        });
      return fetch(input, init);
    };
    const { source: s, delays } = source({ fetch: flaky });
    expect(await s.record(1, TRACING)).not.toBeNull();
    expect(delays).toEqual([500]);
    expect(service.received).toHaveLength(1);
  });

  it('gives up on an unreachable service with a SourceError naming the network error', async () => {
    const closed = createServer();
    const url = await listen(closed);
    await close(closed);
    const { delays, sleep } = fakeSleep();
    const s = new ServiceSource({ baseUrl: `${url}/v1`, apiKey: KEY, sleep, maxRetries: 2 });
    const error = await rejection(s.record(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(/network error.*ECONNREFUSED.*after 2 retries/);
    expect(delays).toEqual([500, 1000]);
  });

  it('adds /v1 to a base URL without it and drops a trailing slash', async () => {
    const bare = new ServiceSource({ baseUrl: `${service.url.replace(/\/v1$/, '')}/`, apiKey: KEY });
    expect(bare.baseUrl).toBe(service.url);
    expect(new ServiceSource({ baseUrl: `${service.url}/`, apiKey: KEY }).baseUrl).toBe(service.url);
    expect(await bare.record(1, TRACING)).not.toBeNull();
    expect(service.received[0]!.path).toBe('/v1/evm/lineage/record');
    expect(() => new ServiceSource({ baseUrl: 'not a url', apiKey: KEY })).toThrow(SourceError);
  });

  it.each([
    ['lineage/record', (s: ServiceSource) => s.record(1, TRACING)],
    ['lineage/genesis', (s: ServiceSource) => s.genesis(1, TRACING)],
  ] as const)(
    "refuses a %s answer that names another chain than the one asked, naming both (it was taken as chain 1's: a user check)",
    async (_what, ask) => {
      const exchange = SERVED.find((e) => e.path.endsWith(_what) && (e.body.cursor ?? null) === null)!;
      service.faults.set(1, { status: 200, body: { ...(exchange.response as Json), chain_id: 137 } });
      const error = await rejection(ask(source().source));
      expect(error).toBeInstanceOf(SourceError);
      expect(error.message).toMatch(
        new RegExp(
          `^the service's answer to ${_what} ${TRACING} is unusable: chain_id: expected chain 1, the chain asked for .*, got 137$`,
        ),
      );
    },
  );

  it("reads an answer that names no chain (chain_id absent or null), or the chain asked as a decimal string, as the chain asked's", async () => {
    const exchange = SERVED.find((e) => e.path === '/evm/lineage/record')!;
    const { chain_id: _, ...unnamed } = exchange.response as Json;
    for (const [n, body] of [unnamed, { ...unnamed, chain_id: null }, { ...unnamed, chain_id: '1' }].entries())
      service.faults.set(n + 1, { status: 200, body });
    const { source: s } = source();
    for (let n = 0; n < 3; n++) expect(await s.record(1, TRACING)).toEqual({ dataset: TABLE, record: RECORD });
  });

  it('refuses a genesis whose pages name two datasets, naming both pages (a later page of another dataset was merged)', async () => {
    service.faults.set(2, {
      status: 200,
      body: {
        ...genesisPage(TRACING, [genesisLog(1)], [], null, 'count'),
        data: { dataset: '0201', genesis: { logs: [genesisLog(1)] } },
      },
    });
    const error = await rejection(source().source.genesis(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toBe(
      `the service's answer to lineage/genesis ${TRACING} (page 2) names dataset "0201", not the dataset "0301" of the service's answer to lineage/genesis ${TRACING}: the pages of one genesis are of one dataset`,
    );
  });

  it('refuses a 200 without a data object', async () => {
    service.faults.set(1, { status: 200, body: { chain_id: 1 } });
    await expect(source().source.record(1, TRACING)).rejects.toThrow(
      /lineage\/record .* is unusable: data: expected an object/,
    );
  });

  describe('recording', () => {
    let dir: string;
    beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'evm-integrity-bundle-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** A session with faults: a 429 before the record, a 503 inside the genesis, then the raw block and a 404. */
    async function recordSession() {
      service.faults.set(1, {
        status: 429,
        body: errorEnvelope(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests'),
        headers: { 'Retry-After': '1' },
      });
      service.faults.set(4, {
        status: 503,
        body: errorEnvelope(503, 'SERVICE_UNAVAILABLE', 'Saturated', { details: null }),
      });
      const recorder = new BundleRecorder();
      const { source: s } = source({ recorder });
      const answers = {
        record: await s.record(1, TRACING),
        genesis: await s.genesis(1, TRACING),
        raw: await s.rawBlock(1, BLOCK),
        missing: await s.record(1, MISSING),
      };
      return { recorder, answers, bundle: recorder.toBundle(service.url) };
    }

    it('keeps every final exchange with the body as sent and the response as received', async () => {
      const { bundle } = await recordSession();
      expect(bundle.base_url).toBe(service.url);
      expect(bundle.blocks).toEqual([]);
      const finals = service.received.filter((r) => r.status === 200 || r.status === 404);
      expect(service.received).toHaveLength(finals.length + 2); // the 429 and the 503 were retried, not recorded
      expect(bundle.exchanges).toHaveLength(finals.length);
      bundle.exchanges.forEach((exchange, i) => {
        const received = finals[i]!;
        expect(exchange.method).toBe('POST');
        expect(`/v1${exchange.path}`).toBe(received.path);
        expect(exchange.body).toEqual(JSON.parse(received.text));
        expect(exchange.status).toBe(received.status);
        expect(exchange.response).toEqual(received.response);
      });
      expect(bundle.exchanges.map((e) => [e.path, e.status])).toEqual([
        ['/evm/lineage/record', 200],
        ['/evm/lineage/genesis', 200],
        ['/evm/lineage/genesis', 200],
        ['/evm/lineage/genesis', 200],
        ['/evm/raw/blocks', 200],
        ['/evm/lineage/record', 404],
      ]);
    });

    it('replays offline: a BundleSource over the recording answers as the live service did', async () => {
      const { answers, bundle } = await recordSession();
      const offline = new BundleSource(bundle);
      expect(await offline.record(1, TRACING)).toEqual(answers.record);
      expect(await offline.genesis(1, TRACING)).toEqual(answers.genesis);
      expect(await offline.rawBlock(1, BLOCK)).toEqual(answers.raw);
      expect(await offline.record(1, MISSING)).toBeNull();
      expect(answers.missing).toBeNull();
    });

    it('the bundle is a copy: changing an answer does not change the recording', async () => {
      const { answers, recorder } = await recordSession();
      (answers.record!.record as Json).block_number = 0;
      expect((recorder.toBundle('x').exchanges[0]!.response as Json).data.record.block_number).toBe(BLOCK);
    });

    it('writeBundle writes JSON, and gzip for .json.gz, that round-trips', async () => {
      const { bundle } = await recordSession();
      const gz = join(dir, 'audit.json.gz');
      await writeBundle(gz, bundle);
      const bytes = readFileSync(gz);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      expect(JSON.parse(gunzipSync(bytes).toString('utf8'))).toEqual(bundle);
      const plain = join(dir, 'audit.json');
      await writeBundle(plain, bundle);
      expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual(bundle);
    });
  });
});

describe('ServiceSource: the limits and shapes of every source', () => {
  /** A fetch that answers each request with `answer(body, n)` (1-based), as JSON text; counts the requests. */
  const scripted = (answer: (body: Json, n: number) => string) => {
    const requests: Json[] = [];
    const fetchFn: typeof fetch = async (_url, init) => {
      const body = JSON.parse(init!.body as string) as Json;
      requests.push(body);
      return new Response(answer(body, requests.length), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    };
    return {
      requests,
      source: (options: { recorder?: BundleRecorder } = {}) =>
        new ServiceSource({
          baseUrl: 'http://service.invalid/v1',
          apiKey: KEY,
          fetch: fetchFn,
          sleep: async () => {},
          ...options,
        }),
    };
  };
  const page = (logs: unknown[], cursor: string | null) =>
    JSON.stringify(genesisPage(TRACING, logs, [], cursor, 'count'));
  const nested = (levels: number) => `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;

  it('a genesis that never ends stops after LINEAGE_LIMITS.genesisPages pages, with a SourceError naming the limit', async () => {
    const { requests, source: s } = scripted((_body, n) => page([genesisLog(0)], `page-${n + 1}`));
    const error = await rejection(s().genesis(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toBe(
      `the genesis of ${TRACING} has more than the limit of ${LINEAGE_LIMITS.genesisPages} lineage/genesis pages per record`,
    );
    expect(requests).toHaveLength(LINEAGE_LIMITS.genesisPages);
  });

  it('a genesis beyond LINEAGE_LIMITS.recordArtifacts is a SourceError naming the limit', async () => {
    const { source: s } = scripted(() =>
      page(
        Array.from({ length: LINEAGE_LIMITS.recordArtifacts + 1 }, () => genesisLog(0)),
        null,
      ),
    );
    await expect(s().genesis(1, TRACING)).rejects.toThrow(
      /has more than the limit of 10000 genesis artifacts \(logs and function results\) per record/,
    );
    const { source: atLimit } = scripted(() =>
      page(
        Array.from({ length: LINEAGE_LIMITS.recordArtifacts }, () => genesisLog(0)),
        null,
      ),
    );
    expect((await atLimit().genesis(1, TRACING))!.logs).toHaveLength(LINEAGE_LIMITS.recordArtifacts);
  });

  it('a cursor nested 100k deep is a SourceError, not a stack overflow', async () => {
    const { source: s } = scripted(() => page([genesisLog(0)], 'NEXT').replace('"NEXT"', nested(100_000)));
    const error = await rejection(s().genesis(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(/JSON nested deeper than the limit of 64 levels, at cursor\[0\]/);
  });

  it("the service's integers beyond 2^53-1 as JSON numbers are refused, naming the member: never judged rounded", async () => {
    const { source: records } = scripted(() =>
      JSON.stringify({ chain_id: 1, data: { dataset: TABLE, record: { ...RECORD, reserves: ['R0', '1'] } } }).replace(
        '"R0"',
        '964438474543038460112265',
      ),
    );
    await expect(records().record(1, TRACING)).rejects.toThrow(
      /lineage\/record .* is unusable: data\.record\.reserves\[0\]: expected an integer as a decimal string \(JSON numbers above 2\^53-1 lose precision when read\), got the number 9\.644384745430385e\+23$/,
    );
    const { source: pages } = scripted(() =>
      page([{ ...genesisLog(0), tx_index: 'TX' }], null).replace('"TX"', '2e16'),
    );
    await expect(pages().genesis(1, TRACING)).rejects.toThrow(
      /lineage\/genesis .* is unusable: data\.genesis\.logs\[0\]\.tx_index: expected an integer as a decimal string/,
    );
  });

  it('a cursor that is not a string is a SourceError naming it', async () => {
    const { source: s } = scripted(() => page([genesisLog(0)], 'NEXT').replace('"NEXT"', '{"page": 2}'));
    await expect(s().genesis(1, TRACING)).rejects.toThrow(
      /lineage\/genesis .* is unusable: cursor: expected the next page's cursor \(a string\) or null, got an object/,
    );
  });

  it('an answer nested 100k deep is refused before it is recorded (recording clones it)', async () => {
    const { source: s } = scripted(() =>
      JSON.stringify({ chain_id: 1, data: { dataset: TABLE, record: { ...RECORD, details: 'DEEP' } } }).replace(
        '"DEEP"',
        nested(100_000),
      ),
    );
    const recorder = new BundleRecorder();
    const error = await rejection(s({ recorder }).record(1, TRACING));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(
      /POST \/evm\/lineage\/record with HTTP 200 and JSON nested deeper than the limit of 64 levels, at data\.record\.details/,
    );
    expect(recorder.toBundle('x').exchanges).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// The fake JSON-RPC node
// ---------------------------------------------------------------------------

interface NodeBlock {
  block: Json;
  receipts: unknown[];
}

const node = {
  server: undefined as unknown as Server,
  origin: '',
  chainId: 1,
  blocks: new Map<number, NodeBlock>(),
  /** How the node answers eth_getBlockReceipts: the receipts, or a JSON-RPC error. */
  blockReceipts: 'supported' as 'supported' | { code: number; message: string },
  calls: [] as Array<{ path: string; method: string; params: unknown[] }>,
  /** Call number (1-based) → an HTTP fault. */
  faults: new Map<number, Fault>(),
  /** Changes a receipt before it is sent (a reorg, …). */
  tamper: undefined as undefined | ((receipt: Json) => Json),
};

const fixtureBlock = (name: string, fakeHashes = false): NodeBlock => {
  const fixture = loadFixture(name);
  const hashes = fakeHashes ? fixture.receipts.map((_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`) : undefined;
  return {
    block: { ...fixture.header, ...(hashes && { transactions: hashes }), size: '0x1234', uncles: [] },
    receipts: fixture.receipts,
  };
};

beforeAll(async () => {
  node.server = createServer(async (req, res) => {
    const request = JSON.parse(await readBody(req)) as { id: number; method: string; params: unknown[] };
    node.calls.push({ path: req.url ?? '', method: request.method, params: request.params });
    const fault = node.faults.get(node.calls.length);
    if (fault !== undefined) return send(res, fault.status, fault.body, fault.headers);
    const result = (value: unknown) => send(res, 200, { jsonrpc: '2.0', id: request.id, result: value });
    const error = (code: number, message: string) =>
      send(res, 200, { jsonrpc: '2.0', id: request.id, error: { code, message } });
    const receipt = (r: unknown) => (node.tamper ? node.tamper(structuredClone(r) as Json) : r);
    switch (request.method) {
      case 'eth_chainId':
        return result(`0x${node.chainId.toString(16)}`);
      case 'eth_getBlockByNumber': {
        const [tag, full] = request.params as [string, boolean];
        if (full !== false) return error(-32602, 'expected hashes only');
        return result(node.blocks.get(Number(tag))?.block ?? null);
      }
      case 'eth_getBlockReceipts': {
        if (node.blockReceipts !== 'supported') return error(node.blockReceipts.code, node.blockReceipts.message);
        const found = node.blocks.get(Number(request.params[0]));
        return result(found ? found.receipts.map(receipt) : null);
      }
      case 'eth_getTransactionReceipt': {
        for (const { receipts } of node.blocks.values()) {
          const r = receipts.find((x) => (x as Json).transactionHash === request.params[0]);
          if (r !== undefined) return result(receipt(r));
        }
        return result(null);
      }
      default:
        return error(-32601, `the method ${request.method} does not exist/is not available`);
    }
  });
  node.origin = await listen(node.server);
  node.blocks.set(19426587, fixtureBlock('mainnet-19426587', true));
  node.blocks.set(19433903, fixtureBlock('mainnet-19433903'));
});
afterAll(() => close(node.server));
beforeEach(() => {
  node.chainId = 1;
  node.blockReceipts = 'supported';
  node.calls = [];
  node.faults = new Map();
  node.tamper = undefined;
});

const rpc = (options: { recorder?: BundleRecorder } = {}) => {
  const { delays, sleep } = fakeSleep();
  // This node answers single calls (its faults count them); batches: rpc-batch.test.ts.
  return {
    delays,
    source: new RpcBlockSource({ url: `${node.origin}/v3/secret-project-key`, sleep, batch: 1, ...options }),
  };
};
const header = (name: string) => loadFixture(name).header;

/**
 * The node without eth_getBlockReceipts, answering the ask for receipt `i` of mainnet-19433903 with receipt `j` and
 * the ask for `j` with `i`, every time, each as `given` makes it (as it is, by default): the fixture and the two.
 */
function swapReceipts(i: number, j: number, given: (receipt: Json) => Json = structuredClone) {
  node.blockReceipts = { code: -32601, message: 'Method not found' };
  const fixture = loadFixture('mainnet-19433903');
  const [first, second] = [fixture.receipts[i] as Json, fixture.receipts[j] as Json];
  node.tamper = (r) =>
    r.transactionHash === first.transactionHash
      ? given(second)
      : r.transactionHash === second.transactionHash
        ? given(first)
        : r;
  return { fixture, first, second };
}

describe('RpcBlockSource against a fake JSON-RPC node', () => {
  it('reads a block with eth_getBlockByNumber and eth_getBlockReceipts, in the fixtures format', async () => {
    const recorder = new BundleRecorder();
    const { source: s } = rpc({ recorder });
    const block = await s.block(1, 19426587);
    const fixture = loadFixture('mainnet-19426587');
    expect(block).not.toBeNull();
    expect(block!.chain_id).toBe(1);
    expect(block!.receipts).toEqual(fixture.receipts);
    expect(block!.header).toMatchObject({
      receiptsRoot: fixture.header.receiptsRoot,
      logsBloom: fixture.header.logsBloom,
      hash: fixture.header.hash,
      number: fixture.header.number,
    });
    // The header and the receipts are asked at once: their order on the wire is not fixed.
    expect(node.calls[0]).toMatchObject({ method: 'eth_chainId', params: [] });
    expect(node.calls.slice(1).map((c) => [c.method, c.params])).toEqual(
      expect.arrayContaining([
        ['eth_getBlockByNumber', ['0x1286d1b', false]],
        ['eth_getBlockReceipts', ['0x1286d1b']],
      ]),
    );
    expect(node.calls).toHaveLength(3);
    expect(node.calls.every((c) => c.path === '/v3/secret-project-key')).toBe(true);
    expect(recorder.toBundle('x').blocks).toEqual([block]);

    // The block is one the core verifies: its receipts give its root.
    const problems = new Problems();
    const parsed = readRpcBlock(block, problems);
    expect(problems.list).toEqual([]);
    expect(bytesToHex(receiptsCommitment(parsed!.receipts, { rules: RULE_SETS.ethereum }).receiptsRoot)).toBe(
      fixture.header.receiptsRoot!.slice(2),
    );
  });

  it('falls back to eth_getTransactionReceipt per transaction when eth_getBlockReceipts answers -32601', async () => {
    node.blockReceipts = { code: -32601, message: 'Method not found' };
    const recorder = new BundleRecorder();
    const { source: s } = rpc({ recorder });
    const block = await s.block(1, 19433903);
    const fixture = loadFixture('mainnet-19433903');
    expect(block!.receipts).toEqual(fixture.receipts);
    expect(block!.header).toMatchObject({
      receiptsRoot: fixture.header.receiptsRoot,
      logsBloom: fixture.header.logsBloom,
      hash: fixture.header.hash,
    });
    const methods = node.calls.map((c) => c.method);
    expect(methods[0]).toBe('eth_chainId');
    expect(methods.slice(1, 3).sort()).toEqual(['eth_getBlockByNumber', 'eth_getBlockReceipts']);
    const perTransaction = node.calls.filter((c) => c.method === 'eth_getTransactionReceipt');
    expect(perTransaction).toHaveLength(172);
    expect(new Set(perTransaction.map((c) => c.params[0]))).toEqual(
      new Set(fixture.header.transactions as unknown as string[]),
    );
    await expect(
      new BundleSource({ exchanges: [], blocks: recorder.toBundle('x').blocks }).block(1, 19433903),
    ).resolves.toEqual(block);

    // The node's answer is remembered: the next block goes straight to the fallback, and eth_chainId is asked once.
    node.calls = [];
    await s.block(1, 19433903);
    expect(node.calls.filter((c) => c.method === 'eth_getBlockReceipts' || c.method === 'eth_chainId')).toEqual([]);
  });

  it('recognises "does not exist/is not available" as an unsupported method too', async () => {
    node.blockReceipts = { code: -32000, message: 'the method eth_getBlockReceipts does not exist/is not available' };
    const block = await rpc().source.block(1, 19433903);
    expect(block!.receipts).toEqual(loadFixture('mainnet-19433903').receipts);
  });

  it('returns null for a block the node does not have', async () => {
    expect(await rpc().source.block(1, 99_999_999)).toBeNull();
  });

  it('refuses a node of another chain', async () => {
    node.chainId = 10;
    const error = await rejection(rpc().source.block(1, 19426587));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(/serves chain 10, not chain 1/);
  });

  it('turns other JSON-RPC errors into SourceErrors that do not show the URL path (it may hold a key)', async () => {
    node.blockReceipts = { code: -32000, message: 'header not found' };
    const error = await rejection(rpc().source.block(1, 19426587));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toContain(
      `the JSON-RPC node at ${node.origin} answered eth_getBlockReceipts with error -32000: header not found`,
    );
    expect(error.message).not.toContain('secret-project-key');
  });

  it('asks receipts of another block again with the header, then hands them over for the lineage to refuse (was: "reorganised", thrown at once)', async () => {
    node.tamper = (r) => ({ ...r, blockHash: `0x${'12'.repeat(32)}` });
    const { source: s } = rpc();
    const block = await s.block(1, 19426587);
    expect(block!.receipts.every((r) => (r as Json).blockHash === `0x${'12'.repeat(32)}`)).toBe(true);
    // The first ask and two more, header and receipts each time.
    for (const method of ['eth_getBlockByNumber', 'eth_getBlockReceipts'])
      expect(node.calls.filter((c) => c.method === method)).toHaveLength(3);
    // A lineage walk reads the block as every source's: the receipts' blockHash is named, never checked as the block's.
    const error = await rejection(
      checkBlock(19426587, { chainId: 1, registry: defaultRegistry, source: undefined as never, blocks: s }),
    );
    expect(error).toBeInstanceOf(SourceError);
    // Named as the node's block: it has no place in the input (was: "block 19426587 cannot be read", whose source?).
    expect(error.message).toMatch(
      new RegExp(
        `^block 19426587 of the JSON-RPC node at ${node.origin} cannot be read: receipts\\[0\\]\\.blockHash: expected 0x`,
      ),
    );
  });

  it('goes on with a block whose receipts named another block once (a reorg between the calls): one more ask', async () => {
    // The first answer's receipts are of the new branch; the node is consistent after.
    const asks = () => node.calls.filter((c) => c.method === 'eth_getBlockReceipts').length;
    node.tamper = (r) => (asks() === 1 ? { ...r, blockHash: `0x${'12'.repeat(32)}` } : r);
    const block = await rpc().source.block(1, 19426587);
    expect(block!.receipts).toEqual(loadFixture('mainnet-19426587').receipts);
    for (const method of ['eth_getBlockByNumber', 'eth_getBlockReceipts'])
      expect(node.calls.filter((c) => c.method === method)).toHaveLength(2);
  });

  it.each(['eth_getBlockReceipts', 'eth_getTransactionReceipt'])(
    'receipts of other transactions than the block lists (%s): asked again, then handed over for the lineage to refuse, naming the member (was: refused by the source)',
    async (method) => {
      if (method === 'eth_getTransactionReceipt') node.blockReceipts = { code: -32601, message: 'Method not found' };
      node.tamper = (r) => ({ ...r, transactionHash: `0x${'34'.repeat(32)}` });
      const { source: s } = rpc();
      const block = await s.block(1, 19433903);
      expect(block!.receipts.every((r) => (r as Json).transactionHash === `0x${'34'.repeat(32)}`)).toBe(true);
      expect(node.calls.filter((c) => c.method === 'eth_getBlockByNumber')).toHaveLength(3);
      const error = await rejection(
        checkBlock(19433903, { chainId: 1, registry: defaultRegistry, source: undefined as never, blocks: s }),
      );
      expect(error).toBeInstanceOf(SourceError);
      // Asked one transaction at a time, each is named as the answer for the transaction asked for.
      const what =
        method === 'eth_getTransactionReceipt'
          ? 'for which the source asked this receipt \\(receipts_by_transaction\\)'
          : 'which it repeats';
      expect(error.message).toMatch(
        new RegExp(
          `^block 19433903 of the JSON-RPC node at http://127\\.0\\.0\\.1:\\d+ cannot be read: receipts\\[0\\]\\.transactionHash: expected 0x[0-9a-f]+, the block's transactions\\[0\\], ${what}, got 0x3434`,
        ),
      );
    },
  );

  it("eth_getTransactionReceipt answering another transaction's receipt once (tx 3's for tx 4's hash): asked again, the block as the node then gives it (was: handed over, block_input on a duplicate transactionIndex)", async () => {
    node.blockReceipts = { code: -32601, message: 'Method not found' };
    const fixture = loadFixture('mainnet-19433903');
    const [third, fourth] = [fixture.receipts[3] as Json, fixture.receipts[4] as Json];
    let wrong = 0;
    // Tx 3's own receipt, right in itself (its hash, its transactionIndex), answered to the ask for tx 4's.
    node.tamper = (r) => (r.transactionHash === fourth.transactionHash && wrong++ === 0 ? structuredClone(third) : r);
    const block = await rpc().source.block(1, 19433903);
    expect(block!.receipts).toEqual(fixture.receipts);
    expect(node.calls.filter((c) => c.method === 'eth_getBlockByNumber')).toHaveLength(2);
    expect(node.calls.filter((c) => c.method === 'eth_getTransactionReceipt')).toHaveLength(2 * 172);

    // Every time: asked three times, then handed over for the reader to refuse.
    node.calls = [];
    node.tamper = (r) => (r.transactionHash === fourth.transactionHash ? structuredClone(third) : r);
    const { source: s } = rpc();
    expect((await s.block(1, 19433903))!.receipts[4]).toEqual(third);
    expect(node.calls.filter((c) => c.method === 'eth_getBlockByNumber')).toHaveLength(3);
  });

  it("eth_getTransactionReceipt answering tx 3's receipt for tx 4 and tx 4's for tx 3, every time: asked three times, then the block fails block_input naming the receipt and both hashes, from the node and from its recording, in a lineage walk and an audit (was: a pass, the list read in its transactionIndex order)", async () => {
    // Each is right in itself (its hash, its transactionIndex): together they are a list the block could have.
    const { first: third, second: fourth } = swapReceipts(3, 4);
    const recorder = new BundleRecorder();
    const { source: s } = rpc({ recorder });
    const block = await s.block(1, 19433903);
    expect(node.calls.filter((c) => c.method === 'eth_getBlockByNumber')).toHaveLength(3);
    // The block as the node gave it, with how its receipts were asked: receipts[i] for the block's transactions[i].
    expect(block!.receipts[3]).toEqual(fourth);
    expect(block!.receipts_by_transaction).toBe(true);
    const refusal = new RegExp(
      `receipts\\[3\\]\\.transactionHash: expected ${third.transactionHash}, the block's transactions\\[3\\], for which the source asked this receipt \\(receipts_by_transaction\\), got ${fourth.transactionHash}`,
    );
    const problems = new Problems();
    expect(readRpcBlock(block, problems)).toBeUndefined();
    expect(problems.list.map((p) => p.name)).toEqual([
      'receipts[3].transactionHash',
      'receipts[3].transactionIndex',
      'receipts[4].transactionHash',
      'receipts[4].transactionIndex',
    ]);

    // A lineage walk (lineage --rpc) refuses it, naming the node.
    const walked = await rejection(
      checkBlock(19433903, { chainId: 1, registry: defaultRegistry, source: undefined as never, blocks: s }),
    );
    expect(walked.message).toMatch(refusal);

    // An audit fails it (block_input), from the node and from the bundle it recorded: never a pass.
    const bundled = new BundleSource({ exchanges: [], blocks: recorder.toBundle('x').blocks });
    for (const source of [rpc().source, bundled]) {
      const lines = [];
      for await (const line of auditRange({ source, chainId: 1, from: 19433903, to: 19433903 })) lines.push(line);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ block_number: 19433903, verdict: 'fail' });
      const { failures } = lines[0] as BlockAudit;
      expect(failures.map((f) => f.check)).toEqual(['block_input']);
      expect(failures[0]!.message).toMatch(refusal);
    }
  });

  it("receipts that name no transaction (no transactionHash, no logs) answered for each other's transactions, every time: the block fails block_input by their transactionIndex, never a pass (a user check: each placed by its own index, the two made the block's list)", async () => {
    // Receipts 8 and 10 have no logs; with their transactionHash left out, only their place tells them apart.
    swapReceipts(8, 10, ({ transactionHash: _, ...rest }: Json) => rest);
    const source = rpc().source;
    const block = await source.block(1, 19433903);
    expect(node.calls.filter((c) => c.method === 'eth_getBlockByNumber')).toHaveLength(3);
    const problems = new Problems();
    expect(readRpcBlock(block, problems)).toBeUndefined();
    expect(problems.list.map((p) => `${p.name}: expected ${p.expected}`)).toEqual([
      "receipts[8].transactionIndex: expected 8, the place of the block's transactions[8], for which the source asked this receipt (receipts_by_transaction), got 10",
      "receipts[10].transactionIndex: expected 10, the place of the block's transactions[10], for which the source asked this receipt (receipts_by_transaction), got 8",
    ]);
    const lines = [];
    for await (const line of auditRange({ source: rpc().source, chainId: 1, from: 19433903, to: 19433903 }))
      lines.push(line);
    expect(lines).toMatchObject([{ block_number: 19433903, verdict: 'fail' }]);
    expect((lines[0] as BlockAudit).failures.map((f) => f.check)).toEqual(['block_input']);
  });

  it("a logs proof from the node (prove logs --rpc) over receipts answered for each other's transactions: a SourceError naming the receipt and both hashes (was: proven from them)", async () => {
    const { fixture, first: third, second: fourth } = swapReceipts(3, 4);
    const address = hexToBytes(
      String((fixture.receipts.find((r) => (r as Json).logs.length > 0) as Json).logs[0].address),
    );
    const proof = new NodeLogsProof(rpc().source, {
      chainId: 1,
      fromBlock: 19433903,
      toBlock: 19433903,
      filter: { addresses: [address], topics: [] },
    });
    expect(proof.unprovable()).toBeNull();
    const error = await rejection(
      (async () => {
        for await (const block of proof.blocks()) void block;
      })(),
    );
    expect(error).toBeInstanceOf(SourceError);
    expect(node.calls.filter((c) => c.method === 'eth_getTransactionReceipt').length).toBeGreaterThan(0);
    expect(error.message).toContain(
      `receipts[3].transactionHash: expected ${third.transactionHash}, the block's transactions[3], for which the source asked this receipt (receipts_by_transaction), got ${fourth.transactionHash}`,
    );
  });

  it('a block that says its receipts were asked one transaction at a time holds receipts_by_transaction to a boolean', () => {
    const fixture = loadFixture('mainnet-19433903');
    for (const [given, names] of [
      [true, []],
      [false, []],
      [null, []],
      ['yes', ['receipts_by_transaction']],
    ] as const) {
      const problems = new Problems();
      readRpcBlock({ ...fixture, receipts_by_transaction: given }, problems);
      expect(problems.list.map((p) => p.name)).toEqual(names);
    }
  });

  it('receipts without a transactionHash whose logs name another transaction, once: asked again, the block as the node then gives it (was: handed over at once)', async () => {
    const fixture = loadFixture('mainnet-19426587');
    expect(fixture.receipts.every((r) => (r as Json).transactionHash === undefined)).toBe(true);
    const asks = () => node.calls.filter((c) => c.method === 'eth_getBlockReceipts').length;
    const other = `0x${'33'.repeat(32)}`;
    node.tamper = (r) =>
      asks() === 1 ? { ...r, logs: (r.logs as Json[]).map((l) => ({ ...l, transactionHash: other })) } : r;
    const block = await rpc().source.block(1, 19426587);
    expect(block!.receipts).toEqual(fixture.receipts);
    for (const method of ['eth_getBlockByNumber', 'eth_getBlockReceipts'])
      expect(node.calls.filter((c) => c.method === method)).toHaveLength(2);
  });

  it('reads Retry-After as an HTTP date too, as the service source does (one retry rule)', async () => {
    const at = new Date(Date.now() + 8_000).toUTCString();
    node.faults.set(1, {
      status: 429,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'rate limited' } },
      headers: { 'Retry-After': at },
    });
    const { source: s, delays } = rpc();
    expect(await s.block(1, 19426587)).not.toBeNull();
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(5_000); // second precision of the date, and the time the call took
    expect(delays[0]).toBeLessThanOrEqual(8_000);
  });

  it('retries HTTP 429 and 5xx, and gives up with a SourceError', async () => {
    node.faults.set(1, { status: 503, body: 'busy' });
    node.faults.set(2, {
      status: 429,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'rate limited' } },
      headers: { 'Retry-After': '3' },
    });
    const { source: s, delays } = rpc();
    expect(await s.block(1, 19426587)).not.toBeNull();
    // The chain id's 503 and the header's 429, asked at once: their waits in either order.
    expect([...delays].sort((a, b) => a - b)).toEqual([500, 3000]);

    // The chain id, the header and the receipts are asked at once: every attempt of each fails.
    node.calls = [];
    node.faults = new Map(Array.from({ length: 12 }, (_, i) => [i + 1, { status: 502, body: 'bad gateway' }] as const));
    const other = rpc();
    const error = await rejection(other.source.block(1, 19426587));
    expect(error.message).toMatch(/eth_chainId with HTTP 502, still after 3 retries/);
    expect([...new Set(other.delays)]).toEqual([500, 1000, 2000]);
  });

  it('a block nested 100k deep is a SourceError before it is recorded', async () => {
    node.tamper = (r) => ({ ...r, extra: 'DEEP' });
    const recorder = new BundleRecorder();
    const deep = `${'['.repeat(100_000)}"x"${']'.repeat(100_000)}`;
    const deepFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      return new Response((await response.text()).replace('"DEEP"', deep), {
        status: response.status,
        headers: response.headers,
      });
    };
    const s = new RpcBlockSource({
      url: `${node.origin}/v3/secret-project-key`,
      sleep: async () => {},
      recorder,
      fetch: deepFetch,
    });
    const error = await rejection(s.block(1, 19426587));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(
      /answered eth_getBlockReceipts with HTTP 200 and JSON nested deeper than the limit of 64 levels, at result\[0\]\.extra/,
    );
    expect(recorder.toBundle('x').blocks).toEqual([]);
  });

  it('does not retry an HTTP 401', async () => {
    node.faults.set(1, { status: 401, body: 'unauthorized' });
    const { source: s, delays } = rpc();
    await expect(s.block(1, 19426587)).rejects.toThrow(/eth_chainId with HTTP 401/);
    expect(delays).toEqual([]);
    expect(node.calls).toHaveLength(1);
  });
});

// A header fixture sanity check: the fallback fixture lists its transactions and its receipts carry their hashes.
it('the fallback fixture has transactions and receipts with transactionHash, in the same order', () => {
  const fixture = loadFixture('mainnet-19433903');
  expect(fixture.receipts.map((r) => r.transactionHash)).toEqual(header('mainnet-19433903').transactions);
});
