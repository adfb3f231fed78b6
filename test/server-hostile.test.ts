/**
 * The server under clients that misbehave, over real HTTP on loopback: oversized and
 * compressed bodies on keep-alive connections, clients that leave before the answer,
 * foreign credentials, and operations that hold every slot.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';
import { receiptRootBody } from '../packages/core/src/api/index.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { loadFixture } from './helpers/fixtures.js';
import { capturingLogger, testConfig, auditorAccount } from './helpers/server.js';

const KEY = 'evmi_hostile-test-key-0123456789abcdefghijklmnopq';
const log = capturingLogger();
let server: RunningServer;

const bigBlock = readRpcBlock(loadFixture('mainnet-15537394'), new Problems())!;
const bigBody = JSON.stringify(
  receiptRootBody({ chainId: 1, receiptRoot: bigBlock.header.fields.receiptsRoot!, receipts: bigBlock.receipts }),
);
const smallBody = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });

beforeAll(async () => {
  server = await startServer(
    testConfig({
      host: '127.0.0.1',
      bodyLimitBytes: 64 * 1024,
      accounts: [auditorAccount(KEY, 'hostile')],
    }),
    { logger: log.logger },
  );
});
afterAll(() => server?.close());

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}`, ...headers },
    body,
  });
const cuUsed = async () =>
  (
    (await (await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
      cu_used: number;
    }
  ).cu_used;

/**
 * Sends raw bytes on a new connection and collects what comes back until the server closes it; `halfClose`: ends the
 * client's side after the bytes, as `shutdown(SHUT_WR)` does.
 */
function rawExchange(bytes: string, halfClose = false): Promise<{ text: string; ended: 'end' | 'reset' }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve({ text, ended: 'end' }));
    socket.on('error', () => resolve({ text, ended: 'reset' }));
    socket.write(bytes);
    if (halfClose) socket.end();
  });
}

/**
 * A verify request sent as a client that holds its body back for `Expect: 100-continue`: the head alone, then `body`
 * only once `100 Continue` has come, first. What came back by the close, and whether the body was sent.
 */
function continuedExchange(headers: Record<string, string>, body: string): Promise<{ text: string; sent: boolean }> {
  const head = Object.entries({ Host: 'x', ...headers, Expect: '100-continue', Connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise((resolve) => {
    const socket: Socket = connect(server.port, '127.0.0.1');
    let text = '';
    let sent = false;
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!sent && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        sent = true;
        socket.write(body);
      }
    });
    socket.on('end', () => resolve({ text, sent }));
    socket.on('error', () => resolve({ text, sent }));
    socket.write(`POST /v1/evm/verify/logs-bloom HTTP/1.1\r\n${head}\r\n`);
  });
}

/** `body` as one chunk and the last chunk (Transfer-Encoding: chunked). */
const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

/** The error envelope of a raw answer, and its status line and headers. */
function envelopeOf(text: string): { head: string; error: any } {
  const split = text.indexOf('\r\n\r\n');
  return { head: text.slice(0, split), error: JSON.parse(text.slice(split + 4)).error };
}

