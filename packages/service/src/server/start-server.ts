import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { ANONYMOUS_ACCOUNT } from './env.js';
import { ConfigError, localUrlOf, publicUrlOf, type ServerConfig } from './config/config.js';
import { maxConnectionsFor, openFileLimit } from './connections/connection-bounds.js';
import { serveWithLimits } from './connections/connections.js';
import { answerClientErrors, answerConnect } from './connections/client-errors.js';
import { answerUnreadable, withBackslashesEncoded } from './connections/request-target.js';
import { holdContinue } from './middleware/request-head.js';
import { rateLimitedLog } from './connections/rate-limited-log.js';
import { startingAnswer } from './responses.js';
import { docsUrlOf } from './openapi/docs-url.js';
import { type InFlightBounds, inFlightBoundsOf } from './admission/in-flight-bounds.js';
import { listen } from './connections/listen.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';
import { createMetricsRegistry, type MetricsServer, serveMetrics } from '../metrics/serve-metrics.js';
import type { Registry } from 'prom-client';
import { fairStore } from '../store/fair-store.js';
import { instrumentStore } from '../store/store-metrics.js';
import { createVerifyPool, type VerifyPool } from '../workers/verify-pool.js';
import { setupOf } from '../evidence/registry-setup.js';
import { keepRequestLog } from './retention.js';
import { drainable } from './connections/shutdown.js';
import { MemoryStore } from '../store/memory-store.js';
import { DIRECTORY_MODE } from '../store/owner-only.js';
import { directoryFailure } from '../files/file-failures.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import type { Account, AccountInput, KeyRecord, Store } from '../store/store.js';
import { StoreError } from '../store/store-error.js';

/**
 * A pool worker that verified a body of this many bytes is replaced once it has answered: the heap
 * such a body grew (its text and parse, a few times its bytes) would otherwise stay with the idle
 * thread. A new worker costs about 0.1 s of CPU, small beside verifying such a body.
 */
const REPLACE_WORKER_AFTER_BYTES = 16 * 1024 * 1024;

/**
 * How much nicer than the process the server's verifying threads run (Linux), the event loop's thread keeping the
 * process's niceness: while they keep every core busy, the event loop's thread still gets one as soon as it has work
 * (a health check, a request's headers, an answer), as a thread of higher priority. When nothing else wants the cores
 * they verify at full speed; beside other busy processes of their scheduling group (not those of another container,
 * service or session), they get a smaller share.
 */
const POOL_NICE = 10;

/** The SQLite file of a data directory. */
export const storeFile = (dataDir: string) => join(dataDir, 'evm-integrity.sqlite');

/**
 * Opens the configured store; a data directory that cannot be made, or `store: "postgres"` without a database URL, is
 * a ConfigError. PostgreSQL is first reached (and migrated) by the first operation.
 */
export function openStore(
  config: Pick<
    ServerConfig,
    | 'store'
    | 'dataDir'
    | 'reservationLeaseMs'
    | 'databaseUrl'
    | 'pgPoolSize'
    | 'pgStatementTimeoutMs'
    | 'pgConnectTimeoutMs'
  >,
): Store {
  const options = { reservationLeaseMs: config.reservationLeaseMs };
  if (config.store === 'memory') return new MemoryStore(options);
  if (config.store === 'postgres') {
    if (config.databaseUrl === null)
      throw new ConfigError('database_url: required with store "postgres" (or set DATABASE_URL)');
    return new PostgresStore({
      ...options,
      databaseUrl: config.databaseUrl,
      poolSize: config.pgPoolSize,
      statementTimeoutMs: config.pgStatementTimeoutMs,
      connectTimeoutMs: config.pgConnectTimeoutMs,
    });
  }
  try {
    // Here first, so that a directory that cannot be made is told as data_dir's fault; owner-only, as the store makes it.
    mkdirSync(config.dataDir, { recursive: true, mode: DIRECTORY_MODE });
  } catch (error) {
    throw new ConfigError(`data_dir: cannot create ${JSON.stringify(config.dataDir)}: ${directoryFailure(error)}`);
  }
  return new SqliteStore(storeFile(config.dataDir), options);
}

/** Creates the account; undefined when it exists already (another replica on the store made it first). */
async function createOnce(store: Store, input: AccountInput & { id: string }, now: Date): Promise<Account | undefined> {
  try {
    return await store.createAccount(input, now);
  } catch (error) {
    if (error instanceof StoreError && error.code === 'STORE_CONFLICT') return undefined;
    throw error;
  }
}

