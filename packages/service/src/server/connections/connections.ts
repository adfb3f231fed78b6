import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { askClient } from './client.js';
import { type BoundAction, type ConnectionCaps, ConnectionBounds } from './connection-bounds.js';

/** When a client that ended its side is asked again: a round trip on most networks. */
const ASK_AGAIN_MS = 100;

/**
 * How long a connection answered before its request's body was all read (a refusal, closing it) is
 * still read after the answer, the rest of the body discarded: a close with bytes unread resets the
 * connection, and a client still sending could lose the answer to the reset. A client stops sending
 * once it has the answer; one that does not is cut at this bound (or sooner, by the adaptor's drain).
 */
const LINGER_MS = 1000;

/**
 * What connections may hold of the server: how many at once (in all, and from one address), and for
 * one, requests worked on at once, time to send its first request and time without taking any output.
 */
export interface ConnectionLimits extends ConnectionCaps {
  /** Milliseconds a new connection has, from its accept, to send its first request's headers. */
  headerTimeoutMs: number;
  /** Requests of one connection worked on or owed an answer at once; its socket is not read beyond them. */
  maxInFlightPerConnection: number;
  /** Milliseconds a connection may leave output unsent without taking any of it before it is closed. */
  sendTimeoutMs: number;
  /** Bytes of an answer computed whole handed to the socket at a time (endInPieces); a string's UTF-16 code units. */
  maxResponseBufferBytes: number;
}

/**
 * Why the server closed a connection itself: a bound on connections (`refused`: no idle one to close
 * for it; `evicted`: the oldest idle, closed for a new one), no request within the header deadline
 * from its accept (`silent`), or its output untaken for the send deadline (`stalled`).
 */
export type ClosedFor = BoundAction | 'silent' | 'stalled';

/**
 * The flag and parser behind Node's own pipelining backpressure (node:_http_server): with `_paused`
 * set, the server stops its parser once the bytes it was given are parsed, and reads no more.
 */
interface HttpSocket extends Socket {
  destroySoon(): void;
  _paused?: boolean;
  parser?: { pause(): void; resume(): void } | null;
}

/**
 * Makes `response.end(answer)`, for an answer computed whole (a verify result: the adaptor ends the response with it),
 * write it `pieceBytes` at a time, each once the socket has taken the one before ('drain'), and end with the last, as
 * a streamed answer is written. Handed to the socket in one piece, an answer stays whole in its `writableLength` until
 * the kernel has taken its last byte, so a client reading it steadily showed no progress (Connection.stalled) and one
 * that took longer than the send deadline to read it was cut. The head is written already (writeHead, with the
 * answer's length), so the bytes sent are the same. A string is cut every `pieceBytes` UTF-16 code units, never inside
 * a surrogate pair, and each piece is encoded as it is written: no copy of the whole answer is made at once.
 */
