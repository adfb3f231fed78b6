import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from 'pino';
import { badRequest, type OperationContext, type OperationResult } from '../api/envelope.js';
import { parseJsonBody } from '../api/json-body.js';
import { LINEAGE_BODY, verifyLineage } from '../api/lineage.js';
import { verifyLogsBloom } from '../api/logs-bloom.js';
import { verifyReceiptRoot } from '../api/receipt-root.js';
import { ChainRegistry } from '../chains/registry.js';
import { LOGS_BLOOM_BODY } from '../input/logs-bloom-request.js';
import { RECEIPT_ROOT_BODY } from '../input/receipt-root-request.js';
import type { JsonSchema } from '../input/schema.js';
import { publicUrlOf, type ServerConfig } from './config.js';
import { docsPage } from './docs.js';
import { LINEAGE_RESULT_SCHEMA, LOGS_BLOOM_RESULT_SCHEMA, openApiDocument, RECEIPT_ROOT_RESULT_SCHEMA } from './openapi.js';
import { createGuards } from './guards.js';
import { notFound, sendError } from './responses.js';
import type { Account, Store } from './store/types.js';

/** A metered endpoint: its name (for entitlements and usage), cost and operation. */
export interface Endpoint {
  name: string;
  path: string;
  cu: number;
  summary: string;
  /** JSON Schema of the request body: the same declaration that validates it. */
  requestSchema: JsonSchema;
  /** JSON Schema of `data[0]` of a 200 answer. */
  resultSchema: JsonSchema;
  operation: (body: unknown, context: OperationContext & { registry: ChainRegistry }) => OperationResult | Promise<OperationResult>;
}

export const ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'verify/receipt-root',
    path: '/evm/verify/receipt-root',
    cu: 1,
    summary: 'Recompute the receipts root of a complete receipt list and compare it with receipt_root.',
    requestSchema: RECEIPT_ROOT_BODY.schema,
    resultSchema: RECEIPT_ROOT_RESULT_SCHEMA,
    operation: verifyReceiptRoot,
  },
  {
    name: 'verify/logs-bloom',
    path: '/evm/verify/logs-bloom',
    cu: 1,
    summary: 'Fold logs into the 2048-bit bloom and compare it with expected_bloom.',
    requestSchema: LOGS_BLOOM_BODY.schema,
    resultSchema: LOGS_BLOOM_RESULT_SCHEMA,
    operation: verifyLogsBloom,
  },
  {
    name: 'verify/lineage',
    path: '/evm/verify/lineage',
    cu: 1,
    summary: "Extension: audit a derived record's lineage against a bundle of the hosted service's answers and blocks.",
    requestSchema: LINEAGE_BODY.schema,
    resultSchema: LINEAGE_RESULT_SCHEMA,
    operation: verifyLineage,
  },
];

export interface AppOptions {
  config: ServerConfig;
  store: Store;
  logger: Logger;
  /** Clock, for tests of periods and rate windows. */
  now?: () => Date;
}

export type Env = { Variables: { requestId: string; account?: Account; docsUrl: string } };

/**
 * The verifier service: the spec's verify endpoints, health, usage and chains,
 * with bearer keys, compute units, per-account rate limits and the error envelope.
 * Every route is served with and without the `/v1` prefix.
 */
