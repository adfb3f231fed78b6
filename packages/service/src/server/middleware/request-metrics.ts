import type { MiddlewareHandler } from 'hono';
import { CLIENT_CLOSED_REQUEST, clientLeft, REQUEST_TIMEOUT, serverTimedOut } from '../connections/client.js';
import type { Env } from '../env.js';
import { endpointOf, type ServerMetrics } from '../server-metrics.js';

/**
 * Counts and times every request once it is answered, by its route pattern and status; a client
 * that left before its answer is counted as 499, and a request Node cut off at its deadline as the
 * 408 it sent, as the request log has them.
 */
export function requestMetrics(metrics: ServerMetrics): MiddlewareHandler<Env> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const status = serverTimedOut(c) ? REQUEST_TIMEOUT : clientLeft(c) ? CLIENT_CLOSED_REQUEST : c.res.status;
      metrics.answered(endpointOf(c), status, (performance.now() - started) / 1000);
    }
  };
}
