import type { JsonSchema } from 'evm-integrity/api';
import { EXCLUDED_RECEIPT_SCHEMA, nullable } from '../../endpoints/result-schemas.js';

/**
 * The OpenAPI components of the answers that are not results: the error envelope with its
 * `details` typed member by member (what the server really sends, by code), and the response
 * headers. One `details` object whose members are all optional, each saying which codes send it,
 * rather than a union: a generated client reads `error.details?.invalid_parameters` without first
 * narrowing the union.
 */

const integer = (description: string): JsonSchema => ({ type: 'integer', description });
const string = (description: string): JsonSchema => ({ type: 'string', description });

/** One entry of a 400's `details.invalid_parameters`. */
const INVALID_PARAMETER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['name', 'location', 'reason', 'expected'],
  properties: {
    name: string(
      'A path into the body (transactions[3].logs[0].topics[1], bundle.exchanges[2].body.cursor), or a header name (Content-Type).',
    ),
    location: { enum: ['body', 'header'], description: 'Where the parameter is: the JSON body, or a request header.' },
    reason: { enum: ['missing', 'invalid_format', 'out_of_range', 'duplicate', 'conflict', 'unknown_type'] },
    expected: string('What was expected there, and what was found.'),
  },
};

/** `error.details`: every member a code of this server sends, each optional, named with its codes. */
export const ERROR_DETAILS_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Code-specific details (null for 503, and for a 404 of an unknown path). Each member is sent only with the codes its description names; a client should read the members of the code it got.',
  properties: {
    invalid_parameters: {
      type: 'array',
      items: INVALID_PARAMETER_SCHEMA,
      maxItems: 100,
      description: '400 BAD_REQUEST: every problem found, up to 100.',
    },
    auth_scheme: { const: 'Bearer', description: '401 UNAUTHORIZED.' },
    expected_header: string('401 UNAUTHORIZED: Authorization: Bearer <API_KEY>.'),
    provided_header: nullable(
      string(
        "401 UNAUTHORIZED: the refused header's scheme when a known one, else [redacted]; an empty string for an empty header, null when none was sent. Nothing of the credential.",
      ),
    ),
    token_status: { enum: ['missing', 'malformed', 'unknown', 'revoked'], description: '401 UNAUTHORIZED.' },
    recommendation: string('401 UNAUTHORIZED, 403 FORBIDDEN: what to do.'),
    required_plan: string('403 FORBIDDEN.'),
    your_plan: string("403 FORBIDDEN: the account's plan."),
    contact: string('403 FORBIDDEN.'),
    method: string('404 NOT_FOUND on a known path: the method sent, which the path does not answer.'),
    allowed_methods: {
      type: 'array',
      items: { type: 'string' },
      description: '404 NOT_FOUND on a known path: the methods the path answers, as in Allow.',
    },
    framing_problem: {
      enum: [
        'incomplete_request',
        'content_length',
        'transfer_encoding',
        'chunked_body',
        'http2',
        'request_target',
        'syntax',
      ],
      description:
        '400 MALFORMED_REQUEST: what of the HTTP framing was wrong (the connection ended before the request was complete, its Content-Length, its Transfer-Encoding, its chunked body, HTTP/2 sent with prior knowledge, a target or Host that is no URL, or anything else).',
    },
    parser_error: string("400 MALFORMED_REQUEST: the code of Node's HTTP parser (HPE_…)."),
    max_header_bytes: integer('431 REQUEST_HEADER_FIELDS_TOO_LARGE: the limit on the request line and headers.'),
    header_timeout_ms: integer(
      "408 REQUEST_TIMEOUT: the server's deadline for a request's headers, from its first byte.",
    ),
    body_timeout_ms: integer("408 REQUEST_TIMEOUT: the server's deadline for a whole request, from its first byte."),
    max_allowed_bytes: integer('413 PAYLOAD_TOO_LARGE: the body limit.'),
    estimated_response_bytes: nullable(
      integer(
        "413 PAYLOAD_TOO_LARGE: the specification's member, here the size the request declared (as request_bytes); null when it was sent in chunks.",
      ),
    ),
    request_bytes: nullable(
      integer(
        '413 PAYLOAD_TOO_LARGE: the size the request declared (Content-Length); null when it was sent in chunks.',
      ),
    ),
    limit_applies_to: {
      const: 'request_body',
      description: '413 PAYLOAD_TOO_LARGE: the limit is on the request body.',
    },
    recommended_actions: { type: 'array', items: { type: 'string' }, description: '413 PAYLOAD_TOO_LARGE.' },
    content_encoding: string('415 UNSUPPORTED_MEDIA_TYPE: the Content-Encoding sent.'),
    accepted_encodings: { type: 'array', items: { type: 'string' }, description: '415 UNSUPPORTED_MEDIA_TYPE.' },
    transfer_encoding: string(
      '415 UNSUPPORTED_MEDIA_TYPE: the Transfer-Encoding sent, when it names a coding besides chunked.',
    ),
    accepted_transfer_codings: {
      type: 'array',
      items: { type: 'string' },
      description: '415 UNSUPPORTED_MEDIA_TYPE (Transfer-Encoding).',
    },
    expect: string('417 EXPECTATION_FAILED: the Expect header sent.'),
    accepted_expectations: {
      type: 'array',
      items: { type: 'string' },
      description: '417 EXPECTATION_FAILED: the expectations the server meets (100-continue).',
    },
    chain_id: nullable(
      integer('422 CHAIN_NOT_SUPPORTED (every one): the chain; null only where the input named none.'),
    ),
    chain: nullable(string("422 CHAIN_NOT_SUPPORTED: the chain's name; null for a chain outside the registry.")),
    block_number: nullable(integer('422 CHAIN_NOT_SUPPORTED: the block, when the body named it.')),
    era: string('422 CHAIN_NOT_SUPPORTED (era): the era the block is in.'),
    era_first_block: integer('422 CHAIN_NOT_SUPPORTED (era).'),
    era_last_block: nullable(integer('422 CHAIN_NOT_SUPPORTED (era): null for the current era.')),
    first_verifiable_block: nullable(
      integer(
        '422 CHAIN_NOT_SUPPORTED (era): the first block of the chain that can be verified; null when none after it can.',
      ),
    ),
    reason: string('422 CHAIN_NOT_SUPPORTED (every one): why the chain, its era or the block cannot be verified.'),
    excluded_receipts: {
      type: 'array',
      items: EXCLUDED_RECEIPT_SCHEMA,
      description:
        "422 CHAIN_NOT_SUPPORTED (era), receipt-root: the receipts sent that the era's rule leaves out of the root (Bor's state-sync receipt), as a 200's excluded_receipts; absent when none.",
    },
    limit_scope: {
      enum: ['account', 'cu_allowance'],
      description:
        "429 RATE_LIMIT_EXCEEDED: account, the requests per second (retryable); cu_allowance, the period's CU cannot pay for the request: used up (not retryable), or held by requests in progress (retryable, a short Retry-After).",
    },
    limit_rps: integer("429 RATE_LIMIT_EXCEEDED: the account's requests per second."),
    current_estimated_rps: nullable(
      integer('429 RATE_LIMIT_EXCEEDED: requests counted in the window; null for cu_allowance.'),
    ),
    retry_after_seconds: integer('429 RATE_LIMIT_EXCEEDED: as Retry-After.'),
    limit_window_seconds: integer(
      '429 RATE_LIMIT_EXCEEDED: the window of the limit (until cu_reset_at for cu_allowance).',
    ),
    cu_limit: integer('429 RATE_LIMIT_EXCEEDED (cu_allowance): the allowance of the period, CU packages included.'),
    cu_used: integer('429 RATE_LIMIT_EXCEEDED (cu_allowance): the CU charged this period.'),
    cu_held: integer('429 RATE_LIMIT_EXCEEDED (cu_allowance): the CU held by requests in progress.'),
    cu_reset_at: {
      type: 'string',
      format: 'date-time',
      description: '429 RATE_LIMIT_EXCEEDED (cu_allowance): when the allowance resets.',
    },
    resolution: {
      type: 'array',
      items: { type: 'string' },
      description: '429 RATE_LIMIT_EXCEEDED (cu_allowance): the ways out.',
    },
    incident_id: string('500 INTERNAL_SERVER_ERROR: in the server log; report it to the operator.'),
    temporary_issue: { type: 'boolean', description: '500 INTERNAL_SERVER_ERROR.' },
    expected_recovery_seconds: integer('500 INTERNAL_SERVER_ERROR.'),
  },
};

