import type { Server } from 'node:http';

/**
 * Prepares `server` for a shutdown with a deadline; returns the function that
 * shuts it down: it stops accepting at once, lets requests in progress finish,
 * closes each connection as its last response is sent, and after `deadlineMs`
 * closes every connection still open, so one slow client cannot hold a shutdown
 * past what a supervisor waits before it kills the process. That function
 * resolves with the number of connections cut at the deadline.
 */
export function drainable(server: Server): (deadlineMs: number) => Promise<number> {
  let draining = false;
  server.on('request', (_request, response) => {
    // Node's own 'finish' handler has run by now and marked the connection idle.
    response.on('finish', () => draining && server.closeIdleConnections());
  });
  return (deadlineMs) =>
    new Promise((resolve, reject) => {
      draining = true;
      let cut = 0;
      const deadline = setTimeout(
        () =>
          server.getConnections((error, count) => {
            cut = error ? 0 : count;
            server.closeAllConnections();
          }),
        deadlineMs,
      );
      // close() also closes the connections idle at this moment (Node 19+).
      server.close((error) => {
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(cut);
      });
    });
}
