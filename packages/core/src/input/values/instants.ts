/**
 * Instants as the hosted service writes them: ISO 8601 text, with or without a fraction and a zone (no zone is UTC,
 * whatever the machine's own zone). One reader for the raw-dataset audit and the lineage walker.
 */

/** What {@link instantOf} reads, for messages (docs/lineage.md, "How a `block_time` is read", lists the same). */
export const INSTANT_FORM =
  'an ISO 8601 date and time, YYYY-MM-DDThh:mm:ss (T, t or a space between), with or without a fraction of up to 9 digits after a point, with a zone (Z, ±hh:mm or ±hhmm) or none (UTC), on the calendar and the clock';

const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Nanoseconds since the epoch of an ISO 8601 instant, or null when `value` is not one. Exact to
 * the nanosecond, so that a fraction of a second is never rounded away. A date or time that is not on the calendar or
 * the clock is none: `Date.parse` reads `2024-02-30` as March 1 and `24:00:00` as the next day's midnight.
 */
export function instantOf(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const match = ISO_INSTANT.exec(value.trim());
  if (match === null) return null;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const local = Date.parse(`${date}T${time}Z`);
  if (Number.isNaN(local) || new Date(local).toISOString().slice(0, 19) !== `${date}T${time}`) return null;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = Date.parse(`${date}T${time}${offset}`);
  return Number.isNaN(ms) ? null : BigInt(ms) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}
