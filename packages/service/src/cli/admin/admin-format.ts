/** How `accounts` and `keys` show what they did: JSON members as the API names them, or text tables. */
import { cuAllowance, cuRemaining } from '../../store/periods.js';
import type { Account, KeyRecord, Usage } from '../../store/store.js';

/** An account as `accounts list|show --json` print it: the API's member names. */
export const accountJson = (a: Account) => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  cu_limit: a.cuLimit,
  rate_limit_rps: a.rateLimitRps,
  entitlements: a.entitlements,
  period_anchor: a.periodAnchor,
  created_at: a.createdAt,
});

/** An account's usage in the current period, as `/v1/usage` names its members. */
export const usageJson = (u: Usage) => ({
  cu_limit: u.cuLimit,
  cu_extra: u.cuExtra,
  cu_allowance: cuAllowance(u),
  cu_used: u.cuUsed,
  cu_remaining: cuRemaining(u),
  cu_held: u.cuHeld,
  cu_reset_at: u.periodEnd,
  billing_period: { start: u.periodStart, end: u.periodEnd },
  cu_by_endpoint: u.cuByEndpoint,
});

const keyStatus = (k: KeyRecord) => (k.revokedAt === null ? 'active' : 'revoked');

/** What lists show of a key: never the key, never its hash. */
export const keyJson = (k: KeyRecord) => ({
  id: k.id,
  account_id: k.accountId,
  label: k.label,
  hint: k.hint === '' ? null : k.hint,
  status: keyStatus(k),
  created_at: k.createdAt,
  revoked_at: k.revokedAt,
});

/** How a key is shown in text: its first characters, or that it was imported by its hash. */
/** A key's hint as lists show it; none for a key imported by its hash, or shorter than 32 characters (keys.ts). */
export const hintText = (k: KeyRecord) => (k.hint === '' ? '(no hint)' : `${k.hint}…`);

/** Left-aligned columns, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A list of entitlements in text: `all` (absent), `none` (empty), or the items. */
export const entitlementText = (list: readonly (string | number)[] | undefined) =>
  list === undefined ? 'all' : list.length === 0 ? 'none' : list.join(', ');

/** An account's settings and its billing period, as `accounts show` prints them. */
export function describeAccount(a: Account, u: Usage): string {
  return [
    `  plan            ${a.plan}`,
    `  CU per period   ${a.cuLimit}`,
    `  requests/s      ${a.rateLimitRps} (shared by all keys of the account)`,
    `  endpoints       ${entitlementText(a.entitlements?.endpoints)}`,
    `  chains          ${entitlementText(a.entitlements?.chains)}`,
    `  billing period  ${u.periodStart} to ${u.periodEnd} (a calendar month)`,
  ].join('\n');
}
