import {
  ChainConflictError,
  type ChainInfo,
  ChainRegistry,
  EvmIntegrityError,
  RULE_SET_NAMES,
  type RuleSetName,
} from 'evm-integrity';
import { DEFAULT_REQUEST_RETENTION_DAYS, type Account, type Entitlements } from '../../store/store.js';
import { DEFAULT_RESERVATION_LEASE_MS, MIN_RESERVATION_LEASE_MS } from '../../store/leases.js';
import { isObject, type JsonObject } from 'evm-integrity/api';
import { ENDPOINT_NAMES, type Endpoint } from '../../endpoints/endpoints.js';

/** A key given in the configuration: its SHA-256, or (at bootstrap only) the key itself. */
export type ConfiguredKey = { label: string; sha256: string } | { label: string; key: string };

/** An account of the configuration: the store's account fields, and its keys. */
export interface ConfiguredAccount extends Omit<Account, 'periodAnchor' | 'createdAt'> {
  keys: ConfiguredKey[];
}

/** The server's configuration, after defaults and environment overrides. */
export interface ServerConfig {
  host: string;
  port: number;
  /**
   * `sqlite` (a file in `dataDir`), `postgres` (the database at `databaseUrl`, shared by replicas) or `memory` (tests;
   * nothing survives a restart).
   */
  store: 'sqlite' | 'postgres' | 'memory';
  dataDir: string;
  bodyLimitBytes: number;
  /**
   * The body limit of `POST /v1/evm/verify/logs-proof`, apart from `bodyLimitBytes`: a proof over a
   * range is larger than a block's body, and raising one limit does not open the other endpoints.
   */
  logsProofBodyLimitBytes: number;
  /**
   * Body bytes the server holds at once, read or being verified; a body beyond them is refused 503 unread. null: an
   * eighth of the machine's memory, at least the largest body limit (maxBodyBytesFor).
   */
  maxBodyBytesInFlight: number | null;
  /** Turning auth off is explicit; then every request is the `anonymous` account's. */
  auth: boolean;
  /**
   * Base URL that `docs_url` and the OpenAPI `servers` point at; when null, `servers` is relative and `docs_url` is
   * under the request's Host (docsUrlOf).
   */
  publicUrl: string | null;
  /**
   * Verify operations in progress at once (running or waiting for a worker) before answering 503; null: derived from
   * the verifying threads (inFlightBoundsFor: twice the per-account bound).
   */
  maxInFlight: number | null;
  /**
   * The same bound for one account, so one client's burst cannot fill the queue for all; null: derived from the
   * verifying threads (inFlightBoundsFor: 32 per thread).
   */
  maxInFlightPerAccount: number | null;
  /**
   * Milliseconds a verify request that finds no place free waits for one, its body unread, before 503; 0: refused at
   * once. As many may wait as may be in progress.
   */
  admissionWaitMs: number;
  /** Worker threads that verify large bodies; null: one per core; 0: none, every body is verified on the event loop. */
  poolWorkers: number | null;
  /** Bodies of at least this many bytes go to a worker; smaller ones are verified inline, where that is faster. */
  poolThresholdBytes: number;
  accounts: ConfiguredAccount[];
  chains: ChainInfo[];
  /**
   * An evidence directory (`evidence add` writes it): the blocks operators vouched for, each admitted again at start
   * and claimed on as `operator` evidence; null for none.
   */
  evidenceDir: string | null;
  /**
   * Milliseconds a client has to send a request's headers, from the request's first byte (on a new connection, from the
   * connection).
   */
  headerTimeoutMs: number;
  /**
   * Milliseconds a client has to send the whole request, headers and body, from the same start; not less than
   * `headerTimeoutMs`.
   */
  bodyTimeoutMs: number;
  /** Milliseconds a keep-alive connection may sit idle between requests before it is closed. */
  idleTimeoutMs: number;
  /** Milliseconds shutdown waits for requests in progress before it closes their connections. */
  shutdownTimeoutMs: number;
  /** Days the request log keeps a row; usage figures are kept apart and never pruned. */
  requestRetentionDays: number;
  /** Milliseconds CU reserved for a request stay held without a settle or release (a crashed process's come back). */
  reservationLeaseMs: number;
  /** The PostgreSQL store's `postgres://…` URL (`store: "postgres"`); `DATABASE_URL` overrides it. */
  databaseUrl: string | null;
  /** Connections to PostgreSQL per process. */
  pgPoolSize: number;
  /** Milliseconds a PostgreSQL statement may run before it is cancelled (the request gets 503). */
  pgStatementTimeoutMs: number;
  /** Milliseconds to wait for a PostgreSQL connection before giving up (the request gets 503). */
  pgConnectTimeoutMs: number;
  /**
   * Origins whose browser scripts may call the server (CORS), such as `https://app.example.com`, or `*`; none by
   * default.
   */
  corsOrigins: string[];
  /** Port of the Prometheus listener (`/metrics`), apart from the API's; null: none. */
  metricsPort: number | null;
  /** Address of the Prometheus listener; loopback unless told otherwise. */
  metricsHost: string;
  /** When set, the Prometheus listener requires it as a bearer key. */
  metricsToken: string | null;
  /**
   * Requests of one connection worked on or owed an answer at once (an answer counts until the kernel has taken all of
   * it); beyond them the connection is not read, so a client that pipelines without reading queues no more work.
   */
  maxInFlightPerConnection: number;
  /** Milliseconds a connection may leave its answer unsent without taking any of it before it is closed. */
  sendTimeoutMs: number;
  /** Bytes a connection's socket buffers ahead of the client before a streamed answer (the docs bundle) waits. */
  maxResponseBufferBytes: number;
  /**
   * Connections held at once; a new one beyond closes the oldest idle connection, or is refused when none is idle.
   * null: derived from the process's file-descriptor limit (maxConnectionsFor: all but 128 of them).
   */
  maxConnections: number | null;
  /** Connections held at once from one client address, under the same rule. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CONFIG: ServerConfig = {
  host: '127.0.0.1',
  port: 8080,
  store: 'sqlite',
  dataDir: './data',
  bodyLimitBytes: 32 * 1024 * 1024,
  // A 16 MiB artifact, as hex; the same 30 s of body_timeout_ms carry it.
  logsProofBodyLimitBytes: 32 * 1024 * 1024,
  maxBodyBytesInFlight: null,
  auth: true,
  publicUrl: null,
  // Derived from the pool's threads when the server starts (inFlightBoundsFor): what the machine can serve.
  maxInFlight: null,
  maxInFlightPerAccount: null,
  // As long as the Retry-After (1 s) a refused client would wait: a client that retries at once costs a reconnection
  // and its body sent again; a waiting one costs a paused socket.
  admissionWaitMs: 1000,
  poolWorkers: null,
  // Measured on 2 cores with autocannon, receipt-root bodies inline against the pool (README,
  // Speed): up to 113 KB the pool is no faster at c=1 or c=10 and its p99 is higher; from 143 KB
  // it serves 1.6x the requests at c=10 and as many at c=1.
  poolThresholdBytes: 131_072,
  accounts: [],
  chains: [],
  evidenceDir: null,
  // Tens of seconds: a body of the default 32 MiB limit arrives in 30 s at about
  // 9 Mbit/s, while a client that trickles bytes holds its socket no longer.
  headerTimeoutMs: 20_000,
  bodyTimeoutMs: 30_000,
  // Longer than the 60 s idle timeout of common proxies (nginx upstream keep-alive,
  // cloud load balancers), so a proxy never reuses a connection the service just closed.
  idleTimeoutMs: 65_000,
  // Within the usual 30 s a supervisor waits between SIGTERM and SIGKILL.
  shutdownTimeoutMs: 10_000,
  requestRetentionDays: DEFAULT_REQUEST_RETENTION_DAYS,
  reservationLeaseMs: DEFAULT_RESERVATION_LEASE_MS,
  databaseUrl: null,
  pgPoolSize: 10,
  pgStatementTimeoutMs: 5000,
  pgConnectTimeoutMs: 5000,
  corsOrigins: [],
  metricsPort: null,
  metricsHost: '127.0.0.1',
  metricsToken: null,
  // An HTTP/1.1 client gains little from pipelining deeper: answers come back in order.
  maxInFlightPerConnection: 4,
  // As long as a client has to send its request: a reader that takes nothing for that long is gone or hostile.
  sendTimeoutMs: 30_000,
  // Node's own default for a stream's buffer.
  maxResponseBufferBytes: 65_536,
  maxConnections: null,
  // Generous for a browser or a client's pool (a handful each); behind a proxy, set it to max_connections.
  maxConnectionsPerAddress: 256,
};

/** A configuration that cannot be used; the message names the member and what was expected. */
export class ConfigError extends EvmIntegrityError<Record<string, never>, 'CONFIG_INVALID'> {
  override name = 'ConfigError';
  override readonly code = 'CONFIG_INVALID';

