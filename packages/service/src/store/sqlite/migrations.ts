/** The SQLite schema of the account store, as versioned migrations; a file's version is its `PRAGMA user_version`. */
import { SCHEMA, type SchemaPart, schemaSql } from '../sql-schema.js';

/** What came after the first version: the requests(at) index (2), then reservation leases (3). */
const ADDED_LATER: readonly SchemaPart[] = ['requests_at', 'holds', 'holds_expiry'];

/** Migrations by version: MIGRATIONS[n] brings a file from version n to n + 1. Append only. */
export const MIGRATIONS: readonly string[] = [
  schemaSql(
    'sqlite',
    SCHEMA.filter((part) => !ADDED_LATER.includes(part)),
  ),
  schemaSql('sqlite', ['requests_at']),
  schemaSql('sqlite', ['holds', 'holds_expiry']),
];

/** The schema version this program writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
