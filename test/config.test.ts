import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../packages/service/src/cli/serve-config.js';
import { serveProcess, type ServeProcess } from './helpers/serve-process.js';
import { applyEnvironment, environmentVariables } from '../packages/service/src/server/config/config-env.js';
import {
  CONFIG_MEMBERS,
  ConfigError,
  DEFAULT_CONFIG,
  parseConfig,
  publicUrlOf,
  type ServerConfig,
} from '../packages/service/src/server/config/config.js';
import { inFlightBoundsFor, inFlightBoundsOf } from '../packages/service/src/server/admission/in-flight-bounds.js';

describe('server configuration', () => {
  it('embedded defaults: loopback:8080, SQLite in ./data, 32 MiB bodies, auth on', () => {
    expect(DEFAULT_CONFIG).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      store: 'sqlite',
      dataDir: './data',
      bodyLimitBytes: 33554432,
      auth: true,
    });
    expect(publicUrlOf(DEFAULT_CONFIG)).toBe('http://127.0.0.1:8080');
  });

  it('in-flight bounds: derived from the verifying threads unless set, each on its own', () => {
    expect(DEFAULT_CONFIG).toMatchObject({ maxInFlight: null, maxInFlightPerAccount: null });
    // 32 queued per thread for one account, twice that in all; no pool: the event loop is the one thread.
    expect(inFlightBoundsFor(0)).toEqual({ maxInFlight: 64, maxInFlightPerAccount: 32 });
    expect(inFlightBoundsFor(1)).toEqual({ maxInFlight: 64, maxInFlightPerAccount: 32 });
    expect(inFlightBoundsFor(2)).toEqual({ maxInFlight: 128, maxInFlightPerAccount: 64 });
    expect(inFlightBoundsFor(16)).toEqual({ maxInFlight: 1024, maxInFlightPerAccount: 512 });
    expect(inFlightBoundsOf(parseConfig({ max_in_flight_per_account: 5 }), 4)).toEqual({
      maxInFlight: 256,
      maxInFlightPerAccount: 5,
    });
    expect(inFlightBoundsOf(parseConfig({ max_in_flight: 7, max_in_flight_per_account: null }), 2)).toEqual({
      maxInFlight: 7,
      maxInFlightPerAccount: 64,
    });
    expect(() => parseConfig({ max_in_flight_per_account: 0 })).toThrow(
      'max_in_flight_per_account: expected a positive integer or null (derived from the worker threads), got 0',
    );
  });

  it('transport timeouts: defaults in the tens of seconds, each configurable', () => {
    expect(DEFAULT_CONFIG).toMatchObject({
      headerTimeoutMs: 20_000,
      bodyTimeoutMs: 30_000,
      idleTimeoutMs: 65_000,
      shutdownTimeoutMs: 10_000,
    });
    expect(
      parseConfig({ header_timeout_ms: 1, body_timeout_ms: 2, idle_timeout_ms: 3, shutdown_timeout_ms: 0 }),
    ).toMatchObject({
      headerTimeoutMs: 1,
      bodyTimeoutMs: 2,
      idleTimeoutMs: 3,
      shutdownTimeoutMs: 0,
    });
  });

  it('max_body_bytes_in_flight: at least the largest body limit, which it may equal', () => {
    expect(
      parseConfig({ body_limit_bytes: 1000, logs_proof_body_limit_bytes: 5000, max_body_bytes_in_flight: 5000 }),
    ).toMatchObject({ maxBodyBytesInFlight: 5000 });
  });

  it('reads the example of docs/service.md', () => {
    const config = parseConfig({
      host: '0.0.0.0',
      port: 9000,
      public_url: 'https://verify.example.com',
      accounts: [
        {
          id: 'acme',
          name: 'Acme',
          plan: 'pro',
          cu_limit: 5,
          rate_limit_rps: 2,
          entitlements: { endpoints: ['verify/receipt-root'], chains: [1] },
          keys: [
            { label: 'ci', sha256: 'AB'.repeat(32) },
            { label: 'b', key: 'plain-key' },
          ],
        },
      ],
      chains: [{ chain_id: 31337, name: 'devnet', rules: 'ethereum' }],
    });
    expect(config.accounts[0]).toEqual({
      id: 'acme',
      name: 'Acme',
      plan: 'pro',
      cuLimit: 5,
      rateLimitRps: 2,
      entitlements: { endpoints: ['verify/receipt-root'], chains: [1] },
      keys: [
        { label: 'ci', sha256: 'ab'.repeat(32) },
        { label: 'b', key: 'plain-key' },
      ],
    });
    expect(config.chains).toEqual([{ chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true }]);
    expect(publicUrlOf(config)).toBe('https://verify.example.com');
  });

  it.each([
    [{ prot: 1 }, /unknown configuration member "prot"/],
    // A typo at any depth is refused, never left as a default (1,000,000 CU) or as no limit.
    [
      { accounts: [{ id: 'b', cu_limt: 5 }] },
      /^accounts\[0\]: unknown member "cu_limt"; known: id, name, plan, cu_limit/,
    ],
    [
      { accounts: [{ id: 'x', entitlements: { endpoint: ['verify/logs-bloom'], chian: [10] } }] },
      /^accounts\[0\]\.entitlements: unknown member "endpoint", "chian"; known: endpoints, chains$/,
    ],
    [
      { accounts: [{ id: 'x', keys: [{ label: 'k', key: 'evmi_k', hash: 'x' }] }] },
      /^accounts\[0\]\.keys\[0\]: unknown member "hash"; known: label, sha256, key$/,
    ],
    [{ chains: [{ chain_id: 777, rules: 'ethereum', nmae: 'x' }] }, /^chains\[0\]: unknown member "nmae"/],
    [
      { accounts: [{ id: 'x', entitlements: { endpoints: ['verify/receipt_root'] } }] },
      /^accounts\[0\]\.entitlements\.endpoints: expected an array of endpoint names, each one of verify\/receipt-root, verify\/logs-bloom, verify\/receipt-proof, verify\/lineage, verify\/logs-proof, verify\/anchor, got \["verify\/receipt_root"\]$/,
    ],
    [{ port: 70000 }, /port: expected a port number/],
    [{ port: 9000, metrics_port: 9000 }, /^metrics_port: expected a port other than port \(9000\), got 9000$/],
    [{ store: 'redis' }, /store: expected "sqlite", "postgres" or "memory"/],
    [{ database_url: 'mysql://db/x' }, /database_url: expected a postgres:\/\/ URL/],
    [{ pg_pool_size: 0 }, /pg_pool_size: expected a positive number of connections/],
    [{ reservation_lease_ms: 999 }, /reservation_lease_ms: expected a number of milliseconds, at least 1000/],
    [{ auth: 'no' }, /auth: expected true or false/],
    [{ accounts: [{ id: 'a b' }] }, /accounts\[0\]\.id/],
    [{ accounts: [{ id: 'a', rate_limit_rps: 0 }] }, /accounts\[0\]\.rate_limit_rps: expected a positive integer/],
    [{ accounts: [{ id: 'a', keys: [{ label: 'x', sha256: 'zz' }] }] }, /accounts\[0\]\.keys\[0\]\.sha256/],
    [
      { accounts: [{ id: 'a', keys: [{ key: 'k' }, { label: 'x' }] }] },
      /^accounts\[0\]\.keys\[1\]: expected "key" \(the key itself\) or "sha256" \(its SHA-256\), got neither$/,
    ],
    [
      { accounts: [{ id: 'a', keys: [{ key: 'k', sha256: 'ab'.repeat(32) }] }] },
      /^accounts\[0\]\.keys\[0\]: expected "key" .* or "sha256" .*, not both$/,
    ],
    [{ chains: [{ chain_id: 5, rules: 'solana' }] }, /chains\[0\]\.rules: expected one of ethereum/],
    [{ header_timeout_ms: 0 }, /^header_timeout_ms: expected a positive number of milliseconds, got 0$/],
    [{ idle_timeout_ms: '30s' }, /^idle_timeout_ms: expected a positive number of milliseconds/],
    [{ shutdown_timeout_ms: -1 }, /^shutdown_timeout_ms: expected a non-negative number of milliseconds/],
    [
      { header_timeout_ms: 5000, body_timeout_ms: 4000 },
      /^body_timeout_ms: expected at least header_timeout_ms \(5000\), got 4000/,
    ],
    [
      { max_body_bytes_in_flight: 10 },
      /^max_body_bytes_in_flight: expected at least the largest body limit \(body_limit_bytes, 33554432\), got 10: a body at that limit could never be read$/,
    ],
    [
      { body_limit_bytes: 1000, logs_proof_body_limit_bytes: 5000, max_body_bytes_in_flight: 4999 },
      /^max_body_bytes_in_flight: expected at least the largest body limit \(logs_proof_body_limit_bytes, 5000\), got 4999/,
    ],
    [
      { cors_origins: 'https://app.example.com' },
      /^cors_origins: expected an array of origins such as "https:\/\/app.example.com"/,
    ],
    [
      { cors_origins: ['https://app.example.com/path'] },
      /^cors_origins: expected an array of origins .*, got \["https:\/\/app.example.com\/path"\]$/,
    ],
    [[], /must be a JSON object/],
  ])('%j is refused with a message naming the member', (json, message) => {
    expect(() => parseConfig(json)).toThrow(ConfigError);
    expect(() => parseConfig(json)).toThrow(message);
  });

  it('PORT and HOST override the file; flags override both', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ port: 9000, host: '0.0.0.0', data_dir: '/srv/data' }));
    expect(loadConfig({ config: file }, {})).toMatchObject({ port: 9000, host: '0.0.0.0', dataDir: '/srv/data' });
    expect(loadConfig({}, { EVM_INTEGRITY_CONFIG: file, PORT: '9100', HOST: '::1' })).toMatchObject({
      port: 9100,
      host: '::1',
    });
    expect(loadConfig({ config: file, port: '9200', store: 'memory' }, { PORT: '9100' })).toMatchObject({
      port: 9200,
      store: 'memory',
      dataDir: '/srv/data',
    });
    expect(
      applyEnvironment(parseConfig({ database_url: 'postgres://db/a' }), { DATABASE_URL: 'postgres://db/b' }),
    ).toMatchObject({
      databaseUrl: 'postgres://db/b',
    });
    // The URL may carry a password: the error names the variable, never the value.
    const refusal = (() => {
      try {
        applyEnvironment(DEFAULT_CONFIG, { DATABASE_URL: 'mysql://u:secret@db/x' });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(refusal).not.toContain('secret@');
    expect(() => applyEnvironment(DEFAULT_CONFIG, { DATABASE_URL: 'mysql://u:secret@db/x' })).toThrow(
      /^DATABASE_URL: expected a postgres:\/\/ URL, or null, got another value \(not shown: it may be a secret\)/,
    );
    expect(() => loadConfig({ config: join(dir, 'missing.json') }, {})).toThrow(/cannot read the configuration/);
    writeFileSync(file, '{ nope');
    expect(() => loadConfig({ config: file }, {})).toThrow(
      /^the configuration \S+config\.json: not JSON \(Expected property name or '\}' at line 1 column 3\)$/,
    );
  });

  describe('members bounded by others are checked once, merged: file, environment and flags', () => {
    const fileOf = (json: object) => {
      const file = join(mkdtempSync(join(tmpdir(), 'evm-integrity-config-')), 'config.json');
      writeFileSync(file, JSON.stringify(json));
      return file;
    };
    const small = fileOf({ max_body_bytes_in_flight: 1000 });

    it('file + environment: the environment makes the file valid, or is named when it is out of bounds', () => {
      const lowered = { EVM_INTEGRITY_BODY_LIMIT_BYTES: '1000', EVM_INTEGRITY_LOGS_PROOF_BODY_LIMIT_BYTES: '1000' };
      expect(loadConfig({ config: small }, lowered)).toMatchObject({
        maxBodyBytesInFlight: 1000,
        bodyLimitBytes: 1000,
        logsProofBodyLimitBytes: 1000,
      });
      expect(
        loadConfig({ config: small }, { EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: '67108864' }).maxBodyBytesInFlight,
      ).toBe(67108864);
      // Only one limit lowered: the other binds, and the file's member is named as the file writes it.
      expect(() => loadConfig({ config: small }, { EVM_INTEGRITY_BODY_LIMIT_BYTES: '1000' })).toThrow(
        /^max_body_bytes_in_flight: expected at least the largest body limit \(logs_proof_body_limit_bytes, 33554432\), got 1000/,
      );
      const header = fileOf({ header_timeout_ms: 40000 });
      expect(loadConfig({ config: header }, { EVM_INTEGRITY_BODY_TIMEOUT_MS: '60000' })).toMatchObject({
        headerTimeoutMs: 40000,
        bodyTimeoutMs: 60000,
      });
      expect(() => loadConfig({ config: header }, { EVM_INTEGRITY_BODY_TIMEOUT_MS: '35000' })).toThrow(
        /^EVM_INTEGRITY_BODY_TIMEOUT_MS: expected at least header_timeout_ms \(40000\), got 35000/,
      );
    });

    it("file + flag: a flag moves the port the file's metrics_port collided with", () => {
      const file = fileOf({ port: 9000, metrics_port: 9000 });
      expect(loadConfig({ config: file, port: '9001' }, {})).toMatchObject({ port: 9001, metricsPort: 9000 });
      expect(() => loadConfig({ config: file }, {})).toThrow(
        /^metrics_port: expected a port other than port \(9000\), got 9000$/,
      );
      expect(() => loadConfig({ config: fileOf({ metrics_port: 9002 }), port: '9002' }, {})).toThrow(
        /^metrics_port: expected a port other than port \(9002\), got 9002$/,
      );
    });

    it('environment alone: the variables agree with one another, or the one out of bounds is named', () => {
      expect(
        loadConfig(
          {},
          {
            EVM_INTEGRITY_BODY_LIMIT_BYTES: '1000',
            EVM_INTEGRITY_LOGS_PROOF_BODY_LIMIT_BYTES: '1000',
            EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: '1000',
          },
        ).maxBodyBytesInFlight,
      ).toBe(1000);
      expect(() =>
        loadConfig({}, { EVM_INTEGRITY_BODY_LIMIT_BYTES: '1000', EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: '1000' }),
      ).toThrow(
        /^EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: expected at least the largest body limit \(logs_proof_body_limit_bytes, 33554432\), got 1000/,
      );
      expect(() => loadConfig({}, { EVM_INTEGRITY_PORT: '9000', EVM_INTEGRITY_METRICS_PORT: '9000' })).toThrow(
        /^EVM_INTEGRITY_METRICS_PORT: expected a port other than port \(9000\), got 9000$/,
      );
    });
  });

  it("the file: null is every nullable member's default, public_url and database_url too", () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-config-'));
    const file = join(dir, 'config.json');
    const nullable = Object.entries(DEFAULT_CONFIG).filter(([, value]) => value === null);
    expect(nullable.map(([field]) => field)).toEqual(expect.arrayContaining(['publicUrl', 'databaseUrl']));
    const members = Object.fromEntries(
      nullable.map(([field]) => [field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), null]),
    );
    writeFileSync(file, JSON.stringify(members));
    expect(loadConfig({ config: file }, {})).toEqual(DEFAULT_CONFIG);
    // Over a value set before, null is the default again.
    expect(
      parseConfig(
        { public_url: null, database_url: null },
        parseConfig({ public_url: 'https://v.example.com', database_url: 'postgres://db/a' }),
      ),
    ).toMatchObject({ publicUrl: null, databaseUrl: null });
    expect(() => parseConfig({ public_url: 'ftp://x' })).toThrow(
      /^public_url: expected an http\(s\) origin such as https:\/\/verify\.example\.com, or null, got "ftp:\/\/x"$/,
    );
  });

  it('the file: a UTF-8 byte order mark is allowed, and text that is not JSON is one line with its line and column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, '\uFEFF{"port": 9300}');
    expect(loadConfig({ config: file }, {})).toMatchObject({ port: 9300 });
    writeFileSync(file, 'hello\n');
    expect(() => loadConfig({ config: file }, {})).toThrow(
      /^the configuration \S+config\.json: not JSON \(Unexpected token 'h' at line 1 column 1\)$/,
    );
  });

  it("a flag overrides only the member it names: the file's accounts and chains stay", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'evm-integrity-config-')), 'config.json');
    const fromFile = {
      accounts: [{ id: 'acme', keys: [{ label: 'ci', key: 'plain-key' }] }],
      chains: [{ chain_id: 31337, rules: 'ethereum' }],
    };
    writeFileSync(file, JSON.stringify(fromFile));
    const config = loadConfig({ config: file, host: '::1', port: '0', store: 'memory', 'data-dir': '/srv/data' }, {});
    expect(config).toEqual({ ...parseConfig(fromFile), host: '::1', port: 0, store: 'memory', dataDir: '/srv/data' });
    expect(config.accounts.map((a) => a.id)).toEqual(['acme']);
    expect(config.chains.map((c) => c.chainId)).toEqual([31337]);
  });
});

