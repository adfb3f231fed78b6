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

/**
 * Prepares `server` for a shutdown with a deadline; returns the function that
 * shuts it down: it stops accepting at once, lets requests in progress finish,
 * each answered with `Connection: close` (so that its connection closes as the
 * response is sent), closes each connection once it has had no request in
 * progress for DRAIN_IDLE_GRACE_MS, and after `deadlineMs` closes every
 * connection still open, so one slow client cannot hold a shutdown past what a
 * supervisor waits before it kills the process. That function resolves with the
 * number of connections cut at the deadline with a request in progress; each is
 * destroyed with an error of code CUT_AT_SHUTDOWN.
 */
export function drainable(server: Server): (deadlineMs: number) => Promise<number> {
  let draining = false;
  // Each open connection: since when it has had no request in progress (undefined while one is), and how many are.
  const idleSince = new Map<Socket, number | undefined>();
  const inProgress = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    idleSince.set(socket, performance.now());
    socket.once('close', () => {
      idleSince.delete(socket);
      inProgress.delete(socket);
    });
  });
  // Responses whose headers may not be out yet: once the server drains, each says `Connection: close`, so that a
  // keep-alive client sends its next request on a new connection (refused at once) instead of on this one, which is
  // closed as the response ends.
  const unsent = new Set<ServerResponse>();
  const sayClose = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    if (idleSince.has(socket)) {
      inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
      idleSince.set(socket, undefined);
    }
    if (draining) sayClose(response);
    else unsent.add(response);
    response.once('close', () => {
      unsent.delete(response);
      if (!idleSince.has(socket)) return;
      const left = inProgress.get(socket)! - 1;
      inProgress.set(socket, left);
      if (left === 0) idleSince.set(socket, performance.now());
    });
  });
  return (deadlineMs) =>
    new Promise((resolve, reject) => {
      draining = true;
      for (const response of unsent) sayClose(response);
      unsent.clear();
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
}
