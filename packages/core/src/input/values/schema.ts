import { parseHex } from '../../bytes/hex.js';
import {
  checkMisspelledMembers,
  isObject,
  join,
  MAX_SAFE,
  MAX_UINT64,
  readArray,
  readHex,
  readInteger,
  quantityValue,
  readObject,
  readQuantity,
  readString,
} from './json-values.js';
import type { Problems } from './problems.js';
import { spellingsDiffer } from './spellings.js';

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
  /**
   * The common case, cheaply: the value when it is valid (what `read` gives without a problem),
   * else undefined, and then `read` finds and names the problems. No path is built here, so a
   * valid body costs no path strings. Absent where there is no shortcut: `read` is used.
   */
  valid?(value: unknown): T | undefined;
  /** Set on a member no value satisfies ({@link refused}): what its 400 expects, for it and a near-miss of its name. */
  refusal?: string;
}

/**
 * `spec`'s value of `value`; the path, given as a parent and a member or index, is built only when `value` is not
 * valid.
 */
function readChild<T>(
  spec: Spec<T>,
  value: unknown,
  parent: string,
  key: string | number,
  problems: Problems,
): T | undefined {
  const fast = spec.valid?.(value);
  if (fast !== undefined) return fast;
  return spec.read(value, typeof key === 'number' ? `${parent}[${key}]` : join(parent, key), problems);
}

export type ValueOf<S> = S extends Spec<infer T> ? T : never;

/** A hex string; `bytes` fixes its length. Accepted with or without `0x`, any case. */
export function hex(options: { bytes?: number; description: string; expected?: string }): Spec<Uint8Array> {
  const digits = options.bytes === undefined ? '([0-9a-fA-F]{2})*' : `[0-9a-fA-F]{${options.bytes * 2}}`;
  return {
    schema: { type: 'string', pattern: `^(0[xX])?${digits}$`, description: options.description },
    read: (value, path, problems) => readHex(value, path, problems, options.bytes, options.expected),
    valid: (value) => {
      const bytes = typeof value === 'string' ? parseHex(value) : null;
      return bytes !== null && (options.bytes === undefined || bytes.length === options.bytes) ? bytes : undefined;
    },
  };
}

/** A JSON string, any text (a document carried whole, such as an anchor proof file). */
export function text(options: { description: string; expected: string }): Spec<string> {
  return {
    schema: { type: 'string', description: options.description },
    read: (value, path, problems) => readString(value, path, problems, options.expected),
    valid: (value) => (typeof value === 'string' ? value : undefined),
  };
}

/** A JSON integer in [min, max]. */
export function integer(options: { min: number; max?: number; description: string; expected: string }): Spec<number> {
  const max = options.max ?? MAX_SAFE;
  return {
    schema: { type: 'integer', minimum: options.min, maximum: max, description: options.description },
    read: (value, path, problems) => readInteger(value, path, problems, options.min, max, options.expected),
    valid: (value) =>
      typeof value === 'number' && Number.isInteger(value) && value >= options.min && value <= max ? value : undefined,
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
    valid: (value) => quantityValue(value, MAX_UINT64),
  };
}

/** Any value, accepted and ignored (documented for forward compatibility). */
export function ignored(description: string, schema: JsonSchema = {}): Spec<undefined> {
  return { schema: { ...schema, description }, read: () => undefined };
}

/**
 * A member a body must not have, though a client may well send it (a filter where the proof carries its own): any
 * value is refused naming the member, with `expected` saying why, as is a near-miss of its name. JSON Schema `not: {}`.
 */
export function refused(options: { description: string; expected: string }): Spec<never> {
  return {
    schema: { not: {}, description: options.description },
    read: (_, path, problems) => void problems.add(path, 'invalid_format', options.expected),
    refusal: options.expected,
  };
}

/** An array of `item`; `maxItems` beyond which it is out of range. */
export function arrayOf<T>(
  item: Spec<T>,
  options: { maxItems?: number; description: string; expected: string },
): Spec<T[]> {
  return {
    schema: {
      type: 'array',
      items: item.schema,
      ...(options.maxItems !== undefined && { maxItems: options.maxItems }),
      description: options.description,
    },
    read: (value, path, problems) => {
      const list = readArray(value, path, problems, options.expected);
      if (list === undefined) return undefined;
      if (options.maxItems !== undefined && list.length > options.maxItems) {
        problems.add(path, 'out_of_range', `${options.expected}; got ${list.length} items`);
        return undefined;
      }
      const before = problems.count;
      const items = new Array<T | undefined>(list.length);
      for (let i = 0; i < list.length; i++) items[i] = readChild(item, list[i], path, i, problems);
      return problems.count === before ? (items as T[]) : undefined;
    },
    valid: (value) => {
      if (
        !Array.isArray(value) ||
        (options.maxItems !== undefined && value.length > options.maxItems) ||
        item.valid === undefined
      )
        return undefined;
      const items = new Array<T>(value.length);
      for (let i = 0; i < value.length; i++) {
        const read = item.valid(value[i]);
        if (read === undefined) return undefined;
        items[i] = read;
      }
      return items;
    },
  };
}

