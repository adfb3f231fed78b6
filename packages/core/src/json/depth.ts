/**
 * How deep any JSON the library reads may nest (arrays and objects; the value itself is level 1):
 * a bundle, a lineage answer, a node's answer. Real answers nest a few levels; the bound keeps
 * the recursive built-ins (JSON.stringify, structuredClone) that later see a value off the
 * stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

/** An array or object met on the way down, with how it was reached. */
interface Frame {
  value: object;
  level: number;
  key: string | number | null;
  parent: Frame | null;
}

/**
 * The path of the first array or object nested deeper than `maxLevels` levels (the value
 * itself is level 1), or null when there is none. Iterative, so that a document nested 100k
 * deep cannot overflow the stack here; once this passes, the recursive built-ins that may see
 * the value (JSON.stringify, structuredClone, String of an array) are safe on it.
 * @example
 * tooDeep({ a: [[1]] }, 2) // 'a[0]'
 */
export function tooDeep(value: unknown, maxLevels: number): string | null {
  const stack: Frame[] =
    typeof value === 'object' && value !== null ? [{ value, level: 1, key: null, parent: null }] : [];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.level > maxLevels) return pathOf(frame);
    // Pushed in reverse, so that the first too-deep value in document order is the one named.
    const entries: Array<[string | number, unknown]> = Array.isArray(frame.value)
      ? frame.value.map((v: unknown, i) => [i, v])
      : Object.entries(frame.value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, level: frame.level + 1, key, parent: frame });
    }
  }
  return null;
}

/** At most this many members of a path are spelled out; the rest is `…`. */
const PATH_MEMBERS = 10;

function pathOf(frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let f: Frame | null = frame; f !== null && f.key !== null; f = f.parent) keys.push(f.key);
  keys.reverse();
  const spelled = keys
    .slice(0, PATH_MEMBERS)
    .map((key, i) =>
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${i === 0 ? '' : '.'}${key}`
          : `[${JSON.stringify(key.slice(0, 40))}]`,
    );
  return `${spelled.join('')}${keys.length > PATH_MEMBERS ? '…' : ''}`;
}
