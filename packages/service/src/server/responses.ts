import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { type ApiError, badRequest, type ErrorEnvelope, errorEnvelope } from 'evm-integrity/api';

/** The members of an error envelope a route chooses; `docs_url` is the server's, the rest defaulted. */
export type ProblemFields = Omit<ApiError, 'docs_url' | 'severity' | 'retryable'> &
  Partial<Pick<ApiError, 'severity' | 'retryable'>>;

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
export function sendError(
  c: Context,
  docsUrl: string,
  fields: ProblemFields,
  headers: Readonly<Record<string, string>> = {},
): Response {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(errorEnvelope(fields, { docsUrl }), fields.http_status as 400);
}

/** 400 with the envelope a body reader built (`readRequestBody`), thrown like every other refusal. */
export const invalidRequest = (envelope: ErrorEnvelope) => new ApiProblem(envelope.error);

/** 400 naming the `Content-Type` header (location `header`): verify bodies are JSON. */
export const wrongContentType = (contentType: string) => {
  const got = contentType === '' ? 'no Content-Type' : JSON.stringify(contentType);
  const problem = {
    name: 'Content-Type',
    location: 'header',
    reason: 'invalid_format',
    expected: `application/json, got ${got}`,
  } as const;
  return invalidRequest(badRequest([problem], 1));
};

/**
 * 400 naming the `Content-Type` header (location `header`): a charset other than UTF-8 (`utf-8` or `utf8`, in any
 * case), which the body would not be read in.
 */
export const unsupportedCharset = (charset: string) => {
  const problem = {
    name: 'Content-Type',
    location: 'header',
    reason: 'invalid_format',
    expected: `charset utf-8 (or utf8, in any case, or none: a body is read as UTF-8), got charset ${JSON.stringify(charset)}`,
  } as const;
  return invalidRequest(badRequest([problem], 1));
};

/**
 * The hint of a 404 for a path no route has: where the endpoints are listed, and the paths a GET answers (`gets`, from
 * the route table: methods.ts's getPaths), every other endpoint being a POST.
 */
export function unknownPathHint(gets: readonly string[]): string {
  const listed = gets.length > 1 ? `${gets.slice(0, -1).join(', ')} and ${gets.at(-1)}` : gets.join('');
  return `Endpoints are listed at GET /v1/openapi.json; every endpoint but GET ${listed} is a POST with a JSON body.`;
}

/** The most characters of an unknown path a 404 echoes: a path may be kilobytes long. */
const SHOWN_PATH_CHARS = 200;

/**
 * A character a path may carry as it is (RFC 3986: unreserved, sub-delims, `:`, `@`, `/`, and `%` of an escape); any
 * other is percent-encoded when shown.
 */
const NOT_IN_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu;

/**
 * An unknown path as a 404 echoes it: as the client sent it (still percent-encoded: `%0A` is not decoded into a line
 * break, nor `%2F` into a `/` the client did not write), without its query, its first {@link SHOWN_PATH_CHARS}
 * characters (one or two fewer where the cut would split a `%XX` escape) and how long it was, with any character a
 * path cannot carry as it is (a quote, `<`, `\\`, a control, one beyond ASCII) percent-encoded, so the message holds
 * nothing a log, a terminal or a page would read as markup.
 */
