import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The code of the error a connection cut at the shutdown deadline is destroyed with: its socket's `errored` tells the
 * request log that the server ended its request, not the client (client.ts).
 */
export const CUT_AT_SHUTDOWN = 'ERR_SHUTDOWN_DEADLINE';

/**
 * Prepares `server` for a shutdown with a deadline; returns the function that
 * shuts it down: it stops accepting at once, lets requests in progress finish,
 * each answered with `Connection: close`, closes each connection as its last
 * response is sent, and after `deadlineMs` closes every connection still open,
 * so one slow client cannot hold a shutdown past what a supervisor waits before
 * it kills the process. That function resolves with the number of connections
 * cut at the deadline; each is destroyed with an error of code CUT_AT_SHUTDOWN.
 */
export function drainable(server: Server): (deadlineMs: number) => Promise<number> {
  let draining = false;
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  // Responses whose headers may not be out yet: once the server drains, each says `Connection: close`, so that a
  // keep-alive client sends its next request on a new connection (refused at once) instead of on this one, which is
  // closed as the response ends: a request written there in the meantime was lost, unanswered.
  const unsent = new Set<ServerResponse>();
  const sayClose = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  server.on('request', (_request, response: ServerResponse) => {
    if (draining) sayClose(response);
    else unsent.add(response);
    response.once('close', () => unsent.delete(response));
    // Node's own 'finish' handler has run by now and marked the connection idle.
    response.on('finish', () => draining && server.closeIdleConnections());
  });
  return (deadlineMs) =>
    new Promise((resolve, reject) => {
      draining = true;
      for (const response of unsent) sayClose(response);
      unsent.clear();
      let cut = 0;
      const deadline = setTimeout(() => {
        cut = open.size;
        for (const socket of open)
          socket.destroy(
            Object.assign(new Error('the server closed the connection at its shutdown deadline'), {
              code: CUT_AT_SHUTDOWN,
            }),
          );
      }, deadlineMs);
      // close() also closes the connections idle at this moment (Node 19+).
      server.close((error) => {
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(cut);
      });
    });
}
