/**
 * How a value of the hosted service's raw datasets is compared with the chain's: hex in any case,
 * with or without `0x` (the spec's samples vary); integers as numbers, decimal or hex text;
 * instants as ISO 8601 text, with or without fractions and zone (no zone is UTC).
 */
import { quantityValue, type JsonObject } from '../input/fields.js';
import { sameHex } from '../lineage/cross-checks.js';
import type { AuditFailure } from './types.js';

export { sameHex };

/** One field of a record that differs from the chain: what the chain says and what the record holds. */
export interface FieldDifference {
  expected: unknown;
  found: unknown;
}

/** A field the chain gives a value for, and how a record's value is held equal to it. */
export interface FieldRule {
  field: string;
  same: (found: unknown, expected: unknown) => boolean;
}

const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Nanoseconds since the epoch of an ISO 8601 instant, or null when `value` is not one. Exact to
 * the nanosecond, so that a fraction of a second is never rounded away.
 */
export function instantOf(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const match = ISO_INSTANT.exec(value.trim());
  if (match === null) return null;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = Date.parse(`${date}T${time}${offset}`);
  return Number.isNaN(ms) ? null : BigInt(ms) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}

export const sameInstant = (found: unknown, expected: unknown) => {
  const instant = instantOf(found);
  return instant !== null && instant === instantOf(expected);
};

export const sameQuantity = (found: unknown, expected: unknown) => {
  const quantity = quantityValue(found);
  return quantity !== undefined && quantity === quantityValue(expected);
};

/** A header's `timestamp` (a quantity of seconds) as the ISO instant the service writes; undefined when it has none. */
export function isoOfTimestamp(timestamp: unknown): string | undefined {
  const seconds = quantityValue(timestamp, BigInt(8.64e12));
  return seconds === undefined ? undefined : new Date(Number(seconds) * 1000).toISOString();
}

/** A quantity as JSON can hold it: a number when safe, else decimal text; undefined when it is not one. */
export function jsonQuantity(value: unknown): number | string | undefined {
  const quantity = quantityValue(value);
  if (quantity === undefined) return undefined;
  return quantity <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(quantity) : quantity.toString();
}

/** The differences of `record` from the chain's `expected` values, field by field; a field the chain has no value for is skipped. */
export function differences(record: JsonObject, expected: JsonObject, rules: readonly FieldRule[]): Record<string, FieldDifference> {
  const found: Record<string, FieldDifference> = {};
  for (const { field, same } of rules) {
    const truth = expected[field];
    if (truth !== undefined && !same(record[field], truth)) found[field] = { expected: truth, found: record[field] ?? null };
  }
  return found;
}

/** The failure of a check, with its evidence. */
export const failure = (check: string, message: string, evidence: Record<string, unknown>): AuditFailure => ({ check, message, evidence });

/** A record's integer member (a JSON integer or decimal/hex text) as a number, or null when it is not a safe one. */
export function integerOf(value: unknown): number | null {
  const quantity = quantityValue(value);
  return quantity === undefined || quantity > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(quantity);
}

/** Hex compared as above, where null stands for "none" on both sides (an anonymous log's `topic_zero`). */
export const sameHexOrNull = (found: unknown, expected: unknown) => (expected === null ? found === null || found === undefined : sameHex(found, expected));

/** Lists of hex compared item by item; a record's null or absent list is the empty list. */
export const sameHexList = (found: unknown, expected: unknown) => {
  const list = found === null || found === undefined ? [] : found;
  return Array.isArray(list) && Array.isArray(expected) && list.length === expected.length && list.every((item, i) => sameHex(item, expected[i]));
};
