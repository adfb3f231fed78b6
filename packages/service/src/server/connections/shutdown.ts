import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * The code of the error a connection cut at the shutdown deadline is destroyed with: its socket's `errored` tells the
 * request log that the server ended its request, not the client (client.ts).
 */
export const CUT_AT_SHUTDOWN = 'ERR_SHUTDOWN_DEADLINE';

/**
 * How long a connection must have had no request in progress, once the server drains, before it is closed: a request
 * its client wrote just after its last answer (keep-alive) may have reached the server and not yet been read, and
 * closing the connection then would drop it unanswered. A request read within it is answered, `Connection: close`.
 */
export const DRAIN_IDLE_GRACE_MS = 250;

/** How often the connections idle past their grace are looked for while the server drains. */
const SWEEP_MS = 50;

/** A server prepared for a shutdown ({@link drainable}). */
export interface Drainable {
  /**
   * Stops accepting at once and drains: resolves, once every connection has closed, with the number cut at
   * `deadlineMs` with a request in progress.
   */
  drain(deadlineMs: number): Promise<number>;
  /**
   * Whether a request is to be dropped unread: it came pipelined behind an answer that has gone out saying
   * `Connection: close` (a refusal before its body was read, or the last answer while the server drains), so no answer
   * of it could follow (HTTP/1.1: its client sends it again). Neither verified nor charged.
   */
  dropped(request: IncomingMessage): boolean;
}

/**
 * Makes `response` keep its connection open, whatever `Connection: close` it is written with, when a later request on
 * the connection has been read by then (one of `pending` after it): the parser reads a connection's requests in order,
 * so this request's body was read whole (a refusal closes only to leave a body unread), and closing would leave the
 * later request, verified and charged, without its answer. Decided as the head is written, so that a request read
 * after it is one {@link Drainable.dropped} drops.
 */
function keepOpenForLater(response: ServerResponse, pending: readonly ServerResponse[], onClose: () => void): void {
  const writeHead = response.writeHead.bind(response);
  response.writeHead = ((...args: Parameters<typeof writeHead>) => {
    const later = pending.indexOf(response) < pending.length - 1;
    const headers = args.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as
      Record<string, unknown> | undefined;
    const given = Object.keys(headers ?? {}).filter((name) => name.toLowerCase() === 'connection');
    const closes = response.getHeader('Connection') === 'close' || given.some((name) => headers![name] === 'close');
    if (closes && later) {
      response.removeHeader('Connection');
      for (const name of given) delete headers![name];
    } else if (closes) onClose();
    return writeHead(...args);
  }) as typeof response.writeHead;
}

/**
 * Prepares `server` for a shutdown with a deadline: {@link Drainable.drain} stops accepting at once, lets requests in
 * progress finish, the last on each connection answered with `Connection: close` (so that the connection closes as it
 * is sent; pipelined answers before it keep theirs, so that each is sent), closes each connection once it has had no
 * request in progress for DRAIN_IDLE_GRACE_MS, and after `deadlineMs` closes every connection still open, so one slow
 * client cannot hold a shutdown past what a supervisor waits before it kills the process. It resolves with the number
 * of connections cut at the deadline with a request in progress; each is destroyed with an error of code
 * CUT_AT_SHUTDOWN. Its 'request' listener runs before the server's own, which asks {@link Drainable.dropped} first.
 */
export function drainable(server: Server): Drainable {
  let draining = false;
  // Each open connection: since when it has had no request in progress (undefined while one is), and its responses
  // not yet ended, in the order of their requests (pipelined ones are answered in that order).
  const idleSince = new Map<Socket, number | undefined>();
  const responses = new Map<Socket, ServerResponse[]>();
  const dropped = new WeakSet<IncomingMessage>();
  // The connections an answer has closed (its head written saying so): a request read on one after is dropped. The
  // socket reads on for a while after such an answer (connections.ts drains what the client sent), and Node parses
  // and hands on what it reads.
  const closing = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    idleSince.set(socket, performance.now());
    responses.set(socket, []);
    socket.once('close', () => {
      idleSince.delete(socket);
      responses.delete(socket);
    });
  });
  const saysClose = (response: ServerResponse) => response.getHeader('Connection') === 'close';
  /** Moves `Connection: close` to the last response of `socket`, where the ones before it have not gone out. */
  const closeAfterLast = (socket: Socket) => {
    const pending = responses.get(socket) ?? [];
    for (const response of pending.slice(0, -1))
      if (!response.headersSent && saysClose(response)) response.removeHeader('Connection');
    const last = pending.at(-1);
    if (last !== undefined && !last.headersSent) last.setHeader('Connection', 'close');
  };
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const pending = responses.get(socket);
    if (pending === undefined) return;
    if (closing.has(socket) || socket.writableEnded) {
      dropped.add(request);
      return;
    }
    pending.push(response);
    keepOpenForLater(response, pending, () => closing.add(socket));
    idleSince.set(socket, undefined);
    if (draining) closeAfterLast(socket);
    response.once('close', () => {
      const left = responses.get(socket);
      if (left === undefined) return;
      left.splice(left.indexOf(response), 1);
      if (left.length === 0) idleSince.set(socket, performance.now());
    });
  });
  const drain = (deadlineMs: number) =>
    new Promise<number>((resolve, reject) => {
      draining = true;
      for (const socket of responses.keys()) closeAfterLast(socket);
      let cut = 0;
      const sweep = setInterval(() => {
        const now = performance.now();
        for (const [socket, since] of idleSince)
          if (since !== undefined && now - since >= DRAIN_IDLE_GRACE_MS) socket.destroy();
      }, SWEEP_MS).unref();
      const deadline = setTimeout(() => {
        for (const [socket, since] of idleSince) {
          if (since !== undefined) {
            socket.destroy();
            continue;
          }
          cut++;
          socket.destroy(
            Object.assign(new Error('the server closed the connection at its shutdown deadline'), {
              code: CUT_AT_SHUTDOWN,
            }),
          );
        }
      }, deadlineMs);
      // net's close: it stops accepting, and calls back once every connection has closed. http's close() would also
      // close the connections idle at this moment, with no grace for a request on its way.
      NetServer.prototype.close.call(server, (error?: Error) => {
        clearInterval(sweep);
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(cut);
      });
    });
  return { drain, dropped: (request) => dropped.has(request) };
}
