/**
 * The server's Prometheus metrics as an operator scrapes them: `evm-integrity serve` in a child
 * process with `metrics_port`, requests over loopback, then `/metrics` on its own listener.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { inFlightBoundsFor } from '../packages/service/src/server/admission/in-flight-bounds.js';
import { createServerMetrics } from '../packages/service/src/server/server-metrics.js';
import { serveProcess, type ServeProcess } from './helpers/serve-process.js';

const KEY = 'evmi_metrics-test-key-0123456789abcdefghijklmnop';
const BODY = readFileSync(new URL('../fixtures/requests/receipt-root-mainnet-19426587.json', import.meta.url), 'utf8');
const dirs: string[] = [];
const running: ServeProcess[] = [];

/** `serve` with `config` in a file (a memory store, any free port), running until the test ends. */
function serveWith(config: Record<string, unknown>, env: Record<string, string> = {}): ServeProcess {
  const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-metrics-'));
  dirs.push(dir);
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ store: 'memory', port: 0, ...config }));
  const served = serveProcess(['--config', file], env);
  running.push(served);
  return served;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((served) => served.stop()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The value of one sample of a Prometheus text exposition; 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const have = match[2] === undefined ? [] : match[2].split(',');
    if (have.length === wanted.length && wanted.every((pair) => have.includes(pair))) return Number(match[3]);
  }
  return 0;
}

const scrape = async (url: string, token?: string) => {
  const res = await fetch(url, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.text();
};

const verify = (url: string, key: string | undefined, body: string) =>
  fetch(`${url}/v1/evm/verify/receipt-root`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key !== undefined && { Authorization: `Bearer ${key}` }) },
    body,
  });

