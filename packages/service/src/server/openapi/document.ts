import type { JsonSchema } from 'evm-integrity/api';
import type { Endpoint } from '../../endpoints/endpoints.js';
import { bodyLimitOf, type ServerConfig } from '../config/config.js';
import { docsUrlOf } from './docs-url.js';
import { BAD_REQUEST_EXAMPLE, INFO_EXAMPLES, VERIFY_EXAMPLES, type Examples } from './examples.js';
import {
  ERROR_DETAILS_SCHEMA,
  errorEnvelopeSchema,
  type HeaderComponent,
  headersOf,
  RESPONSE_HEADERS,
} from './error-schemas.js';
import { CHAINS_SCHEMA, HEALTH_SCHEMA, READY_SCHEMA, USAGE_SCHEMA } from '../../endpoints/result-schemas.js';

/** What each error status means here; the reference page renders these as anchors `#error-<code>`. */
export const ERROR_CODES: ReadonlyArray<{ status: number; code: string; when: string }> = [
  {
    status: 400,
    code: 'BAD_REQUEST',
    when: 'Invalid or missing parameters; details.invalid_parameters lists each with its path, reason and what was expected. Also malformed JSON (location body) or a Content-Type other than application/json (location header).',
  },
  {
    status: 400,
    code: 'MALFORMED_REQUEST',
    when: "Bytes that are not an HTTP/1.1 request, refused by the server's HTTP parser before any route (details.framing_problem: incomplete_request, content_length, transfer_encoding, chunked_body, http2 for HTTP/2 with prior knowledge, or syntax; details.parser_error; the connection is closed), or a request whose target or Host header cannot be read as a URL (request_target; the connection is kept). Sent without X-Request-Id.",
  },
  {
    status: 401,
    code: 'UNAUTHORIZED',
    when: 'No key, a malformed Authorization header, an unknown key or a revoked one (details.token_status).',
  },
  {
    status: 403,
    code: 'FORBIDDEN',
    when: "A valid key whose account's entitlements exclude the endpoint or the chain.",
  },
  {
    status: 404,
    code: 'NOT_FOUND',
    when: 'No such path, or a method the path does not answer (then details.allowed_methods and the Allow header list those it does); CONNECT too, answered by the connection, which is then closed.',
  },
  {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    when: 'The request did not arrive in time: its headers within header_timeout_ms, or all of it within body_timeout_ms (details: both, in milliseconds). Sent by the connection without X-Request-Id, and the connection is closed; retryable, sent without the pause.',
  },
  {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    when: "The request body (details.request_bytes) is over the server's limit (details.max_allowed_bytes).",
  },
  {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    when: 'A compressed body (a Content-Encoding other than identity, or a transfer coding besides chunked); send uncompressed JSON.',
  },
  {
    status: 417,
    code: 'EXPECTATION_FAILED',
    when: 'An Expect header other than 100-continue (details.expect); send the request without it.',
  },
  {
    status: 422,
    code: 'CHAIN_NOT_SUPPORTED',
    when: 'chain_id is not in the registry (GET /v1/chains), its receipts root is not a Patricia root, or the block is in an era of the chain that cannot be verified (details: chain_id, chain, block_number, reason, and for an era, the era, its first and last block, first_verifiable_block); or an anchor proof names a beacon network the anchor does not know (details: chain_id, reason).',
  },
  {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    when: "Over the account's requests per second (limit_scope account: retryable, wait Retry-After seconds), or its CU allowance cannot pay for the request (limit_scope cu_allowance): used up, not retryable (an operator adds CU, or it resets at details.cu_reset_at); or held by requests in progress (details.cu_held), retryable after Retry-After seconds.",
  },
  {
    status: 431,
    code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    when: "The request line and headers are over the server's limit (details.max_header_bytes, 16 KiB). Sent without X-Request-Id, and the connection is closed.",
  },
  {
    status: 500,
    code: 'INTERNAL_SERVER_ERROR',
    when: 'A fault of the server; details.incident_id is in its log. Retryable.',
  },
  {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    when: 'Too many verify operations in progress (counted once a body is read; /health is never refused for it), or the server holds as many request body bytes as it may (max_body_bytes_in_flight; the body is not read); retry after Retry-After seconds.',
  },
  {
    status: 503,
    code: 'STORE_UNAVAILABLE',
    when: 'The account store (SQLite or PostgreSQL) cannot answer now: the request was neither answered nor charged; retry after Retry-After seconds. /ready answers it too while the store cannot answer a read.',
  },
];

