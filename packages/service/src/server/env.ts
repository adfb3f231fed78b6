import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { ChainRegistry } from 'evm-integrity';
import type { ServerConfig } from './config/config.js';
import type { ServerMetrics } from './server-metrics.js';
import type { VerifyPool } from '../workers/verify-pool.js';
import type { Account, Store } from '../store/store.js';

/** The account that serves requests when auth is explicitly off. */
export const ANONYMOUS_ACCOUNT = 'anonymous';

/**
 * What a request carries through the middleware: its id, and its account once authenticated; and, served by Node's
 * HTTP server (the adaptor's bindings), the request as Node parsed it, whose body a route may read without the web
 * stream the adaptor would wrap it in, and its response, which may send `100 Continue` first (both absent under
 * `app.request`).
 */
export type Env = {
  Variables: { requestId: string; account?: Account; bodyRead?: boolean };
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse };
};

/** What the routes and middleware of one app share. */
export interface AppDeps {
  config: ServerConfig;
  store: Store;
  logger: Logger;
  registry: ChainRegistry;
  /** The reference page that the error envelopes of request `c` link to (`docsUrlOf`). */
  docsUrl: (c: Context) => string;
  now: () => Date;
  /** Verifies bodies of `poolThresholdBytes` and more off the event loop; absent, every body is verified inline. */
  pool?: VerifyPool;
  /** Counts requests, charges and refusals; absent when metrics are off. */
  metrics?: ServerMetrics;
}