describe('answers given before the body is read close the connection cleanly', () => {
  it('413 says Connection: close, and a keep-alive client loses no request after it', async () => {
    const oversized = JSON.stringify({ pad: 'x'.repeat(200 * 1024) });
    for (let i = 0; i < 8; i++) {
      const tooBig = await post('/v1/evm/verify/logs-bloom', oversized);
      expect(tooBig.status).toBe(413);
      expect(tooBig.headers.get('connection')).toBe('close');
      await tooBig.arrayBuffer();
      const next = await post('/v1/evm/verify/logs-bloom', smallBody);
      expect(next.status).toBe(200);
    }
  });

  it('a raw client sees the whole 413 and then an orderly close, not a reset', async () => {
    const body = 'x'.repeat(100 * 1024);
    const { text, ended } = await rawExchange(
      `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"PAYLOAD_TOO_LARGE"');
    expect(ended).toBe('end');
  });

  it('a compressed body gets 415 UNSUPPORTED_MEDIA_TYPE, not 400 "not JSON", and costs nothing', async () => {
    const before = await cuUsed();
    const res = await post('/v1/evm/verify/logs-bloom', gzipSync(smallBody), { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(415);
    expect(res.headers.get('connection')).toBe('close');
    expect(((await res.json()) as any).error).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      http_status: 415,
      retryable: false,
      details: { content_encoding: 'gzip' },
    });
    expect(await cuUsed()).toBe(before);
    expect((await post('/v1/evm/verify/logs-bloom', smallBody, { 'Content-Encoding': 'identity' })).status).toBe(200);
    // A list whose members name no coding but identity is an uncompressed body (was: 415 for an empty header: a user
    // check); one that names a coding among them is not.
    for (const none of ['', ' ', 'identity, ', ', Identity'])
      expect((await post('/v1/evm/verify/logs-bloom', smallBody, { 'Content-Encoding': none })).status, none).toBe(200);
    const listed = await post('/v1/evm/verify/logs-bloom', smallBody, { 'Content-Encoding': 'identity, gzip' });
    expect(listed.status).toBe(415);
    expect(((await listed.json()) as any).error.details).toMatchObject({ content_encoding: 'identity, gzip' });
  });

  it('a transfer coding besides chunked: 415 naming it, never read as it came, and costs nothing', async () => {
    const before = await cuUsed();
    // Node's parser undoes only the chunking: a gzipped body was "not UTF-8", this one (JSON under a gzip claim) verified.
    const { text, ended } = await rawExchange(
      `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${smallBody.length.toString(16)}\r\n${smallBody}\r\n0\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 415 Unsupported Media Type\r\n/);
    expect(envelopeOf(text).error).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: expect.stringContaining('Transfer-Encoding "gzip, chunked"'),
      details: { transfer_encoding: 'gzip, chunked', accepted_transfer_codings: ['chunked'] },
    });
    expect(ended).toBe('end');
    expect(await cuUsed()).toBe(before);
  });
});

