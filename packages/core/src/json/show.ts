/**
 * A value for a reason or message, whatever it is: short (at most `max` characters) and safe
 * on hostile JSON. JSON.stringify, String() and template literals recurse into arrays and
 * objects, so a value nested 100k deep would overflow the stack; this looks at most 3 levels
 * down and at most 10 items of each.
 */
export function show(value: unknown, max = 120): string {
  const text = render(value, 3);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function render(value: unknown, depth: number): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? value.slice(0, 200) : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value !== 'object' || value === null) return String(value);
  if (Array.isArray(value)) {
    if (depth === 0) return '[…]';
    const items = value.slice(0, 10).map((item) => render(item, depth - 1));
    return `[${items.join(',')}${value.length > 10 ? ',…' : ''}]`;
  }
  if (depth === 0) return '{…}';
  const entries = Object.entries(value);
  const members = entries.slice(0, 10).map(([key, item]) => `${JSON.stringify(key)}:${render(item, depth - 1)}`);
  return `{${members.join(',')}${entries.length > 10 ? ',…' : ''}}`;
}

/**
 * What a value is, for "expected …, got …": `an array`, `the number 42`, `a string`, `null`, … (`nothing` when absent).
 */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** As {@link show}, but a string as it is (shortened), for ids and hashes in running text. */
export function plain(value: unknown, max = 120): string {
  if (typeof value !== 'string') return show(value, max);
  return value.length > max ? `${value.slice(0, max - 3)}...` : value;
}
