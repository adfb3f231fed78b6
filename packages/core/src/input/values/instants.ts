/**
 * Instants as the hosted service writes them: ISO 8601 text, with or without a fraction and a zone (no zone is UTC,
 * whatever the machine's own zone). One reader for the raw-dataset audit and the lineage walker.
 */

/** What {@link instantOf} reads, for messages (docs/lineage.md, "How a `block_time` is read", lists the same). */
export const INSTANT_FORM =
  'an ISO 8601 date and time, YYYY-MM-DDThh:mm:ss (T, t or a space between), with or without a fraction of up to 9 digits after a point, with a zone (Z, ±hh:mm, ±hhmm or ±hh) or none (UTC), on the calendar and the clock';

// A zone of hours alone (ISO 8601's ±hh) is PostgreSQL's text for a timestamptz: `2024-03-13 13:55:35+00`.
const ISO_INSTANT =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-]\d{2})(?::?(\d{2}))?)?$/;

/**
 * Nanoseconds since the epoch of an ISO 8601 instant, or null when `value` is not one. Exact to
 * the nanosecond, so that a fraction of a second is never rounded away. A date or time that is not on the calendar or
 * the clock is none: `Date.parse` reads `2024-02-30` as March 1 and `24:00:00` as the next day's midnight.
 */
export function instantOf(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const match = ISO_INSTANT.exec(value.trim());
  if (match === null) return null;
  const [, date, time, fraction = '', , hours, minutes = '00'] = match;
  const local = Date.parse(`${date}T${time}Z`);
  if (Number.isNaN(local) || new Date(local).toISOString().slice(0, 19) !== `${date}T${time}`) return null;
  // No zone, or Z, is UTC; an offset beyond ±23:59 is none (Date.parse refuses it).
  const offset = hours === undefined ? 'Z' : `${hours}:${minutes}`;
  const ms = Date.parse(`${date}T${time}${offset}`);
  return Number.isNaN(ms) ? null : BigInt(ms) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}