  constructor(message: string) {
    super(message, {});
  }
}

type Json = JsonObject;

/** Members whose value may be a secret (a password in the URL, a token): an error never shows it. */
const SECRET_MEMBERS = new Set(['database_url', 'metrics_token']);

function member<T>(
  obj: Json,
  name: string,
  path: string,
  check: (v: unknown) => boolean,
  expected: string,
  fallback: T,
): T {
  const value = obj[name];
  if (value === undefined) return fallback;
  if (!check(value)) {
    const got = SECRET_MEMBERS.has(name)
      ? 'got another value (not shown: it may be a secret)'
      : `got ${JSON.stringify(value)}`;
    throw new ConfigError(`${path}${name}: expected ${expected}, ${got}`);
  }
  return value as T;
}

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;
const isString = (v: unknown) => typeof v === 'string' && v.length > 0;
const isPort = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535;
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isPositive = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0;
/** A nullable member's check: null (the member's default, whatever the default derives) or what `check` takes. */
const orNull = (check: (v: unknown) => boolean) => (v: unknown) => v === null || check(v);

/** An in-flight bound: a positive integer, or null for the one derived from the worker threads. */
function inFlightBound(json: Json, name: string, fallback: number | null): number | null {
  return member<number | null>(
    json,
    name,
    '',
    orNull(isPositive),
    'a positive integer or null (derived from the worker threads)',
    fallback,
  );
}

/**
 * Refuses the members of `obj` that are not `known`, at any depth of the configuration: a typo
 * (`cu_limt`, `chian`) must not leave a default or no limit in its place without a word.
 */
function refuseUnknown(obj: JsonObject, known: readonly string[], path: string): void {
  const unknown = Object.keys(obj).filter((k) => !known.includes(k));
  if (unknown.length > 0)
    throw new ConfigError(
      `${path === '' ? 'unknown configuration member' : `${path}: unknown member`} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known: ${known.join(', ')}`,
    );
}

function readEntitlements(value: unknown, path: string): Entitlements | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new ConfigError(`${path}: expected an object with endpoints and/or chains`);
  refuseUnknown(value, ['endpoints', 'chains'], path);
  const endpoints = member<string[] | undefined>(
    value,
    'endpoints',
    `${path}.`,
    (v) => Array.isArray(v) && v.every((name) => ENDPOINT_NAMES.includes(name as string)),
    `an array of endpoint names, each one of ${ENDPOINT_NAMES.join(', ')}`,
    undefined,
  );
  const chains = member<number[] | undefined>(
    value,
    'chains',
    `${path}.`,
    (v) => Array.isArray(v) && v.every(isPositive),
    'an array of chain ids (positive integers)',
    undefined,
  );
  return { ...(endpoints && { endpoints }), ...(chains && { chains }) };
}

