/**
 * One version of each thing an input gives: the rule for a list that may name the same block or
 * request twice (a bundle's blocks and exchanges, a raw/blocks answer's records). Taking the first
 * copy would let a later, altered one pass unseen (or the reverse), so two different versions are
 * the input's fault. An identical repeat is accepted, and the first copy kept: a merged or
 * concatenated recording may repeat what it holds, and both copies say the same.
 */

/**
 * Where two parsed JSON values first differ, as a path from their root (`header.number`, `receipts[2]`; `''` for the
 * roots themselves), or null when they are the same: equal primitives, arrays item by item, objects member by member in
 * any order. Iterative, so that hostile nesting cannot overflow the stack.
 */
export function firstDifference(a: unknown, b: unknown): string | null {
  const pending: Array<[unknown, unknown, string]> = [[a, b, '']];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y, path] = pair;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return path;
    if (Array.isArray(x) !== Array.isArray(y)) return path;
    const members = Object.keys(x);
    const child = (member: string) =>
      Array.isArray(x) ? `${path}[${member}]` : path === '' ? member : `${path}.${member}`;
    for (const member of Object.keys(y)) if (!Object.hasOwn(x, member)) return child(member);
    for (const member of members) {
      if (!Object.hasOwn(y, member)) return child(member);
      pending.push([(x as Record<string, unknown>)[member], (y as Record<string, unknown>)[member], child(member)]);
    }
  }
  return null;
}

/** Whether two parsed JSON values are the same ({@link firstDifference} finds none). */
export const sameJson = (a: unknown, b: unknown): boolean => firstDifference(a, b) === null;

/** The first version of each key seen so far, and where it stands in the input (`blocks[3]`). */
export type FirstVersions = Map<string, { at: string; value: unknown }>;

/**
 * Compares `value` (found `at`) with the first version of `key`: `'first'` when there was none (it
 * is now), `'repeat'` when it is the same JSON, else where the other version stands, for the
 * caller to refuse the input naming both places.
 */
export function checkVersion(
  versions: FirstVersions,
  key: string,
  at: string,
  value: unknown,
): 'first' | 'repeat' | { otherAt: string; difference: string } {
  const first = versions.get(key);
  if (first === undefined) {
    versions.set(key, { at, value });
    return 'first';
  }
  const difference = firstDifference(first.value, value);
  return difference === null ? 'repeat' : { otherAt: first.at, difference };
}

/**
 * What a second version that differs from the first was expected to be, for "expected …": the first, by its place, and
 * where they differ.
 */
export function sameVersionExpected(otherAt: string, what: string, difference: string): string {
  const where = difference === '' ? '' : ` (they differ at ${difference})`;
  return `the same as ${otherAt} (${what}, given twice, must be given identically), got another version${where}`;
}
