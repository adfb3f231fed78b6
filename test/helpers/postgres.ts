/**
 * PostgreSQL for the tests, never skipped: a test that needs it fails, with the reason, when no
 * server answers.
 *
 * - `freshDatabase()` creates a database of its own on the shared server (TEST_DATABASE_URL, by
 *   default `postgres://postgres@127.0.0.1:5432/test`, the one `.ci/run` makes sure of) and drops
 *   it after, so test files running at once never see each other's rows.
 * - `privateCluster()` runs a PostgreSQL server of the test's own (initdb and pg_ctl from Debian's
 *   package, as the `postgres` user when the tests run as root), on a free port, for the fault
 *   tests that stop and restart it without touching the shared server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresStore, type PostgresStoreOptions } from '../../packages/service/src/store/postgres/postgres-store.js';

/** The shared server's maintenance database URL. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database's URL on the server of `baseUrl`. */
function withDatabase(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function adminQuery(baseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is needed by this test and none answers at ${baseUrl} (${(error as Error).message}). ` +
        'Start one (.ci/run does) or set TEST_DATABASE_URL.',
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new, empty database on the shared server; `drop()` removes it (and ends its connections). */
export async function freshDatabase(baseUrl = TEST_DATABASE_URL): Promise<FreshDatabase> {
  const name = `evmi_test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(baseUrl, `CREATE DATABASE ${name}`);
  return {
    url: withDatabase(baseUrl, name),
    name,
    drop: () => adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A PostgresStore on a {@link freshDatabase} of its own, at the tests' pool size and timeouts (`options` over them);
 * the database is added to `databases`, which the caller drops after.
 */
export async function postgresStoreOnFreshDatabase(
  databases: FreshDatabase[],
  options: Partial<PostgresStoreOptions> = {},
): Promise<PostgresStore> {
  const database = await freshDatabase();
  databases.push(database);
  return new PostgresStore({
    databaseUrl: database.url,
    poolSize: 4,
    statementTimeoutMs: 5000,
    connectTimeoutMs: 5000,
    ...options,
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function postgresBin(tool: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const path = join(root, version, 'bin', tool);
    if (existsSync(path)) return path;
  }
  throw new Error(`${tool} not found under ${root}: install Debian's postgresql package (.ci/run does)`);
}

/** Runs a PostgreSQL tool, as `postgres` when we are root (initdb refuses root). */
function runAsOwner(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', postgresBin(tool), ...args]]
    : [postgresBin(tool), args];
  execFileSync(command, argv, { stdio: 'pipe' });
}

export interface PrivateCluster {
  /** URL of its `postgres` database (trust auth on 127.0.0.1, or the password's). */
  url: string;
  port: number;
  /** Fast stop: every connection is cut, as in a crash or a restart. */
  stop(): void;
  start(): void;
  /** Stops it and deletes its files. */
  destroy(): void;
}

/**
 * A PostgreSQL server of the test's own, started. With `password`, connections over TCP must give it (SCRAM), for
 * the user `postgres` as for any role made with one.
 */
export async function privateCluster({ password }: { password?: string } = {}): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'evmi-pg-'));
  const dataDir = join(dir, 'data');
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
  const auth = ['-A', 'trust'];
  if (password !== undefined) {
    writeFileSync(join(dir, 'pwfile'), password, { mode: 0o644 });
    auth.push('--auth-host=scram-sha-256', `--pwfile=${join(dir, 'pwfile')}`);
  }
  runAsOwner('initdb', ['-D', dataDir, ...auth, '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => runAsOwner('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => runAsOwner('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres${password === undefined ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
