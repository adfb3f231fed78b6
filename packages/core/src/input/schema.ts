import { checkMisspelledMembers, isObject, join, MAX_SAFE, MAX_UINT64, readArray, readHex, readInteger, readObject, readQuantity } from './fields.js';
import type { Problems } from './problems.js';

/**
 * Request schemas that both validate and document: each declaration carries its
 * JSON Schema (OpenAPI 3.1 is JSON Schema 2020-12) and the reader that enforces
 * it with path-named problems. The OpenAPI document is generated from the same
 * declarations, so what is documented is what is checked.
 */

export type JsonSchema = { [key: string]: unknown };

export interface Spec<T> {
  schema: JsonSchema;
  /** The value, or undefined after recording the problems at `path`. */
  read(value: unknown, path: string, problems: Problems): T | undefined;
}

export type ValueOf<S> = S extends Spec<infer T> ? T : never;

/** A hex string; `bytes` fixes its length. Accepted with or without `0x`, any case. */
export function hex(options: { bytes?: number; description: string; expected?: string }): Spec<Uint8Array> {
  const digits = options.bytes === undefined ? '([0-9a-fA-F]{2})*' : `[0-9a-fA-F]{${options.bytes * 2}}`;
  return {
    schema: { type: 'string', pattern: `^(0[xX])?${digits}$`, description: options.description },
    read: (value, path, problems) => readHex(value, path, problems, options.bytes, options.expected),
  };
}

/** A JSON integer in [min, max]. */
export function integer(options: { min: number; max?: number; description: string; expected: string }): Spec<number> {
  const max = options.max ?? MAX_SAFE;
  return {
    schema: { type: 'integer', minimum: options.min, maximum: max, description: options.description },
    read: (value, path, problems) => readInteger(value, path, problems, options.min, max, options.expected),
  };
}

/** A quantity: JSON integer up to 2^53-1, decimal string, or 0x hex string; at most 2^64-1. */
export function quantity(description: string): Spec<bigint> {
  return {
    schema: {
      description: `${description} A JSON integer up to 2^53-1, a decimal string, or a 0x hex string; at most 2^64-1.`,
      oneOf: [
        { type: 'integer', minimum: 0, maximum: MAX_SAFE },
        { type: 'string', pattern: '^(0|[1-9][0-9]*)$' },
        { type: 'string', pattern: '^0[xX][0-9a-fA-F]+$' },
      ],
    },
    read: (value, path, problems) => readQuantity(value, path, problems, MAX_UINT64),
  };
}

/** Any value, accepted and ignored (documented for forward compatibility). */
export function ignored(description: string, schema: JsonSchema = {}): Spec<undefined> {
  return { schema: { ...schema, description }, read: () => undefined };
}

/** An array of `item`; `maxItems` beyond which it is out of range. */
export function arrayOf<T>(item: Spec<T>, options: { maxItems?: number; description: string; expected: string }): Spec<T[]> {
  return {
    schema: { type: 'array', items: item.schema, ...(options.maxItems !== undefined && { maxItems: options.maxItems }), description: options.description },
    read: (value, path, problems) => {
      const list = readArray(value, path, problems, options.expected);
      if (list === undefined) return undefined;
      if (options.maxItems !== undefined && list.length > options.maxItems) {
        problems.add(path, 'out_of_range', `${options.expected}; got ${list.length} items`);
        return undefined;
      }
      const before = problems.count;
      const items = list.map((element, i) => item.read(element, `${path}[${i}]`, problems));
      return problems.count === before ? (items as T[]) : undefined;
    },
  };
}

/** A member of an object: its spec, whether it is required, and whether null means absent. */
export interface Member<T = unknown> {
  spec: Spec<T>;
  required?: boolean;
  /** `null` is the same as absent (the spec's "omit or null"). */
  nullable?: boolean;
}

export type Members = Record<string, Member>;

/** What reading an object gives: each member's value where it was present and valid. */
export type ReadMembers<M extends Members> = { [K in keyof M]?: ValueOf<M[K]['spec']> };

/**
 * An object with declared members. Unknown members are ignored, except near-misses
 * of known ones (see checkMisspelledMembers). Reading yields the valid members'
 * values even when others have problems, so callers can still relate them (indexes).
 */
export function object<M extends Members>(members: M, options: { description: string; expected: string }): Spec<ReadMembers<M>> {
  const names = Object.keys(members);
  const required = names.filter((name) => members[name]!.required);
  const properties = Object.fromEntries(
    names.map((name) => {
      const { spec, nullable } = members[name]!;
      return [name, nullable ? { anyOf: [spec.schema, { type: 'null' }] } : spec.schema];
    }),
  );
  return {
    schema: { type: 'object', description: options.description, properties, required },
    read: (value, path, problems) => {
      if (!isObject(value)) return void readObject(value, path || 'body', problems, options.expected);
      checkMisspelledMembers(value, path, names, problems);
      const result: Record<string, unknown> = {};
      for (const name of names) {
        const { spec, required: isRequired, nullable } = members[name]!;
        const raw = value[name];
        if (raw === undefined || (nullable && raw === null)) {
          if (isRequired) spec.read(undefined, join(path, name), problems);
          continue;
        }
        const read = spec.read(raw, join(path, name), problems);
        if (read !== undefined) result[name] = read;
      }
      return result as ReadMembers<M>;
    },
  };
}
