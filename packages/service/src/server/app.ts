import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import { ChainRegistry, type OperatorEvidence } from 'evm-integrity';
import { CLIENT_CLOSED_REQUEST, clientLeft } from './connections/client.js';
import type { ServerConfig } from './config/config.js';
import { docsPage } from './openapi/docs-page.js';
import { docsUrlOf } from './openapi/docs-url.js';
import { ENDPOINTS, type Endpoint } from '../endpoints/endpoints.js';
import type { AppDeps, Env } from './env.js';
import { withinAllowance } from './middleware/allowance.js';
import { accountDeleted, authenticate } from './middleware/authenticate.js';
import { entitled } from './middleware/entitled.js';
import { answerOptions, corsHeaders, getPaths, methodsByPath } from './middleware/methods.js';
import { requestHead } from './middleware/request-head.js';
import { requestLog } from './middleware/request-log.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestMetrics } from './middleware/request-metrics.js';
import { openApiDocument } from './openapi/document.js';
import type { VerifyPool } from '../workers/verify-pool.js';
import { ApiProblem, internalError, notFound, sendError, storeUnavailable, unknownPathHint } from './responses.js';
import { infoRoutes } from './routes/info-routes.js';
import type { ServerMetrics } from './server-metrics.js';
import { verifyRoutes, type VerifyGuards } from './routes/verify-routes.js';
import type { Store } from '../store/store.js';
import { refersToMissingRow, StoreError } from '../store/store-error.js';
import { WaitBudget, withWaitBudget } from '../store/wait-budget.js';

export interface AppOptions {
  config: ServerConfig;
  store: Store;
  logger: Logger;
  /** Clock, for tests of periods and rate windows. */
  now?: () => Date;
  /** The worker pool for large bodies (startServer makes it); absent, every body is verified inline. */
  pool?: VerifyPool;
  /** Where requests, charges and refusals are counted (startServer makes it when `metrics_port` is set). */
  metrics?: ServerMetrics;
  /** Blocks operators vouched for (startServer reads them from `evidence_dir`). */
  evidence?: readonly OperatorEvidence[];
}

/**
 * A URL's request target (its path and query, as `GET /path?q HTTP/1.1` carries them): the request's own where no Node
 * request lies under it (`app.request` in a test), whose target the router has not decoded.
 */
const requestTarget = (url: string) => url.slice(url.indexOf('/', url.indexOf('//') + 2));

/**
 * The verifier service: the spec's verify endpoints, health, usage and chains,
 * with bearer keys, compute units, per-account rate limits and the error envelope.
 * Every route is served with and without the `/v1` prefix.
 *
 * @example
 * const app = createApp({ config: DEFAULT_CONFIG, store: new MemoryStore(), logger: pino() });
 * const res = await app.request('/v1/health'); // 200 {"status":"ok"}
 */
export function createApp({
  config,
  store,
  logger,
  now = () => new Date(),
  pool,
  metrics,
  evidence = [],
}: AppOptions): Hono<Env> {
  const deps: AppDeps = {
    config,
    store,
    logger,
    now,
    registry: new ChainRegistry(config.chains, { evidence }),
    docsUrl: (c) => docsUrlOf(config.publicUrl, c.req.header('host')),
    ...(pool && { pool }),
    ...(metrics && { metrics }),
  };
  const openapi = openApiDocument({ publicUrl: config.publicUrl, endpoints: ENDPOINTS, bodyLimits: config });
  const authenticated = authenticate(deps);
  const rateLimited = rateLimit(deps);
  /**
   * The checks a verify request passes before its body is read, in this order: its key (401), its entitlements (403),
   * its account's requests per second and CU allowance (429).
   */
  const guards = (endpoint: Endpoint): VerifyGuards => [
    authenticated,
    entitled(endpoint),
    rateLimited,
    withinAllowance(deps, endpoint),
  ];

  /**
   * The 401 of a request whose account was deleted while it was in progress (`accounts delete`): its key went with the
   * account, so it is answered as the next request with that key will be, not as an incident. Undefined for any other
   * error, and where the store cannot say the account is gone.
   */
  const accountDeletedMeanwhile = async (error: unknown, c: Context<Env>): Promise<ApiProblem | undefined> => {
    const account = c.get('account');
    // The store names a missing account, or PostgreSQL refuses a row that refers to it (a hold, a rate window).
    const missing = (error instanceof StoreError && error.code === 'STORE_NOT_FOUND') || refersToMissingRow(error);
    if (!missing || account === undefined) return undefined;
    const gone = await deps.store.getAccount(account.id).then(
      (found) => found === undefined,
      () => false,
    );
    return gone ? accountDeleted(c.req.header('authorization')) : undefined;
  };

  const app = new Hono<Env>();
  if (metrics !== undefined) app.use('*', requestMetrics(metrics));
  app.use('*', requestLog(logger));
  app.use('*', corsHeaders(config.corsOrigins));
  app.use('*', requestHead());
  // A request's waits for PostgreSQL's connections, over all its operations, add up to pg_connect_timeout_ms at most.
  if (config.store === 'postgres')
    app.use('*', (_, next) => withWaitBudget(new WaitBudget(config.pgConnectTimeoutMs), next));
  app.onError(async (error, c) => {
    const refusal = error instanceof ApiProblem ? error : await accountDeletedMeanwhile(error, c);
    if (refusal !== undefined) {
      metrics?.refused(refusal.fields);
      return sendError(c, deps.docsUrl(c), refusal.fields, refusal.headers);
    }
    if (clientLeft(c)) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    if (error instanceof StoreError && error.code === 'STORE_UNAVAILABLE') {
      // Not a fault of this process: the store is down or restarting; the client retries.
      logger.warn({ request_id: c.get('requestId'), err: error }, 'store unavailable');
      const problem = storeUnavailable();
      return sendError(c, deps.docsUrl(c), problem.fields, problem.headers);
    }
    const incidentId = randomUUID();
    logger.error({ request_id: c.get('requestId'), incident_id: incidentId, err: error }, 'unhandled error');
    const problem = internalError(incidentId);
    return sendError(c, deps.docsUrl(c), problem.fields);
  });
  const routes = new Hono<Env>()
    .route('/', infoRoutes(deps, authenticated, { openapi, docs: docsPage(openapi) }))
    .route('/', verifyRoutes(deps, guards, ENDPOINTS));
  app.route('/v1', routes);
  app.route('/', routes);

  // No route for this method and path: OPTIONS on a known path, else 404, naming the path's methods when it is known
  // (DECISIONS: an unknown path or method is 404); also for a route of this method that has nothing to answer, such
  // as docs/scalar.js when it was not built.
  const byPath = methodsByPath(app.routes);
  // The routes' own GET paths, so that the hint cannot leave out one added later.
  const hint = unknownPathHint(getPaths(routes.routes).map((path) => `/v1${path}`));
  app.notFound((c) => {
    const methods = byPath.get(c.req.path);
    if (methods !== undefined && c.req.method === 'OPTIONS') return answerOptions(c, methods, config.corsOrigins);
    const known = methods !== undefined && !methods.includes(c.req.method);
    // An unknown path is echoed as sent (Node's request target), not as the router decoded it.
    const problem = known
      ? notFound(c.req.method, c.req.path, { methods })
      : notFound(c.req.method, c.env?.incoming?.url ?? requestTarget(c.req.url), { hint });
    return sendError(c, deps.docsUrl(c), problem.fields, problem.headers);
  });
  return app;
}
