import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { badRequest, type OperationResult, parseJsonBody } from 'evm-integrity/api';
import { CLIENT_CLOSED_REQUEST, clientLeft, readPendingCloses } from '../client.js';
import type { Endpoint } from '../endpoints.js';
import type { AppDeps, Env } from '../env.js';
import { forbidden, type createGuards } from '../middleware/guards.js';
import { overloaded, payloadTooLarge, unsupportedEncoding } from '../responses.js';

const JSON_MEDIA_TYPE = /^application\/(.+\+)?json\b/i;

/**
 * The metered verify endpoints. Each request passes the guards, then its body is read; only then
 * does it take an operation slot (`max_in_flight`) and reserve its CU, so a slow upload holds
 * neither. A 2xx answer keeps the CU; anything else, or a client gone before the answer, gives
 * them back.
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
        const problem = {
          name: 'Content-Type',
          location: 'body' as const,
          reason: 'invalid_format' as const,
          expected: `application/json, got ${contentType === '' ? 'none' : JSON.stringify(contentType)}`,
        };
        return c.json(badRequest([problem], 1, { docsUrl }), 400);
      }
      const text = await c.req.text();
      c.set('bodyRead', true);
      const parsed = parseJsonBody(text);
      if (!parsed.ok) return c.json(badRequest([parsed.error], 1, { docsUrl }), 400);
      const chainId = (parsed.value as { chain_id?: unknown } | null)?.chain_id;
      const chains = account.entitlements?.chains;
      if (chains !== undefined && typeof chainId === 'number' && !chains.includes(chainId)) throw forbidden(account, `chain ${chainId}`);
      if (inFlight >= config.maxInFlight) throw overloaded();
      // The CU are taken before the work, atomically across every process on the store.
      const held = store.reserve(account.id, endpoint.name, endpoint.cu, now());
      if (!held.ok) throw guards.allowanceProblem(account, held.error.usage);
      const { reservation } = held.value;
      const record = (status: number, cu: number) => ({ requestId: c.get('requestId'), endpoint: endpoint.name, status, cu });
      inFlight++;
      let result: OperationResult;
      try {
        result = await endpoint.operation(parsed.value, { registry, docsUrl });
      } catch (error) {
        store.release(reservation, record(500, 0), now());
        throw error;
      } finally {
        inFlight--;
      }
      await readPendingCloses();
      if (clientLeft(c)) {
        store.release(reservation, record(CLIENT_CLOSED_REQUEST, 0), now());
        return new Response(null, { status: CLIENT_CLOSED_REQUEST });
      }
      if (result.status >= 200 && result.status < 300) store.settle(reservation, record(result.status, endpoint.cu), now());
      else store.release(reservation, record(result.status, 0), now());
      return c.json(result.body as object, result.status as 200);
    });
  }
  return routes;
}
