/**
 * The PostgreSQL schema of the account store, as versioned migrations. They run at start under a
 * session advisory lock, so replicas that start at once against one database migrate it once: the
 * first takes the lock and applies what is missing, each next one finds nothing left to do.
 * `schema_migrations` records each version applied.
 *
 * Instants are stored as ISO-8601 text (as in the SQLite store): the period and lease rules compare
 * them as strings and compute them in one place (periods.ts, leases.ts). CU are bigint.
 */
import type pg from 'pg';
import { StoreError } from '../store-error.js';
import { connect } from './unavailable.js';

/** Migrations by version: PG_MIGRATIONS[n] brings a database from version n to n + 1. Append only. */
export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id text PRIMARY KEY,
    name text NOT NULL,
    plan text NOT NULL,
    cu_limit bigint NOT NULL CHECK (cu_limit >= 0),
    rate_limit_rps integer NOT NULL CHECK (rate_limit_rps > 0),
    entitlements jsonb,
    period_anchor text NOT NULL,
    created_at text NOT NULL,
    seq bigserial NOT NULL
  );
  CREATE TABLE api_keys (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    label text NOT NULL,
    hash text NOT NULL UNIQUE,
    hint text NOT NULL,
    created_at text NOT NULL,
    revoked_at text,
    seq bigserial NOT NULL
  );
  CREATE INDEX api_keys_account ON api_keys (account_id);
  CREATE INDEX api_keys_hint ON api_keys (hint);
  CREATE TABLE usage_periods (
    account_id text NOT NULL REFERENCES accounts (id),
    period_start text NOT NULL,
    period_end text NOT NULL,
    cu_used bigint NOT NULL DEFAULT 0,
    cu_extra bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_start)
  );
  CREATE TABLE endpoint_usage (
    account_id text NOT NULL,
    period_start text NOT NULL,
    endpoint text NOT NULL,
    cu bigint NOT NULL,
    PRIMARY KEY (account_id, period_start, endpoint),
    FOREIGN KEY (account_id, period_start) REFERENCES usage_periods (account_id, period_start)
  );
  CREATE TABLE requests (
    seq bigserial PRIMARY KEY,
    request_id text NOT NULL,
    account_id text NOT NULL REFERENCES accounts (id),
    endpoint text NOT NULL,
    status integer NOT NULL,
    cu bigint NOT NULL,
    period_start text NOT NULL,
    at text NOT NULL
  );
  CREATE INDEX requests_account_at ON requests (account_id, at);
  CREATE INDEX requests_at ON requests (at);
  CREATE TABLE rate_windows (
    account_id text PRIMARY KEY REFERENCES accounts (id),
    window_start bigint NOT NULL,
    count integer NOT NULL
  );
  CREATE TABLE holds (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    period_start text NOT NULL,
    endpoint text NOT NULL,
    cu bigint NOT NULL CHECK (cu >= 0),
    expires_at text NOT NULL,
    swept boolean NOT NULL DEFAULT false
  );
  CREATE INDEX holds_expiry ON holds (swept, expires_at, account_id);
  `,
];

/** The schema version this program writes. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** The advisory lock key the migrations hold ("evmi" in ASCII): one migrator at a time per database. */
const MIGRATION_LOCK = 0x65766d69;

/** Brings the database to PG_SCHEMA_VERSION; refuses one migrated by a newer program. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await connect(pool);
  let broken: Error | undefined;
  // A connection lost mid-migration: the statement in progress fails; the event alone must not end the process.
  const lost = (error: Error) => (broken = error);
  client.on('error', lost);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number }>(
        'SELECT coalesce(max(version), 0)::integer AS version FROM schema_migrations',
      );
      const found = rows[0]!.version;
      if (found > PG_SCHEMA_VERSION)
        throw new StoreError(
          'STORE_INVALID',
          `the database has schema version ${found}, newer than this program's ${PG_SCHEMA_VERSION}; upgrade evm-integrity`,
          'database_url',
        );
      for (let version = found; version < PG_SCHEMA_VERSION; version++) {
        await client.query('BEGIN');
        try {
          await client.query(PG_MIGRATIONS[version]!);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}
