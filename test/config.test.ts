import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../packages/service/src/cli/serve.js';
import {
  applyEnvironment,
  ConfigError,
  DEFAULT_CONFIG,
  parseConfig,
  publicUrlOf,
} from '../packages/service/src/server/config.js';

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

  it('reads the README example', () => {
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
    [{ port: 70000 }, /port: expected a port number/],
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
    expect(() => applyEnvironment(DEFAULT_CONFIG, { PORT: 'eighty' })).toThrow(/PORT: expected a port number/);
    expect(
      applyEnvironment(parseConfig({ database_url: 'postgres://db/a' }), { DATABASE_URL: 'postgres://db/b' }),
    ).toMatchObject({
      databaseUrl: 'postgres://db/b',
    });
    expect(() => applyEnvironment(DEFAULT_CONFIG, { DATABASE_URL: 'mysql://u:secret@db/x' })).toThrow(
      /^DATABASE_URL: expected a postgres:\/\/ URL$/,
    );
    expect(() => loadConfig({ config: join(dir, 'missing.json') }, {})).toThrow(/cannot read the configuration/);
    writeFileSync(file, '{ nope');
    expect(() => loadConfig({ config: file }, {})).toThrow(/is not JSON/);
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