/** A member of an object: its spec, whether it is required, and whether null means absent. */
export interface Member<T = unknown> {
  spec: Spec<T>;
  required?: boolean;
  /** `null` is the same as absent (the spec's "omit or null"). */
  nullable?: boolean;
  /** Other values that mean absent (an empty `root`, see receipt-rules.ts). */
  absentWhen?: (raw: unknown) => boolean;
}

export type Members = Record<string, Member>;

/** What reading an object gives: each member's value where it was present and valid. */
export type ReadMembers<M extends Members> = { [K in keyof M]?: ValueOf<M[K]['spec']> };

/** Whether a member's raw value means it is absent: undefined, null where it is nullable, or one of its own. */
const isAbsentMember = ({ nullable, absentWhen }: Member, raw: unknown) =>
  raw === undefined || (nullable === true && raw === null) || absentWhen?.(raw) === true;

/**
 * Whether `raw`, member `name` of `members`, means it is absent: as {@link isAbsentMember}, or null in a member declared
 * in both spellings (`name` and the legacy `_name`): a spelling given as null says nothing (spellings.ts,
 * docs/lineage.md), and the other is the member.
 */
const isAbsentIn = (members: Members, name: string, raw: unknown) =>
  isAbsentMember(members[name]!, raw) ||
  (raw === null &&
    (Object.hasOwn(members, `_${name}`) || (name.startsWith('_') && Object.hasOwn(members, name.slice(1)))));

/**
 * Whether `body` gives member `name` of `members` as `object(members)` reads it: present, and not a value that means
 * absent (null where nullable, or in a member spelled two ways). A value that is given may still be invalid (`{}` for
 * an object with required members).
 */
export function givesMember(members: Members, body: unknown, name: string): boolean {
  return isObject(body) && !isAbsentIn(members, name, body[name]);
}

/**
 * An object with declared members. Unknown members are ignored, except near-misses
 * of known ones (see checkMisspelledMembers). Reading yields the valid members'
 * values even when others have problems, so callers can still relate them (indexes).
 * A member declared in both spellings, `name` and the legacy `_name`, is one member: given both
 * (each valid), they must agree, else a `conflict` naming `_name` and `name` (spellings.ts), never
 * resolved by taking either; one given as null says nothing, as if left out.
 */
export function object<M extends Members>(
  members: M,
  options: { description: string; expected: string },
): Spec<ReadMembers<M>> {
  const names = Object.keys(members);
  const required = names.filter((name) => members[name]!.required);
  const refusals = new Map(
    names.flatMap((name) => {
      const refusal = members[name]!.spec.refusal;
      return refusal === undefined ? [] : [[name, refusal] as const];
    }),
  );
  const spelledTwice = names.filter((name) => Object.hasOwn(members, `_${name}`));
  const oneOfTwo = new Set(spelledTwice.flatMap((name) => [name, `_${name}`]));
  const absent = (name: string, raw: unknown) => isAbsentIn(members, name, raw);
  const properties = Object.fromEntries(
    names.map((name) => {
      const { spec, nullable } = members[name]!;
      return [name, nullable || oneOfTwo.has(name) ? { anyOf: [spec.schema, { type: 'null' }] } : spec.schema];
    }),
  );
  return {
    schema: { type: 'object', description: options.description, properties, required },
    read: (value, path, problems) => {
      if (!isObject(value)) return void readObject(value, path || 'body', problems, options.expected);
      checkMisspelledMembers(value, path, names, problems, refusals);
      const result: Record<string, unknown> = {};
      for (const name of names) {
        const { spec, required: isRequired } = members[name]!;
        const raw = value[name];
        if (absent(name, raw)) {
          if (isRequired) spec.read(undefined, join(path, name), problems);
          continue;
        }
        const read = readChild(spec, raw, path, name, problems);
        if (read !== undefined) result[name] = read;
      }
      for (const name of spelledTwice) {
        if (result[name] === undefined || result[`_${name}`] === undefined) continue;
        const differ = spellingsDiffer(value, name, path);
        if (differ !== null) problems.add(differ.path, differ.reason, differ.expected);
      }
      return result as ReadMembers<M>;
    },
    valid: (value) => {
      if (!isObject(value)) return undefined;
      // An unknown member may be a misspelling to report: `read` decides.
      for (const member in value) if (!Object.hasOwn(members, member)) return undefined;
      const result: Record<string, unknown> = {};
      for (const name of names) {
        const { spec, required: isRequired } = members[name]!;
        const raw = value[name];
        if (absent(name, raw)) {
          if (isRequired) return undefined;
          continue;
        }
        const read = spec.valid?.(raw);
        if (read === undefined) return undefined;
        result[name] = read;
      }
      // Two spellings that differ: `read` names them.
      if (spelledTwice.some((name) => spellingsDiffer(value, name, '') !== null)) return undefined;
      return result as ReadMembers<M>;
    },
  };
}
