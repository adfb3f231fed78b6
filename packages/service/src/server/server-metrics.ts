/**
 * What the server tells Prometheus: requests and their latency by endpoint and status, the CU it
 * charged, the requests it refused and why, and the worker pool's queue. Endpoints are route
 * patterns, never a request's own path, so a client cannot grow the number of series.
 */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { InFlightBounds } from './admission/in-flight-bounds.js';
import type { ProblemFields } from './responses.js';

/** The label of a request that no route of its method matched (404, OPTIONS). */
export const UNMATCHED = 'unmatched';

/** Why a request was refused before its work, as `evm_integrity_admission_refusals_total` labels it. */
export type RefusalReason =
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limit'
  | 'cu_allowance'
  | 'in_flight'
  | 'body_too_large'
  | 'unsupported_encoding';

/** The figures the app records; startServer makes them when `metrics_port` is set. */
export interface ServerMetrics {
  /** One request answered (or left by its client: 499) after `seconds`. */
  answered(endpoint: string, status: number, seconds: number): void;
  /** CU kept for a 2xx answer of `endpoint` (its name, as `cu_by_endpoint` has it). */
  charged(endpoint: string, cu: number): void;
  /** A refusal, from the error it was answered with; other errors are not refusals and are not counted. */
  refused(problem: ProblemFields): void;
}

/** The reason of a refusal told by `problem`, or undefined when the problem is not one. */
function refusalOf(problem: ProblemFields): RefusalReason | undefined {
  switch (problem.http_status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 413:
      return 'body_too_large';
    case 415:
      return 'unsupported_encoding';
    case 429: {
      const scope = (problem.details as { limit_scope?: unknown } | null)?.limit_scope;
      return scope === 'cu_allowance' ? 'cu_allowance' : 'rate_limit';
    }
    case 503:
      return 'in_flight';
    default:
      return undefined;
  }
}

/**
 * The route pattern that answered `c` (`/v1/evm/verify/receipt-root`), or {@link UNMATCHED}: the
 * last route matched that is not middleware for every method.
 */
export function endpointOf(c: Context): string {
  return (
    matchedRoutes(c)
      .filter((route) => route.method !== 'ALL')
      .at(-1)?.path ?? UNMATCHED
  );
}

/**
 * Registers the server's figures in `registry`. `queueDepth` is read at each scrape: the jobs
 * waiting for a worker of the pool (0 without a pool); so is `bounds`, the in-flight bounds in
 * force (derived ones included, so a dashboard shows what the machine was given).
 */
export function createServerMetrics(
  registry: Registry,
  queueDepth: () => number,
  bounds: () => InFlightBounds,
): ServerMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'evm_integrity_http_requests_total',
    help: 'Requests answered, by route pattern and status (499: the client left before its answer).',
    labelNames: ['endpoint', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'evm_integrity_http_request_duration_seconds',
    help: 'Time from a request reaching the app to its answer, by route pattern and status.',
    labelNames: ['endpoint', 'status'],
    registers,
  });
  const cu = new Counter({
    name: 'evm_integrity_cu_charged_total',
    help: 'Compute units charged (2xx answers of the verify endpoints), by endpoint name.',
    labelNames: ['endpoint'],
    registers,
  });
  const refusals = new Counter({
    name: 'evm_integrity_admission_refusals_total',
    help: 'Requests refused before their work, by reason.',
    labelNames: ['reason'],
    registers,
  });
  new Gauge({
    name: 'evm_integrity_pool_queue_depth',
    help: 'Verify jobs waiting for a worker thread of the pool.',
    registers,
    collect() {
      this.set(queueDepth());
    },
  });
  new Gauge({
    name: 'evm_integrity_in_flight_limit',
    help: 'Verify operations that may be in progress before 503: in all (max_in_flight) and for one account (max_in_flight_per_account).',
    labelNames: ['scope'],
    registers,
    collect() {
      const { maxInFlight, maxInFlightPerAccount } = bounds();
      this.set({ scope: 'total' }, maxInFlight);
      this.set({ scope: 'account' }, maxInFlightPerAccount);
    },
  });
  return {
    answered(endpoint, status, seconds) {
      const labels = { endpoint, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    charged: (endpoint, amount) => cu.inc({ endpoint }, amount),
    refused(problem) {
      const reason = refusalOf(problem);
      if (reason !== undefined) refusals.inc({ reason });
    },
  };
}