function readKey(value: unknown, path: string): ConfiguredKey {
  if (!isObject(value)) throw new ConfigError(`${path}: expected {label, sha256} or {label, key}`);
  refuseUnknown(value, ['label', 'sha256', 'key'], path);
  const label = member(value, 'label', `${path}.`, isString, 'a non-empty string', 'configured');
  if ((value.key === undefined) === (value.sha256 === undefined)) {
    throw new ConfigError(
      `${path}: expected "key" (the key itself) or "sha256" (its SHA-256), ${value.key === undefined ? 'got neither' : 'not both'}`,
    );
  }
  if (value.sha256 !== undefined) {
    const sha256 = member(
      value,
      'sha256',
      `${path}.`,
      (v) => typeof v === 'string' && /^[0-9a-f]{64}$/i.test(v),
      "the key's SHA-256 as 64 hex characters",
      '',
    );
    return { label, sha256: sha256.toLowerCase() };
  }
  return { label, key: member(value, 'key', `${path}.`, isString, 'the key (or give sha256 instead)', '') };
}

function readAccount(value: unknown, path: string): ConfiguredAccount {
  if (!isObject(value)) throw new ConfigError(`${path}: expected an account object`);
  refuseUnknown(value, ['id', 'name', 'plan', 'cu_limit', 'rate_limit_rps', 'entitlements', 'keys'], path);
  const id = member(
    value,
    'id',
    `${path}.`,
    (v) => typeof v === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(v),
    'an id of letters, digits, _ . -',
    '',
  );
  if (id === '') throw new ConfigError(`${path}.id: required`);
  const keys = member<unknown[]>(value, 'keys', `${path}.`, Array.isArray, 'an array of keys', []);
  return {
    id,
    name: member(value, 'name', `${path}.`, isString, 'a non-empty string', id),
    plan: member(value, 'plan', `${path}.`, isString, 'a non-empty string', 'self-hosted'),
    cuLimit: member(value, 'cu_limit', `${path}.`, isCount, 'a non-negative integer', 1_000_000),
    rateLimitRps: member(value, 'rate_limit_rps', `${path}.`, isPositive, 'a positive integer', 25),
    entitlements: readEntitlements(value.entitlements, `${path}.entitlements`),
    keys: keys.map((k, i) => readKey(k, `${path}.keys[${i}]`)),
  };
}

