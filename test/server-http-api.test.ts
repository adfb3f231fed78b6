/**
 * The HTTP surface around the endpoints, over real HTTP on loopback: `/`, methods a path does not
 * answer (404 with Allow, OPTIONS, CORS), what a refusal says (401, 413, a wrong Content-Type, an exhausted CU
 * allowance), and bodies read by the one reader the CLI uses too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../packages/service/src/server/config/config.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { capturingLogger, testConfig } from './helpers/server.js';
import { NOT_UTF8, TWO_BOMS } from '../packages/core/src/api/json-body.js';

const KEY = 'evmi_http-api-test-key-0123456789abcdefghijklmno';
const POOR_KEY = `${KEY}-poor`;
const APP_ORIGIN = 'https://app.example.com';
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const bloomBody = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });

const account = (id: string, key: string, cuLimit: number) => ({
  id,
  name: id,
  plan: 'pro',
  cuLimit,
  rateLimitRps: 10_000,
  entitlements: null,
  keys: [{ label: 'test', key }],
});

/** Starts a server over a memory store with two accounts: one with CU to spare, one with a single CU. */
const start = (over: Partial<ServerConfig> = {}) =>
  startServer(
    testConfig({
      host: '127.0.0.1',
      bodyLimitBytes: 4096,
      poolThresholdBytes: 1024,
      accounts: [account('rich', KEY, 1_000), account('poor', POOR_KEY, 1)],
      ...over,
    }),
    { logger: capturingLogger().logger },
  );

let server: RunningServer;
let corsServer: RunningServer;
const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-http-api-'));

