/**
 * Time arithmetic shared by the stores: billing periods (calendar months from an anchor) and the
 * one-second requests-per-second window. Pure functions, UTC throughout.
 */
import type { RateToken, Usage } from './store.js';

function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month + 1, 0); // day 0 of the next month = last day of this one
  return last.getUTCDate();
}

/**
 * `anchor` moved by `months` calendar months (negative allowed), the day clamped to the target
 * month's length and the time of day kept: Jan 31 + 1 = Feb 28/29, Jan 31 + 2 = Mar 31.
 * Always computed from the anchor itself, so repeated steps do not drift.
 */
export function addCalendarMonths(anchor: Date, months: number): Date {
  const total = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const result = new Date(0);
  result.setUTCFullYear(year, month, Math.min(anchor.getUTCDate(), daysInMonth(year, month)));
  result.setUTCHours(anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds());
  return result;
}

/** The k with addCalendarMonths(anchor, k) <= now < addCalendarMonths(anchor, k + 1). */
export function periodIndexAt(anchor: Date, now: Date): number {
  let k = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  while (addCalendarMonths(anchor, k).getTime() > now.getTime()) k--;
  while (addCalendarMonths(anchor, k + 1).getTime() <= now.getTime()) k++;
  return k;
}

export interface Period {
  periodStart: string;
  periodEnd: string;
}

/** The billing period containing `now` (the first one if `now` is before the anchor). */
export function billingPeriodAt(periodAnchor: string, now: Date): Period {
  const anchor = new Date(periodAnchor);
  const k = Math.max(0, periodIndexAt(anchor, now));
  return {
    periodStart: addCalendarMonths(anchor, k).toISOString(),
    periodEnd: addCalendarMonths(anchor, k + 1).toISOString(),
  };
}

/**
 * The period to start when `current` is over (now >= its end) or there is none yet; `null` while
 * `current` still runs. A new period starts with no usage and no extra CU.
 */
export function nextPeriod(periodAnchor: string, current: Period | undefined, now: Date): Period | null {
  if (current !== undefined && now.getTime() < Date.parse(current.periodEnd)) return null;
  return billingPeriodAt(periodAnchor, now);
}

/** The CU an account may use in the period: its limit plus what was added. */
export function cuAllowance(usage: Pick<Usage, 'cuLimit' | 'cuExtra'>): number {
  return usage.cuLimit + usage.cuExtra;
}

type Allowance = Pick<Usage, 'cuLimit' | 'cuExtra' | 'cuUsed' | 'cuHeld'>;

/**
 * Whether holding `cu` more would overdraw the period, counting the CU charged and those held by requests in
 * progress: the one test of reserve and of a late settle.
 */
export function exceedsAllowance(usage: Allowance, cu: number): boolean {
  return usage.cuUsed + usage.cuHeld + cu > cuAllowance(usage);
}

/**
 * Whether the CU charged alone leave no room for `cu`: the allowance is used up for it until an operator adds CU or
 * the period resets. When exceedsAllowance holds and this does not, CU held by requests in progress are in the way,
 * and they are charged or come back as those requests end.
 */
export function allowanceUsedUp(usage: Allowance, cu: number): boolean {
  return usage.cuUsed + cu > cuAllowance(usage);
}

/** The CU of the period not charged (never below 0); cuHeld of them may be held by requests in progress. */
export function cuRemaining(usage: Allowance): number {
  return Math.max(0, cuAllowance(usage) - usage.cuUsed);
}

/** Requests counted in an account's current one-second window (denied ones included). */
export interface RateWindow {
  windowStart: number;
  count: number;
}

export const RATE_WINDOW_MS = 1000;

/**
 * The window after one more request at `nowMs`: a new window (count 1) when the second changed,
 * otherwise one more in the same window. A request stamped before the stored window (a slightly
 * late clock in another process) is counted in the stored window rather than resetting it.
 */
export function countRequest(stored: RateWindow | undefined, nowMs: number): RateWindow {
  const windowStart = Math.floor(nowMs / RATE_WINDOW_MS) * RATE_WINDOW_MS;
  if (stored === undefined || windowStart > stored.windowStart) return { windowStart, count: 1 };
  return { windowStart: stored.windowStart, count: stored.count + 1 };
}

/** The decision for the request that brought the window to `window.count`. */
export function rateDecision(window: RateWindow, limit: number, nowMs: number): RateToken {
  const allowed = window.count <= limit;
  const untilNext = Math.max(1, Math.ceil((window.windowStart + RATE_WINDOW_MS - nowMs) / 1000));
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - window.count),
    count: window.count,
    retryAfterSeconds: allowed ? 0 : untilNext,
  };
}
