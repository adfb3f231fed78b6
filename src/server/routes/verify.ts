import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { badRequest, type OperationResult } from '../../api/envelope.js';
import { parseJsonBody } from '../../api/json-body.js';
import { CLIENT_CLOSED_REQUEST, clientLeft, readPendingCloses } from '../client.js';
import type { Endpoint } from '../endpoints.js';
import type { AppDeps, Env } from '../env.js';
import { forbidden, type createGuards } from '../middleware/guards.js';
import { overloaded, payloadTooLarge, unsupportedEncoding } from '../responses.js';

const JSON_MEDIA_TYPE = /^application\/(.+\+)?json\b/i;

/**
 * The metered verify endpoints. Each request passes the guards, then its body is read; only then
 * does it take an operation slot (`max_in_flight`), so a slow upload holds none. A 2xx answer is
 * charged; anything else, or a client gone before the answer, costs nothing.
 */
export function verifyRoutes(deps: AppDeps, guards: ReturnType<typeof createGuards>, endpoints: readonly Endpoint[]): Hono<Env> {
  const { config, store, registry, docsUrl, now } = deps;
  /** Operations running now: counted once a body is read. */
  let inFlight = 0;
  const routes = new Hono<Env>();
  const limit = bodyLimit({
    maxSize: config.bodyLimitBytes,
    onError: (c) => {
      throw payloadTooLarge(config.bodyLimitBytes, c.req.header('content-length'));
    },
  });

  for (const endpoint of endpoints) {
    routes.post(endpoint.path, guards.authenticate, guards.entitled(endpoint), guards.throttle, guards.affordable(endpoint), limit, async (c) => {
      const account = c.get('account')!;
      const encoding = c.req.header('content-encoding');
      if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) throw unsupportedEncoding(encoding);
      const contentType = c.req.header('content-type') ?? '';
      if (!JSON_MEDIA_TYPE.test(contentType)) {
        const problem = { name: 'Content-Type', location: 'body' as const, reason: 'invalid_format' as const, expected: `application/json, got ${contentType === '' ? 'none' : JSON.stringify(contentType)}` };
        return c.json(badRequest([problem], 1, { docsUrl }), 400);
      }
      const text = await c.req.text();
      c.set('bodyRead', true);
      const parsed = parseJsonBody(text);
      if (!parsed.ok) return c.json(badRequest([parsed.problem], 1, { docsUrl }), 400);
      const chainId = (parsed.value as { chain_id?: unknown } | null)?.chain_id;
      const chains = account.entitlements?.chains;
      if (chains !== undefined && typeof chainId === 'number' && !chains.includes(chainId)) throw forbidden(account, `chain ${chainId}`);
      if (inFlight >= config.maxInFlight) throw overloaded();
      // Checked again now that the body is in: from here to the charge nothing awaits,
      // so concurrent requests of one process cannot overdraw the allowance.
      const exhausted = guards.allowanceProblem(account, endpoint);
      if (exhausted !== undefined) throw exhausted;
      inFlight++;
      let result: OperationResult;
      try {
        result = await endpoint.operation(parsed.value, { registry, docsUrl });
      } finally {
        inFlight--;
      }
      await readPendingCloses();
      if (clientLeft(c)) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
      if (result.status >= 200 && result.status < 300) {
        store.charge(account.id, endpoint.cu, { requestId: c.get('requestId'), endpoint: endpoint.name, status: result.status, cu: endpoint.cu }, now());
      }
      return c.json(result.body as object, result.status as 200);
    });
  }
  return routes;
}
