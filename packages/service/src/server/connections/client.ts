import type { ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { malformedStatus } from './client-errors.js';
import { CUT_AT_SHUTDOWN } from './shutdown.js';

/** The status logged for a request whose client closed the connection before the answer (nginx's 499). */
export const CLIENT_CLOSED_REQUEST = 499;

/** The status logged for a request whose connection the server cut at its shutdown deadline, unanswered (nginx's 444). */
export const CUT_AT_SHUTDOWN_STATUS = 444;

/** How the server itself ended a request's connection: the status logged for it, and the log line's message. */
export interface ServerEnded {
  status: number;
  message: string;
}

/**
 * Whether the server itself ended this request's connection, and how, from the error its socket was destroyed with:
 * Node cut it off at its deadline (`body_timeout_ms`), answered 408 `REQUEST_TIMEOUT` (answerClientErrors); Node's parser refused its bytes,
 * answered 400 or 431 (answerClientErrors); or the shutdown deadline cut it, unanswered. Such a request is no client's
 * leaving, though its socket is gone as when one leaves; undefined for any other.
 */
export function serverEnded(c: Context): ServerEnded | undefined {
  const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket;
  const error: NodeJS.ErrnoException | null | undefined = socket?.errored;
  if (error?.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'request timed out' };
  if (error?.code === CUT_AT_SHUTDOWN) return { status: CUT_AT_SHUTDOWN_STATUS, message: 'request cut at shutdown' };
  const status = malformedStatus(error);
  return status === undefined ? undefined : { status, message: 'request malformed' };
}

/**
 * Asks a client that has ended its side whether it is still there: a `100 Continue` ahead of an
 * answer not yet begun (where it cannot split one), which an HTTP/1.1 client ignores and a closed
 * socket answers with a reset. The reset is seen by the next write: the socket is then destroyed,
 * and its requests aborted.
 */
export function askClient(response: ServerResponse): void {
  if (!response.headersSent && !response.destroyed && response.req.httpVersion === '1.1') response.writeContinue();
}

/**
 * Whether the client of this request has gone. The abort signal fires a few turns of the event
 * loop after the connection drops; the socket's own state (closed) is known as soon as the loop has
 * read the close. A client that has only ended its side may be waiting for the answer (a
 * half-close, after its request) or gone (a close): it is asked again (askClient), so that one
 * gone since it was first asked, when its side ended, is seen now.
 */
export function clientLeft(c: Context): boolean {
  if (c.req.raw.signal.aborted) return true;
  const env = c.env as Partial<HttpBindings> | undefined;
  const socket = env?.incoming?.socket;
  if (socket?.readableEnded && !socket.destroyed && env?.outgoing !== undefined) askClient(env.outgoing);
  return seenGone(c);
}

/**
 * Resolves once this request's answer is the one its connection sends next, or the connection has closed. Node answers
 * a connection's pipelined requests in order: the answer of one behind others is held until theirs are written, and
 * goes with the connection if it closes first (the client's close, the parser refusing later bytes, a deadline). A
 * request is charged only on its turn (verify-routes), so none is charged for an answer that was never written.
 */
export function itsTurn(c: Context): Promise<void> {
  const env = c.env as Partial<HttpBindings> | undefined;
  const outgoing = env?.outgoing;
  const socket = env?.incoming?.socket;
  // `socket`: Node assigns a response its connection's socket when it is next (node:_http_server), with 'socket'.
  if (outgoing === undefined || socket === undefined || outgoing.socket !== null || socket.destroyed)
    return Promise.resolve();
  return new Promise((resolve) => {
    const next = () => {
      outgoing.off('socket', next);
      socket.off('close', next);
      resolve();
    };
    outgoing.once('socket', next);
    socket.once('close', next);
  });
}

/**
 * Whether the client of this request is known to have gone, without asking it (clientLeft asks): for the request log
 * and the metrics, which tell what the route saw and decided (charged or not) and so add no `100 Continue` of their
 * own to a client that half-closed.
 */
export function seenGone(c: Context): boolean {
  if (c.req.raw.signal.aborted) return true;
  const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket;
  if (socket === undefined) return false;
  // A write that failed errs the socket at once; it is destroyed a tick later.
  return socket.destroyed || socket.errored !== null;
}

/**
 * Lets the event loop poll the sockets once: a client that hung up while an operation held the
 * loop is seen only then. The continuation runs in the poll phase, so the first check phase comes
 * before the next poll; the second one comes after it.
 */
export async function readPendingCloses(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Whether a request announces a body (a length above 0, or chunks), by `header`, its value of a header (absent: null or
 * undefined): a web request's `headers.get`, or Node's headers.
 */
export const hasBody = (header: (name: 'content-length' | 'transfer-encoding') => string | null | undefined) =>
  (header('transfer-encoding') ?? undefined) !== undefined || Number(header('content-length') ?? 0) > 0;