const ERROR_REF = { $ref: '#/components/schemas/ErrorEnvelope' };

/** The headers of each error status of a verify endpoint (the rate-limit ones once the request passed the key). */
const ERROR_HEADERS: Record<number, HeaderComponent[]> = {
  401: ['XRequestId', 'WWWAuthenticate'],
  // Answered by the connection, without a request read whole: no request id, no account.
  408: [],
  431: [],
  // Answered before the key is read.
  417: ['XRequestId'],
  429: ['XRequestId', 'RetryAfter', 'XRateLimitLimit', 'XRateLimitRemaining'],
  503: ['XRequestId', 'RetryAfter', 'XRateLimitLimit', 'XRateLimitRemaining'],
};
const RATE_HEADERS: HeaderComponent[] = ['XRequestId', 'XRateLimitLimit', 'XRateLimitRemaining'];

const errorResponse = (description: string, headers: HeaderComponent[], examples?: Examples) => ({
  description,
  headers: headersOf(...headers),
  content: { 'application/json': { schema: ERROR_REF, ...(examples && { examples }) } },
});
const jsonResponse = (description: string, schema: JsonSchema, example: unknown) => ({
  description,
  headers: headersOf('XRequestId'),
  content: { 'application/json': { schema, example } },
});
const NO_KEY = errorResponse('No key, or not a valid one; see #error-unauthorized.', ERROR_HEADERS[401]!);
/** The answer of every operation that reads the store (the key's, /ready's) while the store cannot answer. */
const STORE_DOWN = errorResponse('The store cannot answer now; see #error-store_unavailable.', [
  'XRequestId',
  'RetryAfter',
]);

/** Sent by the connection, not the app, to any request whose headers or body came too slowly; see #error-request_timeout. */
const TIMEOUT = errorResponse(
  'The request did not arrive within header_timeout_ms / body_timeout_ms; the connection is closed after it. See #error-request_timeout.',
  [],
);

/** The groups of operations, in the order the reference shows them. */
const TAGS = [
  {
    name: 'verify',
    description:
      'Recompute a commitment from the data sent and compare it with the one claimed. Each costs compute units (CU) when answered 2xx.',
  },
  { name: 'account', description: 'What the key in use may still spend.' },
  { name: 'service', description: 'Liveness and the chains this server knows; free.' },
];

/** One description per status: the code's own, or each code's with its name when a status has several (503). */
function errorsByStatus(codes: readonly { status: number; code: string; when: string }[]): Map<number, string> {
  const byStatus = new Map<number, { code: string; when: string }[]>();
  for (const e of codes) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  return new Map(
    [...byStatus].map(([status, list]) => [
      status,
      list.length === 1 ? list[0]!.when : list.map((e) => `${e.code}: ${e.when}`).join(' '),
    ]),
  );
}

/** `POST` of a verify endpoint: its body schema is the one that validates requests. */
function verifyOperation(endpoint: Endpoint, bodyLimitBytes: number, docsUrl: string) {
  const examples = VERIFY_EXAMPLES[endpoint.path];
  const perMiB =
    endpoint.cuPerMiB === undefined
      ? ''
      : `, plus ${endpoint.cuPerMiB} CU for each full MiB (1,048,576 bytes) of the body`;
  return {
    operationId: endpoint.name.replace(/\W+(\w)/g, (_, ch: string) => ch.toUpperCase()),
    tags: ['verify'],
    summary: endpoint.summary,
    description: `Costs ${endpoint.cu} CU${perMiB} when answered 2xx; any other answer costs nothing. Body limit ${bodyLimitBytes} bytes, uncompressed JSON.`,
    security: [{ bearer: [] }],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: endpoint.requestSchema, ...(examples && { examples: examples.request }) },
      },
    },
    responses: {
      '200': {
        description: 'The verification result.',
        headers: headersOf(...RATE_HEADERS),
        content: {
          'application/json': { schema: endpoint.answerSchema, ...(examples && { examples: examples.response }) },
        },
      },
      '408': TIMEOUT,
      ...Object.fromEntries(
        [...errorsByStatus(ERROR_CODES.filter((e) => e.status !== 404))].map(([status, when]) => [
          String(status),
          errorResponse(
            when,
            ERROR_HEADERS[status] ?? RATE_HEADERS,
            status === 400 ? BAD_REQUEST_EXAMPLE(docsUrl) : undefined,
          ),
        ]),
      ),
    },
  };
}