/** For each member, a value given as its variable's text, and what the configuration then holds. */
const FROM_ENVIRONMENT: Record<string, [text: string, expected: Partial<ServerConfig>]> = {
  host: ['::1', { host: '::1' }],
  port: ['9000', { port: 9000 }],
  store: ['memory', { store: 'memory' }],
  data_dir: ['/srv/evm integrity', { dataDir: '/srv/evm integrity' }],
  evidence_dir: ['/srv/evidence', { evidenceDir: '/srv/evidence' }],
  body_limit_bytes: ['1024', { bodyLimitBytes: 1024 }],
  logs_proof_body_limit_bytes: ['67108864', { logsProofBodyLimitBytes: 67108864 }],
  auth: ['false', { auth: false }],
  public_url: ['https://verify.example.com', { publicUrl: 'https://verify.example.com' }],
  max_in_flight: ['8', { maxInFlight: 8 }],
  max_in_flight_per_account: ['4', { maxInFlightPerAccount: 4 }],
  admission_wait_ms: ['0', { admissionWaitMs: 0 }],
  pool_workers: ['0', { poolWorkers: 0 }],
  pool_threshold_bytes: ['65536', { poolThresholdBytes: 65536 }],
  accounts: [
    '[{"id":"acme","cu_limit":5,"keys":[{"label":"ci","key":"k"}]}]',
    { accounts: parseConfig({ accounts: [{ id: 'acme', cu_limit: 5, keys: [{ label: 'ci', key: 'k' }] }] }).accounts },
  ],
  chains: [
    '[{"chain_id":31337,"rules":"ethereum"}]',
    { chains: [{ chainId: 31337, name: 'chain 31337', rules: 'ethereum', verifiable: true }] },
  ],
  header_timeout_ms: ['1000', { headerTimeoutMs: 1000 }],
  body_timeout_ms: ['40000', { bodyTimeoutMs: 40000 }],
  idle_timeout_ms: ['5000', { idleTimeoutMs: 5000 }],
  shutdown_timeout_ms: ['0', { shutdownTimeoutMs: 0 }],
  request_retention_days: ['90', { requestRetentionDays: 90 }],
  reservation_lease_ms: ['60000', { reservationLeaseMs: 60000 }],
  database_url: ['postgres://verifier@db:5432/evm', { databaseUrl: 'postgres://verifier@db:5432/evm' }],
  pg_pool_size: ['20', { pgPoolSize: 20 }],
  pg_statement_timeout_ms: ['2000', { pgStatementTimeoutMs: 2000 }],
  pg_connect_timeout_ms: ['3000', { pgConnectTimeoutMs: 3000 }],
  cors_origins: ['["https://app.example.com"]', { corsOrigins: ['https://app.example.com'] }],
  metrics_port: ['9464', { metricsPort: 9464 }],
  metrics_host: ['0.0.0.0', { metricsHost: '0.0.0.0' }],
  metrics_token: ['1234', { metricsToken: '1234' }],
  max_in_flight_per_connection: ['1', { maxInFlightPerConnection: 1 }],
  send_timeout_ms: ['5000', { sendTimeoutMs: 5000 }],
  max_response_buffer_bytes: ['16384', { maxResponseBufferBytes: 16384 }],
  max_connections: ['500', { maxConnections: 500 }],
  max_body_bytes_in_flight: ['40000000', { maxBodyBytesInFlight: 40_000_000 }],
  max_connections_per_address: ['8', { maxConnectionsPerAddress: 8 }],
};

