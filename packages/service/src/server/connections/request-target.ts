import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RequestError } from '@hono/node-server';
import { errorEnvelope } from 'evm-integrity/api';
import { docsUrlOf } from '../openapi/docs-url.js';
import { internalError, type ProblemFields } from '../responses.js';

/**
 * A request target with each `\` of its path percent-encoded as `%5C`, its query left as sent. The node adaptor refuses
 * a raw `\` in a path (a URL parser reads it as `/`, so `/v1\usage` would be served as `/v1/usage`) with an empty 400
 * that no middleware sees: no envelope, no X-Request-Id, no log line. Encoded, the path reaches the app as the same path
 * sent with `%5C` does, which no route has: a 404 with the envelope, echoing `%5C` as every 404 shows a `\`.
 */
export function encodeBackslashes(target: string): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  return path.replaceAll('\\', '%5C') + target.slice(path.length);
}

/** `handle` given each request with its target's backslashes encoded ({@link encodeBackslashes}). */
export const withBackslashesEncoded =
  <T>(handle: (request: IncomingMessage, response: ServerResponse) => T) =>
  (request: IncomingMessage, response: ServerResponse): T => {
    if (request.url !== undefined) request.url = encodeBackslashes(request.url);
    return handle(request, response);
  };

/** What the server logs of a request the node adaptor could not read ({@link answerUnreadable}). */
export interface UnreadableLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * The node adaptor's `errorHandler`: what answers a request whose target or `Host` cannot be read as a URL (a Host with
 * a space or a path, a port past 65535, an absolute target that is no URL, `OPTIONS *`), which the adaptor refuses with
 * an empty 400 before the app sees it. It is 400 `MALFORMED_REQUEST` with the envelope, as for bytes Node's parser
 * refuses: no route ran, so no X-Request-Id, and `docs_url` under `publicUrl` or relative (the Host is what was
 * unreadable). The connection is kept. Any other error the adaptor meets before the app answers is a fault: 500 with
 * an incident id in the log, as the app's own faults.
 */
export function answerUnreadable(publicUrl: string | null, logger: UnreadableLog): (error: unknown) => Response {
  const docsUrl = docsUrlOf(publicUrl, undefined);
  return (error) => {
    let fields: ProblemFields;
    if (error instanceof RequestError) {
      logger.info({ status: 400, reason: error.message }, 'request unreadable: its target or Host is no URL');
      fields = {
        code: 'MALFORMED_REQUEST',
        http_status: 400,
        message: `The request's target or its Host header cannot be read as a URL: ${error.message}.`,
        hint: 'Send a path beginning with / (or an absolute http URL) as the target, and Host: host[:port], a DNS name, an IPv4 address or an IPv6 address in brackets, with a port of 1 to 65535.',
        retryable: false,
        details: { framing_problem: 'request_target' },
      };
    } else {
      const incidentId = randomUUID();
      logger.error({ incident_id: incidentId, err: error }, 'unhandled error before the app');
      fields = internalError(incidentId).fields;
    }
    return new Response(JSON.stringify(errorEnvelope(fields, { docsUrl })), {
      status: fields.http_status,
      headers: { 'Content-Type': 'application/json' },
    });
  };
}
