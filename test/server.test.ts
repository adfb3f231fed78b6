import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';
import { receiptRootBody } from '../packages/core/src/api/index.js';
import { createApp } from '../packages/service/src/server/app.js';
import type { ServerConfig } from '../packages/service/src/server/config/config.js';
import { ERROR_CODES } from '../packages/service/src/server/openapi/document.js';
import { provision } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { RECEIPT_ROOT_BODY } from '../packages/core/src/input/requests/receipt-root-request.js';
import { loadFixture } from './helpers/fixtures.js';
import { buildHeldBundle, PAIR_RECORD } from './helpers/lineage-bundles.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const T0 = new Date('2026-03-31T12:00:00.000Z');
const block = readRpcBlock(loadFixture('mainnet-19426587'), new Problems())!;
const goodBody = receiptRootBody({
  chainId: 1,
  receiptRoot: block.header.fields.receiptsRoot!,
  receipts: block.receipts,
});

/** An app over a memory store with one account `acme` and its key. */
async function setup(
  configOver: Partial<ServerConfig> = {},
  account: { cuLimit?: number; rateLimitRps?: number; entitlements?: { endpoints?: string[]; chains?: number[] } } = {},
) {
  const store = new MemoryStore();
  let clock = T0;
  const config = testConfig(configOver);
  await provision(store, config, clock);
  await store.createAccount(
    {
      id: 'acme',
      name: 'Acme',
      plan: 'pro',
      cuLimit: account.cuLimit ?? 1000,
      rateLimitRps: account.rateLimitRps ?? 100,
      entitlements: account.entitlements ?? null,
    },
    clock,
  );
  const { key } = await store.createKey('acme', 'test', clock);
  const log = capturingLogger();
  const app = createApp({ config, store, logger: log.logger, now: () => clock });
  const auth = { Authorization: `Bearer ${key}` };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (path: string, headers: Record<string, string> = auth) => app.request(path, { headers });
  return { app, store, key, auth, post, get, log, setClock: (d: Date) => (clock = d) };
}

const usageOf = async (s: Awaited<ReturnType<typeof setup>>) => (await (await s.get('/v1/usage')).json()) as any;

describe('health, docs, chains', () => {
  it('GET /v1/health and /health need no key', async () => {
    const s = await setup();
    for (const path of ['/v1/health', '/health']) {
      const res = await s.get(path, {});
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
    }
  });

  it('GET /v1/openapi.json is OpenAPI 3.1 whose request bodies are the validating schemas', async () => {
    const res = await (await setup()).get('/v1/openapi.json', {});
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    // The declaration as it is, plus what it cannot say: oneOf status/root, and the rules across members in the
    // descriptions.
    const documented = structuredClone(
      doc.paths['/evm/verify/receipt-root'].post.requestBody.content['application/json'].schema,
    );
    const declared = RECEIPT_ROOT_BODY.schema as any;
    const transactions = documented.properties.transactions;
    expect(transactions.items.oneOf.map((branch: any) => branch.required)).toEqual([['status'], ['root']]);
    expect(documented.description.startsWith(declared.description)).toBe(true);
    expect(transactions.description.startsWith(declared.properties.transactions.description)).toBe(true);
    delete transactions.items.oneOf;
    documented.description = declared.description;
    transactions.description = declared.properties.transactions.description;
    expect(documented).toEqual(declared);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/evm/verify/logs-bloom', '/health', '/usage', '/chains']),
    );
  });

  it('GET /v1/docs is an HTML reference with an anchor per error code', async () => {
    const res = await (await setup()).get('/v1/docs', {});
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    const reference = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    expect(ERROR_CODES.map((e) => e.code)).toEqual(
      expect.arrayContaining([
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'SERVICE_UNAVAILABLE',
      ]),
    );
    for (const { code, status } of ERROR_CODES) {
      expect(html).toContain(`id="error-${code.toLowerCase()}"`);
      expect(reference).toContain(`<a id="error-${code.toLowerCase()}"></a>\n## ${status} ${code}`);
    }
    // Operations and their members are rendered by Scalar's UI from openapi.json (test/docs-browser.test.ts).
    expect(html).toContain('docs/scalar.js');
  });

  it('GET /v1/chains lists the registry, including why a chain is not verifiable, and costs nothing', async () => {
    const s = await setup({ chains: [{ chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true }] });
    const body = (await (await s.get('/v1/chains')).json()) as any;
    const configured = { verified: true, evidence: 'configured' };
    expect(body.data.find((c: any) => c.chain_id === 1)).toMatchObject({
      name: 'Ethereum Mainnet',
      rules: 'ethereum',
      verifiable: true,
      eras: [
        {
          name: 'all blocks',
          header: 'ethereum',
          checks: {
            block_hash: {
              verified: true,
              evidence: expect.arrayContaining([{ fixture: 'mainnet-22431084', block: 22_431_084, source: 'shipped' }]),
            },
          },
        },
      ],
    });
    expect(body.data).toContainEqual({
      chain_id: 31337,
      name: 'devnet',
      rules: 'ethereum',
      verifiable: true,
      checks: { block_hash: configured, receipts_root: configured, logs_bloom: configured },
    });
    expect(body.data.find((c: any) => c.chain_id === 59144).eras[0].checks.receipts_root).toEqual({
      verified: false,
      reason: expect.stringContaining('no real block'),
    });
    expect(body.data.find((c: any) => c.chain_id === 324)).toMatchObject({
      verifiable: false,
      reason: expect.stringContaining('Patricia'),
    });
    expect(body.data.find((c: any) => c.chain_id === 42161).eras).toContainEqual(
      expect.objectContaining({ first_block: 0, last_block: 22_207_816, verifiable: false }),
    );
    expect((await usageOf(s)).cu_used).toBe(0);
  });
});

