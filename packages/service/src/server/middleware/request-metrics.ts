import type { MiddlewareHandler } from 'hono';
import { CLIENT_CLOSED_REQUEST, seenGone, serverEnded } from '../connections/client.js';
import type { Env } from '../env.js';
import { endpointOf, type ServerMetrics } from '../server-metrics.js';

/**
 * Counts and times every request once it is answered, by its route pattern and status; a client
 * that left before its answer is counted as 499, and a request the server ended itself as the
 * request log has it (serverEnded: 408 at its deadline, 400 or 431 for bytes that are not HTTP, 444
 * cut at shutdown).
 */
export function requestMetrics(metrics: ServerMetrics): MiddlewareHandler<Env> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const status = serverEnded(c)?.status ?? (seenGone(c) ? CLIENT_CLOSED_REQUEST : c.res.status);
      metrics.answered(endpointOf(c), status, (performance.now() - started) / 1000);
    }
  };
}