describe('answers Node would give without the envelope get it', () => {
  it.each([
    ['without Host', ''],
    ['with an empty Host', 'Host:\r\n'],
  ])('HTTP/1.1 %s: 400 naming the Host header', async (_, host) => {
    const { text } = await rawExchange(`GET /v1/health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
    const { head: answerHead, error } = envelopeOf(text);
    expect(answerHead).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answerHead.toLowerCase()).toContain('x-request-id:');
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { invalid_parameters: [{ name: 'Host', location: 'header', reason: 'missing' }] },
      docs_url: '/v1/docs#error-bad_request',
    });
  });

  it.each([
    ['HTTP/1.1', 'Host: a.example\r\nHost: b.example\r\n'],
    ['HTTP/1.1, the same host twice', 'Host: a.example\r\nhost: a.example\r\n'],
    ['HTTP/1.0', 'Host: a.example\r\nHOST: b.example\r\n'],
  ])('%s with two Host headers: 400 naming the Host header, a duplicate', async (version, hosts) => {
    const http = version.slice(0, 8);
    const { text } = await rawExchange(`GET /v1/health ${http}\r\n${hosts}Connection: close\r\n\r\n`);
    const { head: answerHead, error } = envelopeOf(text);
    expect(answerHead).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { invalid_parameters: [{ name: 'Host', location: 'header', reason: 'duplicate' }] },
    });
  });

  it('an Expect other than 100-continue: 417 EXPECTATION_FAILED naming it; 100-continue is met', async () => {
    const { text } = await rawExchange(
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n',
    );
    const { head: answerHead, error } = envelopeOf(text);
    expect(answerHead).toMatch(/^HTTP\/1\.1 417 Expectation Failed\r\n/);
    expect(error).toMatchObject({
      code: 'EXPECTATION_FAILED',
      http_status: 417,
      retryable: false,
      details: { expect: 'foo', accepted_expectations: ['100-continue'] },
      docs_url: 'http://x/v1/docs#error-expectation_failed',
    });
    const continued = await rawExchange(
      `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${smallBody.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${smallBody}`,
    );
    expect(continued.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  });

  it.each([
    ['a key no account has', { Authorization: 'Bearer evmi_nobody-0123456789abcdefghijklmnopqrstuvwxyz' }, 401],
    ['a Content-Type that is not JSON', { 'Content-Type': 'text/plain' }, 400],
    ['a Content-Length over the body limit', { 'Content-Length': String(2_600_000) }, 413],
  ])(
    'Expect: 100-continue with %s: the refusal comes first, no 100 Continue, no body sent',
    async (_, given, status) => {
      const before = await cuUsed();
      const headers = {
        Authorization: `Bearer ${KEY}`,
        'Content-Type': 'application/json',
        'Content-Length': String(smallBody.length),
        ...given,
      };
      const { text, sent } = await continuedExchange(headers, smallBody);
      expect(text.slice(0, 40)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(text).not.toContain('100 Continue');
      expect(sent).toBe(false);
      expect(await cuUsed()).toBe(before);
    },
  );

  it('Expect: 100-continue with a head that passes every check: 100 Continue, then the body is read and answered', async () => {
    const before = await cuUsed();
    const headers = {
      Authorization: `Bearer ${KEY}`,
      'Content-Type': 'application/json',
      'Content-Length': String(smallBody.length),
    };
    const { text, sent } = await continuedExchange(headers, smallBody);
    expect(sent).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(await cuUsed()).toBe(before + 1);
  });

  it('Expect: 100-continue on a request that announces no body: 100 Continue at once, and the connection kept', async () => {
    const { text } = await rawExchange(
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\nGET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });

  it('Expect: 100-continue with a chunked body: 100 Continue once the head passes, then the body is read and answered', async () => {
    const before = await cuUsed();
    const headers = {
      Authorization: `Bearer ${KEY}`,
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
    };
    const { text, sent } = await continuedExchange(headers, chunked(smallBody));
    expect(sent).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(await cuUsed()).toBe(before + 1);
  });

  it.each([
    ['a key no account has', { Authorization: 'Bearer evmi_nobody-0123456789abcdefghijklmnopqrstuvwxyz' }, 401],
    ['a Content-Type that is not JSON', { 'Content-Type': 'text/plain' }, 400],
    ['Content-Encoding: gzip', { 'Content-Encoding': 'gzip' }, 415],
  ])(
    'Expect: 100-continue with a chunked body and %s: the refusal comes first, no 100 Continue, no body sent',
    async (_, given, status) => {
      const headers = {
        Authorization: `Bearer ${KEY}`,
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
        ...given,
      };
      const { text, sent } = await continuedExchange(headers, chunked(smallBody));
      expect(text.slice(0, 40)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(text).not.toContain('100 Continue');
      expect(sent).toBe(false);
    },
  );

  it.each([
    ['a Content-Type that is not JSON', 'Content-Type: text/plain', 400],
    ['Content-Encoding: gzip', 'Content-Type: application/json\r\nContent-Encoding: gzip', 415],
  ])('a chunked body with %s is refused before its last chunk comes', async (_, header, status) => {
    // The body's first chunk only: an answer can come only from the head.
    const { text } = await rawExchange(
      `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n${header}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"exp\r\n`,
    );
    expect(text.slice(0, 40)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text.toLowerCase()).toContain('connection: close');
  });

  it("Node's HTTP client, sending a chunked body on 'continue': 100 Continue, then 200", async () => {
    const { status, continued, body } = await new Promise<{ status: number; continued: boolean; body: string }>(
      (resolve, reject) => {
        let continued = false;
        const request = httpRequest(`${server.url}/v1/evm/verify/logs-bloom`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${KEY}`,
            'Content-Type': 'application/json',
            'Transfer-Encoding': 'chunked',
            Expect: '100-continue',
          },
        });
        request.on('continue', () => {
          continued = true;
          request.end(smallBody);
        });
        request.on('response', (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, continued, body }));
        });
        request.on('error', reject);
        request.flushHeaders();
      },
    );
    expect(continued).toBe(true);
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ data: [{ is_identical: true }] });
  });

  it('a chunked body over the body limit: 413 once its bytes pass the limit, without waiting for its end', async () => {
    const before = await cuUsed();
    // 100 KiB in chunks past the 64 KiB limit, and no last chunk: the 413 comes as the limit is passed.
    const { text, ended } = await rawExchange(
      `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${`2800\r\n${'x'.repeat(0x2800)}\r\n`.repeat(10)}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(envelopeOf(text).error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { request_bytes: null, max_allowed_bytes: 64 * 1024 },
    });
    expect(ended).toBe('end');
    expect(await cuUsed()).toBe(before);
  });

  it('CONNECT: 404 NOT_FOUND as any method no route serves, then the connection is closed', async () => {
    const { text, ended } = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const { head: answerHead, error } = envelopeOf(text);
    expect(answerHead).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(answerHead).toContain('Connection: close');
    // The Host of a CONNECT is where it wants to go: never a link's host.
    expect(error).toMatchObject({ code: 'NOT_FOUND', details: null, docs_url: '/v1/docs#error-not_found' });
    expect(error.hint).toMatch(/^This server is no proxy/);
    expect(ended).toBe('end');
  });

  it('HTTP/2 with prior knowledge: 400 saying HTTP/2 is not served, not the parser\'s "Pause on PRI/Upgrade"', async () => {
    const { text, ended } = await rawExchange('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(envelopeOf(text).error).toMatchObject({
      code: 'MALFORMED_REQUEST',
      message: 'The request is HTTP/2 (its connection preface, PRI * HTTP/2.0); this server serves HTTP/1.1 only.',
      hint: expect.stringContaining('HTTP/1.1'),
      details: { framing_problem: 'http2', parser_error: 'HPE_PAUSED_H2_UPGRADE' },
    });
    expect(ended).toBe('end');
  });
});

describe("bytes Node's HTTP parser refuses get the error envelope, then an orderly close", () => {
  const head = `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n`;
  it.each([
    [
      'two different Content-Lengths',
      `${head}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
      'content_length',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
      'The request cannot be read as HTTP/1.1: Duplicate Content-Length.',
    ],
    [
      'a chunk size that is not hex',
      `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
      'chunked_body',
      'HPE_INVALID_CHUNK_SIZE',
      'The request cannot be read as HTTP/1.1: Invalid character in chunk size.',
    ],
    [
      'Content-Length and Transfer-Encoding together',
      `${head}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      'transfer_encoding',
      'HPE_INVALID_TRANSFER_ENCODING',
      "The request cannot be read as HTTP/1.1: Transfer-Encoding can't be present with Content-Length.",
    ],
  ])('%s: 400 MALFORMED_REQUEST naming it', async (_, bytes, problem, parserError, message) => {
    const { text, ended } = await rawExchange(bytes);
    const { head: answerHead, error } = envelopeOf(text);
    expect(answerHead).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answerHead).toContain('Content-Type: application/json');
    expect(answerHead).toContain('Connection: close');
    expect(error).toEqual({
      code: 'MALFORMED_REQUEST',
      http_status: 400,
      message,
      hint: expect.stringContaining('not a valid HTTP/1.1 request'),
      severity: 'error',
      retryable: false,
      details: { framing_problem: problem, parser_error: parserError },
      // The headers were not read: no Host to name the page under.
      docs_url: '/v1/docs#error-malformed_request',
    });
    expect(ended).toBe('end');
  });

  it('a body shorter than its Content-Length, then a half-close: 400 incomplete_request, logged as 400, not charged', async () => {
    const before = await cuUsed();
    const logged = log.lines.length;
    const { text, ended } = await rawExchange(
      `${head}Content-Length: ${smallBody.length}\r\n\r\n${smallBody.slice(0, 20)}`,
      true,
    );
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(envelopeOf(text).error).toMatchObject({
      code: 'MALFORMED_REQUEST',
      message: expect.stringMatching(/^The connection ended before the request was complete/),
      details: { framing_problem: 'incomplete_request', parser_error: 'HPE_INVALID_EOF_STATE' },
    });
    expect(ended).toBe('end');
    // The request had begun: its log line tells the 400 the server sent, not a client's leaving (499).
    await expect
      .poll(() => log.lines.slice(logged).filter((l) => l.path === '/v1/evm/verify/logs-bloom'))
      .toEqual([expect.objectContaining({ msg: 'request malformed', status: 400, account_id: 'auditor' })]);
    expect(await cuUsed()).toBe(before);
  });

  it('a malformed request pipelined behind a whole one: the whole one is answered and logged first, then the envelope', async () => {
    const logged = log.lines.length;
    const whole = `${head}Content-Length: ${smallBody.length}\r\n\r\n${smallBody}`;
    const { text, ended } = await rawExchange(
      `${whole}GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    );
    const second = text.indexOf('HTTP/1.1 400 Bad Request\r\n');
    expect(text.slice(0, second)).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"is_identical":true/);
    expect(envelopeOf(text.slice(second)).error).toMatchObject({
      code: 'MALFORMED_REQUEST',
      details: { framing_problem: 'content_length', parser_error: 'HPE_UNEXPECTED_CONTENT_LENGTH' },
    });
    expect(ended).toBe('end');
    await expect
      .poll(() => log.lines.slice(logged).filter((l) => l.path === '/v1/evm/verify/logs-bloom'))
      .toEqual([expect.objectContaining({ status: 200, account_id: 'auditor' })]);
  });

  it('headers over the limit: 431 REQUEST_HEADER_FIELDS_TOO_LARGE naming it', async () => {
    const { text, ended } = await rawExchange(
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(envelopeOf(text).error).toMatchObject({
      code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      http_status: 431,
      message: "The request line and headers are over the server's limit of 16384 bytes.",
      retryable: false,
      details: { max_header_bytes: 16384 },
    });
    expect(ended).toBe('end');
  });
});

describe('a request whose Host or target cannot be read as a URL: 400 MALFORMED_REQUEST with the envelope', () => {
  const then = `GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
  it.each([
    ['a Host with a space', 'GET /v1/health HTTP/1.1\r\nHost: a b\r\n\r\n'],
    ['a Host with a path', 'GET /v1/health HTTP/1.1\r\nHost: a/b\r\n\r\n'],
    ['a Host with a port past 65535', 'GET /v1/health HTTP/1.1\r\nHost: x:99999\r\n\r\n'],
    ['an absolute target that is no URL', 'GET http://[x/v1/health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['the asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('%s: the envelope, not an empty 400, and the connection serves the next request', async (_, bytes) => {
    const logged = log.lines.length;
    const { text } = await rawExchange(bytes + then);
    const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
    const { head, error } = envelopeOf(first!);
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(error).toEqual({
      code: 'MALFORMED_REQUEST',
      http_status: 400,
      message: expect.stringMatching(/^The request's target or its Host header cannot be read as a URL: /),
      hint: expect.stringContaining('Host: host[:port]'),
      severity: 'error',
      retryable: false,
      details: { framing_problem: 'request_target' },
      docs_url: '/v1/docs#error-malformed_request',
    });
    expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(log.lines.slice(logged)).toContainEqual(
      expect.objectContaining({ msg: expect.stringMatching(/^request unreadable/), status: 400 }),
    );
  });
});

describe('a request that does not arrive in time: 408 REQUEST_TIMEOUT with the envelope', () => {
  const deadlines = { headerTimeoutMs: 300, bodyTimeoutMs: 600 };
  let slow: RunningServer;
  beforeAll(async () => {
    slow = await startServer(testConfig({ host: '127.0.0.1', ...deadlines, accounts: [auditorAccount(KEY, 'slow')] }), {
      logger: capturingLogger().logger,
    });
  });
  afterAll(() => slow?.close());

  /** Writes `bytes`, then one more byte of a header every 50 ms, until the server closes the connection. */
  function trickle(bytes: string): Promise<string> {
    return new Promise((resolve) => {
      const socket: Socket = connect(slow.port, '127.0.0.1');
      let text = '';
      const drip = setInterval(() => socket.write('a'), 50);
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => {
        clearInterval(drip);
        resolve(text);
      });
      socket.on('error', () => undefined);
      socket.write(bytes);
    });
  }

  /** The 408's head and envelope, as every error of the service has it (it was a bare status line: a user check). */
  const expectTimeout = (text: string) => {
    const { head, error } = envelopeOf(text);
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toContain('Content-Type: application/json');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(text.slice(head.length + 4))}`);
    expect(head).toContain('Connection: close');
    expect(error).toEqual({
      code: 'REQUEST_TIMEOUT',
      http_status: 408,
      message:
        'The request did not arrive in time: its headers within 300 ms (header_timeout_ms), or all of it within 600 ms (body_timeout_ms), of its first byte.',
      hint: expect.stringContaining('Send the request at once'),
      severity: 'error',
      retryable: true,
      details: { header_timeout_ms: 300, body_timeout_ms: 600 },
      docs_url: '/v1/docs#error-request_timeout',
    });
  };

  it('headers trickled past header_timeout_ms', async () => {
    expectTimeout(await trickle('GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: '));
  });

  it('behind a whole request of the same connection: that one is answered first, then the 408', async () => {
    const whole = `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${smallBody.length}\r\n\r\n${smallBody}`;
    const text = await trickle(`${whole}GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: `);
    const second = text.indexOf('HTTP/1.1 408 ');
    expect(text.slice(0, second)).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"is_identical":true/);
    expectTimeout(text.slice(second));
  });
});

