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
