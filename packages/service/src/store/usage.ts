import type { Usage } from './store.js';

/** CU by endpoint name. */
type ByEndpoint = Iterable<readonly [string, number]>;

/** `byEndpoint` summed by endpoint name. */
function sumByEndpoint(byEndpoint: ByEndpoint): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [endpoint, cu] of byEndpoint) sums.set(endpoint, (sums.get(endpoint) ?? 0) + cu);
  return sums;
}

/**
 * A Usage from what a store keeps: `taken`, the CU taken from the period (charged and held alike, in total and by
 * endpoint, as reserve adds them), and `held`, the CU of the period's holds not yet ended nor swept (by endpoint, one
 * entry per hold or per endpoint). The one rule of every store: charged = taken − held. `cuByEndpoint` lists the
 * endpoints with CU charged, sorted by name, so that all stores answer alike.
 */
export function makeUsage(
  accountId: string,
  period: { periodStart: string; periodEnd: string },
  cuLimit: number,
  cuExtra: number,
  taken: { cu: number; byEndpoint: ByEndpoint },
  held: ByEndpoint,
): Usage {
  const heldByEndpoint = sumByEndpoint(held);
  const cuHeld = [...heldByEndpoint.values()].reduce((sum, cu) => sum + cu, 0);
  const charged = [...sumByEndpoint(taken.byEndpoint)]
    .map(([endpoint, cu]): [string, number] => [endpoint, cu - (heldByEndpoint.get(endpoint) ?? 0)])
    .filter(([, cu]) => cu > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    accountId,
    periodStart: period.periodStart,
    periodEnd: period.periodEnd,
    cuLimit,
    cuExtra,
    cuUsed: taken.cu - cuHeld,
    cuHeld,
    cuByEndpoint: Object.fromEntries(charged),
  };
}
