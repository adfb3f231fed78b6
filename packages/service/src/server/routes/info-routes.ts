import { Hono, type MiddlewareHandler } from 'hono';
import { describeChain } from 'evm-integrity';
import type { JsonSchema } from 'evm-integrity/api';
import { DOCS_CSP, DOCS_SCRIPT, readBundle } from '../openapi/docs-page.js';
import type { AppDeps, Env } from '../env.js';
import { streamedBytes } from '../connections/streamed-bytes.js';
import { cuAllowance, cuRemaining } from '../../store/periods.js';

/** What `GET /` answers, beside its redirect to the reference page: where everything is. */
const ROOT_POINTER = { docs: '/v1/docs', openapi: '/v1/openapi.json', health: '/v1/health' };

/**
 * The routes that cost nothing: `/` (a redirect to the reference page), health (no key, never
 * refused), readiness (no key; 503 while the store cannot answer), the OpenAPI document, the reference page and its script (no key), and with a key, the
 * account's usage and the chain registry (`authenticate`: the app's key check).
 */
export function infoRoutes(
  { config, store, registry, now }: AppDeps,
  authenticate: MiddlewareHandler<Env>,
  reference: { openapi: JsonSchema; docs: string },
): Hono<Env> {
  const routes = new Hono<Env>();
  // A browser lands on the reference; a client that does not follow redirects reads where it is.
  routes.get('/', (c) => c.json(ROOT_POINTER, 302, { Location: ROOT_POINTER.docs }));
  routes.get('/health', (c) => c.json({ status: 'ok' }));
  // Readiness: the store answers (a replica whose database is gone is taken out of rotation, not restarted).
  routes.get('/ready', async (c) => {
    await store.ping(); // STORE_UNAVAILABLE: 503 with Retry-After, by the app's error handler
    return c.json({ status: 'ready' });
  });
  // Written once: the document is 157 KB, and serialising it for each request took 7 to 10 ms of the server's thread.
  const openapiText = JSON.stringify(reference.openapi);
  routes.get('/openapi.json', (c) => c.body(openapiText, 200, { 'Content-Type': 'application/json' }));
  routes.get('/docs', (c) => c.html(reference.docs, 200, { 'Content-Security-Policy': DOCS_CSP }));
  routes.get('/docs/init.js', (c) =>
    c.body(DOCS_SCRIPT, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
    }),
  );
  // Read once, on the first request, and shared: each client is streamed views of it, at the pace it reads.
  let bundle: Promise<Buffer | undefined> | undefined;
  // The page names it with its version (`?v=`), so it can be cached for good.
  routes.get('/docs/scalar.js', async (c) => {
    const bytes = await (bundle ??= readBundle());
    if (bytes === undefined) return c.notFound();
    return c.body(streamedBytes(bytes, config.maxResponseBufferBytes), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Length': String(bytes.byteLength),
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
  });

  routes.get('/usage', authenticate, async (c) => {
    const account = c.get('account')!;
    const usage = await store.usage(account.id, now());
    return c.json({
      plan: account.plan,
      cu_limit: cuAllowance(usage),
      cu_used: usage.cuUsed,
      cu_remaining: cuRemaining(usage),
      cu_held: usage.cuHeld,
      cu_reset_at: usage.periodEnd,
      rate_limit_rps: account.rateLimitRps,
      cu_by_endpoint: usage.cuByEndpoint,
      billing_period: { start: usage.periodStart, end: usage.periodEnd },
    });
  });

  routes.get('/chains', authenticate, (c) => {
    const chains = registry.list();
    return c.json({ data: chains.map(describeChain), count: chains.length });
  });
  return routes;
}