describe('metrics of the server', () => {
  it('requests, latency, CU charged and refusals move by exactly what was done', async () => {
    const served = serveWith({
      metrics_port: 0,
      accounts: [{ id: 'acme', cu_limit: 3, rate_limit_rps: 1000, keys: [{ label: 'ci', key: KEY }] }],
    });
    const { url, metrics_url: metricsUrl } = await served.listening;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const before = await scrape(metricsUrl!);

    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/v1/health`)).status).toBe(200);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/v1/no/such/path-12345`)).status).toBe(404);
    expect((await verify(url, undefined, BODY)).status).toBe(401);
    expect((await verify(url, KEY, '{}')).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await verify(url, KEY, BODY)).status).toBe(200);
    const overdrawn = await verify(url, KEY, BODY);
    expect(overdrawn.status).toBe(429);
    expect(await overdrawn.json()).toMatchObject({ error: { details: { limit_scope: 'cu_allowance' } } });

    const after = await scrape(metricsUrl!);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    const requests = 'evm_integrity_http_requests_total';
    const receiptRoot = '/v1/evm/verify/receipt-root';
    expect(moved(requests, { endpoint: '/v1/health', status: '200' })).toBe(3);
    expect(moved(requests, { endpoint: '/health', status: '200' })).toBe(1);
    expect(moved(requests, { endpoint: 'unmatched', status: '404' })).toBe(1);
    expect(moved(requests, { endpoint: receiptRoot, status: '401' })).toBe(1);
    expect(moved(requests, { endpoint: receiptRoot, status: '400' })).toBe(1);
    expect(moved(requests, { endpoint: receiptRoot, status: '200' })).toBe(3);
    expect(moved(requests, { endpoint: receiptRoot, status: '429' })).toBe(1);
    const latency = 'evm_integrity_http_request_duration_seconds';
    expect(moved(`${latency}_count`, { endpoint: receiptRoot, status: '200' })).toBe(3);
    expect(moved(`${latency}_bucket`, { endpoint: '/v1/health', status: '200', le: '+Inf' })).toBe(3);
    expect(moved('evm_integrity_cu_charged_total', { endpoint: 'verify/receipt-root' })).toBe(3);
    expect(moved('evm_integrity_admission_refusals_total', { reason: 'unauthorized' })).toBe(1);
    expect(moved('evm_integrity_admission_refusals_total', { reason: 'cu_allowance' })).toBe(1);
    expect(after).toMatch(/^evm_integrity_pool_queue_depth 0$/m);
    // The store's operations are timed: one settle a charged answer.
    expect(moved('evm_integrity_store_operation_seconds_count', { operation: 'settle' })).toBe(3);
    expect(moved('evm_integrity_store_operation_seconds_count', { operation: 'authenticate' })).toBe(5);
    // A request's own path never becomes a label: the number of series stays bounded.
    expect(after).not.toContain('path-12345');
    // The account's usage agrees with the CU counted.
    const usage = await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(await usage.json()).toMatchObject({ cu_used: 3 });
  });

  it("refusals for the account's RPS ceiling: counted once each, as rate_limit", async () => {
    const served = serveWith({
      metrics_port: 0,
      accounts: [{ id: 'acme', rate_limit_rps: 1, keys: [{ label: 'ci', key: KEY }] }],
    });
    const { url, metrics_url: metricsUrl } = await served.listening;
    const before = await scrape(metricsUrl!);
    // Five at once against a ceiling of one a second: all but the first of each second are refused.
    const answers = await Promise.all(Array.from({ length: 5 }, () => verify(url, KEY, BODY)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    const refused = statuses.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThan(0);
    const after = await scrape(metricsUrl!);
    const moved = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('evm_integrity_admission_refusals_total', { reason: 'rate_limit' })).toBe(refused);
    expect(moved('evm_integrity_cu_charged_total', { endpoint: 'verify/receipt-root' })).toBe(5 - refused);
  });

  it('metrics_token: /metrics needs it as a bearer key', async () => {
    const served = serveWith({ metrics_port: 0 }, { EVM_INTEGRITY_METRICS_TOKEN: 'scrape-secret' });
    const { metrics_url: metricsUrl } = await served.listening;
    const without = await fetch(metricsUrl!);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer');
    expect(await without.text()).not.toContain('evm_integrity_');
    expect((await fetch(metricsUrl!, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    expect(await scrape(metricsUrl!, 'scrape-secret')).toContain('evm_integrity_http_requests_total');
  });

  it('the metrics are on their own port only: the API port has no /metrics, the metrics port no API', async () => {
    const served = serveWith({ metrics_port: 0 });
    const { url, metrics_url: metricsUrl } = await served.listening;
    const onApi = await fetch(`${url}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.text()).not.toContain('evm_integrity_');
    expect((await fetch(`${url}/v1/metrics`)).status).toBe(404);
    expect(new URL(metricsUrl!).port).not.toBe(new URL(url).port);
    expect((await fetch(metricsUrl!.replace(/\/metrics$/, '/v1/health'))).status).toBe(404);
  });

  it('off by default: no metrics listener, no metrics_url', async () => {
    const served = serveWith({});
    const listening = await served.listening;
    expect(listening).not.toHaveProperty('metrics_url');
  });

  it('a metrics port in use: one line naming metrics_port, exit 2, nothing served', async () => {
    const first = serveWith({ metrics_port: 0 });
    const busy = new URL((await first.listening).metrics_url!).port;
    const second = serveWith({ metrics_port: Number(busy) });
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toMatch(new RegExp(`metrics_port ${busy} on 127\\.0\\.0\\.1: cannot listen`));
  });

  it('the pool queue depth and the in-flight bounds are read at each scrape', async () => {
    const registry = new Registry();
    let waiting = 5;
    let bounds = inFlightBoundsFor(0);
    createServerMetrics(
      registry,
      () => waiting,
      () => bounds,
    );
    expect(sample(await registry.metrics(), 'evm_integrity_pool_queue_depth')).toBe(5);
    expect(sample(await registry.metrics(), 'evm_integrity_in_flight_limit', { scope: 'account' })).toBe(32);
    waiting = 0;
    bounds = inFlightBoundsFor(2);
    const text = await registry.metrics();
    expect(sample(text, 'evm_integrity_pool_queue_depth')).toBe(0);
    expect(sample(text, 'evm_integrity_in_flight_limit', { scope: 'total' })).toBe(128);
    expect(sample(text, 'evm_integrity_in_flight_limit', { scope: 'account' })).toBe(64);
  });
});
