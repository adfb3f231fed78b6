import type { JsonSchema } from '../input/schema.js';
import type { Endpoint } from './endpoints.js';
import { nullable } from './result-schemas.js';

/** What each error status means here; the reference page renders these as anchors `#error-<code>`. */
export const ERROR_CODES: ReadonlyArray<{ status: number; code: string; when: string }> = [
  { status: 400, code: 'BAD_REQUEST', when: 'Invalid or missing parameters; details.invalid_parameters lists each with its path, reason and what was expected. Also malformed JSON or a Content-Type other than application/json.' },
  { status: 401, code: 'UNAUTHORIZED', when: 'No key, a malformed Authorization header, an unknown key or a revoked one (details.token_status).' },
  { status: 403, code: 'FORBIDDEN', when: "A valid key whose account's entitlements exclude the endpoint or the chain." },
  { status: 404, code: 'NOT_FOUND', when: 'No such path or method.' },
  { status: 413, code: 'PAYLOAD_TOO_LARGE', when: 'The request body is over the server\'s limit (details.max_allowed_bytes).' },
  { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', when: 'A compressed body (Content-Encoding other than identity); send uncompressed JSON.' },
  { status: 422, code: 'CHAIN_NOT_SUPPORTED', when: 'chain_id is not in the registry (GET /v1/chains), its receipts root is not a Patricia root, or the block is in an era of the chain that cannot be verified (details: chain, era, its first and last block, first_verifiable_block).' },
  { status: 429, code: 'RATE_LIMIT_EXCEEDED', when: 'Over the account\'s requests per second (limit_scope account) or its CU allowance (limit_scope cu_allowance); wait Retry-After seconds.' },
  { status: 500, code: 'INTERNAL_SERVER_ERROR', when: 'A fault of the server; details.incident_id is in its log. Retryable.' },
  { status: 503, code: 'SERVICE_UNAVAILABLE', when: 'Too many verify operations in progress (counted once a body is read; /health is never refused); retry after Retry-After seconds.' },
];

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'http_status', 'message', 'hint', 'docs_url'],
      properties: {
        code: { type: 'string', enum: ERROR_CODES.map((e) => e.code) },
        http_status: { type: 'integer' },
        message: { type: 'string' },
        hint: { type: 'string' },
        severity: { type: 'string', enum: ['error', 'warning', 'critical'] },
        retryable: { type: 'boolean' },
        details: nullable({ type: 'object' }),
        docs_url: { type: 'string' },
      },
    },
  },
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/**
 * The OpenAPI 3.1 document of the service. Request bodies are the very schemas
 * that validate requests (src/input/schema.ts), so the document cannot drift.
 */
export function openApiDocument({ origin, endpoints, bodyLimitBytes }: { origin: string; endpoints: readonly Endpoint[]; bodyLimitBytes: number }): JsonSchema {
  const paths: Record<string, unknown> = {};
  for (const endpoint of endpoints) {
    const id = endpoint.name.replace(/\W+(\w)/g, (_, ch: string) => ch.toUpperCase());
    paths[endpoint.path] = {
      post: {
        operationId: id,
        summary: endpoint.summary,
        description: `Costs ${endpoint.cu} CU when answered 2xx. Body limit ${bodyLimitBytes} bytes.`,
        security: [{ bearer: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: endpoint.requestSchema } } },
        responses: {
          '200': {
            description: 'The verification result.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['chain_id', 'data', 'count'],
                  properties: { chain_id: nullable({ type: 'integer' }), data: { type: 'array', items: endpoint.resultSchema, minItems: 1, maxItems: 1 }, cursor: { type: 'null' }, count: { const: 1 } },
                },
              },
            },
          },
          ...Object.fromEntries(ERROR_CODES.filter((e) => e.status !== 404).map((e) => [String(e.status), errorResponse(e.when)])),
        },
      },
    };
  }
  paths['/health'] = { get: { operationId: 'health', summary: 'Liveness; no key.', security: [], responses: { '200': { description: 'Healthy.', content: { 'application/json': { schema: { type: 'object', properties: { status: { const: 'ok' } } } } } }, '503': errorResponse('Degraded.') } } };
  paths['/usage'] = {
    get: {
      operationId: 'usage',
      summary: "The account's plan, CU and rate limit; costs nothing.",
      security: [{ bearer: [] }],
      responses: {
        '200': {
          description: 'Usage of the current billing period.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  plan: { type: 'string' },
                  cu_limit: { type: 'integer', description: 'Allowance of the period, CU packages included.' },
                  cu_used: { type: 'integer' },
                  cu_remaining: { type: 'integer' },
                  cu_reset_at: { type: 'string', format: 'date-time' },
                  rate_limit_rps: { type: 'integer' },
                  cu_by_endpoint: { type: 'object', additionalProperties: { type: 'integer' } },
                  billing_period: { type: 'object', properties: { start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' } } },
                },
              },
            },
          },
        },
        '401': errorResponse('No valid key.'),
      },
    },
  };
  paths['/chains'] = {
    get: {
      operationId: 'chains',
      summary: 'Extension: the chain registry; costs nothing.',
      security: [{ bearer: [] }],
      responses: { '200': { description: 'Chains: chain_id, name, rules, verifiable (and why not).' }, '401': errorResponse('No valid key.') },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'evm-integrity verifier', version: '1', description: 'The verify endpoints of the EVM data service, self-hosted. Every path is also served without the /v1 prefix.' },
    servers: [{ url: `${origin}/v1` }],
    paths,
    components: { schemas: { Error: ERROR_SCHEMA }, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key from `evm-integrity keys create`.' } } },
  };
}