describe('401 to a foreign credential', () => {
  it.each([
    ['a key of another service', 'Bearer sk_live_51HxQ2eKJ8sZ7yTtQpLmN0vWc'],
    ['basic credentials', 'Basic YWxpY2U6czNjcjN0LXBhc3N3b3Jk'],
    ['a bare token', 'ghp_R4nd0mT0k3nV4lu3Th4tIsL0ng'],
  ])('%s: nothing of it is echoed, and WWW-Authenticate names Bearer', async (_, header) => {
    const res = await post('/v1/evm/verify/logs-bloom', smallBody, { Authorization: header });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="evm-integrity"/);
    const text = await res.text();
    const credential = header.replace(/^(Bearer|Basic) /, '');
    for (let i = 0; i + 4 <= credential.length; i++) expect(text).not.toContain(credential.slice(i, i + 4));
    // The scheme when it is a known one, and nothing else: not even the credential's length.
    const scheme = /^(Bearer|Basic) /.exec(header)?.[1];
    expect(JSON.parse(text).error.details.provided_header).toBe(
      scheme === undefined ? '[redacted]' : `${scheme} [redacted]`,
    );
  });

  it('no key at all: a challenge without an error code (RFC 6750 section 3.1)', async () => {
    const res = await fetch(`${server.url}/v1/usage`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="evm-integrity"');
  });
});