beforeAll(async () => {
  server = await start();
  corsServer = await start({ corsOrigins: [APP_ORIGIN] });
});
afterAll(async () => {
  await Promise.all([server?.close(), corsServer?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}, base = server.url) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}`, ...headers },
    body,
  });
const errorOf = async (res: Response) => ((await res.json()) as { error: any }).error;

describe('GET /', () => {
  it('redirects to the reference page, and its body says where the document and health are', async () => {
    for (const path of ['/', '/v1']) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/v1/docs');
      expect(await res.json()).toEqual({ docs: '/v1/docs', openapi: '/v1/openapi.json', health: '/v1/health' });
    }
    const followed = await fetch(`${server.url}/`);
    expect(followed.url).toBe(`${server.url}/v1/docs`);
    expect(followed.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('a method a known path does not answer', () => {
  it('is 404 as an unknown path is (DECISIONS), naming the methods of the path in Allow and the envelope', async () => {
    const get = await fetch(`${server.url}/v1/evm/verify/receipt-root`);
    expect(get.status).toBe(404);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await errorOf(get)).toMatchObject({
      code: 'NOT_FOUND',
      http_status: 404,
      retryable: false,
      message: 'No endpoint GET /v1/evm/verify/receipt-root: /v1/evm/verify/receipt-root answers POST, OPTIONS.',
      details: { method: 'GET', allowed_methods: ['POST', 'OPTIONS'] },
      docs_url: `${server.url}/v1/docs#error-not_found`,
    });
    const del = await fetch(`${server.url}/health`, { method: 'DELETE' });
    expect(del.status).toBe(404);
    expect(del.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const unknown = await fetch(`${server.url}/v1/nothing`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({ code: 'NOT_FOUND', details: null });
  });

  it("an unknown path's hint names every path a GET answers, as the routes and docs/errors.md have them", async () => {
    const gets = ['/v1/health', '/v1/ready', '/v1/openapi.json', '/v1/docs', '/v1/usage', '/v1/chains'];
    for (const path of ['/v1/nothing', '/nothing']) {
      const unknown = await fetch(`${server.url}${path}`);
      expect(unknown.status).toBe(404);
      expect((await errorOf(unknown)).hint).toBe(
        `Endpoints are listed at GET /v1/openapi.json; every endpoint but GET ${gets.slice(0, -1).join(', ')} and ${gets.at(-1)} is a POST with a JSON body.`,
      );
    }
    for (const path of gets) {
      const res = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${KEY}` } });
      expect(res.status, path).toBe(200);
      await res.body?.cancel();
    }
    const errors = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    const section = errors.slice(errors.indexOf('## 404 NOT_FOUND')).split('\n## ')[0]!.replace(/\s+/g, ' ');
    const listed = /body; (.*) are the others/.exec(section)![1]!;
    expect([...listed.matchAll(/`(?:GET )?(\/v1\/[^`]+)`/g)].map(([, path]) => path).sort()).toEqual([...gets].sort());
  });

  it('OPTIONS on a known path is 204 with Allow, and without configured origins carries no CORS header', async () => {
    const res = await fetch(`${server.url}/v1/evm/verify/logs-bloom`, {
      method: 'OPTIONS',
      headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${server.url}/v1/nothing`, { method: 'OPTIONS' })).status).toBe(404);
  });

  it('with cors_origins, a preflight from a listed origin may send the key, and the answer is readable by it', async () => {
    const preflight = await fetch(`${corsServer.url}/v1/evm/verify/logs-bloom`, {
      method: 'OPTIONS',
      headers: {
        Origin: APP_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Content-Type/);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

    const answer = await post('/v1/evm/verify/logs-bloom', bloomBody, { Origin: APP_ORIGIN }, corsServer.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    expect(answer.headers.get('vary')).toContain('Origin');

    const other = await fetch(`${corsServer.url}/v1/evm/verify/logs-bloom`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://elsewhere.example.org', 'Access-Control-Request-Method': 'POST' },
    });
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('what a refusal says', () => {
  it('a wrong Content-Type is a problem of the header, named Content-Type', async () => {
    const res = await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details.invalid_parameters).toEqual([
      {
        name: 'Content-Type',
        location: 'header',
        reason: 'invalid_format',
        expected: 'application/json, got "text/plain"',
      },
    ]);
  });

  it('only application/json is JSON: a near miss is refused, parameters and case are not', async () => {
    for (const type of [
      'application/json-seq',
      'application/json-patch+json',
      'application/json, text/plain',
      'text/json',
    ])
      expect((await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Type': type })).status, type).toBe(400);
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'])
      expect((await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Type': type })).status, type).toBe(200);
  });

  it('a charset other than UTF-8 is a 400 naming it and what is accepted, and costs nothing (was: read as UTF-8)', async () => {
    const usage = async () =>
      ((await (await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as any)
        .cu_used as number;
    const before = await usage();
    for (const [type, charset] of [
      ['application/json; charset=utf-16', 'utf-16'],
      ['application/json;charset=UTF-16LE', 'UTF-16LE'],
      ['application/json; charset="iso-8859-1"', 'iso-8859-1'],
      ['application/json; charset=utf-8; charset=us-ascii', 'us-ascii'],
    ]) {
      // ASCII bytes, the same in every one of these charsets: read as UTF-8, the body was answered 200 and charged.
      const res = await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Type': type! });
      expect(res.status, type).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.details.invalid_parameters).toEqual([
        {
          name: 'Content-Type',
          location: 'header',
          reason: 'invalid_format',
          expected: `charset utf-8 (or utf8, in any case, or none: a body is read as UTF-8), got charset ${JSON.stringify(charset)}`,
        },
      ]);
      expect(error.message).toContain(charset);
    }
    expect(await usage()).toBe(before);
    for (const type of [
      'application/json; charset=utf8',
      'application/json; charset=UTF8',
      'application/json; charset="utf-8"',
      'application/json; Charset=Utf-8',
    ])
      expect((await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Type': type })).status, type).toBe(200);
  });

  it('integers are read by value: 1.0, 1e0 and 10e-1 are 1, -0 is 0, echoed plainly; 0.5 and -1 are 400 (docs/api.md)', async () => {
    const bloom = `"expected_bloom": "${'00'.repeat(256)}", "logs": []`;
    for (const [written, read] of [
      ['1.0', 1],
      ['1e0', 1],
      ['10e-1', 1],
      ['-0', 0],
      ['-0.0', 0],
    ] as const) {
      const res = await post(
        '/v1/evm/verify/logs-bloom',
        `{"chain_id": ${written}, "block_number": ${written}, ${bloom}}`,
      );
      expect(res.status, written).toBe(200);
      const text = await res.text();
      expect(text, written).toContain(`"chain_id":${read},"block_number":${read},`);
    }
    for (const written of ['0.5', '-1']) {
      const res = await post('/v1/evm/verify/logs-bloom', `{"chain_id": ${written}, ${bloom}}`);
      expect(res.status, written).toBe(400);
      expect((await errorOf(res)).details.invalid_parameters[0].name).toBe('chain_id');
    }
  });

  it('a compressed body is a 415 naming the encoding sent and accepted_encodings (docs/api.md)', async () => {
    const res = await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).details).toEqual({ content_encoding: 'gzip', accepted_encodings: ['identity'] });
  });

  it('cu_remaining is cu_limit - cu_used: a 2xx takes its CU off, a 4xx nothing (docs/api.md)', async () => {
    const usage = async () =>
      (await (await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as any;
    const before = await usage();
    expect(before.cu_remaining).toBe(before.cu_limit - before.cu_used);
    expect((await post('/v1/evm/verify/logs-bloom', '{"logs": []}')).status).toBe(400);
    expect((await usage()).cu_remaining).toBe(before.cu_remaining);
    expect((await post('/v1/evm/verify/logs-bloom', bloomBody)).status).toBe(200);
    const after = await usage();
    expect(after.cu_remaining).toBe(before.cu_remaining - 1);
    expect(after.cu_remaining).toBe(after.cu_limit - after.cu_used);
  });

  it('a 401 tells the scheme of the refused header and nothing of its credential, not even its length (the whole member is the scheme)', async () => {
    for (const [header, shown] of [
      ['Bearer evmi_not-a-key-of-this-server-000000000000000', 'Bearer [redacted]'],
      ['Token abcdef', 'Token [redacted]'],
      ['sk_live_51HxQ2eKJ8sZ7yTtQpLmN0vWc', '[redacted]'],
    ] as const) {
      const res = await post('/v1/evm/verify/logs-bloom', bloomBody, { Authorization: header });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).details.provided_header).toBe(shown);
    }
  });

  it('an empty Authorization header is missing, and provided_header says it was empty: "" (it said [redacted])', async () => {
    for (const header of ['', '   ']) {
      const res = await post('/v1/evm/verify/logs-bloom', bloomBody, { Authorization: header });
      expect(res.status).toBe(401);
      expect(await errorOf(res)).toMatchObject({
        message: 'No API key: the Authorization header is empty.',
        details: { token_status: 'missing', provided_header: '' },
      });
    }
  });

  it("413 reports the request size it refused and the limit, and the spec's estimated_response_bytes as that size (a client of the hosted service read undefined: a user check)", async () => {
    const body = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [], pad: 'x'.repeat(5000) });
    const res = await post('/v1/evm/verify/logs-bloom', body);
    expect(res.status).toBe(413);
    const error = await errorOf(res);
    expect(error.details).toMatchObject({
      max_allowed_bytes: 4096,
      estimated_response_bytes: Buffer.byteLength(body),
      request_bytes: Buffer.byteLength(body),
      limit_applies_to: 'request_body',
    });
  });

  it('an exhausted CU allowance is not retryable by waiting: the details say what cures it and when it resets', async () => {
    const poor = { Authorization: `Bearer ${POOR_KEY}` };
    expect((await post('/v1/evm/verify/logs-bloom', bloomBody, poor)).status).toBe(200);
    const usage = (await (await fetch(`${server.url}/v1/usage`, { headers: poor })).json()) as { cu_reset_at: string };
    const res = await post('/v1/evm/verify/logs-bloom', bloomBody, poor);
    expect(res.status).toBe(429);
    const error = await errorOf(res);
    expect(error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      retryable: false,
      details: {
        limit_scope: 'cu_allowance',
        cu_limit: 1,
        cu_used: 1,
        cu_reset_at: usage.cu_reset_at,
        current_estimated_rps: null,
      },
    });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(error.details.retry_after_seconds).toBe(retryAfter);
    expect(Math.abs(Date.now() + retryAfter * 1000 - Date.parse(usage.cu_reset_at))).toBeLessThan(5_000);
    expect(error.hint).toMatch(/add-cu/);
  });
});

describe('error details as the OpenAPI document declares them', () => {
  it('every details member of every refusal here is a declared member of ErrorDetails, of the declared type', async () => {
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as any;
    const declared = doc.components.schemas.ErrorDetails.properties as Record<string, any>;
    const poor = { Authorization: `Bearer ${POOR_KEY}` };
    const answers = [
      await post('/v1/evm/verify/receipt-root', JSON.stringify({ chain_id: 1 })),
      await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Type': 'text/csv' }),
      await post('/v1/evm/verify/logs-bloom', bloomBody, { Authorization: 'Basic eDp5' }),
      await fetch(`${server.url}/v1/evm/verify/logs-bloom`),
      await post('/v1/evm/verify/logs-bloom', 'x'.repeat(5000)),
      await post('/v1/evm/verify/logs-bloom', bloomBody, { 'Content-Encoding': 'gzip' }),
      await post(
        '/v1/evm/verify/receipt-root',
        JSON.stringify({ chain_id: 42161, block_number: 1000, receipt_root: '00'.repeat(32), transactions: [] }),
      ),
      await post('/v1/evm/verify/logs-bloom', bloomBody, poor),
      await post('/v1/evm/verify/logs-bloom', bloomBody, poor),
    ];
    const statuses = answers.map((res) => res.status);
    expect(statuses).toEqual([400, 400, 401, 404, 413, 415, 422, expect.any(Number), 429]);
    for (const res of answers) {
      const details = ((await res.json()) as { error?: { details: unknown } }).error?.details;
      for (const [member, value] of Object.entries((details ?? {}) as Record<string, unknown>)) {
        expect(declared, `details.${member} of a ${res.status}`).toHaveProperty(member);
        const schema = declared[member].anyOf?.[0] ?? declared[member];
        const type =
          schema.type ??
          (schema.enum ? typeof schema.enum[0] : schema.const !== undefined ? typeof schema.const : undefined);
        if (value !== null && type !== undefined)
          expect(type === 'integer' ? 'number' : type, `details.${member}`).toBe(
            Array.isArray(value) ? 'array' : typeof value,
          );
      }
    }
  });
});

describe('one body reader for the server and the CLI', () => {
  const BOM = [0xef, 0xbb, 0xbf];
  const withBoms = (n: number, json: string) =>
    new Uint8Array([...Array.from({ length: n }, () => BOM).flat(), ...Buffer.from(json)]);
  /** The answer without `docs_url`, which names the server's page or the CLI's file. */
  const comparable = (json: any) =>
    json.error === undefined ? json : { error: { ...json.error, docs_url: undefined } };

  /** What the CLI did with the bytes as a file, and as standard input: exit status, stdout, stderr. */
  function cli(bytes: Uint8Array, name: string) {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    const run = (args: string[], input?: Uint8Array) => {
      const done = spawnSync(process.execPath, [BIN, 'verify', 'logs-bloom', ...args], {
        encoding: 'utf8',
        ...(input && { input }),
      });
      return { status: done.status, stdout: done.stdout, stderr: done.stderr };
    };
    return { file: run([file]), stdin: run(['-'], bytes) };
  }

  const cases: Array<[string, Uint8Array, number]> = [
    ['no byte order mark', withBoms(0, bloomBody), 200],
    ['one byte order mark', withBoms(1, bloomBody), 200],
    ['two byte order marks', withBoms(2, bloomBody), 400],
    [
      'bytes that are not UTF-8',
      new Uint8Array([...Buffer.from('{"expected_bloom":"'), 0xff, ...Buffer.from('"}')]),
      400,
    ],
    // Past pool_threshold_bytes (1024): read by a worker, with the same function.
    [
      'two byte order marks, on a worker',
      withBoms(2, JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [], pad: ' '.repeat(1024) })),
      400,
    ],
  ];
  // One rule, each in its own words: the server's 400 envelope, the CLI's one line on stderr (exit 2, nothing on
  // stdout).
  it.each(cases)('%s: the same verdict from the server and the CLI (file and stdin)', async (name, bytes, status) => {
    const res = await post('/v1/evm/verify/logs-bloom', bytes);
    expect(res.status).toBe(status);
    const served = comparable(await res.json());
    const { file, stdin } = cli(bytes, `${name.replace(/\W+/g, '-')}.json`);
    for (const [run, named] of [
      [file, `${name.replace(/\W+/g, '-')}.json`],
      [stdin, 'standard input'],
    ] as const) {
      if (status === 200) {
        expect(run.status).toBe(0);
        expect(comparable(JSON.parse(run.stdout))).toEqual(served);
        continue;
      }
      const problem = served.error.details.invalid_parameters[0];
      expect(problem).toMatchObject({ name: 'body', location: 'body', reason: 'invalid_format' });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(named);
      // The CLI says the same fault in its own words: the server's `expected` is that of a body.
      const said =
        problem.expected === NOT_UTF8
          ? 'not UTF-8 text (a JSON text is UTF-8): it has bytes that are not UTF-8'
          : problem.expected === TWO_BOMS
            ? 'not JSON (it starts with two byte order marks, U+FEFF; one is allowed)'
            : `not JSON (${problem.expected})`;
      expect(run.stderr).toBe(`evm-integrity: ${run === file ? join(dir, named) : named}: ${said}\n`);
    }
  });

  it('says what is wrong with two byte order marks', async () => {
    const error = await errorOf(await post('/v1/evm/verify/logs-bloom', withBoms(2, bloomBody)));
    expect(error.details.invalid_parameters[0].expected).toBe(
      'JSON after at most one byte order mark (U+FEFF); the body starts with two',
    );
  });
});