describe('configuration from the environment', () => {
  it('every member has its variable EVM_INTEGRITY_<MEMBER>; PORT, HOST and DATABASE_URL are aliases', () => {
    expect(Object.keys(FROM_ENVIRONMENT).sort(), 'a sample above for every member').toEqual([...CONFIG_MEMBERS].sort());
    expect(environmentVariables()).toEqual([
      ...CONFIG_MEMBERS.map((member) => ({ variable: `EVM_INTEGRITY_${member.toUpperCase()}`, member })),
      { variable: 'PORT', member: 'port' },
      { variable: 'HOST', member: 'host' },
      { variable: 'DATABASE_URL', member: 'database_url' },
    ]);
  });

  it.each(Object.entries(FROM_ENVIRONMENT))(
    '%s from its variable: text for a member that takes text, JSON otherwise',
    (member, [text, expected]) => {
      const config = applyEnvironment(DEFAULT_CONFIG, { [`EVM_INTEGRITY_${member.toUpperCase()}`]: text });
      expect(config).toEqual({ ...DEFAULT_CONFIG, ...expected });
    },
  );

  it('precedence: defaults < file < environment < flags, each only for the members it names', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'evm-integrity-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ port: 9000, host: '0.0.0.0', data_dir: '/srv/file', max_in_flight: 7 }));
    const env = { EVM_INTEGRITY_CONFIG: file, EVM_INTEGRITY_PORT: '9100', EVM_INTEGRITY_DATA_DIR: '/srv/env' };
    expect(loadConfig({}, env)).toEqual({
      ...DEFAULT_CONFIG,
      port: 9100,
      host: '0.0.0.0',
      dataDir: '/srv/env',
      maxInFlight: 7,
    });
    expect(loadConfig({ port: '9200' }, env)).toMatchObject({ port: 9200, dataDir: '/srv/env', maxInFlight: 7 });
    expect(loadConfig({}, { EVM_INTEGRITY_PORT: '9100' })).toEqual({ ...DEFAULT_CONFIG, port: 9100 });
  });

  it('an EVM_INTEGRITY_* variable that names no member is refused, naming the closest; those read elsewhere pass', () => {
    expect(() => applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_PROT: '9003' })).toThrow(
      /^EVM_INTEGRITY_PROT: no such setting; did you mean EVM_INTEGRITY_PORT\? \(each member/,
    );
    expect(() => applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_METRIC_TOKEN: 'secret' })).toThrow(
      /^EVM_INTEGRITY_METRIC_TOKEN: no such setting; did you mean EVM_INTEGRITY_METRICS_TOKEN\?/,
    );
    expect(() => applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_DATADIR: '/srv' })).toThrow(
      /did you mean EVM_INTEGRITY_DATA_DIR\?/,
    );
    const elsewhere = {
      EVM_INTEGRITY_CONFIG: '',
      EVM_INTEGRITY_CI_NODES: '/tmp/n',
      EVM_INTEGRITY_AUDIT_WORKER_CHILD: '1',
    };
    expect(applyEnvironment(DEFAULT_CONFIG, { ...elsewhere, EVM_INTEGRITY_PROT: '' })).toEqual(DEFAULT_CONFIG);
  });

  it('an empty variable is as if unset; an alias and its variable may agree, never differ', () => {
    expect(applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_HOST: '', HOST: '' })).toEqual(DEFAULT_CONFIG);
    expect(applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_PORT: '9000', PORT: '9000' }).port).toBe(9000);
    expect(applyEnvironment(DEFAULT_CONFIG, { PORT: '9001' }).port).toBe(9001);
    expect(() => applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_PORT: '9000', PORT: '9001' })).toThrow(
      /^EVM_INTEGRITY_PORT and PORT both set port, to different values; set one$/,
    );
  });

  it.each([
    [
      { EVM_INTEGRITY_PORT: 'eighty' },
      /^EVM_INTEGRITY_PORT: expected a port number 0-65535, got "eighty" \(a value other than text is read as JSON\)$/,
    ],
    [{ EVM_INTEGRITY_PORT: '70000' }, /^EVM_INTEGRITY_PORT: expected a port number 0-65535, got 70000$/],
    [{ PORT: 'eighty' }, /^PORT: expected a port number 0-65535, got "eighty"/],
    [{ EVM_INTEGRITY_AUTH: 'no' }, /^EVM_INTEGRITY_AUTH: expected true or false, got "no" \(a value other/],
    [{ EVM_INTEGRITY_STORE: 'mysql' }, /^EVM_INTEGRITY_STORE: expected "sqlite", "postgres" or "memory", got "mysql"$/],
    [{ EVM_INTEGRITY_ACCOUNTS: '[{"id":"a b"}]' }, /^EVM_INTEGRITY_ACCOUNTS\[0\]\.id: expected an id/],
    [{ EVM_INTEGRITY_ACCOUNTS: '[{"id":' }, /^EVM_INTEGRITY_ACCOUNTS: expected an array of accounts, got "\[/],
    [{ EVM_INTEGRITY_METRICS_PORT: '"9464"' }, /^EVM_INTEGRITY_METRICS_PORT: expected a port number 0-65535, or null/],
    [
      { EVM_INTEGRITY_HEADER_TIMEOUT_MS: '50000' },
      /^body_timeout_ms: expected at least header_timeout_ms \(50000\), got 30000/,
    ],
    [
      { EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: '10' },
      /^EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: expected at least the largest body limit \(body_limit_bytes, 33554432\), got 10/,
    ],
  ])('%j is refused, naming the variable and what it expects', (env, message) => {
    expect(() => applyEnvironment(DEFAULT_CONFIG, env)).toThrow(ConfigError);
    expect(() => applyEnvironment(DEFAULT_CONFIG, env)).toThrow(message);
  });

  it('docs/service.md lists every variable the configuration reads, with its member', () => {
    const page = readFileSync(new URL('../docs/service.md', import.meta.url), 'utf8');
    const start = page.indexOf('\n## From the environment\n');
    expect(start).toBeGreaterThan(-1);
    const rows = page
      .slice(start)
      .split('\n')
      .filter((line) => /^\| `[A-Z_]+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim().replace(/`/g, '')));
    expect(rows.map(([, variable, member]) => ({ variable, member }))).toEqual(environmentVariables());
  });
});