describe('a client that leaves before the answer', () => {
  it('is neither charged nor logged as an incident', async () => {
    await server.close();
    server = await startServer(
      testConfig({
        host: '127.0.0.1',
        bodyLimitBytes: 64 * 1024 * 1024,
        accounts: [auditorAccount(KEY, 'hostile')],
      }),
      { logger: log.logger },
    );
    const before = await cuUsed();
    const sockets = Array.from({ length: 5 }, () => {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      // The whole body goes out, then the client hangs up while the server verifies it.
      socket.write(
        `POST /v1/evm/verify/receipt-root HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(bigBody)}\r\n\r\n`,
      );
      socket.end(bigBody);
      socket.on('drain', () => undefined);
      return socket;
    });
    await Promise.all(sockets.map((s) => new Promise((resolve) => s.on('finish', resolve))));
    for (const s of sockets) s.destroy();
    await expect
      .poll(() => log.lines.filter((l) => l.msg === 'request aborted by the client').length, { timeout: 20_000 })
      .toBe(5);
    expect(await cuUsed()).toBe(before);
    const aborted = log.lines.filter((l) => l.msg === 'request aborted by the client');
    expect(aborted.every((l) => l.status === 499 && l.level === 30)).toBe(true);
    expect(log.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    // The server still answers, and charges, a client that stays.
    const res = await post('/v1/evm/verify/receipt-root', bigBody);
    expect(((await res.json()) as any).data[0].is_identical).toBe(true);
    expect(await cuUsed()).toBe(before + 1);
  });
});
