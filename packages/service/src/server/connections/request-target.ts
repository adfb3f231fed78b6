import type { IncomingMessage, ServerResponse } from 'node:http';

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