function endInPieces(response: ServerResponse, pieceBytes: number): void {
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.end = ((answer?: unknown, ...rest: unknown[]) => {
    // An encoding (rest[0] a string) could be one whose characters a cut would split (hex, base64): left whole.
    if (
      !response.headersSent ||
      typeof rest[0] === 'string' ||
      !(typeof answer === 'string' || answer instanceof Uint8Array) ||
      answer.length <= pieceBytes
    )
      return end(answer, ...rest);
    let at = 0;
    const writeOn = (): void => {
      for (;;) {
        let to = Math.min(at + pieceBytes, answer.length);
        if (typeof answer === 'string' && isHighSurrogate(answer.charCodeAt(to - 1))) to--;
        const piece = typeof answer === 'string' ? answer.slice(at, to) : answer.subarray(at, to);
        at = to;
        if (at === answer.length) return void end(piece, ...rest);
        // Once the connection is closed no 'drain' comes, and the rest is dropped with the response.
        if (!response.write(piece)) return void response.once('drain', writeOn);
      }
    };
    writeOn();
    return response;
  }) as ServerResponse['end'];
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** One connection: its requests in progress, the ones parsed behind them, and the progress of its output. */
class Connection {
  /** Its requests' responses being worked on or sent, oldest (the one on the socket) first. */
  readonly answering: ServerResponse[] = [];
  /** Requests parsed beyond the bound, waiting their turn; while any wait, the socket is not read. */
  readonly waiting: Array<[IncomingMessage, ServerResponse]> = [];
  /** Its latest request; until its body is all in, closing the connection lingers. */
  latest: IncomingMessage | undefined;
  #held = false;
  #lingering = false;
  /** Output bytes the client had taken when last seen moving, and when that was (at first, its accept). */
  #taken = 0;
  #movedAt = performance.now();

  constructor(
    readonly socket: HttpSocket,
    /** Its deadline for a first request, from its accept; cleared by that request. */
    private readonly silent: NodeJS.Timeout,
  ) {}

  /** A request came: the deadline from the accept is met (Node's own deadlines take it from here). */
  firstRequest(): void {
    clearTimeout(this.silent);
  }

  /**
   * The client has ended its side: a half-close, awaiting the answer, or a close, gone. It is
   * asked (askClient) now, and once more a moment later, when a gone client's reset has come back,
   * so that a request of a client gone is aborted (its job dropped from the pool's queue) rather
   * than worked on.
   */
  askIfGone(): void {
    const ask = () => this.answering[0] !== undefined && askClient(this.answering[0]);
    ask();
    setTimeout(ask, ASK_AGAIN_MS).unref();
  }

  /**
   * Node's close after an answer that says `Connection: close` (destroySoon: end, then destroy once
   * the answer is out), made a lingering close while the latest request's body is unread: the answer
   * and a FIN go out, the body's rest is read and dropped for LINGER_MS, then the socket is destroyed.
   * A second call (the adaptor's drain giving up) destroys it at once.
   */
  closeSoon(destroySoon: () => void): void {
    if (this.latest?.complete !== false) return destroySoon();
    if (this.#lingering) return void this.socket.destroy();
    this.#lingering = true;
    this.socket.end();
    const cut = setTimeout(() => this.socket.destroy(), LINGER_MS);
    cut.unref();
    this.socket.once('close', () => clearTimeout(cut));
  }

  /** Stops reading the socket; `parsing`: called while Node's parser runs, which then pauses itself. */
  hold(parsing: boolean): void {
    this.#held = true;
    this.socket._paused = true;
    if (!parsing) this.socket.parser?.pause();
    this.socket.pause();
  }

  /** Reads the socket again, once no request waits. */
  release(): void {
    if (!this.#held || this.waiting.length > 0) return;
    this.#held = false;
    this.socket._paused = false;
    this.socket.parser?.resume();
    this.socket.resume();
  }

  /**
   * Whether the client has left output untaken for `timeoutMs`. Bytes handed to the socket and not
   * yet in the kernel are `writableLength`; `bytesWritten` counts them too, so the difference is
   * what the kernel has taken, which grows only as the client reads.
   */
  stalled(now: number, timeoutMs: number): boolean {
    const socket = this.socket;
    if (socket.destroyed) return false;
    const taken = socket.bytesWritten - socket.writableLength;
    if (socket.writableLength === 0 || taken !== this.#taken) {
      this.#taken = taken;
      this.#movedAt = now;
      return false;
    }
    return now - this.#movedAt >= timeoutMs;
  }
}

/**
 * Serves `server`'s requests with `handle`, one connection held to `limits`: once
 * `maxInFlightPerConnection` of its requests are unanswered (an answer counts until the kernel has
 * taken all of it), its socket is no longer read, and requests already parsed wait their turn, so a
 * client that pipelines without reading cannot queue unbounded work; a connection whose output
 * makes no progress for `sendTimeoutMs` is closed, so a client that never reads cannot hold its
 * answer's memory. A client that half-closes is answered; one that closed outright is told
 * apart by the reset its socket answers a `100 Continue` with (askClient), and its requests are
 * aborted. Connections are held to ConnectionBounds (`maxConnections`, `maxConnectionsPerAddress`),
 * and one that has sent no request `headerTimeoutMs` after its accept is closed, so a client that
 * opens connections and sends nothing cannot hold them. `onClosed` is told of each connection
 * closed for a bound or a deadline.
 */
export function serveWithLimits(
  server: Server,
  // The adaptor's listener settles its promise itself: a failed request is answered 500.
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<unknown>,
  limits: ConnectionLimits,
  onClosed: (reason: ClosedFor, socket: Socket) => void = () => {},
): void {
  const connections = new Map<Socket, Connection>();
  const bounds = new ConnectionBounds(limits, onClosed);
  server.on('connection', (socket: HttpSocket) => {
    if (!bounds.accept(socket)) return;
    // Node counts its header deadline from the first byte (and answers 408 past it); a client that
    // sends none is closed here.
    const silent = setTimeout(() => {
      if (socket.bytesRead > 0) return;
      onClosed('silent', socket);
      socket.destroy();
    }, limits.headerTimeoutMs);
    silent.unref();
    const connection = new Connection(socket, silent);
    connections.set(socket, connection);
    socket.once('close', () => {
      connection.firstRequest();
      bounds.closed(socket);
      connections.delete(socket);
      // Requests parsed but never started: nobody is left to answer.
      connection.waiting.length = 0;
    });
    socket.on('end', () => connection.askIfGone());
    const destroySoon = socket.destroySoon.bind(socket);
    socket.destroySoon = () => connection.closeSoon(destroySoon);
    // Node resumes a socket it paused once its own output drains; a held connection stays held.
    socket.on('resume', () => {
      if (connection.waiting.length > 0) connection.hold(false);
    });
  });

  const start = (connection: Connection, request: IncomingMessage, response: ServerResponse) => {
    endInPieces(response, limits.maxResponseBufferBytes);
    connection.answering.push(response);
    connection.latest = request;
    response.once('close', () => {
      connection.answering.splice(connection.answering.indexOf(response), 1);
      const next = connection.waiting.shift();
      // Started on the next turn of the event loop, not from this answer's end: an answer the kernel takes at once
      // ends within the same turn, so a client that pipelines cheap requests had each started from the last one's end,
      // and no other connection was read until all were answered (health 7 s behind 3,000 requests for
      // /v1/openapi.json, a user check).
      if (next !== undefined)
        setImmediate(() => (connection.socket.destroyed ? undefined : start(connection, ...next)));
      else if (connection.answering.length === 0) bounds.idle(connection.socket);
      connection.release();
    });
    void handle(request, response);
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // Node emits 'connection' for a socket before any of its requests.
    const connection = connections.get(request.socket)!;
    connection.firstRequest();
    bounds.busy(connection.socket);
    if (connection.answering.length < limits.maxInFlightPerConnection) return start(connection, request, response);
    connection.waiting.push([request, response]);
    connection.hold(true);
  });

  // Checked a few times per deadline, at most every second, as Node checks its request deadlines.
  const period = Math.max(1, Math.min(1000, Math.ceil(limits.sendTimeoutMs / 4)));
  const watch = setInterval(() => {
    const now = performance.now();
    for (const [socket, connection] of connections)
      if (connection.stalled(now, limits.sendTimeoutMs)) {
        onClosed('stalled', socket);
        socket.destroy();
      }
  }, period);
  watch.unref();
  server.once('close', () => clearInterval(watch));
}