export function createApp({ config, store, logger, now = () => new Date() }: AppOptions): Hono<Env> {
  const registry = new ChainRegistry(config.chains);
  const origin = publicUrlOf(config);
  const docsUrl = `${origin}/v1/docs`;
  const openapi = openApiDocument({ origin, endpoints: ENDPOINTS, bodyLimitBytes: config.bodyLimitBytes });
  const docs = docsPage(openapi);
  let inFlight = 0;

  const app = new Hono<Env>();

  app.use('*', async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given !== undefined && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('docsUrl', docsUrl);
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    inFlight++;
    try {
      if (inFlight > config.maxInFlight) {
        return void (c.res = sendError(c, docsUrl, { code: 'SERVICE_UNAVAILABLE', http_status: 503, message: 'The server is at its limit of requests in progress.', hint: 'Retry after the number of seconds in Retry-After.', retryable: true, details: null }, { 'Retry-After': '1' }));
      }
      await next();
    } finally {
      inFlight--;
      logger.info(
        { request_id: requestId, method: c.req.method, path: c.req.path, status: c.res.status, duration_ms: Math.round((performance.now() - started) * 100) / 100, account_id: c.get('account')?.id ?? null },
        'request',
      );
    }
  });

  app.onError((error, c) => {
    const incidentId = randomUUID();
    logger.error({ request_id: c.get('requestId'), incident_id: incidentId, err: error }, 'unhandled error');
    return sendError(c, docsUrl, {
      code: 'INTERNAL_SERVER_ERROR',
      http_status: 500,
      message: 'The server failed to answer this request.',
      hint: `Retry later; if it persists, report incident ${incidentId} to the operator.`,
      severity: 'critical',
      retryable: true,
      details: { incident_id: incidentId, temporary_issue: true, expected_recovery_seconds: 60 },
    });
  });
  app.notFound((c) => notFound(c, docsUrl));

  const { authenticate, forbidden, throttle, allowanceExceeded } = createGuards({ config, store, docsUrl, now });

  for (const prefix of ['/v1', '']) {
    app.get(`${prefix}/health`, (c) => c.json({ status: 'ok' }));
    app.get(`${prefix}/openapi.json`, (c) => c.json(openapi));
    app.get(`${prefix}/docs`, (c) => c.html(docs));

    app.get(`${prefix}/usage`, (c) => {
      const account = authenticate(c);
      if (account instanceof Response) return account;
      c.set('account', account);
      const usage = store.usage(account.id, now());
      const allowance = usage.cuLimit + usage.cuExtra;
      return c.json({
        plan: account.plan,
        cu_limit: allowance,
        cu_used: usage.cuUsed,
        cu_remaining: Math.max(0, allowance - usage.cuUsed),
        cu_reset_at: usage.periodEnd,
        rate_limit_rps: account.rateLimitRps,
        cu_by_endpoint: usage.cuByEndpoint,
        billing_period: { start: usage.periodStart, end: usage.periodEnd },
      });
    });

    app.get(`${prefix}/chains`, (c) => {
      const account = authenticate(c);
      if (account instanceof Response) return account;
      c.set('account', account);
      return c.json({
        data: registry.list().map((chain) => ({ chain_id: chain.chainId, name: chain.name, rules: chain.rules, verifiable: chain.verifiable, ...(chain.reason && { reason: chain.reason }) })),
        count: registry.list().length,
      });
    });

    for (const endpoint of ENDPOINTS) {
      app.post(
        `${prefix}${endpoint.path}`,
        async (c, next) => {
          const account = authenticate(c);
          if (account instanceof Response) return account;
          c.set('account', account);
          if (account.entitlements?.endpoints !== undefined && !account.entitlements.endpoints.includes(endpoint.name)) {
            return forbidden(c, account, `the endpoint ${endpoint.name}`);
          }
          const throttled = throttle(c, account);
          if (throttled instanceof Response) return throttled;
          for (const [name, value] of Object.entries(throttled)) c.header(name, value);
          const exhausted = allowanceExceeded(c, account, endpoint);
          if (exhausted !== undefined) return exhausted;
          await next();
        },
        bodyLimit({
          maxSize: config.bodyLimitBytes,
          onError: (c) =>
            sendError(c, docsUrl, {
              code: 'PAYLOAD_TOO_LARGE',
              http_status: 413,
              message: `The request body is over the limit of ${config.bodyLimitBytes} bytes.`,
              hint: 'Split the work into smaller requests.',
              retryable: false,
              details: {
                max_allowed_bytes: config.bodyLimitBytes,
                estimated_response_bytes: Number(c.req.header('content-length') ?? config.bodyLimitBytes + 1),
                recommended_actions: ['Send fewer transactions per request.', 'Verify one block per request.'],
              },
            }),
        }),
        async (c) => {
          const account = c.get('account')!;
          const contentType = c.req.header('content-type') ?? '';
          let result: OperationResult;
          if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
            const problem = { name: 'Content-Type', location: 'body' as const, reason: 'invalid_format' as const, expected: `application/json, got ${contentType === '' ? 'none' : JSON.stringify(contentType)}` };
            result = { status: 400, verdict: 'invalid', body: badRequest([problem], 1, { docsUrl }) };
          } else {
            const parsed = parseJsonBody(await c.req.text());
            if (!parsed.ok) {
              result = { status: 400, verdict: 'invalid', body: badRequest([parsed.problem], 1, { docsUrl }) };
            } else {
              const chainId = (parsed.value as { chain_id?: unknown } | null)?.chain_id;
              const chains = account.entitlements?.chains;
              if (chains !== undefined && typeof chainId === 'number' && !chains.includes(chainId)) return forbidden(c, account, `chain ${chainId}`);
              // Checked again now that the body is in: from here to the charge nothing awaits,
              // so concurrent requests of one process cannot overdraw the allowance.
              const exhausted = allowanceExceeded(c, account, endpoint);
              if (exhausted !== undefined) return exhausted;
              result = await endpoint.operation(parsed.value, { registry, docsUrl });
            }
          }
          if (result.status >= 200 && result.status < 300) {
            const r = store.reserve(account.id, endpoint.name, endpoint.cu, now()); if (r.ok) store.settle(r.reservation, { requestId: c.get('requestId'), endpoint: endpoint.name, status: result.status, cu: endpoint.cu }, now());
          }
          return c.json(result.body as object, result.status as 200);
        },
      );
    }
  }
  return app;
}
