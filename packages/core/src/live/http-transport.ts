/**
 * How the HTTP client sends a POST and receives its answer as a stream of chunks. By default over
 * Node's own http(s) modules, with a bounded pool of kept-alive connections; an injected `fetch`
 * (tests, a caller's own) is adapted to the same shape.
 *
 * Why not Node's global fetch by default: its pool (undici) has no bound, opening a new connection
 * whenever those it has are busy, however briefly (7 for 4 requests in flight, in
 * test/rpc-fetching.test.ts), and Node does not expose undici's Agent to bound it; an
 * `http.Agent` with `maxSockets` does. And loading undici, its web streams and `Response` cost a
 * CLI process about 20 ms of its start, more than a 30-block audit's fetching.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { addAbortSignal, pipeline, type Readable, type Transform } from 'node:stream';

// https (with tls and crypto) and zlib are loaded when an https URL or a compressed answer first
// needs them: about 5 ms of a CLI process's start that a plain-http audit never uses.
const https = () => process.getBuiltinModule('node:https');
const zlib = () => process.getBuiltinModule('node:zlib');

/** An answer whose status and headers are in; its body comes as chunks (decompressed). */
export interface RawAnswer {
  status: number;
  /** A header's value, or null. `content-length` is null when the body is decompressed. */
  header(name: string): string | null;
  /** The body's chunks; null when the answer has none. */
  body: AsyncIterable<Uint8Array> | null;
}

/** What a POST needs: its headers, its body, and the signal that aborts it (headers and body alike). */
export interface PostInit {
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

/** Sends a POST; resolves once the answer's status and headers are in. */
export type Transport = (url: string, init: PostInit) => Promise<RawAnswer>;

/** Statuses whose answer has no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** The decompressor of a `Content-Encoding` (deflate aside: see {@link inflated}), or none for an identity body. */
const DECOMPRESS: Record<string, () => Transform> = {
  gzip: () => zlib().createGunzip(),
  'x-gzip': () => zlib().createGunzip(),
  br: () => zlib().createBrotliDecompress(),
};

/**
 * Whether `first` and `second` begin a zlib stream (RFC 1950): method 8 (deflate), a window of at most 32 KiB, and the
 * check that makes the two bytes a multiple of 31. A bare deflate stream (RFC 1951) fails the first: its first byte
 * starts a block header, whose bits 1 and 2 (the block's type) are set unless the block is stored, and a stored block's
 * bit 3 is padding that compressors leave at zero.
 */
const isZlibHeader = (first: number, second: number): boolean =>
  (first & 0x0f) === 8 && first >> 4 <= 7 && ((first << 8) | second) % 31 === 0;

/**
 * `res`'s body through `decompressor`, ended when `signal` aborts. pipeline ends both on an error or an abort on either
 * side (the body's reader then fails), but once the whole compressed body is in, only the decompressor is left working:
 * without the signal a few KB of brotli went on to decompress up to the cap past the time limit and Ctrl-C.
 */
function decompressed(res: IncomingMessage, decompressor: Transform, signal: AbortSignal): Readable {
  return addAbortSignal(
    signal,
    pipeline(res, decompressor, () => undefined),
  );
}

/** The first `count` bytes of `stream`, given back to it (unshift) to be read again; fewer only where it ends first. */
function leadingBytes(stream: Readable, count: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let head = Buffer.alloc(0);
    const settle = (error?: Error) => {
      stream.off('readable', onReadable).off('end', onEnd).off('error', settle).off('close', onClose);
      if (error !== undefined) reject(error);
      else resolve(head);
    };
    const onReadable = () => {
      for (let piece: Buffer | null; head.length < count && (piece = stream.read() as Buffer | null) !== null;)
        head = Buffer.concat([head, piece]);
      if (head.length < count) return;
      stream.unshift(head);
      settle();
    };
    const onEnd = () => settle();
    const onClose = () => settle(new Error('aborted'));
    stream.on('readable', onReadable).on('end', onEnd).on('error', settle).on('close', onClose);
  });
}

/**
 * The body of a `Content-Encoding: deflate` answer, decompressed. RFC 9110 names the zlib format, but some servers and
 * proxies send a bare deflate stream under that name; browsers, curl and Node's fetch read both, told apart by the
 * first two bytes ({@link isZlibHeader}), and so does this: refusing the bare one would leave such a node unreadable.
 */
