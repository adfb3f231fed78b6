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
 * What a value is, for "expected …, got …": `an array`, `the number 42`, `a string`, `null`, `a Uint8Array`, `a Map`, …
 * (`nothing` when absent).
 */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  // Bytes where text is expected (or the reverse) are the common mistake: named, not "an object".
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (value instanceof Map) return 'a Map';
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** As {@link show}, but a string as it is (shortened), for ids and hashes in running text. */
export function plain(value: unknown, max = 120): string {
  if (typeof value !== 'string') return show(value, max);
  return value.length > max ? `${value.slice(0, max - 3)}...` : value;
}

/**
 * The TypeError for `value` given as `argument` where one of the library's exported objects of a `kind` is expected
 * (a header layout, a rule set): the object named by `constant` where `value` names one (`name` known), else all of
 * `names`; what was given told apart from it, a name as a string, or an object without its `part`.
 * @example
 * exportedObjectError('optimism', 'options.rules', { kind: 'rule set', part: 'layouts', names: ['optimism'], constant: (n) => `RULE_SETS.${n}` })
 * // TypeError: options.rules must be a rule set object (RULE_SETS.optimism), got the string "optimism"
 */
export function exportedObjectError(
  value: unknown,
  argument: string,
  spec: { kind: string; part: string; names: readonly string[]; constant: (name: string) => string },
): TypeError {
  const object =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { name?: unknown }) : null;
  const name = typeof value === 'string' ? value : object?.name;
  const known = typeof name === 'string' && spec.names.includes(name);
  // The list of every object holds commas: a semicolon sets what was given apart from it.
  const expected = known
    ? `a ${spec.kind} object (${spec.constant(name)}),`
    : `a ${spec.kind} object, one of ${spec.names.map(spec.constant).join(', ')};`;
  const got =
    typeof value === 'string'
      ? `the string ${show(value)}${known ? '' : ', which names none'}`
      : object !== null
        ? `an object without its ${spec.part}`
        : kindOf(value);
  return new TypeError(`${argument} must be ${expected} got ${got}`);
}