/**
 * The OpenAPI 3.1 document of the service. Request bodies are the very schemas
 * that validate requests (core/input/values/schema.ts), so the document cannot drift.
 * It passes Redocly's `recommended` rules, and a strict TypeScript client generated from it
 * compiles and talks to the server (test/openapi-document.test.ts, test/openapi-client.test.ts).
 */
export function openApiDocument({
  publicUrl,
  endpoints,
  bodyLimits,
}: {
  /**
   * Where clients reach the server (`public_url`); null: the `servers` URL and the examples' `docs_url` are relative
   * (`/v1`), so that a client generated from the document calls the address it fetched it from, never a bind address
   * such as `0.0.0.0`.
   */
  publicUrl: string | null;
  endpoints: readonly Endpoint[];
  /** The configuration's body limits: each endpoint's is documented with it. */
  bodyLimits: Pick<ServerConfig, 'bodyLimitBytes' | 'logsProofBodyLimitBytes'>;
}): JsonSchema {
  const docsUrl = docsUrlOf(publicUrl, undefined);
  const paths: Record<string, unknown> = Object.fromEntries(
    endpoints.map((endpoint) => [
      endpoint.path,
      { post: verifyOperation(endpoint, bodyLimitOf(bodyLimits, endpoint), docsUrl) },
    ]),
  );
  paths['/usage'] = {
    get: {
      operationId: 'usage',
      tags: ['account'],
      summary: "The account's plan, CU and rate limit",
      description:
        'Usage of the current billing period of the account the key belongs to. Costs nothing and is not rate limited.',
      security: [{ bearer: [] }],
      responses: {
        '200': jsonResponse('Usage of the current billing period.', USAGE_SCHEMA, INFO_EXAMPLES.usage),
        '401': NO_KEY,
        '503': STORE_DOWN,
        '408': TIMEOUT,
      },
    },
  };
  paths['/chains'] = {
    get: {
      operationId: 'chains',
      tags: ['service'],
      summary: 'The chain registry',
      description:
        'Extension: every chain this server knows, its receipt rules, whether its blocks can be verified and, by era, why not. Costs nothing. The example is shortened.',
      security: [{ bearer: [] }],
      responses: {
        '200': jsonResponse('The chains.', CHAINS_SCHEMA, INFO_EXAMPLES.chains),
        '401': NO_KEY,
        '503': STORE_DOWN,
        '408': TIMEOUT,
      },
    },
  };
  paths['/health'] = {
    get: {
      operationId: 'health',
      tags: ['service'],
      summary: 'Liveness',
      description:
        'No key needed, never refused for load, never rate limited: a 200 means the process answers. The connection bounds still apply: a new connection from an address at max_connections_per_address may be closed before it is read.',
      security: [],
      responses: { '200': jsonResponse('Healthy.', HEALTH_SCHEMA, INFO_EXAMPLES.health), '408': TIMEOUT },
    },
  };
  paths['/ready'] = {
    get: {
      operationId: 'ready',
      tags: ['service'],
      summary: 'Readiness',
      description:
        "No key needed: 200 when the account store answers a read (SELECT 1), 503 STORE_UNAVAILABLE (with Retry-After) while it cannot, so a load balancer sends requests elsewhere. It checks no write: while another process holds an SQLite store's write lock, verify requests answer 503 and /ready 200. Liveness is /health.",
      security: [],
      responses: {
        '200': jsonResponse('The store answers.', READY_SCHEMA, INFO_EXAMPLES.ready),
        '503': STORE_DOWN,
        '408': TIMEOUT,
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'evm-integrity verifier',
      version: '1',
      description:
        'The verify endpoints of the EVM data service, self-hosted. Every path is also served without the /v1 prefix. Errors share one envelope; each code is explained in the Errors section below the reference.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: `${publicUrl ?? ''}/v1`, description: 'This server.' }],
    tags: TAGS,
    paths,
    components: {
      schemas: {
        ErrorEnvelope: errorEnvelopeSchema(ERROR_CODES.map((e) => e.code)),
        ErrorDetails: ERROR_DETAILS_SCHEMA,
      },
      headers: RESPONSE_HEADERS,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key from `evm-integrity keys create`.' },
      },
    },
  };
}
