/**
 * The rows of the SQL tables as SQLite and PostgreSQL return them (snake_case columns), and the records they are
 * read as. Only the entitlements (JSON text in SQLite, jsonb in PostgreSQL) and a hold's `swept` (0/1 or a boolean)
 * come back differently.
 */
import type { PeriodRow, HoldRow } from './storage.js';
import type { Account, Entitlements, KeyRecord } from './store.js';

/** An `accounts` row, its entitlements as the database returns them. */
export interface AccountTableRow<E> {
  id: string;
  name: string;
  plan: string;
  cu_limit: number;
  rate_limit_rps: number;
  entitlements: E;
  period_anchor: string;
  created_at: string;
}

/** An `api_keys` row. */
export interface KeyTableRow {
  id: string;
  account_id: string;
  label: string;
  hash: string;
  hint: string;
  created_at: string;
  revoked_at: string | null;
}

/** A `usage_periods` row but its account. */
export interface PeriodTableRow {
  period_start: string;
  period_end: string;
  cu_used: number;
  cu_extra: number;
}

/** A `holds` row. */
export interface HoldTableRow {
  id: string;
  account_id: string;
  period_start: string;
  endpoint: string;
  cu: number;
  expires_at: string;
  swept: number | boolean;
}

/** The account of `row`, its entitlements read by `entitlements`. */
export function toAccount<E>(row: AccountTableRow<E>, entitlements: (stored: E) => Entitlements | null): Account {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    cuLimit: row.cu_limit,
    rateLimitRps: row.rate_limit_rps,
    entitlements: entitlements(row.entitlements),
    periodAnchor: row.period_anchor,
    createdAt: row.created_at,
  };
}

/** The key record of `row`. */
export const toKey = (row: KeyTableRow): KeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  label: row.label,
  hash: row.hash,
  hint: row.hint,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/** The period of `row`; `cu_used` is the CU taken, charged and held alike. */
export const toPeriod = (row: PeriodTableRow): PeriodRow => ({
  periodStart: row.period_start,
  periodEnd: row.period_end,
  cuTaken: row.cu_used,
  cuExtra: row.cu_extra,
});

/** The hold of `row`. */
export const toHold = (row: HoldTableRow): HoldRow => ({
  id: row.id,
  accountId: row.account_id,
  periodStart: row.period_start,
  endpoint: row.endpoint,
  cu: row.cu,
  expiresAt: row.expires_at,
  swept: Boolean(row.swept),
});
