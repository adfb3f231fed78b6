/**
 * A `fetch` over Node's own http(s) modules with a bounded pool of kept-alive connections. Node's
 * global fetch (undici) keeps connections alive too, but its default pool has no bound: it opens
 * a new connection whenever those it has are busy, however briefly (7 for 4 requests in flight, in
 * test/rpc-fetching.test.ts), and Node does not expose undici's Agent to bound it. An
 * `http.Agent` with `maxSockets` does: requests beyond it wait for a connection. Like fetch, it asks
 * for a compressed answer (receipts' hex JSON shrinks several times) and decompresses it; the size
 * cap of the HTTP client counts the decompressed bytes, so a compressed bomb is stopped too.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Statuses whose answer has no body, which `Response` refuses one for. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** The decompressor of a `Content-Encoding`, or none for an identity body. */
const DECOMPRESS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The answer as a fetch `Response`, its body streamed from the socket (decompressed). */
function responseOf(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  const status = res.statusCode ?? 0;
  if (NO_BODY.has(status)) {
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage ?? '', headers });
  }
  const decompress = DECOMPRESS[(res.headers['content-encoding'] ?? '').trim().toLowerCase()];
  let body: Readable = res;
  if (decompress !== undefined) {
    // The declared length is the compressed one: the cap must count what is decoded.
    headers.delete('content-length');
    headers.delete('content-encoding');
    // pipeline: an error or an abort on either side ends both (the body's reader then fails).
    body = pipeline(res, decompress(), () => undefined);
  }
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
}

/**
 * A `fetch` (the subset the live sources use: a method, string headers, a string body, a signal)
 * on at most `maxSockets` kept-alive connections per origin.
 * @example
 * const post = pooledFetch(4);
 * const answer = await post('http://127.0.0.1:8545', { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
 */
export function pooledFetch(maxSockets: number): typeof fetch {
  const http = new HttpAgent({ keepAlive: true, maxSockets });
  const https = new HttpsAgent({ keepAlive: true, maxSockets });
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const secure = url.protocol === 'https:';
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: init.method ?? 'GET',
          headers: { 'Accept-Encoding': 'gzip, deflate, br', ...(init.headers as Record<string, string> | undefined) },
          agent: secure ? https : http,
          ...(init.signal && { signal: init.signal }),
        },
        (res) => {
          try {
            resolve(responseOf(res));
          } catch (error) {
            res.destroy();
            reject(error instanceof Error ? error : new Error(String(error))); // a status Response refuses (over 599)
          }
        },
      );
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
