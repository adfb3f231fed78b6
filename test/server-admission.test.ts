/**
 * Admission before the body, over real HTTP on loopback: a request refused for its key, its
 * entitlements, its rate or its allowance is answered from its headers alone, while its body is
 * still unsent, and a keep-alive client's next request on the same agent is answered as usual.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { capturingLogger, testConfig, auditorAccount } from './helpers/server.js';

const KEY = 'evmi_admission-test-key-0123456789abcdefghijklmno';
const BROKE_KEY = 'evmi_admission-broke-key-0123456789abcdefghijklmn';
const SLOW_KEY = 'evmi_admission-slow-key-0123456789abcdefghijklmno';
const POOR_KEY = 'evmi_admission-poor-key-0123456789abcdefghijklmno';
const LIMITED_KEY = 'evmi_admission-limited-key-0123456789abcdefghijkl';
const DECLARED = 32 * 1024 * 1024;
const smallBody = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });
let server: RunningServer;

beforeAll(async () => {
  const account = (id: string, key: string, over: object) => ({ ...auditorAccount(key, id), id, ...over });
  server = await startServer(
    testConfig({
      host: '127.0.0.1',
      bodyLimitBytes: 64 * 1024 * 1024,
      accounts: [
        auditorAccount(KEY, 'admission'),
        account('broke', BROKE_KEY, { cuLimit: 0 }),
        account('slow', SLOW_KEY, { rateLimitRps: 1 }),
        account('poor', POOR_KEY, { cuLimit: 5 }),
        account('limited', LIMITED_KEY, { entitlements: { endpoints: ['receipt-root'] } }),
      ],
    }),
    { logger: capturingLogger().logger },
  );
});
afterAll(() => server?.close());

/** A POST on the global (keep-alive) agent. */
const post = (key: string, path: string, body: string) =>
  fetch(`${server.url}/v1/evm/verify/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body,
  });

/**
 * Sends the headers of a POST declaring a 32 MiB body and then only its first bytes, and resolves
 * with what comes back before the server closes the connection: the answer cannot wait for a body
 * that is never sent.
 */
function declareHugeBody(path: string, key: string | undefined, port = server.port): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    const auth = key === undefined ? '' : `Authorization: Bearer ${key}\r\n`;
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n{"`,
    );
  });
}

describe('a refusal that does not depend on the body is answered before it is read', () => {
  it.each([
    ['a missing key', undefined, 'logs-bloom', 401],
    ['an exhausted CU allowance', BROKE_KEY, 'logs-bloom', 429],
    ['an endpoint outside the entitlements', LIMITED_KEY, 'logs-bloom', 403],
  ])('%s: the answer comes with 32 MiB still unsent, and closes the connection', async (_, key, path, status) => {
    const text = await declareHugeBody(`/v1/evm/verify/${path}`, key);
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('the rate limit: the second request in a second is refused with its body unsent', async () => {
    // The rate window is the clock's second. The pair starts just after one begins; where the
    // first answer still comes after the window ended (a loaded machine), the pair is tried again
    // in the next one rather than sending a body the server would then wait for.
    const second = () => Math.floor(Date.now() / 1000);
    let text: string | undefined;
    for (let attempt = 0; attempt < 5 && text === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
      const window = second();
      expect((await post(SLOW_KEY, 'logs-bloom', smallBody)).status).toBe(200);
      if (second() === window) text = await declareHugeBody('/v1/evm/verify/logs-bloom', SLOW_KEY);
    }
    expect(text).toMatch(/^HTTP\/1\.1 429 /);
    expect(text).toContain('"limit_scope":"account"');
  });

  it('a logs proof the allowance cannot pay at its declared length (33 CU for 32 MiB) is refused unread', async () => {
    const text = await declareHugeBody('/v1/evm/verify/logs-proof', POOR_KEY);
    expect(text).toMatch(/^HTTP\/1\.1 429 /);
    expect(text).toContain('"limit_scope":"cu_allowance"');
    // What it can pay is still served: a small logs proof is read, then refused for its content.
    expect((await post(POOR_KEY, 'logs-proof', '{}')).status).toBe(400);
  });

  it('a request that costs more than the CU left is told its own cost and what is left, not that the allowance is used up', async () => {
    const text = await declareHugeBody('/v1/evm/verify/anchor', POOR_KEY);
    const error = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error;
    expect(error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      retryable: false,
      details: { limit_scope: 'cu_allowance', cu_limit: 5, cu_used: 0 },
    });
    expect(error.message).toMatch(
      /^This request costs 33 CU \(1 \+ 1 per full MiB of its body\), more than the 5 CU left of the account's compute-unit allowance \(5 CU\) until \S+; retrying it before then gets the same answer\.$/,
    );
    expect(error.message).not.toContain('used up');
  });

  it('an allowance used up: says so, and what the request costs', async () => {
    const text = await declareHugeBody('/v1/evm/verify/logs-bloom', BROKE_KEY);
    const error = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error;
    expect(error.message).toMatch(
      /^The account's compute-unit allowance \(0 CU\) is used up until \S+: this request costs 1 CU; retrying it before then gets the same answer\.$/,
    );
  });

  it('no place free (max_in_flight): 503 with the body unsent', async () => {
    const full = await startServer(
      testConfig({ host: '127.0.0.1', maxInFlight: 0, accounts: [auditorAccount(KEY, 'admission')] }),
      { logger: capturingLogger().logger },
    );
    try {
      const text = await declareHugeBody('/v1/evm/verify/receipt-root', KEY, full.port);
      expect(text).toMatch(/^HTTP\/1\.1 503 /);
      expect(text).toMatch(/\r\nretry-after: 1\r\n/i);
    } finally {
      await full.close();
    }
  });
});

describe('a keep-alive client after a refusal of a large body', () => {
  const huge = 'x'.repeat(32 * 1024 * 1024);
  it.each([
    ['an exhausted allowance', BROKE_KEY, 'logs-bloom', 429],
    ['an endpoint outside the entitlements', LIMITED_KEY, 'logs-bloom', 403],
  ])('%s: refused, and the next request on the same agent is answered', async (_, key, path, status) => {
    for (let i = 0; i < 3; i++) {
      const refused = await post(key, path, huge);
      expect(refused.status).toBe(status);
      expect(refused.headers.get('connection')).toBe('close');
      await refused.arrayBuffer();
      const next = await post(KEY, 'logs-bloom', smallBody);
      expect(next.status).toBe(200);
      await next.arrayBuffer();
    }
  });

  it('a raw client that sends the whole 32 MiB at once reads the whole 429, then an orderly close, not a reset', async () => {
    const body = Buffer.alloc(32 * 1024 * 1024, 0x20);
    const { text, ended } = await new Promise<{ text: string; ended: string }>((resolve) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve({ text, ended: 'end' }));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve({ text, ended: error.code ?? 'error' }));
      socket.write(
        `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BROKE_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body);
    });
    expect(text).toMatch(/^HTTP\/1\.1 429 /);
    expect(text).toContain('"limit_scope":"cu_allowance"');
    expect(ended).toBe('end');
  });
});
