/**
 * Members spelled two ways, the plain name and the service's legacy `_name`: given both, they must say one thing. The
 * one rule for a lineage request's body, a bundle's request bodies and a record's ids.
 */
import type { ProblemReason } from '../../errors.js';
import { show } from '../../json/show.js';
import { claims } from './json-values.js';

/** Tracing ids, and lists of them, compared in any case and, a list being a set of ids, in any order. */
const idText = (v: unknown): unknown =>
  typeof v === 'string' ? v.toLowerCase() : Array.isArray(v) ? v.map((item) => JSON.stringify(idText(item))).sort() : v;

/**
 * Where `object` gives `name` in both spellings, the plain one and the legacy `_name`, and they differ: the legacy
 * member and what it should be. Reading either alone would let the other say what the walk never sees (a parent
 * listed only under `_parent_tracing_ids` beside an empty `parent_tracing_ids` was never walked). Equal, or one not
 * given (absent or null): null.
 */
export function spellingsDiffer(
  object: Record<string, unknown>,
  name: string,
  path: string,
): { path: string; expected: string; reason: ProblemReason } | null {
  const legacy = object[`_${name}`];
  // A spelling given as null says nothing (it claims nothing), so it contradicts nothing.
  if (!claims(object[name]) || !claims(legacy)) return null;
  if (JSON.stringify(idText(object[name])) === JSON.stringify(idText(legacy))) return null;
  return {
    path: path === '' ? `_${name}` : `${path}._${name}`,
    expected: `the same as ${name} beside it (${name} and _${name} are one member spelled two ways: given both, they must agree), got ${show(legacy, 60)} beside ${show(object[name], 60)}`,
    reason: 'conflict',
  };
}
