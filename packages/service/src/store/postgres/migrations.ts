/**
 * The PostgreSQL schema of the account store, as versioned migrations. They run at start under a
 * session advisory lock, so replicas that start at once against one database migrate it once: the
 * first takes the lock and applies what is missing, each next one waits for it, however long, then finds nothing
 * left to do.
 * `schema_migrations` records each version applied.
 *
 * The tables are sql-schema.ts's, as PostgreSQL writes them.
 */
import type pg from 'pg';
import { holdClient } from '../../postgres/held-client.js';
import { SCHEMA, schemaSql } from '../sql-schema.js';
import { StoreError } from '../store-error.js';
import { connect } from './unavailable.js';

/** Migrations by version: PG_MIGRATIONS[n] brings a database from version n to n + 1. Append only. */
export const PG_MIGRATIONS: readonly string[] = [schemaSql('postgres', SCHEMA)];

/** The schema version this program writes. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** The advisory lock key the migrations hold ("evmi" in ASCII): one migrator at a time per database. */
const MIGRATION_LOCK = 0x65766d69;

/** How often a replica asks again for the lock another holds while it migrates. */
const LOCK_POLL_MS = 250;

/**
 * Takes the migration lock, waiting as long as another replica holds it: asked again every LOCK_POLL_MS, so that no
 * wait is one statement, which the pool's statement timeout would cut (a replica then exited while another migrated).
 */
async function takeLock(client: pg.PoolClient, givenUp: () => boolean): Promise<void> {
  for (;;) {
    if (givenUp())
      throw new StoreError('STORE_UNAVAILABLE', "stopped while it waited for another replica's migration of the store");
    const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [
      MIGRATION_LOCK,
    ]);
    if (rows[0]!.taken) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/**
 * Brings the database to PG_SCHEMA_VERSION; refuses one migrated by a newer program. A wait for another replica's
 * migration ends once `givenUp` says so (the process is stopping).
 */
export async function migrate(pool: pg.Pool, givenUp: () => boolean = () => false): Promise<void> {
  await holdClient(await connect(pool), async (client) => {
    await takeLock(client, givenUp);
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
  });
}