/**
 * Brings the store in line with the configuration: its accounts and keys, the
 * anonymous account when auth is off, and on a first start with no account at
 * all, one local account whose key is returned to be printed once. Replicas that
 * start at once on one store may all run it: one of them makes each account.
 */
export async function provision(
  store: Store,
  config: ServerConfig,
  now: Date,
): Promise<{ bootstrap?: { key: string; record: KeyRecord }; hadAccounts: boolean }> {
  // Accounts a key can belong to, before this start: then no key is printed, and a lost one needs the hint (serve).
  const hadAccounts = (await store.listAccounts()).some((account) => account.id !== ANONYMOUS_ACCOUNT);
  for (const account of config.accounts) {
    await store.upsertAccount(
      {
        id: account.id,
        name: account.name,
        plan: account.plan,
        cuLimit: account.cuLimit,
        rateLimitRps: account.rateLimitRps,
        entitlements: account.entitlements,
      },
      now,
    );
    for (const key of account.keys)
      await store.importKey(account.id, key.label, 'sha256' in key ? { sha256: key.sha256 } : { plain: key.key }, now);
  }
  if (!config.auth) {
    if ((await store.getAccount(ANONYMOUS_ACCOUNT)) === undefined) {
      await createOnce(
        store,
        {
          id: ANONYMOUS_ACCOUNT,
          name: 'anonymous (auth off)',
          plan: 'self-hosted',
          cuLimit: Number.MAX_SAFE_INTEGER,
          rateLimitRps: 1_000_000,
        },
        now,
      );
    }
    return { hadAccounts };
  }
  if ((await store.listAccounts()).length > 0) return { hadAccounts };
  const account = await createOnce(
    store,
    { id: 'local', name: 'local', plan: 'self-hosted', cuLimit: 1_000_000, rateLimitRps: 25 },
    now,
  );
  if (account === undefined) return { hadAccounts };
  return { bootstrap: await store.createKey(account.id, 'bootstrap', now), hadAccounts };
}

/**
 * Takes back the first start's key, which could not be shown: revoked, then its account removed when it holds no other
 * key (none made since by `keys create`), so that the next start finds a store without accounts again and makes both
 * again, showing the key. Whether the account went.
 */
async function withdrawBootstrap(store: Store, record: KeyRecord, now: Date): Promise<boolean> {
  await store.revokeKey(record.id, now);
  if ((await store.listKeys(record.accountId)).some((key) => key.id !== record.id)) return false;
  await store.deleteAccount(record.accountId);
  return true;
}

/** A first start whose key could not be shown: the key withdrawn (the log says so), the server stopped. */
export class KeyNotShownError extends Error {
  override name = 'KeyNotShownError';
}

/**
 * Node's HTTP deadlines from the configuration, so a slow or stalled client
 * cannot hold a socket (and the memory of its request) indefinitely.
 */
function httpOptions(
  config: Pick<ServerConfig, 'headerTimeoutMs' | 'bodyTimeoutMs' | 'idleTimeoutMs' | 'maxResponseBufferBytes'>,
): ServerOptions {
  return {
    // What a response and its socket buffer before a streamed answer waits for the client.
    highWaterMark: config.maxResponseBufferBytes,
    headersTimeout: config.headerTimeoutMs,
    requestTimeout: config.bodyTimeoutMs,
    keepAliveTimeout: config.idleTimeoutMs,
    // Node enforces the two request deadlines on this period (30 s by default, a
    // client would overstay by up to that); at most 1 s late, or a quarter of the deadline.
    connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headerTimeoutMs / 4)),
    // An HTTP/1.1 request without Host reaches the app, which refuses it with the envelope (Node's own 400 is empty).
    requireHostHeader: false,
  };
}

/** The server's figures, the registry that holds them, and the listener that serves them. */
interface Metrics {
  registry: Registry;
  server: ServerMetrics;
  listener: MetricsServer;
}

/**
 * The Prometheus listener of `metrics_port`, with the server's figures registered; undefined when
 * metrics are off. A port that cannot be bound is a ConfigError naming metrics_port.
 */
async function startMetrics(
  config: ServerConfig,
  queueDepth: () => number,
  bounds: () => InFlightBounds,
): Promise<Metrics | undefined> {
  if (config.metricsPort === null) return undefined;
  const registry = createMetricsRegistry();
  const server = createServerMetrics(registry, queueDepth, bounds);
  try {
    const listener = await serveMetrics(registry, {
      host: config.metricsHost,
      port: config.metricsPort,
      token: config.metricsToken,
    });
    return { registry, server, listener };
  } catch (error) {
    throw new ConfigError(
      `metrics_port ${config.metricsPort} on ${config.metricsHost}: cannot listen (${(error as Error).message})`,
    );
  }
}

