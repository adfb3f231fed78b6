/**
 * Where error envelopes' `docs_url` points, over real HTTP on loopback: under `public_url` when it is
 * set; else under the Host the request was sent to, when that is a valid `host[:port]`; else a
 * relative link, never the bind address (`0.0.0.0`) and never a Host's junk echoed. Requests are
 * sent on raw sockets, so that the Host header is exactly the one written.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsUrlOf as docsUrlRule } from '../packages/service/src/server/openapi/docs-url.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const KEY = 'evmi_docs-url-test-key-0123456789abcdefghijklmnopq';
const account = [auditorAccount(KEY, 'docs-url')];
let wildcard: RunningServer;
let pooled: RunningServer;
let behindProxy: RunningServer;

beforeAll(async () => {
  const logger = capturingLogger().logger;
  [wildcard, pooled, behindProxy] = await Promise.all([
    // Bound to every address, verifying inline.
    startServer(testConfig({ host: '0.0.0.0', poolWorkers: 0, accounts: account }), { logger }),
    // Every body verified on a worker (the workers run the built service).
    startServer(testConfig({ poolWorkers: 1, poolThresholdBytes: 0, accounts: account }), { logger }),
    startServer(testConfig({ publicUrl: 'https://verify.example.com', poolWorkers: 0, accounts: account }), {
      logger,
    }),
  ]);
}, 30_000);
afterAll(() => Promise.all([wildcard?.close(), pooled?.close(), behindProxy?.close()]));

/**
 * Sends `head` (a request line and headers, each line ending CRLF, no blank line) and `body` on a new
 * connection, and parses the answer once the server closes it.
 */
function exchange(
  server: RunningServer,
  head: string,
  body = '',
): Promise<{ status: number; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]);
      const content = text.slice(text.indexOf('\r\n\r\n') + 4);
      try {
        resolve({ status, text, json: content.startsWith('{') ? JSON.parse(content) : null });
      } catch (error) {
        reject(new Error(`not one JSON answer: ${text}`, { cause: error }));
      }
    });
    socket.write(`${head}Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, 'latin1');
  });
}

/** The `docs_url` of GET `path` sent with `hostLine` (a whole header line, or '' for none) over HTTP/`version`. */
async function docsUrlOf(server: RunningServer, hostLine: string, path = '/v1/no-such-path', version = '1.1') {
  const { status, json } = await exchange(server, `GET ${path} HTTP/${version}\r\n${hostLine}`);
  expect(status).toBe(404);
  return json.error.docs_url as string;
}

/** A verify request's status and `docs_url`: `body` posted to receipt-root with the Host `host` and `headers`. */
async function verifyDocsUrl(server: RunningServer, host: string, body: string, headers = '') {
  const { status, json } = await exchange(
    server,
    `POST /v1/evm/verify/receipt-root HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n${headers}`,
    body,
  );
  return { status, code: json.error.code as string, docsUrl: json.error.docs_url as string };
}

describe('without public_url, docs_url is under the Host the request names', () => {
  it.each([
    ['verify.example.com:8443', 'http://verify.example.com:8443'],
    ['verify.example.com', 'http://verify.example.com'],
    ['203.0.113.7:8091', 'http://203.0.113.7:8091'],
    ['[2001:db8::1]:8091', 'http://[2001:db8::1]:8091'],
    ['[::1]', 'http://[::1]'],
    ['localhost:65535', 'http://localhost:65535'],
  ])('Host %s on a server bound to 0.0.0.0: %s', async (host, origin) => {
    expect(await docsUrlOf(wildcard, `Host: ${host}\r\n`)).toBe(`${origin}/v1/docs#error-not_found`);
  });

  it('a client of the listening address gets that address, not 0.0.0.0', async () => {
    const res = await fetch(`http://127.0.0.1:${wildcard.port}/v1/no-such-path`);
    expect(((await res.json()) as any).error.docs_url).toBe(
      `http://127.0.0.1:${wildcard.port}/v1/docs#error-not_found`,
    );
  });

  it('a verify route answers alike, inline and on a worker, for a body it cannot read', async () => {
    for (const server of [wildcard, pooled]) {
      expect(await verifyDocsUrl(server, 'verify.example.com:8443', '{not json')).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
        docsUrl: 'http://verify.example.com:8443/v1/docs#error-bad_request',
      });
    }
  });

  it('and for what the body reader refuses before reading (media type, encoding)', async () => {
    expect(await verifyDocsUrl(wildcard, 'verify.example.com', '{}', 'Content-Encoding: gzip\r\n')).toEqual({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      docsUrl: 'http://verify.example.com/v1/docs#error-unsupported_media_type',
    });
  });
});