async function* inflated(res: IncomingMessage, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const head = await leadingBytes(res, 2);
  if (head.length < 2) {
    // A body of 0 or 1 byte has ended: zlib says what is wrong with it, as it does for gzip.
    yield* zlib().createInflate().end(head) as AsyncIterable<Uint8Array>;
    return;
  }
  const inflate = isZlibHeader(head[0]!, head[1]!) ? zlib().createInflate() : zlib().createInflateRaw();
  yield* decompressed(res, inflate, signal) as AsyncIterable<Uint8Array>;
}

/**
 * Ends an answer whose body is given up on (`signal` aborted: the size cap, the time limit, the caller's Ctrl-C) and its
 * connection with it. Node's abort of the request does not, once the whole body is in (Node 24 then only drains it): a
 * body left unread in a decompressor kept its connection busy in the pool, and where the node never closes an idle
 * connection, the next request waited for it for good.
 */
function endOnAbort(res: IncomingMessage, signal: AbortSignal): void {
  const end = () => {
    if (!res.readableEnded) res.destroy();
  };
  signal.addEventListener('abort', end, { once: true });
  res.once('close', () => signal.removeEventListener('abort', end));
}

/** A Node answer as a raw answer, its body decompressed as it streams from the socket. */
function rawAnswerOf(res: IncomingMessage, signal: AbortSignal): RawAnswer {
  endOnAbort(res, signal);
  const status = res.statusCode ?? 0;
  const headerOf = (name: string) => {
    const value = res.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  if (NO_BODY.has(status)) {
    res.resume();
    return { status, header: headerOf, body: null };
  }
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decompress = DECOMPRESS[encoding];
  if (decompress === undefined && encoding !== 'deflate') return { status, header: headerOf, body: res };
  const body = decompress === undefined ? inflated(res, signal) : decompressed(res, decompress(), signal);
  // The declared length is the compressed one: the cap must count what is decoded.
  return { status, header: (name) => (name.toLowerCase() === 'content-length' ? null : headerOf(name)), body };
}

/**
 * POSTs on at most `maxSockets` kept-alive connections per origin (requests beyond wait for one).
 * Like fetch, it asks for a compressed answer (receipts' hex JSON shrinks several times) and
 * decompresses it; the HTTP client's size cap counts the decompressed bytes, so a compressed bomb
 * is stopped too.
 * @example
 * const send = pooledTransport(4);
 * const answer = await send('http://127.0.0.1:8545', { headers: {}, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}', signal: AbortSignal.timeout(60_000) });
 */
export function pooledTransport(maxSockets: number): Transport {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets });
  let httpsAgent: HttpsAgent | undefined;
  const send = (url: URL, init: PostInit, mayRetry: boolean): Promise<RawAnswer> =>
    new Promise<RawAnswer>((resolve, reject) => {
      const options = {
        method: 'POST',
        headers: { 'Accept-Encoding': 'gzip, deflate, br', ...init.headers },
        signal: init.signal,
      };
      const onAnswer = (res: IncomingMessage) => resolve(rawAnswerOf(res, init.signal));
      let req: ClientRequest;
      if (url.protocol === 'https:') {
        const { Agent, request } = https();
        httpsAgent ??= new Agent({ keepAlive: true, maxSockets });
        req = request(url, { ...options, agent: httpsAgent }, onAnswer);
      } else req = httpRequest(url, { ...options, agent: httpAgent }, onAnswer);
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as it was reused (its idle timeout): nothing of the
        // request was taken, so it is sent again at once on a fresh connection, not backed off as a failure.
        if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET' && !init.signal.aborted)
          resolve(send(url, init, false));
        else reject(error);
      });
      req.end(init.body);
    });
  return (input, init) => send(new URL(input), init, true);
}

/**
 * A `fetch` (the global one, or a test's) as a transport.
 * @example
 * const send = fetchTransport(globalThis.fetch);
 */
export function fetchTransport(fetchFn: typeof fetch): Transport {
  return async (url, init) => {
    const response = await fetchFn(url, { method: 'POST', ...init });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      body: response.body as AsyncIterable<Uint8Array> | null,
    };
  };
}
