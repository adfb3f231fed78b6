/**
 * The one rule by which a lineage reads an integer of the service's answers (a record's `chain_id`, `block_number`,
 * `tx_index`, `log_index`, `decimals` and `reserves`, a genesis log's position, a function result's `decoded_output`):
 * a non-negative JSON integer, or the integer as a decimal string (digits only), which is how a value beyond 2^53-1 is
 * written. No sign, fraction, exponent, `0x` or space: an auditor does not guess what another form meant.
 */

/** What {@link exactInteger} reads, for messages. */
export const INTEGER_FORM = 'a non-negative integer: a JSON number, or a decimal string of digits';

/** The integer `v` denotes exactly under the rule above; null for anything else. */
export function exactInteger(v: unknown): bigint | null {
  if (typeof v === 'string') return /^[0-9]+$/.test(v) ? BigInt(v) : null;
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null;
  return null;
}

/**
 * `object` with each of `members` that is an integer as a decimal string within 2^53-1 read as a number, so that every
 * check compares one form; other values are kept as they are (the checks name what is wrong with them). A new object
 * where one changed: the answer as recorded stays as it was.
 */
export function withNumbers<T extends Record<string, unknown>>(object: T, members: readonly string[]): T {
  let copy: Record<string, unknown> | undefined;
  for (const member of members) {
    const value = object[member];
    if (typeof value !== 'string') continue;
    const n = exactInteger(value);
    if (n === null || n > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    copy ??= { ...object };
    copy[member] = Number(n);
  }
  return (copy ?? object) as T;
}