function readChain(value: unknown, path: string): ChainInfo {
  if (!isObject(value)) throw new ConfigError(`${path}: expected {chain_id, name, rules}`);
  refuseUnknown(value, ['chain_id', 'name', 'rules'], path);
  const chainId = member(value, 'chain_id', `${path}.`, isPositive, 'a chain id (a positive integer)', -1);
  if (chainId < 0) throw new ConfigError(`${path}.chain_id: required`);
  const rules = member<string>(
    value,
    'rules',
    `${path}.`,
    (v) => RULE_SET_NAMES.includes(v as RuleSetName),
    `one of ${RULE_SET_NAMES.join(', ')}`,
    '',
  );
  if (rules === '') throw new ConfigError(`${path}.rules: required (one of ${RULE_SET_NAMES.join(', ')})`);
  return {
    chainId,
    name: member(value, 'name', `${path}.`, isString, 'a non-empty string', `chain ${chainId}`),
    rules: rules as RuleSetName,
    verifiable: true,
  };
}

/** The `chains` member, or `fallback`; refused when a chain would replace a built-in one (its eras would be lost). */
function readChains(json: JsonObject, fallback: ChainInfo[]): ChainInfo[] {
  const given = member<unknown[] | undefined>(json, 'chains', '', Array.isArray, 'an array of chains', undefined);
  if (given === undefined) return fallback;
  const chains = given.map((c, i) => readChain(c, `chains[${i}]`));
  try {
    new ChainRegistry(chains);
  } catch (error) {
    if (error instanceof ChainConflictError) throw new ConfigError(`chains: ${error.message}`);
    throw error;
  }
  return chains;
}

/**
 * The members of the configuration, in snake_case as the file writes them: the one list that
 * parseConfig accepts and that the environment's variables are derived from (config-env.ts).
 */