/** The error envelope, `{error: {...}}`, for every code. */
export function errorEnvelopeSchema(codes: readonly string[]): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'http_status', 'message', 'hint', 'severity', 'retryable', 'details', 'docs_url'],
        properties: {
          code: { type: 'string', enum: [...codes] },
          http_status: { type: 'integer' },
          message: { type: 'string' },
          hint: { type: 'string' },
          severity: { type: 'string', enum: ['error', 'warning', 'critical'] },
          retryable: {
            type: 'boolean',
            description:
              'Whether the same request may succeed later without a change (a 429 of a used-up CU allowance is false).',
          },
          details: nullable({ $ref: '#/components/schemas/ErrorDetails' }),
          docs_url: { type: 'string', description: "The code's row of the server's reference page." },
        },
      },
    },
  };
}

/** The response headers this server sends: component name → HTTP name. */
const HEADER_NAMES = {
  XRequestId: 'X-Request-Id',
  XRateLimitLimit: 'X-RateLimit-Limit',
  XRateLimitRemaining: 'X-RateLimit-Remaining',
  RetryAfter: 'Retry-After',
  WWWAuthenticate: 'WWW-Authenticate',
} as const;

/** A response header, by its component name. */
export type HeaderComponent = keyof typeof HEADER_NAMES;

/** The response headers, as OpenAPI header components. */
export const RESPONSE_HEADERS: Record<HeaderComponent, JsonSchema> = {
  XRequestId: {
    description:
      'The request id: the X-Request-Id sent (1-128 of letters, digits, _.:-), else a new one. On every answer.',
    required: true,
    schema: { type: 'string' },
  },
  XRateLimitLimit: {
    description: "The account's requests per second; once the key and its entitlement to the endpoint are checked.",
    schema: { type: 'integer' },
  },
  XRateLimitRemaining: { description: 'Requests left in the current second.', schema: { type: 'integer' } },
  RetryAfter: {
    description:
      'Seconds to wait: until the next second (requests per second), until cu_reset_at (a used-up CU allowance), or 1 (503).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  WWWAuthenticate: {
    description: 'The RFC 6750 challenge: Bearer realm="evm-integrity", with error= when a credential was refused.',
    required: true,
    schema: { type: 'string' },
  },
};

/** The header components named, as a response's `headers` member. */
export const headersOf = (...names: HeaderComponent[]): Record<string, { $ref: string }> =>
  Object.fromEntries(names.map((name) => [HEADER_NAMES[name], { $ref: `#/components/headers/${name}` }]));
