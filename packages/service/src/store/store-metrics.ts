/**
 * Store latency and errors for Prometheus: a Store that times every operation of the one it wraps
 * and counts its failures, by operation (and by error code), in a registry of metrics/.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Store } from './store.js';
import { StoreError } from './store-error.js';

/** Every operation of the Store interface (the compiler checks that none is missing). */
const OPERATIONS: { [K in keyof Store]: true } = {
  createAccount: true,
  upsertAccount: true,
  getAccount: true,
  listAccounts: true,
  createKey: true,
  importKey: true,
  listKeys: true,
  revokeKey: true,
  revokeAccountKeys: true,
  deleteAccount: true,
  authenticate: true,
  usage: true,
  reserve: true,
  settle: true,
  release: true,
  sweepExpiredHolds: true,
  pruneRequests: true,
  addCu: true,
  takeRateToken: true,
  ping: true,
  close: true,
};

/** Seconds: from an in-process store's tens of microseconds to a PostgreSQL statement near its timeout. */
const BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The metric `name` of `registry`, made by `make` the first time (several stores may report to one registry). */
function metric<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** What an error is counted as: its store code (STORE_UNAVAILABLE: the store could not answer), else `INTERNAL`. */
const codeOf = (error: unknown) => (error instanceof StoreError ? error.code : 'INTERNAL');

/**
 * `store`, with each operation's latency in `evm_integrity_store_operation_seconds{operation}` and each failure in
 * `evm_integrity_store_errors_total{operation, code}` of `registry`. Refusals (STORE_NOT_FOUND…) count as errors of
 * their code, so that unavailability (`code="STORE_UNAVAILABLE"`) can be told from them.
 *
 * @example
 * const store = instrumentStore(openStore(config), createMetricsRegistry());
 */
export function instrumentStore(store: Store, registry: Registry): Store {
  const latency = metric(
    registry,
    'evm_integrity_store_operation_seconds',
    () =>
      new Histogram({
        name: 'evm_integrity_store_operation_seconds',
        help: 'Seconds each account-store operation took, by operation.',
        labelNames: ['operation'],
        buckets: BUCKETS,
        registers: [registry],
      }),
  );
  const errors = metric(
    registry,
    'evm_integrity_store_errors_total',
    () =>
      new Counter({
        name: 'evm_integrity_store_errors_total',
        help: 'Account-store operations that failed, by operation and error code (STORE_UNAVAILABLE: the store could not answer).',
        labelNames: ['operation', 'code'],
        registers: [registry],
      }),
  );
  const instrumented: Record<string, unknown> = {};
  for (const operation of Object.keys(OPERATIONS)) {
    const run = (store[operation as keyof Store] as (...args: unknown[]) => Promise<unknown>).bind(store);
    instrumented[operation] = async (...args: unknown[]) => {
      const done = latency.startTimer({ operation });
      try {
        return await run(...args);
      } catch (error) {
        errors.inc({ operation, code: codeOf(error) });
        throw error;
      } finally {
        done();
      }
    };
  }
  return instrumented as unknown as Store;
}
