import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { CLIENT_CLOSED_REQUEST, seenGone, hasBody, serverEnded } from '../connections/client.js';
import type { Env } from '../env.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the client's `X-Request-Id` when it is sane, else a UUID), echoes
 * it, and logs one line per request once it is answered: never a key, never a body.
 */
export function requestLog(logger: Logger): MiddlewareHandler<Env> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
      // An answer given without reading the body (401, 413, 415…) closes the connection: the
      // rest of the body would otherwise be read as the next request, or the socket cut under it.
      if (hasBody((name) => c.req.header(name)) && !c.get('bodyRead')) c.res.headers.set('Connection', 'close');
    } finally {
      const line = {
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        account_id: c.get('account')?.id ?? null,
      };
      // A request the server ended itself (its deadline, bytes that are not HTTP, the shutdown's) is told as such,
      // though its socket is gone as a leaver's.
      const ended = serverEnded(c);
      if (ended !== undefined) logger.info({ ...line, status: ended.status }, ended.message);
      // A client that left is not an incident of the server: nothing was answered or charged.
      else if (seenGone(c)) logger.info({ ...line, status: CLIENT_CLOSED_REQUEST }, 'request aborted by the client');
      else logger.info({ ...line, status: c.res.status }, 'request');
    }
  };
}
