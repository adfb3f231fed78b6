import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

/** The status logged for a request whose client closed the connection before the answer (nginx's 499). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Whether the client of this request has gone. The abort signal fires a few turns of the event
 * loop after the connection drops; the socket's own state (closed, or ended by the client, which
 * Node's server answers by closing) is known as soon as the loop has read the close.
 */
export function clientLeft(c: Context): boolean {
  if (c.req.raw.signal.aborted) return true;
  const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket;
  return socket !== undefined && (socket.destroyed || socket.readableEnded);
}

/**
 * Lets the event loop poll the sockets once: a client that hung up while an operation held the
 * loop is seen only then. The continuation runs in the poll phase, so the first check phase comes
 * before the next poll; the second one comes after it.
 */
export async function readPendingCloses(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether the request announces a body (a length above 0, or chunks). */
export const hasBody = (request: Request) =>
  request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? 0) > 0;