describe('configuration from the environment, as a process gets it', () => {
  const running: ServeProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((served) => served.stop()));
  });

  it('serve reads its members from EVM_INTEGRITY_* over the file, and a flag over both', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'evm-integrity-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ port: 1, store: 'sqlite', accounts: [{ id: 'from-file' }] }));
    const key = 'evmi_env-config-key-0123456789abcdefghijklmnop';
    const served = serveProcess(['--port', '0'], {
      EVM_INTEGRITY_CONFIG: file,
      EVM_INTEGRITY_PORT: '2',
      EVM_INTEGRITY_STORE: 'memory',
      EVM_INTEGRITY_ACCOUNTS: JSON.stringify([{ id: 'acme', plan: 'pro', cu_limit: 7, keys: [{ label: 'ci', key }] }]),
      EVM_INTEGRITY_METRICS_PORT: '0',
    });
    running.push(served);
    const listening = await served.listening;
    expect(listening).toMatchObject({ store: 'memory' });
    expect(new URL(listening.url).port).not.toMatch(/^[12]$/);
    expect(listening.metrics_url).toMatch(/\/metrics$/);
    const usage = await fetch(`${listening.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
    expect(usage.status).toBe(200);
    expect(await usage.json()).toMatchObject({ plan: 'pro', cu_limit: 7 });
  });

  it('a variable that names no member (EVM_INTEGRITY_PROT): one line naming it and the closest, exit 2', async () => {
    const served = serveProcess(['--port', '0'], { EVM_INTEGRITY_STORE: 'memory', EVM_INTEGRITY_PROT: '9003' });
    running.push(served);
    expect(await served.exited).toBe(2);
    expect(served.stderr().trim()).toMatch(
      /^[^\n]*EVM_INTEGRITY_PROT: no such setting; did you mean EVM_INTEGRITY_PORT\?[^\n]*$/,
    );
  });

  it('max_body_bytes_in_flight below the largest body limit (every verify request would be refused): one line naming it, exit 2', async () => {
    const served = serveProcess(['--port', '0'], {
      EVM_INTEGRITY_STORE: 'memory',
      EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: '10',
    });
    running.push(served);
    expect(await served.exited).toBe(2);
    expect(served.stderr().trim()).toMatch(
      /^[^\n]*EVM_INTEGRITY_MAX_BODY_BYTES_IN_FLIGHT: expected at least the largest body limit \(body_limit_bytes, 33554432\), got 10[^\n]*$/,
    );
  });

  it('a variable that does not fit: one line naming it, exit 2', async () => {
    const served = serveProcess(['--port', '0'], { EVM_INTEGRITY_STORE: 'memory', EVM_INTEGRITY_AUTH: 'no' });
    running.push(served);
    expect(await served.exited).toBe(2);
    expect(served.stderr().trim()).toMatch(/^[^\n]*EVM_INTEGRITY_AUTH: expected true or false, got "no"[^\n]*$/);
  });
});
