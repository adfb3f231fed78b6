/**
 * How a value of the hosted service's raw datasets is compared with the chain's: hex in any case,
 * with or without `0x` (the spec's samples vary); integers as numbers, decimal or hex text;
 * instants as ISO 8601 text, with or without fractions and zone (no zone is UTC).
 */
import { hexText } from '../bytes/hex.js';
import { instantOf } from '../input/values/instants.js';
import { quantityValue, type JsonObject } from '../input/values/json-values.js';
import type { AuditFailure } from './vocabulary.js';

/** One field of a record that differs from the chain: what the chain says and what the record holds. */
export interface FieldDifference {
  expected: unknown;
  found: unknown;
}

/**
 * A field, and its value's canonical text: two values are equal when their texts are, and a
 * value with none (null: not of the field's kind) equals nothing. One text per value, so that
 * records can be looked up by content.
 */
export interface FieldRule {
  field: string;
  canonical: (value: unknown) => string | null;
  /**
   * Another form of the chain's value that the dataset may hold instead, by the dataset's definition (undefined: none).
   */
  alsoAccepted?: (expected: unknown) => unknown;
  /**
   * Compared only where the record gives it (not absent or null): a member the dataset does not define, such as a
   * record's own `chain_id`, which a record that says it still claims.
   */
  whereGiven?: true;
}

/** A record's member that says nothing: absent or null. */
const isAbsent = (value: unknown) => value === undefined || value === null;

/** Whether a record's value equals the chain's under `rule` (or the other form the rule accepts). */
export function same(rule: FieldRule, found: unknown, expected: unknown): boolean {
  const text = rule.canonical(found);
  if (text === null) return false;
  if (text === rule.canonical(expected)) return true;
  const other = rule.alsoAccepted?.(expected);
  return other !== undefined && text === rule.canonical(other);
}

/** `items` grouped by `keyOf`, each group in the items' order. */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

/** An integer: a JSON number, decimal or `0x` text. */
export const integerText = (value: unknown) => quantityValue(value)?.toString() ?? null;
/** An instant, to the nanosecond. */
export const instantText = (value: unknown) => instantOf(value)?.toString() ?? null;
/** Hex, where null or absent stands for "none" (an anonymous log's `topic_zero`); no hex text is taken for none. */
export const hexOrNoneText = (value: unknown) => {
  if (value === null || value === undefined) return 'none';
  const hex = hexText(value);
  return hex === null ? null : `0x${hex}`;
};
/** A list of hex, item by item; null or absent is the empty list. */
export const hexListText = (value: unknown) => {
  const list = value ?? [];
  if (!Array.isArray(list)) return null;
  const items = list.map(hexText);
  return items.includes(null) ? null : JSON.stringify(items);
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

/**
 * The differences of `record` from the chain's `expected` values, field by field; a field the chain has no value for is
 * skipped (what the record says there is {@link unchecked}), as is a `whereGiven` field the record does not give.
 */
export function differences(
  record: JsonObject,
  expected: JsonObject,
  rules: readonly FieldRule[],
): Record<string, FieldDifference> {
  const found: Record<string, FieldDifference> = {};
  for (const rule of rules) {
    const truth = expected[rule.field];
    if (truth === undefined || (rule.whereGiven && isAbsent(record[rule.field]))) continue;
    if (!same(rule, record[rule.field], truth))
      found[rule.field] = { expected: truth, found: record[rule.field] ?? null };
  }
  return found;
}

/**
 * The fields `record` gives a value for (not absent or null) where the chain has none to compare it with: claims a
 * pass would not cover.
 */
export function unchecked(record: JsonObject, expected: JsonObject, rules: readonly FieldRule[]): string[] {
  return rules
    .filter((rule) => expected[rule.field] === undefined && !isAbsent(record[rule.field]))
    .map((rule) => rule.field);
}

/** The failure of a check, with its evidence. */
export const failure = (check: string, message: string, evidence: Record<string, unknown>): AuditFailure => ({
  check,
  message,
  evidence,
});

/** A record's integer member (a JSON integer or decimal/hex text) as a number, or null when it is not a safe one. */
export function integerOf(value: unknown): number | null {
  const quantity = quantityValue(value);
  return quantity === undefined || quantity > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(quantity);
}
