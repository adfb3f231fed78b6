import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { type ApiError, errorEnvelope } from 'evm-integrity/api';

/** The members of an error envelope a route chooses; `docs_url` is the server's, the rest defaulted. */
export type ProblemFields = Omit<ApiError, 'docs_url' | 'severity' | 'retryable'> & Partial<Pick<ApiError, 'severity' | 'retryable'>>;

/**
 * An answer that ends a request with the spec's error envelope. Middleware and routes throw it;
 * the app's error handler sends it (with the headers the request gathered, such as X-Request-Id).
 */
export class ApiProblem extends HTTPException {
  constructor(
    readonly fields: ProblemFields,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(fields.http_status as 400, { message: fields.message });
  }
}

/** Sends the error envelope of `fields`; `docsUrl` is the server's reference page. */
export function sendError(c: Context, docsUrl: string, fields: ProblemFields, headers: Readonly<Record<string, string>> = {}): Response {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(errorEnvelope(fields, { docsUrl }), fields.http_status as 400);
}

export const notFound = (method: string, path: string) =>
  new ApiProblem({
    code: 'NOT_FOUND',
    http_status: 404,
    message: `No endpoint ${method} ${path}.`,
    hint: 'Endpoints are listed at GET /v1/openapi.json; every endpoint but GET /usage, /health and /chains is a POST with a JSON body.',
    details: null,
  });

/** 415: a compressed body; the service reads plain JSON only, so it says so rather than "not valid JSON". */
export const unsupportedEncoding = (encoding: string) =>
  new ApiProblem({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    http_status: 415,
    message: `The request body is sent with Content-Encoding ${JSON.stringify(encoding)}; this server reads uncompressed JSON only.`,
    hint: 'Send the body uncompressed, without a Content-Encoding header.',
    retryable: false,
    details: { content_encoding: encoding, accepted_encodings: ['identity'] },
  });

export const payloadTooLarge = (limitBytes: number, contentLength: string | undefined) =>
  new ApiProblem({
    code: 'PAYLOAD_TOO_LARGE',
    http_status: 413,
    message: `The request body is over the limit of ${limitBytes} bytes.`,
    hint: 'Split the work into smaller requests.',
    retryable: false,
    details: {
      max_allowed_bytes: limitBytes,
      estimated_response_bytes: Number(contentLength ?? limitBytes + 1),
      recommended_actions: ['Send fewer transactions per request.', 'Verify one block per request.'],
    },
  });

/** 503: the places for verify operations (`max_in_flight` in all, `max_in_flight_per_account` for one account) are taken. */
export const overloaded = () =>
  new ApiProblem(
    {
      code: 'SERVICE_UNAVAILABLE',
      http_status: 503,
      message: 'The server, or this account, is at its limit of verify requests in progress.',
      hint: 'Retry after the number of seconds in Retry-After.',
      retryable: true,
      details: null,
    },
    { 'Retry-After': '1' },
  );

/** 500: a fault of the server, told by an incident id that is in the log and nothing else. */
export const internalError = (incidentId: string) =>
  new ApiProblem({
    code: 'INTERNAL_SERVER_ERROR',
    http_status: 500,
    message: 'The server failed to answer this request.',
    hint: `Retry later; if it persists, report incident ${incidentId} to the operator.`,
    severity: 'critical',
    retryable: true,
    details: { incident_id: incidentId, temporary_issue: true, expected_recovery_seconds: 60 },
  });