export function shownPath(target: string): string {
  const path = target.split('?', 1)[0]!;
  const escape = (text: string) =>
    text.replace(NOT_IN_PATH, (ch) =>
      Array.from(Buffer.from(ch, 'utf8'), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    );
  if (path.length <= SHOWN_PATH_CHARS) return escape(path);
  // Never inside a %XX escape: one the cut would split (its `%`, or `%` and one digit, last) is left out whole.
  const shown = path.slice(0, SHOWN_PATH_CHARS).replace(/%[0-9A-Fa-f]?$/u, '');
  return `${escape(shown)}… (${path.length} characters; the first ${shown.length} shown)`;
}

/**
 * 404: no route answers this method and path. On a known path (`known.methods`: the methods it answers) the method is
 * the problem: the message says which methods the path answers, sent in `details.allowed_methods` and `Allow` too
 * (extensions: the spec's 404 has no details); on an unknown one, `known.hint` says where to look, and `path` is the
 * request target as sent, shown by {@link shownPath}. DECISIONS: an unknown path or method is 404.
 */
export const notFound = (method: string, path: string, known: { methods: readonly string[] } | { hint: string }) =>
  'hint' in known
    ? new ApiProblem({
        code: 'NOT_FOUND',
        http_status: 404,
        message: `No endpoint ${method} ${shownPath(path)}.`,
        hint: known.hint,
        details: null,
      })
    : new ApiProblem(
        {
          code: 'NOT_FOUND',
          http_status: 404,
          message: `No endpoint ${method} ${path}: ${path} answers ${known.methods.join(', ')}.`,
          hint: `Send ${known.methods[0]} ${path}; the Allow header lists the methods of this path.`,
          details: { method, allowed_methods: [...known.methods] },
        },
        { Allow: known.methods.join(', ') },
      );

/** 417: an `Expect` the server cannot meet; it knows `100-continue` only. */
export const expectationFailed = (expect: string) =>
  new ApiProblem({
    code: 'EXPECTATION_FAILED',
    http_status: 417,
    message: `The request expects ${JSON.stringify(expect)}; this server meets no expectation but 100-continue.`,
    hint: 'Send the request without an Expect header, or with Expect: 100-continue.',
    details: { expect, accepted_expectations: ['100-continue'] },
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

/**
 * 415: a body sent with a transfer coding besides `chunked` (`gzip, chunked`). Node's parser undoes the chunking only,
 * so the body would be read still coded: refused, naming the coding, rather than "not UTF-8" or read as it is.
 */
export const unsupportedTransferCoding = (transferEncoding: string) =>
  new ApiProblem({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    http_status: 415,
    message: `The request body is sent with Transfer-Encoding ${JSON.stringify(transferEncoding)}; this server reads no transfer coding but chunked.`,
    hint: 'Send the body uncompressed, with Content-Length or Transfer-Encoding: chunked alone.',
    retryable: false,
    details: { transfer_encoding: transferEncoding, accepted_transfer_codings: ['chunked'] },
  });

/** The size a request declared in Content-Length; null when it sent none (chunked) or an unreadable one. */
function declaredBytes(contentLength: string | undefined): number | null {
  if (contentLength === undefined || !/^\d+$/.test(contentLength.trim())) return null;
  const bytes = Number(contentLength.trim());
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/**
 * 413: the request body is over `body_limit_bytes` (or the endpoint's own limit). The limit here is
 * on what is sent, not (as the hosted service's) on the answer: `details.request_bytes` is the size
 * the request declared (null when it was sent in chunks: reading stopped past the limit), repeated as the spec's
 * `estimated_response_bytes`,
 * `max_allowed_bytes` the limit, `recommended_actions` what to do in the endpoint's terms.
 */
export const payloadTooLarge = (limitBytes: number, contentLength: string | undefined, actions: readonly string[]) => {
  const requestBytes = declaredBytes(contentLength);
  return new ApiProblem({
    code: 'PAYLOAD_TOO_LARGE',
    http_status: 413,
    message: `The request body${requestBytes === null ? '' : ` (${requestBytes} bytes)`} is over the limit of ${limitBytes} bytes.`,
    hint: 'Split the work into smaller requests.',
    retryable: false,
    details: {
      max_allowed_bytes: limitBytes,
      // The spec's member, which a client of the hosted service reads: here the request's size (DECISIONS).
      estimated_response_bytes: requestBytes,
      request_bytes: requestBytes,
      limit_applies_to: 'request_body',
      recommended_actions: actions,
    },
  });
};

/**
 * 503: the places for verify operations (`max_in_flight` in all, `max_in_flight_per_account` for one account) are
 * taken.
 */
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

/**
 * The answer to every request while the server starts: it is bound, and its store, pool and routes are not yet ready
 * (a store that is slow to answer, a migration). 503 with the error envelope and `Retry-After: 1`, as a verify refused
 * for want of a place is; `docsUrl` as the request's (docsUrlOf).
 */
export function startingAnswer(docsUrl: string): Response {
  const fields: ProblemFields = {
    code: 'SERVICE_UNAVAILABLE',
    http_status: 503,
    message: 'The server is starting: its account store and workers are not ready yet.',
    hint: 'Retry after the number of seconds in Retry-After.',
    retryable: true,
    details: null,
  };
  return new Response(JSON.stringify(errorEnvelope(fields, { docsUrl })), {
    status: 503,
    headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
  });
}

/** Seconds a client waits before retrying when the store cannot answer: about what a database restart takes. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * 503: the account store cannot answer now (unreachable, restarting, timed out). Nothing was charged and no answer
 * was given; the request may be sent again.
 */
export const storeUnavailable = () =>
  new ApiProblem(
    {
      code: 'STORE_UNAVAILABLE',
      http_status: 503,
      message: 'The account store cannot answer now; this request was neither answered nor charged.',
      hint: 'Retry after the number of seconds in Retry-After, backing off if it persists.',
      retryable: true,
      details: { retry_after_seconds: STORE_RETRY_AFTER_SECONDS, temporary_issue: true },
    },
    { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
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
