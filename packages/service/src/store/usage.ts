import type { Usage } from './store.js';

/** A Usage from its parts, `cuByEndpoint` sorted by endpoint so both stores answer alike. */
export function makeUsage(
  accountId: string,
  period: { periodStart: string; periodEnd: string },
  cuLimit: number,
  cuExtra: number,
  cuUsed: number,
  byEndpoint: Iterable<[string, number]>,
): Usage {
  const cuByEndpoint = Object.fromEntries([...byEndpoint].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    accountId,
    periodStart: period.periodStart,
    periodEnd: period.periodEnd,
    cuLimit,
    cuExtra,
    cuUsed,
    cuByEndpoint,
  };
}
