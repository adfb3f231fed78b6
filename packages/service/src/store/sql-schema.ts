/**
 * The store's tables and indexes, described once and written as each SQL dialect wants them: SQLite (STRICT tables,
 * INTEGER for every number, 0/1 flags, JSON as text, the rowid for creation order) and PostgreSQL (bigint CU and
 * milliseconds, jsonb, boolean, a `seq` column for creation order). The migrations of each (sqlite/migrations.ts,
 * postgres/migrations.ts) are made of these. Instants are ISO-8601 text, compared as strings (periods.ts, leases.ts).
 */

/** The SQL dialects of the stores. */
export type Dialect = 'sqlite' | 'postgres';

/** A column's kind, by what it holds; each dialect names its type. */
type Kind = 'text' | 'int' | 'big' | 'json' | 'flag' | 'order' | 'serial';

/** Each kind's column type, in SQLite and in PostgreSQL; '' leaves the column out. */
const TYPES: Record<Kind, Record<Dialect, string>> = {
  text: { sqlite: 'TEXT', postgres: 'text' },
  int: { sqlite: 'INTEGER', postgres: 'integer' },
  /** CU and milliseconds. */
  big: { sqlite: 'INTEGER', postgres: 'bigint' },
  json: { sqlite: 'TEXT', postgres: 'jsonb' },
  flag: { sqlite: 'INTEGER NOT NULL DEFAULT 0 CHECK ($ IN (0, 1))', postgres: 'boolean NOT NULL DEFAULT false' },
  /** Creation order: SQLite's rowid does it. */
  order: { sqlite: '', postgres: 'bigserial NOT NULL' },
  serial: { sqlite: 'INTEGER PRIMARY KEY', postgres: 'bigserial PRIMARY KEY' },
};

/** Each table's columns (`name kind constraints`) and table constraints (in capitals), in order. */
const TABLES = {
  accounts: [
    'id text PRIMARY KEY',
    'name text NOT NULL',
    'plan text NOT NULL',
    'cu_limit big NOT NULL CHECK (cu_limit >= 0)',
    'rate_limit_rps int NOT NULL CHECK (rate_limit_rps > 0)',
    'entitlements json',
    'period_anchor text NOT NULL',
    'created_at text NOT NULL',
    'seq order',
  ],
  api_keys: [
    'id text PRIMARY KEY',
    'account_id text NOT NULL REFERENCES accounts (id)',
    'label text NOT NULL',
    'hash text NOT NULL UNIQUE',
    'hint text NOT NULL',
    'created_at text NOT NULL',
    'revoked_at text',
    'seq order',
  ],
  usage_periods: [
    'account_id text NOT NULL REFERENCES accounts (id)',
    'period_start text NOT NULL',
    'period_end text NOT NULL',
    'cu_used big NOT NULL DEFAULT 0',
    'cu_extra big NOT NULL DEFAULT 0',
    'PRIMARY KEY (account_id, period_start)',
  ],
  endpoint_usage: [
    'account_id text NOT NULL',
    'period_start text NOT NULL',
    'endpoint text NOT NULL',
    'cu big NOT NULL',
    'PRIMARY KEY (account_id, period_start, endpoint)',
    'FOREIGN KEY (account_id, period_start) REFERENCES usage_periods (account_id, period_start)',
  ],
  requests: [
    'seq serial',
    'request_id text NOT NULL',
    'account_id text NOT NULL REFERENCES accounts (id)',
    'endpoint text NOT NULL',
    'status int NOT NULL',
    'cu big NOT NULL',
    'period_start text NOT NULL',
    'at text NOT NULL',
  ],
  rate_windows: [
    'account_id text PRIMARY KEY REFERENCES accounts (id)',
    'window_start big NOT NULL',
    'count int NOT NULL',
  ],
  // Reservation leases: CU held for a request in progress, swept back to their period once expired.
  holds: [
    'id text PRIMARY KEY',
    'account_id text NOT NULL REFERENCES accounts (id)',
    'period_start text NOT NULL',
    'endpoint text NOT NULL',
    'cu big NOT NULL CHECK (cu >= 0)',
    'expires_at text NOT NULL',
    'swept flag',
  ],
} as const;

const INDEXES = {
  api_keys_account: 'api_keys (account_id)',
  api_keys_hint: 'api_keys (hint)',
  requests_account_at: 'requests (account_id, at)',
  // Retention deletes the request log by age.
  requests_at: 'requests (at)',
  holds_expiry: 'holds (swept, expires_at, account_id)',
} as const;

/** A table or an index of the schema. */
export type SchemaPart = keyof typeof TABLES | keyof typeof INDEXES;

/** Every table and index, in the order they are made (a table before those that refer to it). */
export const SCHEMA: readonly SchemaPart[] = [
  'accounts',
  'api_keys',
  'api_keys_account',
  'api_keys_hint',
  'usage_periods',
  'endpoint_usage',
  'requests',
  'requests_account_at',
  'requests_at',
  'rate_windows',
  'holds',
  'holds_expiry',
];

/** A column or table constraint in `dialect`; '' for a column the dialect leaves out. */
function column(dialect: Dialect, definition: string): string {
  const [name, kind, ...rest] = definition.split(' ');
  if (!(kind! in TYPES)) return definition; // a table constraint
  const type = TYPES[kind as Kind][dialect];
  return type === '' ? '' : [name, type.replace('$', name!), ...rest].join(' ');
}

/** The statements that make `parts` in `dialect`. */
export function schemaSql(dialect: Dialect, parts: readonly SchemaPart[]): string {
  return parts
    .map((part) => {
      if (part in INDEXES) return `CREATE INDEX ${part} ON ${INDEXES[part as keyof typeof INDEXES]};`;
      const lines = TABLES[part as keyof typeof TABLES].map((definition) => column(dialect, definition));
      const body = lines.filter((line) => line !== '').join(',\n    ');
      return `CREATE TABLE ${part} (\n    ${body}\n  )${dialect === 'sqlite' ? ' STRICT' : ''};`;
    })
    .join('\n  ');
}
