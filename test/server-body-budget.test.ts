/**
 * `max_body_bytes_in_flight` over real HTTP on loopback: a body that would take the server past the
 * body bytes it may hold at once is refused 503 unread, and the bytes come back once the bodies
 * held are answered, or their clients leave before sending all of them.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const KEY = 'evmi_body-budget-test-key-0123456789abcdefghijk';
/** A logs-bloom body padded with spaces to 60,000 bytes: two of them exceed the 100,000 bytes allowed. */
const BODY = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] }).padEnd(60_000, ' ');
let server: RunningServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startServer(
    testConfig({
      host: '127.0.0.1',
      bodyLimitBytes: 64 * 1024,
      maxBodyBytesInFlight: 100_000,
      accounts: [auditorAccount(KEY, 'budget')],
    }),
    { logger: capturingLogger().logger },
  );
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.close();
});

/** Sends the headers of a POST of BODY (and `Expect: 100-continue`), and waits for the server's first answer line. */
async function started(): Promise<{ socket: Socket; text: () => string; next: (pattern: RegExp) => Promise<void> }> {
  const socket = connect(server.port, '127.0.0.1');
  sockets.push(socket);
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const next = async (pattern: RegExp) => {
    while (!pattern.test(text)) {
      if (socket.destroyed) throw new Error(`closed, having received ${JSON.stringify(text)}`);
      await new Promise((resolve) => {
        socket.once('data', resolve);
        socket.once('close', resolve);
      });
    }
  };
  socket.write(
    `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  return { socket, text: () => text, next };
}

const post = () =>
  fetch(`${server.url}/v1/evm/verify/logs-bloom`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: BODY,
  });

/** `text` as one chunk of a chunked body. */
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** A POST of BODY in chunks, as one whose size the client does not know (a stream). */
const postChunked = () =>
  fetch(`${server.url}/v1/evm/verify/logs-bloom`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: new Blob([BODY]).stream(),
    duplex: 'half',
  });

describe('max_body_bytes_in_flight', () => {
  it('refuses 503 a body beyond the bytes held, and serves it once they are given back', async () => {
    const held = await started();
    await held.next(/^HTTP\/1\.1 100 /);
    // Its body is being read (the server said 100 Continue and waits for it): its 60,000 bytes are held.
    await expect.poll(async () => (await post()).status).toBe(503);
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const envelope = (await refused.json()) as { error: { code: string; message: string; retryable: boolean } };
    expect(envelope.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(envelope.error.message).toContain('100000 bytes');
    expect(envelope.error.retryable).toBe(true);
    held.socket.write(BODY);
    await held.next(/HTTP\/1\.1 200 /);
    expect((await post()).status).toBe(200);
  });

  it('budgets a chunked body at its limit before reading it: a second one is refused 503 while the first is read', async () => {
    const socket = connect(server.port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    // A chunked body's size is not known before its end: it holds its 65,536-byte limit while its first chunk waits.
    socket.write(
      `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(BODY.slice(0, 100))}`,
    );
    await expect.poll(async () => (await postChunked()).status).toBe(503);
    socket.write(`${chunk(BODY.slice(100))}0\r\n\r\n`);
    await expect.poll(() => text).toMatch(/^HTTP\/1\.1 200 /);
    expect((await postChunked()).status).toBe(200);
  });

  it('gives back the bytes of a body whose client leaves halfway through it', async () => {
    const leaver = await started();
    await leaver.next(/^HTTP\/1\.1 100 /);
    leaver.socket.write(BODY.slice(0, BODY.length / 2));
    await expect.poll(async () => (await post()).status).toBe(503);
    // The body never ends: its read fails at the close, and its 60,000 bytes come back.
    leaver.socket.destroy();
    await expect.poll(async () => (await post()).status).toBe(200);
  });
});
