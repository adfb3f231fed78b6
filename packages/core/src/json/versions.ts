/**
 * One version of each thing an input gives: the rule for a list that may name the same block or
 * request twice (a bundle's blocks and exchanges, a raw/blocks answer's records). Taking the first
 * copy would let a later, altered one pass unseen (or the reverse), so two different versions are
 * the input's fault. An identical repeat is accepted, and the first copy kept: a merged or
 * concatenated recording may repeat what it holds, and both copies say the same.
 */

/**
 * Whether two parsed JSON values are the same: equal primitives, arrays item by item, objects
 * member by member in any order. Iterative, so that hostile nesting cannot overflow the stack.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const members = Object.keys(x);
    if (members.length !== Object.keys(y).length) return false;
    for (const member of members) {
      if (!Object.hasOwn(y, member)) return false;
      pending.push([(x as Record<string, unknown>)[member], (y as Record<string, unknown>)[member]]);
    }
  }
  return true;
}

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
): 'first' | 'repeat' | { otherAt: string } {
  const first = versions.get(key);
  if (first === undefined) {
    versions.set(key, { at, value });
    return 'first';
  }
  return sameJson(first.value, value) ? 'repeat' : { otherAt: first.at };
}

/** What a second version that differs from the first was expected to be, for "expected …": the first, by its place. */
export function sameVersionExpected(otherAt: string, what: string): string {
  return `the same as ${otherAt} (${what}, given twice, must be given identically), got another version`;
}