export const CONFIG_MEMBERS: readonly string[] = [
  'host',
  'port',
  'store',
  'data_dir',
  'body_limit_bytes',
  'logs_proof_body_limit_bytes',
  'max_body_bytes_in_flight',
  'auth',
  'public_url',
  'max_in_flight',
  'max_in_flight_per_account',
  'admission_wait_ms',
  'pool_workers',
  'pool_threshold_bytes',
  'accounts',
  'chains',
  'evidence_dir',
  'header_timeout_ms',
  'body_timeout_ms',
  'idle_timeout_ms',
  'shutdown_timeout_ms',
  'request_retention_days',
  'reservation_lease_ms',
  'database_url',
  'pg_pool_size',
  'pg_statement_timeout_ms',
  'pg_connect_timeout_ms',
  'cors_origins',
  'metrics_port',
  'metrics_host',
  'metrics_token',
  'max_in_flight_per_connection',
  'send_timeout_ms',
  'max_response_buffer_bytes',
  'max_connections',
  'max_connections_per_address',
];

/**
 * The configuration from a parsed JSON file (members in snake_case, as in the
 * README) over `base`: a member not given keeps base's value, so flags parsed
 * over a file override only what they name. Unknown members are errors: a typo
 * in a security setting must not pass silently.
 */
export function parseConfig(json: unknown, base: ServerConfig = DEFAULT_CONFIG): ServerConfig {
  return checkConfig(parseMembers(json, base));
}

/**
 * parseConfig without the checks of one member against another (checkConfig): for a layer (file, environment, flags)
 * whose members are checked together with the others' once all are merged.
 */