describe('authentication (401)', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no header', {}, 'missing'],
    ['not Bearer', { Authorization: 'Basic abc' }, 'malformed'],
    ['an unknown key', { Authorization: 'Bearer evmi_unknownkeyunknownkeyunknownkey00000000' }, 'unknown'],
  ];
  it.each(cases)('%s → token_status %s', async (_name, headers, status) => {
    const s = await setup();
    const res = await s.app.request('/v1/evm/verify/receipt-root', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(goodBody),
    });
    expect(res.status).toBe(401);
    const error = ((await res.json()) as any).error;
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      http_status: 401,
      retryable: false,
      details: { token_status: status, auth_scheme: 'Bearer' },
    });
    expect(error.docs_url).toMatch(/\/v1\/docs#error-unauthorized$/);
  });

  it('two Authorization headers (joined with a comma on their way in) are malformed, said to be given twice (was: "not Bearer <API_KEY>": a user check)', async () => {
    const s = await setup();
    const res = await s.app.request('/v1/evm/verify/receipt-root', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer wrong, Bearer ${s.key}` },
      body: JSON.stringify(goodBody),
    });
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(JSON.parse(text).error).toMatchObject({
      message: 'The Authorization header is given more than once: send one, "Bearer <API_KEY>".',
      details: { token_status: 'malformed', provided_header: 'Bearer [redacted]' },
    });
    expect(text).not.toContain(s.key);
    // A second header that is empty or of another scheme, in either order, is said so too (was: "not known" for the
    // valid key followed by an empty header: a user re-check).
    for (const joined of [
      `Bearer ${s.key},`,
      `Bearer ${s.key}, Basic abc`,
      `Basic abc, Bearer ${s.key}`,
      `, Bearer ${s.key}`,
    ]) {
      const again = await s.app.request('/v1/evm/verify/receipt-root', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: joined },
        body: JSON.stringify(goodBody),
      });
      expect(again.status, joined).toBe(401);
      expect(((await again.json()) as any).error, joined).toMatchObject({
        message: 'The Authorization header is given more than once: send one, "Bearer <API_KEY>".',
        details: { token_status: 'malformed' },
      });
    }
  });

  it('a revoked key gets 401 revoked on its next request, and the header is redacted', async () => {
    const s = await setup();
    expect((await s.post('/v1/evm/verify/receipt-root', goodBody)).status).toBe(200);
    await s.store.revokeKey((await s.store.listKeys('acme'))[0]!.id, T0);
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(JSON.parse(text).error.details.token_status).toBe('revoked');
    expect(text).not.toContain(s.key);
  });

  it('GET /v1/usage needs a key', async () => {
    expect((await (await setup()).get('/v1/usage', {})).status).toBe(401);
  });

  it('with auth explicitly off, requests need no key', async () => {
    const s = await setup({ auth: false });
    const res = await s.app.request('/v1/evm/verify/receipt-root', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(goodBody),
    });
    expect(res.status).toBe(200);
  });
});

describe('verify endpoints and compute units', () => {
  it('a verified block answers 200 with the core result and costs 1 CU', async () => {
    const s = await setup();
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data[0].is_identical).toBe(true);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('99');
    const usage = await usageOf(s);
    expect(usage).toMatchObject({
      plan: 'pro',
      cu_limit: 1000,
      cu_used: 1,
      cu_remaining: 999,
      rate_limit_rps: 100,
      cu_by_endpoint: { 'verify/receipt-root': 1 },
    });
    expect(usage.cu_reset_at).toBe(usage.billing_period.end);
  });

  it('the same paths without /v1 are served, and logs-bloom is metered too', async () => {
    const s = await setup();
    expect((await s.post('/evm/verify/receipt-root', goodBody)).status).toBe(200);
    const bloom = await s.post('/evm/verify/logs-bloom', { expected_bloom: '00'.repeat(256), logs: [] });
    expect(bloom.status).toBe(200);
    expect((await usageOf(s)).cu_by_endpoint).toEqual({ 'verify/receipt-root': 1, 'verify/logs-bloom': 1 });
  });

  it('4xx answers cost nothing: 400 with every problem, 422 for an unsupported chain', async () => {
    const s = await setup();
    const bad = await s.post('/v1/evm/verify/receipt-root', { ...goodBody, receipt_root: 'xyz', chain_id: 'one' });
    expect(bad.status).toBe(400);
    const problems = ((await bad.json()) as any).error.details.invalid_parameters.map((p: any) => p.name);
    expect(problems).toEqual(['chain_id', 'receipt_root']);
    const chain = await s.post('/v1/evm/verify/receipt-root', { ...goodBody, chain_id: 324 });
    expect(chain.status).toBe(422);
    expect(((await chain.json()) as any).error.code).toBe('CHAIN_NOT_SUPPORTED');
    expect((await usageOf(s)).cu_used).toBe(0);
  });

  it('malformed JSON and a wrong Content-Type are 400', async () => {
    const s = await setup();
    const json = await s.post('/v1/evm/verify/receipt-root', '{"chain_id":');
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error.details.invalid_parameters[0]).toMatchObject({
      name: 'body',
      reason: 'invalid_format',
    });
    const type = await s.post('/v1/evm/verify/receipt-root', JSON.stringify(goodBody), {
      'Content-Type': 'text/plain',
    });
    expect(type.status).toBe(400);
    expect(((await type.json()) as any).error.details.invalid_parameters[0]).toMatchObject({ name: 'Content-Type' });
  });

  it('unknown paths are 404, and so is a known path with another method (DECISIONS), with Allow, in the envelope', async () => {
    const s = await setup();
    const unknown = await s.get('/v1/evm/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    expect(((await unknown.json()) as any).error).toMatchObject({ code: 'NOT_FOUND', http_status: 404, details: null });
    for (const [res, allow] of [
      [await s.get('/v1/evm/verify/receipt-root'), 'POST, OPTIONS'],
      [await s.post('/v1/usage', {}), 'GET, HEAD, OPTIONS'],
    ] as const) {
      expect(res.status).toBe(404);
      expect(res.headers.get('allow')).toBe(allow);
      const error = ((await res.json()) as any).error;
      expect(error).toMatchObject({
        code: 'NOT_FOUND',
        http_status: 404,
        retryable: false,
        details: { allowed_methods: allow.split(', ') },
      });
      expect(error.message).toContain(`answers ${allow}`);
    }
  });

  it('a body over the limit is 413 with the spec details', async () => {
    const s = await setup({ bodyLimitBytes: 2000 });
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(413);
    const error = ((await res.json()) as any).error;
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { max_allowed_bytes: 2000 } });
    // In-process, the request has no Content-Length: its size is not known (over HTTP: test/server-http-api.test.ts).
    expect(error.details.request_bytes).toBeNull();
    expect(error.details.estimated_response_bytes).toBeNull();
    expect(error.details.recommended_actions.length).toBeGreaterThan(0);
  });
});

describe('entitlements (403)', () => {
  it('an endpoint outside the account entitlements', async () => {
    const s = await setup({}, { entitlements: { endpoints: ['verify/logs-bloom'] } });
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error).toMatchObject({
      code: 'FORBIDDEN',
      severity: 'warning',
      details: { your_plan: 'pro' },
    });
  });

  it('a chain outside the account entitlements', async () => {
    const s = await setup({}, { entitlements: { chains: [10] } });
    expect((await s.post('/v1/evm/verify/receipt-root', goodBody)).status).toBe(403);
    expect((await usageOf(s)).cu_used).toBe(0);
  });
});

describe('limits (429)', () => {
  it('the RPS ceiling: over it, 429 with Retry-After and the rate-limit headers; the next second is free again', async () => {
    const s = await setup({}, { rateLimitRps: 2 });
    expect((await s.post('/v1/evm/verify/logs-bloom', { expected_bloom: '00'.repeat(256), logs: [] })).status).toBe(
      200,
    );
    expect((await s.post('/v1/evm/verify/logs-bloom', { expected_bloom: '00'.repeat(256), logs: [] })).status).toBe(
      200,
    );
    const res = await s.post('/v1/evm/verify/logs-bloom', { expected_bloom: '00'.repeat(256), logs: [] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('2');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(((await res.json()) as any).error.details).toMatchObject({
      limit_rps: 2,
      current_estimated_rps: 3,
      limit_scope: 'account',
      retry_after_seconds: 1,
      limit_window_seconds: 1,
    });
    s.setClock(new Date(T0.getTime() + 1000));
    expect((await s.post('/v1/evm/verify/logs-bloom', { expected_bloom: '00'.repeat(256), logs: [] })).status).toBe(
      200,
    );
  });

  it('an exhausted CU allowance: 429 until cu_reset_at or a CU package', async () => {
    const s = await setup({}, { cuLimit: 1 });
    expect((await s.post('/v1/evm/verify/receipt-root', goodBody)).status).toBe(200);
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(429);
    const usage = await usageOf(s);
    const expected = Math.ceil((Date.parse(usage.cu_reset_at) - T0.getTime()) / 1000);
    expect(res.headers.get('retry-after')).toBe(String(expected));
    expect(((await res.json()) as any).error.details).toMatchObject({
      limit_scope: 'cu_allowance',
      retry_after_seconds: expected,
    });
    await s.store.addCu('acme', 5, T0);
    expect((await s.post('/v1/evm/verify/receipt-root', goodBody)).status).toBe(200);
    s.setClock(new Date(Date.parse(usage.cu_reset_at)));
    expect(await usageOf(s)).toMatchObject({ cu_used: 0, cu_limit: 1 });
  });
});

describe('faults (500, 503) and logs', () => {
  it('an unexpected fault is 500 with an incident id that is in the log, and nothing internal', async () => {
    const s = await setup();
    s.store.settle = () => {
      throw new Error('disk on fire at /var/secret/path');
    };
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/disk on fire|secret|at .*\.ts/);
    const error = JSON.parse(text).error;
    expect(error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', retryable: true });
    expect(s.log.text()).toContain(error.details.incident_id);
  });

  it('over the in-flight limit: 503 retryable with Retry-After, nothing charged; /health is never refused', async () => {
    const s = await setup({ maxInFlight: 0 });
    expect((await s.get('/v1/health', {})).status).toBe(200);
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as any).error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      retryable: true,
      details: null,
    });
    expect((await usageOf(s)).cu_used).toBe(0);
  });

  it('a request counts against max_in_flight only once its body is read: slow uploads hold no slot', async () => {
    const s = await setup({ maxInFlight: 1 });
    const uploads = Array.from({ length: 3 }, () => {
      let push!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) });
      push.enqueue(new TextEncoder().encode('{"chain_id": 1, '));
      const answer = s.app.request('/v1/evm/verify/receipt-root', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...s.auth },
        body,
        duplex: 'half',
      });
      return { push, answer };
    });
    // The uploads are stalled mid-body; a complete request and health are served meanwhile.
    expect((await s.post('/v1/evm/verify/receipt-root', goodBody)).status).toBe(200);
    expect((await s.get('/v1/health', {})).status).toBe(200);
    for (const { push, answer } of uploads) {
      push.close();
      expect((await answer).status).toBe(400);
    }
  });

  it('logs one JSON line per request with request id, method, path, status, duration and account, never the key or body', async () => {
    const s = await setup();
    const res = await s.post('/v1/evm/verify/receipt-root', goodBody, { 'X-Request-Id': 'req-42' });
    expect(res.headers.get('x-request-id')).toBe('req-42');
    const line = s.log.lines.find((l) => l.request_id === 'req-42')!;
    expect(line).toMatchObject({
      method: 'POST',
      path: '/v1/evm/verify/receipt-root',
      status: 200,
      account_id: 'acme',
    });
    expect(typeof line.duration_ms).toBe('number');
    expect(s.log.text()).not.toContain(s.key);
    expect(s.log.text()).not.toContain(goodBody.receipt_root);
    const generated = await s.get('/v1/health', {});
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('POST /v1/evm/verify/lineage (extension, L1)', () => {
  it('answers the report for a bundle and costs 1 CU', async () => {
    const s = await setup();
    const res = await s.post('/v1/evm/verify/lineage', {
      chain_id: 1,
      tracing_id: PAIR_RECORD,
      bundle: buildHeldBundle(),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ chain_id: 1, count: 1, data: [{ verdict: 'pass' }] });
    expect((await usageOf(s)).cu_by_endpoint).toEqual({ 'verify/lineage': 1 });
  });

  it('a bad body is 400 and costs nothing', async () => {
    const s = await setup();
    const res = await s.post('/v1/evm/verify/lineage', { chain_id: 1, tracing_id: 'nope' });
    expect(res.status).toBe(400);
    expect((await usageOf(s)).cu_used).toBe(0);
  });
});
