/**
 * The tables of distributed audits, in their own schema beside pg-boss's (docs/audit.md lists them
 * with SQL to read them). The migration is idempotent and serialized by an advisory lock, so that
 * any number of `audit --queue` and `audit-worker` processes may start at once.
 */
import type pg from 'pg';
import { transaction } from '../postgres/transaction.js';

/** The schema that holds the audits, their chunks and their lines. */
export const AUDIT_SCHEMA = 'evm_integrity_audit';

/** The advisory lock that serializes the migration (any constant; this one spells "evmiaudt"). */
const MIGRATION_LOCK = 0x65766d6961756474n;

/**
 * Version 1. `lines` holds the text of each line as written (type json keeps its bytes, unlike jsonb), so that an
 * export is byte for byte the lines a worker formatted.
 */
const VERSION_1 = `
CREATE SCHEMA IF NOT EXISTS ${AUDIT_SCHEMA};
CREATE TABLE IF NOT EXISTS ${AUDIT_SCHEMA}.audits (
  id text PRIMARY KEY,
  chain_id bigint NOT NULL,
  from_block bigint NOT NULL,
  to_block bigint NOT NULL,
  chunk_size integer NOT NULL,
  plan json NOT NULL,
  header json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${AUDIT_SCHEMA}.chunks (
  audit_id text NOT NULL REFERENCES ${AUDIT_SCHEMA}.audits (id),
  first_block bigint NOT NULL,
  last_block bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'retrying', 'done', 'parked')),
  attempts integer NOT NULL DEFAULT 0,
  reason text,
  anchored boolean NOT NULL DEFAULT false,
  anchor text,
  first_parent_hash text,
  last_hash text,
  joined boolean NOT NULL DEFAULT false,
  join_attempts integer NOT NULL DEFAULT 0,
  summary json,
  worker text,
  started_at timestamptz,
  finished_at timestamptz,
  PRIMARY KEY (audit_id, first_block)
);
CREATE TABLE IF NOT EXISTS ${AUDIT_SCHEMA}.blocks (
  audit_id text NOT NULL,
  chunk_first bigint NOT NULL,
  seq integer NOT NULL,
  block_number bigint NOT NULL,
  block_hash text,
  verdict text NOT NULL,
  line json NOT NULL,
  PRIMARY KEY (audit_id, chunk_first, seq),
  FOREIGN KEY (audit_id, chunk_first) REFERENCES ${AUDIT_SCHEMA}.chunks (audit_id, first_block)
);
CREATE INDEX IF NOT EXISTS blocks_by_verdict ON ${AUDIT_SCHEMA}.blocks (audit_id, verdict, block_number);
CREATE TABLE IF NOT EXISTS ${AUDIT_SCHEMA}.reorgs (
  audit_id text NOT NULL,
  chunk_first bigint NOT NULL,
  seq integer NOT NULL,
  detected_at bigint NOT NULL,
  line json NOT NULL,
  PRIMARY KEY (audit_id, chunk_first, seq),
  FOREIGN KEY (audit_id, chunk_first) REFERENCES ${AUDIT_SCHEMA}.chunks (audit_id, first_block)
);
CREATE TABLE IF NOT EXISTS ${AUDIT_SCHEMA}.migrations (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO ${AUDIT_SCHEMA}.migrations (version) VALUES (1) ON CONFLICT DO NOTHING;
`;

/**
 * Version 2. A line the join pass stored for a chunk's first block that a reorg audited again before the block before it
 * had a line (that chunk not done) was judged without its parent link: `awaits_link` marks it, `parent_hash` is the
 * block's parentHash, and the join of the link before it links the line (linkParent), as one machine judges it.
 */
const VERSION_2 = `
ALTER TABLE ${AUDIT_SCHEMA}.blocks ADD COLUMN IF NOT EXISTS awaits_link boolean NOT NULL DEFAULT false;
ALTER TABLE ${AUDIT_SCHEMA}.blocks ADD COLUMN IF NOT EXISTS parent_hash text;
INSERT INTO ${AUDIT_SCHEMA}.migrations (version) VALUES (2) ON CONFLICT DO NOTHING;
`;

/**
 * Version 3. A done chunk whose link to the chunk before could not be judged (the node failed the join's walk back)
 * keeps its lines, and only the link is tried again: `link_unjudged` is `retrying` or, past the plan's retries,
 * `parked` (null: no such link), `reason` says why.
 */
const VERSION_3 = `
ALTER TABLE ${AUDIT_SCHEMA}.chunks ADD COLUMN IF NOT EXISTS link_unjudged text
  CHECK (link_unjudged IN ('retrying', 'parked'));
INSERT INTO ${AUDIT_SCHEMA}.migrations (version) VALUES (3) ON CONFLICT DO NOTHING;
`;

/**
 * Version 4. The failing lines an attempt of a chunk judged, kept as it judges them (while it holds the chunk), so that
 * an attempt that is not stored (its node failed later in the chunk, its worker was killed or stopped, the join pass
 * sent it back) does not take its findings with it: the chunk audited again may be served the block unaltered. Each
 * block and hash once per chunk, the first line kept.
 */
const VERSION_4 = `
CREATE TABLE IF NOT EXISTS ${AUDIT_SCHEMA}.attempt_failures (
  audit_id text NOT NULL,
  chunk_first bigint NOT NULL,
  block_number bigint NOT NULL,
  block_hash text,
  line json NOT NULL,
  kept_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  FOREIGN KEY (audit_id, chunk_first) REFERENCES ${AUDIT_SCHEMA}.chunks (audit_id, first_block)
);
CREATE UNIQUE INDEX IF NOT EXISTS attempt_failures_once
  ON ${AUDIT_SCHEMA}.attempt_failures (audit_id, chunk_first, block_number, coalesce(block_hash, ''));
INSERT INTO ${AUDIT_SCHEMA}.migrations (version) VALUES (4) ON CONFLICT DO NOTHING;
`;

/** The migrations in order; each runs once, whole, inside the lock. */
const MIGRATIONS: ReadonlyArray<readonly [number, string]> = [
  [1, VERSION_1],
  [2, VERSION_2],
  [3, VERSION_3],
  [4, VERSION_4],
];

/** Creates or upgrades the audit tables; safe to run from many processes at once, and again. */
export async function migrateAuditSchema(pool: pg.Pool): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    const exists = await client.query(`SELECT to_regclass('${AUDIT_SCHEMA}.migrations') IS NOT NULL AS ok`);
    const applied = new Set<number>();
    if ((exists.rows[0] as { ok: boolean }).ok)
      for (const row of (await client.query(`SELECT version FROM ${AUDIT_SCHEMA}.migrations`)).rows)
        applied.add((row as { version: number }).version);
    for (const [version, sql] of MIGRATIONS) if (!applied.has(version)) await client.query(sql);
  });
}