export function parseMembers(json: unknown, base: ServerConfig = DEFAULT_CONFIG): ServerConfig {
  if (!isObject(json)) throw new ConfigError('the configuration must be a JSON object');
  refuseUnknown(json, CONFIG_MEMBERS, '');
  const port = member(json, 'port', '', isPort, 'a port number 0-65535', base.port);
  const host = member(json, 'host', '', isString, 'a host name or address', base.host);
  const headerTimeoutMs = member(
    json,
    'header_timeout_ms',
    '',
    isPositive,
    'a positive number of milliseconds',
    base.headerTimeoutMs,
  );
  const bodyTimeoutMs = member(
    json,
    'body_timeout_ms',
    '',
    isPositive,
    'a positive number of milliseconds',
    base.bodyTimeoutMs,
  );
  return {
    host,
    port,
    store: member(
      json,
      'store',
      '',
      (v) => v === 'sqlite' || v === 'postgres' || v === 'memory',
      '"sqlite", "postgres" or "memory"',
      base.store,
    ),
    dataDir: member(json, 'data_dir', '', isString, 'a directory path', base.dataDir),
    bodyLimitBytes: member(json, 'body_limit_bytes', '', isPositive, 'a positive number of bytes', base.bodyLimitBytes),
    logsProofBodyLimitBytes: member(
      json,
      'logs_proof_body_limit_bytes',
      '',
      isPositive,
      'a positive number of bytes',
      base.logsProofBodyLimitBytes,
    ),
    maxBodyBytesInFlight: member<number | null>(
      json,
      'max_body_bytes_in_flight',
      '',
      orNull(isPositive),
      'a positive number of bytes, or null (derived from memory)',
      base.maxBodyBytesInFlight,
    ),
    auth: member(json, 'auth', '', (v) => typeof v === 'boolean', 'true or false', base.auth),
    publicUrl: member<string | null>(
      json,
      'public_url',
      '',
      orNull((v) => typeof v === 'string' && /^https?:\/\/[^/]+$/.test(v)),
      'an http(s) origin such as https://verify.example.com, or null',
      base.publicUrl,
    ),
    maxInFlight: inFlightBound(json, 'max_in_flight', base.maxInFlight),
    maxInFlightPerAccount: inFlightBound(json, 'max_in_flight_per_account', base.maxInFlightPerAccount),
    admissionWaitMs: member(
      json,
      'admission_wait_ms',
      '',
      isCount,
      'a non-negative number of milliseconds',
      base.admissionWaitMs,
    ),
    poolWorkers: member<number | null>(
      json,
      'pool_workers',
      '',
      orNull(isCount),
      'a number of threads (0: none) or null (one per core)',
      base.poolWorkers,
    ),
    poolThresholdBytes: member(
      json,
      'pool_threshold_bytes',
      '',
      isCount,
      'a non-negative number of bytes',
      base.poolThresholdBytes,
    ),
    accounts:
      member<unknown[] | undefined>(json, 'accounts', '', Array.isArray, 'an array of accounts', undefined)?.map(
        (a, i) => readAccount(a, `accounts[${i}]`),
      ) ?? base.accounts,
    chains: readChains(json, base.chains),
    evidenceDir: member<string | null>(
      json,
      'evidence_dir',
      '',
      orNull(isString),
      'a directory of evidence files (evidence add writes them), or null',
      base.evidenceDir,
    ),
    headerTimeoutMs,
    bodyTimeoutMs,
    idleTimeoutMs: member(
      json,
      'idle_timeout_ms',
      '',
      isPositive,
      'a positive number of milliseconds',
      base.idleTimeoutMs,
    ),
    shutdownTimeoutMs: member(
      json,
      'shutdown_timeout_ms',
      '',
      isCount,
      'a non-negative number of milliseconds',
      base.shutdownTimeoutMs,
    ),
    requestRetentionDays: member(
      json,
      'request_retention_days',
      '',
      isPositive,
      'a positive number of days',
      base.requestRetentionDays,
    ),
    reservationLeaseMs: member(
      json,
      'reservation_lease_ms',
      '',
      (v) => isPositive(v) && (v as number) >= MIN_RESERVATION_LEASE_MS,
      `a number of milliseconds, at least ${MIN_RESERVATION_LEASE_MS}`,
      base.reservationLeaseMs,
    ),
    databaseUrl: member<string | null>(
      json,
      'database_url',
      '',
      orNull((v) => typeof v === 'string' && POSTGRES_URL.test(v)),
      'a postgres:// URL, or null',
      base.databaseUrl,
    ),
    pgPoolSize: member(json, 'pg_pool_size', '', isPositive, 'a positive number of connections', base.pgPoolSize),
    pgStatementTimeoutMs: member(
      json,
      'pg_statement_timeout_ms',
      '',
      isPositive,
      'a positive number of milliseconds',
      base.pgStatementTimeoutMs,
    ),
    pgConnectTimeoutMs: member(
      json,
      'pg_connect_timeout_ms',
      '',
      isPositive,
      'a positive number of milliseconds',
      base.pgConnectTimeoutMs,
    ),
    corsOrigins: member(
      json,
      'cors_origins',
      '',
      (v) => Array.isArray(v) && v.every((o) => o === '*' || (typeof o === 'string' && /^https?:\/\/[^/\s]+$/.test(o))),
      'an array of origins such as "https://app.example.com" (scheme and host, no path), or ["*"]',
      base.corsOrigins,
    ),
    metricsPort: member<number | null>(
      json,
      'metrics_port',
      '',
      orNull(isPort),
      'a port number 0-65535, or null (no metrics listener)',
      base.metricsPort,
    ),
    metricsHost: member(json, 'metrics_host', '', isString, 'a host name or address', base.metricsHost),
    metricsToken: member<string | null>(
      json,
      'metrics_token',
      '',
      orNull(isString),
      'a non-empty string, or null (no token)',
      base.metricsToken,
    ),
    ...readConnectionLimits(json, base),
  };
}

/**
 * `config` when its members agree with one another, else a ConfigError naming the member out of bounds as `nameOf`
 * tells it (the variable or flag that set it) and the member that bounds it. Run once, on the merged configuration:
 * a layer may set a member whose bound another layer moves.
 */