describe('a Host that is not a valid host[:port] is never echoed: the link is relative', () => {
  // What the HTTP layer lets through to the app: names it can form a URL of, but no valid host.
  const served = [
    `${'a'.repeat(300)}.example.com`,
    `${'a'.repeat(64)}.example.com`,
    `${'a.'.repeat(127)}com`,
    'evil.com:0',
    'evil.com:08091',
    '"evil.com"',
    '-evil.com',
    'evil-.com',
    'evil..com',
    '300.1.1.1',
    '1.2.3',
  ];
  it.each(served)('Host: %s', async (host) => {
    expect(await docsUrlOf(wildcard, `Host: ${host}\r\n`)).toBe('/v1/docs#error-not_found');
  });

  // What the HTTP layer refuses (400 MALFORMED_REQUEST, framing_problem request_target) before the app sees it; the rule
  // refuses it too.
  const refused = [
    'evil.com/x?y',
    'a b',
    'user@evil.com',
    'evil.com:65536',
    'evil.com:',
    'evil.com:80:80',
    'evil.com#x',
    '<script>',
    'evil.com\\x',
    '[::1',
    '[zz::1]',
    '[fe80::1%25eth0]',
    '::1',
    'evil.com, good.com',
  ];
  it.each(refused)('Host: %s', async (host) => {
    const { status, text, json } = await exchange(wildcard, `GET /v1/no-such-path HTTP/1.1\r\nHost: ${host}\r\n`);
    expect(text).not.toContain(host);
    if (status === 400)
      expect(json.error).toMatchObject({ code: 'MALFORMED_REQUEST', docs_url: '/v1/docs#error-malformed_request' });
    else expect(json.error.docs_url).toBe('/v1/docs#error-not_found');
    expect(docsUrlRule(null, host)).toBe('/v1/docs');
  });

  it('two Host headers: neither is chosen, and the request is refused (RFC 9112)', async () => {
    const { status, json } = await exchange(
      wildcard,
      'GET /v1/no-such-path HTTP/1.1\r\nHost: a.example.com\r\nHost: b.example.com\r\n',
    );
    expect([status, json.error.docs_url]).toEqual([400, '/v1/docs#error-bad_request']);
  });

  it('HTTP/1.0 without Host is answered, with the relative link', async () => {
    expect(await docsUrlOf(wildcard, '', '/v1/no-such-path', '1.0')).toBe('/v1/docs#error-not_found');
  });

  it('a hostile Host on a verify route, inline and on a worker', async () => {
    for (const server of [wildcard, pooled]) {
      expect((await verifyDocsUrl(server, '-evil.com:1', '{not json')).docsUrl).toBe('/v1/docs#error-bad_request');
    }
  });
});

describe('public_url, when set, is what docs_url names, whatever the Host', () => {
  it.each(['other.example.com:8091', '127.0.0.1', '-evil.com'])('Host: %s', async (host) => {
    expect(await docsUrlOf(behindProxy, `Host: ${host}\r\n`)).toBe(
      'https://verify.example.com/v1/docs#error-not_found',
    );
  });

  it('on a verify route too', async () => {
    expect((await verifyDocsUrl(behindProxy, 'other.example.com', '{not json')).docsUrl).toBe(
      'https://verify.example.com/v1/docs#error-bad_request',
    );
  });
});
