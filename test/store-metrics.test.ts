/** instrumentStore: store latency and errors in the Prometheus registry, by operation. */
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../packages/service/src/metrics/serve-metrics.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { PostgresStore } from '../packages/service/src/store/postgres/postgres-store.js';
import { instrumentStore } from '../packages/service/src/store/store-metrics.js';

const T0 = new Date('2024-01-31T10:00:00.000Z');

/** The value of the sample `line` (a metric name with its labels) in the exposition `text`. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('instrumentStore', () => {
  it('times every operation by name and counts failures by operation and code, passing results and errors through', async () => {
    const registry = createMetricsRegistry();
    const store = instrumentStore(new MemoryStore(), registry);
    await store.createAccount({ id: 'acme', name: 'Acme', plan: 'p', cuLimit: 1, rateLimitRps: 1 }, T0);
    const held = await store.reserve('acme', 'e', 1, T0);
    expect(held.ok).toBe(true);
    expect((await store.reserve('acme', 'e', 1, T0)).ok).toBe(false); // a refusal is a result, not an error
    await expect(store.revokeKey('nobody', T0)).rejects.toMatchObject({ code: 'STORE_NOT_FOUND' });
    const text = await registry.metrics();
    expect(sample(text, 'evm_integrity_store_operation_seconds_count{operation="reserve"}')).toBe(2);
    expect(sample(text, 'evm_integrity_store_operation_seconds_count{operation="createAccount"}')).toBe(1);
    expect(sample(text, 'evm_integrity_store_errors_total{operation="revokeKey",code="STORE_NOT_FOUND"}')).toBe(1);
    expect(
      sample(text, 'evm_integrity_store_errors_total{operation="reserve",code="STORE_NOT_FOUND"}'),
    ).toBeUndefined();
  });

  it('counts an unreachable store as STORE_UNAVAILABLE; two stores on one registry share the metrics', async () => {
    const registry = createMetricsRegistry();
    instrumentStore(new MemoryStore(), registry);
    const pg = new PostgresStore({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
      poolSize: 1,
      statementTimeoutMs: 1000,
      connectTimeoutMs: 1000,
    });
    const store = instrumentStore(pg, registry);
    try {
      await expect(store.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      const text = await registry.metrics();
      expect(sample(text, 'evm_integrity_store_errors_total{operation="ping",code="STORE_UNAVAILABLE"}')).toBe(1);
    } finally {
      await store.close();
    }
  });
});