export function checkConfig(config: ServerConfig, nameOf: (member: string) => string = (m) => m): ServerConfig {
  if (config.bodyTimeoutMs < config.headerTimeoutMs)
    throw new ConfigError(
      `${nameOf('body_timeout_ms')}: expected at least header_timeout_ms (${config.headerTimeoutMs}), got ${config.bodyTimeoutMs}: it bounds the whole request, headers included`,
    );
  // One port cannot serve both listeners: told as a setting, not as the EADDRINUSE of the second bind.
  if (config.metricsPort !== null && config.metricsPort !== 0 && config.metricsPort === config.port)
    throw new ConfigError(
      `${nameOf('metrics_port')}: expected a port other than port (${config.port}), got ${config.metricsPort}`,
    );
  // A body at its endpoint's limit (every chunked body is counted at it) could never be taken: refused 503, forever.
  const largestBody = Math.max(config.bodyLimitBytes, config.logsProofBodyLimitBytes);
  if (config.maxBodyBytesInFlight !== null && config.maxBodyBytesInFlight < largestBody) {
    const limit = largestBody === config.bodyLimitBytes ? 'body_limit_bytes' : 'logs_proof_body_limit_bytes';
    throw new ConfigError(
      `${nameOf('max_body_bytes_in_flight')}: expected at least the largest body limit (${limit}, ${largestBody}), got ${config.maxBodyBytesInFlight}: a body at that limit could never be read`,
    );
  }
  return config;
}

/**
 * What connections may hold: how many at once, and for one, requests in flight, time without taking output, output
 * buffered ahead of it.
 */
function readConnectionLimits(
  json: Json,
  base: ServerConfig,
): Pick<
  ServerConfig,
  | 'maxInFlightPerConnection'
  | 'sendTimeoutMs'
  | 'maxResponseBufferBytes'
  | 'maxConnections'
  | 'maxConnectionsPerAddress'
> {
  return {
    maxConnections: member<number | null>(
      json,
      'max_connections',
      '',
      orNull(isPositive),
      'a positive integer, or null (derived from the file-descriptor limit)',
      base.maxConnections,
    ),
    maxConnectionsPerAddress: member(
      json,
      'max_connections_per_address',
      '',
      isPositive,
      'a positive integer',
      base.maxConnectionsPerAddress,
    ),
    maxInFlightPerConnection: member(
      json,
      'max_in_flight_per_connection',
      '',
      isPositive,
      'a positive integer',
      base.maxInFlightPerConnection,
    ),
    sendTimeoutMs: member(
      json,
      'send_timeout_ms',
      '',
      isPositive,
      'a positive number of milliseconds',
      base.sendTimeoutMs,
    ),
    maxResponseBufferBytes: member(
      json,
      'max_response_buffer_bytes',
      '',
      (v) => Number.isSafeInteger(v) && (v as number) >= 4096,
      'a number of bytes, at least 4096',
      base.maxResponseBufferBytes,
    ),
  };
}

/**
 * The body limit of an endpoint: its own member of the configuration when it has one (a logs
 * proof's), else `body_limit_bytes`.
 * @example bodyLimitOf(DEFAULT_CONFIG, { bodyLimit: 'logsProofBodyLimitBytes' }) // 33554432
 */
export function bodyLimitOf(
  config: Pick<ServerConfig, 'bodyLimitBytes' | 'logsProofBodyLimitBytes'>,
  endpoint: Pick<Endpoint, 'bodyLimit'>,
): number {
  return config[endpoint.bodyLimit ?? 'bodyLimitBytes'];
}

/** The origin clients reach the server at. */
export function publicUrlOf(config: ServerConfig): string {
  return config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}

/**
 * An origin to call from this machine, for what the server prints at start: `public_url`, else the listening address,
 * with loopback in place of a wildcard (`0.0.0.0`, `::`), which listens everywhere but is no address to call.
 */
export function localUrlOf(config: ServerConfig): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return publicUrlOf({ ...config, host });
}
