/**
 * The SQLite schema of the account store, as versioned migrations; a file's version is its `PRAGMA user_version`.
 * Instants are ISO-8601 text, compared as strings (periods.ts, leases.ts).
 */

/** Migrations by version: MIGRATIONS[n] brings a file from version n to n + 1. Append only. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    cu_limit INTEGER NOT NULL CHECK (cu_limit >= 0),
    rate_limit_rps INTEGER NOT NULL CHECK (rate_limit_rps > 0),
    entitlements TEXT,
    period_anchor TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    label TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  ) STRICT;
  CREATE INDEX api_keys_account ON api_keys (account_id);
  CREATE INDEX api_keys_hint ON api_keys (hint);
  CREATE TABLE usage_periods (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    period_start TEXT NOT NULL,
    period_end TEXT NOT NULL,
    cu_used INTEGER NOT NULL DEFAULT 0,
    cu_extra INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_start)
  ) STRICT;
  CREATE TABLE endpoint_usage (
    account_id TEXT NOT NULL,
    period_start TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    cu INTEGER NOT NULL,
    PRIMARY KEY (account_id, period_start, endpoint),
    FOREIGN KEY (account_id, period_start) REFERENCES usage_periods (account_id, period_start)
  ) STRICT;
  CREATE TABLE requests (
    seq INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    endpoint TEXT NOT NULL,
    status INTEGER NOT NULL,
    cu INTEGER NOT NULL,
    period_start TEXT NOT NULL,
    at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX requests_account_at ON requests (account_id, at);
  CREATE TABLE rate_windows (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
  ) STRICT;
  `,
  // Retention deletes the request log by age.
  `
  CREATE INDEX requests_at ON requests (at);
  `,
  // Reservation leases: CU held for a request in progress, swept back to their period once expired.
  `
  CREATE TABLE holds (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    period_start TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    cu INTEGER NOT NULL CHECK (cu >= 0),
    expires_at TEXT NOT NULL,
    swept INTEGER NOT NULL DEFAULT 0 CHECK (swept IN (0, 1))
  ) STRICT;
  CREATE INDEX holds_expiry ON holds (swept, expires_at, account_id);
  `,
];

/** The schema version this program writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
