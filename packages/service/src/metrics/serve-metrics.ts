/**
 * The Prometheus exposition of one process (the server or an audit worker): its own listener,
 * apart from the API's, so that metrics never share the public port, its limits or its keys. It
 * binds to loopback unless told otherwise; a token, when set, is required as a bearer key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';

/** Where the metrics are served. */
export interface MetricsListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** When set, `Authorization: Bearer <token>` is required. */
  token: string | null;
}

/** A registry with the process's own figures (CPU, memory, event-loop lag, handles) already in it. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'evm_integrity_' });
  return registry;
}

/** A running metrics listener. */
export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` from `registry`; every other path is 404, every other method 405.
 *
 * @example
 * const registry = createMetricsRegistry();
 * const metrics = await serveMetrics(registry, { host: '127.0.0.1', port: 9464, token: null });
 * // curl http://127.0.0.1:9464/metrics
 */
export async function serveMetrics(registry: Registry, options: MetricsListenOptions): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (options.token !== null && request.headers.authorization !== `Bearer ${options.token}`) {
      response
        .writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' })
        .end('metrics need the metrics token as a bearer key\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
