import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { errorEnvelope, type ApiError } from '../api/envelope.js';

/** Builds the spec's error envelope for a status and sends it; `docsUrl` is the server's reference page. */
export function sendError(
  c: Context,
  docsUrl: string,
  fields: Omit<ApiError, 'docs_url' | 'severity' | 'retryable'> & Partial<Pick<ApiError, 'severity' | 'retryable'>>,
  headers: Record<string, string> = {},
): Response {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(errorEnvelope(fields, { docsUrl }), fields.http_status as 400);
}

export const notFound = (c: Context, docsUrl: string) =>
  sendError(c, docsUrl, {
    code: 'NOT_FOUND',
    http_status: 404,
    message: `No endpoint ${c.req.method} ${c.req.path}.`,
    hint: 'Endpoints are listed at GET /v1/openapi.json; every endpoint but GET /usage, /health and /chains is a POST with a JSON body.',
    details: null,
  });

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

/** 415: a compressed body; the service reads plain JSON only, so it says so rather than "not valid JSON". */
export const unsupportedEncoding = (c: Context, docsUrl: string, encoding: string) =>
  sendError(c, docsUrl, {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    http_status: 415,
    message: `The request body is sent with Content-Encoding ${JSON.stringify(encoding)}; this server reads uncompressed JSON only.`,
    hint: 'Send the body uncompressed, without a Content-Encoding header.',
    retryable: false,
    details: { content_encoding: encoding, accepted_encodings: ['identity'] },
  });

/** 503: every operation slot is busy. */
export const overloaded = (c: Context, docsUrl: string) =>
  sendError(c, docsUrl, { code: 'SERVICE_UNAVAILABLE', http_status: 503, message: 'The server is at its limit of requests in progress.', hint: 'Retry after the number of seconds in Retry-After.', retryable: true, details: null }, { 'Retry-After': '1' });
