import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { badRequest } from 'evm-integrity/api';
import { hasBody } from '../connections/client.js';
import type { Env } from '../env.js';
import { expectationFailed, invalidRequest } from '../responses.js';

/** The one expectation the server meets: `100 Continue` once the request's head has passed its checks (inviteBody). */
const CONTINUE = /^\s*100-continue\s*$/i;

/**
 * Refuses, with the error envelope, the request heads Node's HTTP server would answer itself with an empty body (it is
 * told to pass them on, start-server.ts): an HTTP/1.1 request without `Host` (400 naming the header, as RFC 9112
 * requires), and an `Expect` other than `100-continue` (417); and one that Node would answer, keeping the first of its
 * two `Host` headers (400: the RFC has it refused).
 */
export function requestHead(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const incoming = c.env?.incoming;
    // An empty Host is refused as a missing one, as Node's own check refused it.
    if (incoming?.httpVersion === '1.1' && !incoming.headers.host) {
      const expected = 'a Host header: every HTTP/1.1 request names the host it is sent to (RFC 9112, section 3.2)';
      throw invalidRequest(badRequest([{ name: 'Host', location: 'header', reason: 'missing', expected }], 1));
    }
    // Node's headers keep the first of two Hosts (headersDistinct all): RFC 9112 has such a request refused, any version.
    if ((incoming?.headersDistinct.host?.length ?? 0) > 1) {
      const expected = 'one Host header: a request names the one host it is sent to (RFC 9112, section 3.2)';
      throw invalidRequest(badRequest([{ name: 'Host', location: 'header', reason: 'duplicate', expected }], 1));
    }
    const expect = c.req.header('expect');
    if (expect !== undefined && !CONTINUE.test(expect)) throw expectationFailed(expect);
    await next();
  };
}

/** Whether `incoming` announces a body (Node's headers). */
const announcesBody = (incoming: IncomingMessage) => hasBody((name) => incoming.headers[name]);

/**
 * Node's `checkContinue` listener (start-server.ts), for an HTTP/1.1 request that expects `100-continue`, where Node
 * would answer `100 Continue` at once: a request that announces a body is passed on without it, for inviteBody to send
 * once its head has passed every check, so a refused request's body is never sent (Node closes the connection of an
 * answer given while the client holds its body back). One that announces none has nothing to hold back: answered 100
 * at once, as by Node, it keeps its connection.
 */
export function holdContinue(server: Server): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (!announcesBody(request)) response.writeContinue();
    server.emit('request', request, response);
  };
}

/**
 * Sends `100 Continue` to a client that waits for it to send its body (held by holdContinue). Called when the body is
 * about to be read, every refusal the head decides (key, entitlement, rate, allowance, length, media type, a place)
 * having been passed.
 */
export function inviteBody(c: Context<Env>): void {
  const incoming = c.env?.incoming;
  const outgoing = c.env?.outgoing;
  if (incoming === undefined || outgoing === undefined || outgoing.headersSent) return;
  // The requests holdContinue held: the head's check (requestHead) has refused any other expectation.
  if (incoming.httpVersion === '1.1' && CONTINUE.test(incoming.headers.expect ?? '') && announcesBody(incoming))
    outgoing.writeContinue();
}
