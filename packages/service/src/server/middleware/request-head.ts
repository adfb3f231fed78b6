import type { MiddlewareHandler } from 'hono';
import { badRequest } from 'evm-integrity/api';
import type { Env } from '../env.js';
import { expectationFailed, invalidRequest } from '../responses.js';

/** The one expectation the server meets: Node answers `100 Continue` before the request reaches the app. */
const CONTINUE = /^\s*100-continue\s*$/i;

/**
 * Refuses, with the error envelope, the request heads Node's HTTP server would answer itself with an empty body (it is
 * told to pass them on, start-server.ts): an HTTP/1.1 request without `Host` (400 naming the header, as RFC 9112
 * requires), and an `Expect` other than `100-continue` (417).
 */
export function requestHead(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const incoming = c.env?.incoming;
    // An empty Host is refused as a missing one, as Node's own check refused it.
    if (incoming?.httpVersion === '1.1' && !incoming.headers.host) {
      const expected = 'a Host header: every HTTP/1.1 request names the host it is sent to (RFC 9112, section 3.2)';
      throw invalidRequest(badRequest([{ name: 'Host', location: 'header', reason: 'missing', expected }], 1));
    }
    const expect = c.req.header('expect');
    if (expect !== undefined && !CONTINUE.test(expect)) throw expectationFailed(expect);
    await next();
  };
}