export interface RunningServer {
  url: string;
  port: number;
  /** The worker pool that verifies large bodies; absent when `poolWorkers` is 0. */
  pool?: VerifyPool;
  /** Whether the store had accounts a key can belong to before this start (then no key was printed). */
  storeHadAccounts: boolean;
  /**
   * Stops accepting, lets requests in progress finish for up to
   * `shutdownTimeoutMs`, closes the connections still open then, ends the pool's workers and
   * closes the store.
   */
  close(): Promise<void>;
}

/** Writes `text` to standard error: why it could not be, or undefined once written. */
const toStderr = (text: string) =>
  new Promise<string | undefined>((resolve) => process.stderr.write(text, (error) => resolve(error?.message)));

/** Starts the service on `config.host:config.port` (port 0: any free port). */
export async function startServer(
  config: ServerConfig,
  options: {
    logger: Logger;
    store?: Store;
    /**
     * Shows the first start's key, once: resolves with why it could not be, in words (standard error's, by default).
     * Then the key is withdrawn (withdrawBootstrap), the log says so, and the start fails with a KeyNotShownError.
     */
    print?: (text: string) => Promise<string | undefined>;
  },
): Promise<RunningServer> {
  const opened = options.store ?? openStore(config);
  let store = opened;
  // The app is made once the server is bound and its store and pool are ready; until then requests get 503.
  let fetchHandler: (request: Request, env: HttpBindings) => Response | Promise<Response> = (request) =>
    startingAnswer(docsUrlOf(config.publicUrl, request.headers.get('host') ?? undefined));
  const server = createServer(httpOptions(config));
  // A client that half-closes after its request (shutdown(SHUT_WR)) still gets its answer.
  (server as typeof server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  answerClientErrors(server, config.publicUrl, config);
  answerConnect(server, config.publicUrl);
  // An Expect the server cannot meet reaches the app as any request, which answers 417 with the envelope (Node's own
  // 417 is empty).
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  // `Expect: 100-continue` reaches the app with its `100 Continue` held until the head has passed every check.
  server.on('checkContinue', holdContinue(server));
  const maxConnections = config.maxConnections ?? maxConnectionsFor(openFileLimit());
  // A flood of connections is told in one line a second, with how many were closed for each reason.
  const closedTold = rateLimitedLog((counts) =>
    options.logger.warn(
      {
        ...counts,
        max_connections: maxConnections,
        max_connections_per_address: config.maxConnectionsPerAddress,
        header_timeout_ms: config.headerTimeoutMs,
      },
      'connection bounds: closed connections (refused: over a bound with none idle for 250 ms to close; evicted: the oldest idle, for a new one; silent: no request within header_timeout_ms of the accept)',
    ),
  );
  serveWithLimits(
    server,
    // An HTTP/1.0 request may have no Host: it is served (its links relative, docsUrlOf), not refused for it.
    // A request pipelined behind an answer that closed its connection (a refusal before its body, the last answer at
    // shutdown) is dropped unread: no answer of it could be sent, so it is neither verified nor charged (an answer
    // written once a later request was read keeps the connection open for it: drainable).
    // A raw `\` in a path, which the adaptor refuses with an empty 400, is answered as any unknown path.
    withBackslashesEncoded(
      getRequestListener(
        (request, env) =>
          shutDown.dropped((env as HttpBindings).incoming)
            ? new Response(null, { status: 503 })
            : fetchHandler(request, env as HttpBindings),
        // A target or Host that is no URL: the envelope, not the adaptor's empty 400.
        { hostname: 'localhost', errorHandler: answerUnreadable(config.publicUrl, options.logger) },
      ),
    ),
    { ...config, maxConnections },
    (reason, socket) => {
      if (reason !== 'stalled') return closedTold(reason);
      options.logger.info(
        { remote_address: socket.remoteAddress, send_timeout_ms: config.sendTimeoutMs },
        'send deadline: closed a connection whose client took none of its answer for send_timeout_ms',
      );
    },
  );
  const shutDown = drainable(server);
  try {
    await listen(server, config.host, config.port);
  } catch (error) {
    await store.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = publicUrlOf({ ...config, port });
  let bootstrap: { key: string; record: KeyRecord } | undefined;
  let hadAccounts = false;
  let stopPruning = () => {};
  let pool: VerifyPool | undefined;
  let metrics: Metrics | undefined;
  try {
    metrics = await startMetrics(
      config,
      () => pool?.waiting ?? 0,
      () => inFlightBoundsOf(config, pool?.size ?? 0),
    );
    // With metrics on, every store operation is timed and its failures counted, in the same registry.
    if (metrics !== undefined) store = instrumentStore(opened, metrics.registry);
    // PostgreSQL's connections are few and shared: each account takes its turns at them (fairStore).
    if (config.store === 'postgres') store = fairStore(store, config.pgPoolSize, config.pgConnectTimeoutMs);
    // The evidence directory is read before any key is made: a start it fails must not leave a key it never shows.
    const setup = await setupOf(config.chains, config.evidenceDir ?? undefined);
    // Only once bound: a start that cannot bind must not create a key it never shows.
    ({ bootstrap, hadAccounts } = await provision(store, config, new Date()));
    // CU a crashed process left held come back now when their lease has run out (later ones on the next reserve).
    const swept = await store.sweepExpiredHolds(new Date());
    if (swept > 0) options.logger.info({ holds: swept }, 'gave back CU held past their lease');
    stopPruning = await keepRequestLog(store, config.requestRetentionDays, options.logger);
    if (config.poolWorkers !== 0)
      pool = createVerifyPool(config.poolWorkers, setup, REPLACE_WORKER_AFTER_BYTES, POOL_NICE);
    fetchHandler = createApp({
      config: { ...config, port },
      evidence: setup.evidence,
      store,
      logger: options.logger,
      ...(pool && { pool }),
      ...(metrics && { metrics: metrics.server }),
    }).fetch;
  } catch (error) {
    stopPruning();
    await pool?.terminate();
    await metrics?.listener.close();
    server.close();
    // A key made by a start that then failed was never shown: taken back, as one that could not be printed is.
    if (bootstrap !== undefined) await withdrawBootstrap(store, bootstrap.record, new Date()).catch(() => false);
    await store.close();
    throw error;
  }
  const bounds = inFlightBoundsOf(config, pool?.size ?? 0);
  options.logger.info(
    {
      url,
      store: config.store,
      auth: config.auth,
      pool_workers: pool?.size ?? 0,
      // The bounds in force, derived ones included, so an operator sees what the machine was given.
      max_in_flight: bounds.maxInFlight,
      max_in_flight_per_account: bounds.maxInFlightPerAccount,
      max_connections: maxConnections,
      ...(metrics && { metrics_url: metrics.listener.url }),
    },
    'listening',
  );
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      const cut = await shutDown.drain(config.shutdownTimeoutMs);
      if (cut > 0)
        options.logger.warn(
          { connections: cut, shutdown_timeout_ms: config.shutdownTimeoutMs },
          'shutdown deadline: closed connections with requests still in progress',
        );
    } finally {
      // After the drain: no request is left to hand a job to the workers.
      await pool?.terminate();
      await metrics?.listener.close();
      stopPruning();
      await store.close();
    }
  };
  if (bootstrap !== undefined) {
    const unshown = await (options.print ?? toStderr)(
      `\nFirst start: created account "local" with this API key. It is shown once; keep it:\n\n  ${bootstrap.key}\n\nTry, with KEY set to it: curl -s ${localUrlOf({ ...config, port })}/v1/usage -H "Authorization: Bearer $KEY"\n\n`,
    );
    if (unshown !== undefined) {
      const { id, accountId } = bootstrap.record;
      const said = { account: accountId, key_id: id, why: unshown };
      try {
        const accountGone = await withdrawBootstrap(store, bootstrap.record, new Date());
        const outcome = accountGone
          ? `and account "${accountId}" removed: the next start makes both again, and shows the key`
          : `(account "${accountId}" keeps the keys made since)`;
        options.logger.error(
          said,
          `first start: its API key could not be shown, so it was revoked ${outcome}; stopped`,
        );
      } catch (error) {
        options.logger.error(
          { ...said, err: error },
          `first start: its API key could not be shown, and revoking it failed: revoke it with keys revoke ${id}; stopped`,
        );
      }
      await close();
      throw new KeyNotShownError(`the first start's API key could not be shown (${unshown})`);
    }
  }
  return { url, port, ...(pool && { pool }), storeHadAccounts: hadAccounts, close: () => (closing ??= close()) };
}
