/**
 * The 404 of a path no route has, over real HTTP on loopback (raw requests, so the path goes as written, never
 * normalised by a client): its message echoes the path as sent, still percent-encoded, never decoded into a line break
 * or another character the client did not write; at most its first 200 characters; escaped where a character is not
 * printable ASCII; without the query, which may carry what is not the server's to repeat.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownPath } from '../packages/service/src/server/responses.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { capturingLogger, testConfig } from './helpers/server.js';

let server: RunningServer;
const log = capturingLogger();

beforeAll(async () => {
  server = await startServer(testConfig({ host: '127.0.0.1' }), { logger: log.logger });
});
afterAll(() => server?.close());

/** The status and error envelope of `GET target` sent as written, on a connection of its own. */
function get(target: string): Promise<{ status: number; error: any }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => {
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), error: JSON.parse(body!).error });
    });
    socket.on('error', reject);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

/** An answer read off a connection: its status, headers (names in lower case) and body. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The answers to `GET target` for each of `targets`, sent as written one after another on one connection (the last with
 * `Connection: close`), read until the server ends the connection.
 */
function exchange(...targets: string[]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => {
      const answers: Answer[] = [];
      let rest = Buffer.concat(chunks).toString('latin1');
      while (rest.length > 0) {
        const end = rest.indexOf('\r\n\r\n');
        const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        const length = Number(headers['content-length'] ?? 0);
        const body = Buffer.from(rest.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
        answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
        rest = rest.slice(end + 4 + length);
      }
      resolve(answers);
    });
    socket.on('error', reject);
    socket.write(
      targets
        .map(
          (target, i) =>
            `GET ${target} HTTP/1.1\r\nHost: x\r\n${i === targets.length - 1 ? 'Connection: close\r\n' : ''}\r\n`,
        )
        .join(''),
    );
  });
}

describe('404 of an unknown path', () => {
  it.each(['/v1/a\\b', '/v1/usage\\', '/\\'])(
    'answers a raw backslash in the path (%s) as any unknown path: the envelope, the backslash echoed encoded, logged, the connection kept (was: an empty 400)',
    async (target) => {
      const [answer, next] = await exchange(target, '/v1/health');
      expect(answer!.status).toBe(404);
      expect(answer!.headers['content-type']).toMatch(/^application\/json/);
      const requestId = answer!.headers['x-request-id'];
      expect(requestId).toBeDefined();
      const { error } = JSON.parse(answer!.body);
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toBe(`No endpoint GET ${target.replaceAll('\\', '%5C')}.`);
      expect(answer!.headers['connection']).not.toBe('close');
      // The connection stays open for the next request, as after any 404.
      expect(next!.status).toBe(200);
      expect(log.lines.find((line) => line.request_id === requestId)).toMatchObject({ status: 404, method: 'GET' });
    },
  );

  it('keeps a backslash in the query, which is no part of the path a route matches', async () => {
    const [answer] = await exchange('/v1/nothing?q=a\\b');
    expect(answer!.status).toBe(404);
    expect(JSON.parse(answer!.body).error.message).toBe('No endpoint GET /v1/nothing.');
  });

  it('echoes the path as sent: percent-encoded, not decoded into a line break (was: decoded)', async () => {
    const { status, error } = await get('/v1/no%2Fsuch%0Apath');
    expect(status).toBe(404);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('No endpoint GET /v1/no%2Fsuch%0Apath.');
  });

  it('echoes bytes a decoder would turn into other characters as they were sent (was: decoded into U+202E, a right-to-left override)', async () => {
    const { error } = await get('/v1/%E2%80%AEx');
    expect(error.message).toBe('No endpoint GET /v1/%E2%80%AEx.');
  });

  it('echoes at most the first 200 characters of a long path, and says how long it was (was: all of it)', async () => {
    const path = `/v1/${'a'.repeat(4996)}`;
    const { status, error } = await get(path);
    expect(status).toBe(404);
    expect(error.message).toBe(`No endpoint GET ${path.slice(0, 200)}… (5000 characters; the first 200 shown).`);
  });

  it('cuts a long path before a percent-escape the 200th character would split, and says so (was: `…aaa%E…`)', async () => {
    const path = `/v1/${'a'.repeat(194)}%E2%80%AE`;
    const { error } = await get(path);
    expect(error.message).toBe(`No endpoint GET ${path.slice(0, 198)}… (207 characters; the first 198 shown).`);
    // An escape ending on the 200th character is shown whole; one begun on it is left out whole.
    expect(shownPath(`/v1/${'a'.repeat(193)}%E2%80%AE`)).toMatch(/a%E2… \(206 characters; the first 200 shown\)$/);
    expect(shownPath(`/v1/${'a'.repeat(195)}%E2%80%AE`)).toMatch(/a… \(208 characters; the first 199 shown\)$/);
  });

  it('escapes what a path cannot carry as it is, which a client sent unencoded (was: echoed as it came)', async () => {
    const { error } = await get('/v1/a"b<c>`{d}|^');
    expect(error.message).toBe('No endpoint GET /v1/a%22b%3Cc%3E%60%7Bd%7D%7C%5E.');
  });

  it('escapes a control or a character beyond ASCII, which Node refuses but a request made in process may carry', () => {
    expect(shownPath('/v1/a\nb\u202ec\\d')).toBe('/v1/a%0Ab%E2%80%AEc%5Cd');
  });

  it('leaves the query out', async () => {
    const { error } = await get('/v1/nothing?key=secret');
    expect(error.message).toBe('No endpoint GET /v1/nothing.');
  });

  it('a known path asked with another method still names the path its route answers', async () => {
    const { error } = await get('/v1/evm/verify/receipt-root');
    expect(error.message).toBe(
      'No endpoint GET /v1/evm/verify/receipt-root: /v1/evm/verify/receipt-root answers POST, OPTIONS.',
    );
  });
});
