/**
 * JSON text read as `JSON.parse` reads it, except that an object naming a member twice is refused.
 * RFC 8259 leaves such an object's meaning to the parser: `JSON.parse` keeps the last copy, other
 * parsers the first, so a header with two `receiptsRoot` members would be verified on one and read
 * by a consumer on the other. The check costs one walk of the parsed value, counting its members, and
 * a count of the text's colons (`indexOf`, native): every member is written with one colon outside
 * strings, so colons no more than the members read means no member was written twice. Only where
 * strings hold colons too is the text scanned for member names (from quote to quote), and only
 * where those outnumber the members read is it walked again, to name the member.
 */
import { DuplicateMemberError } from '../errors.js';

/**
 * `JSON.parse(text)`, or a {@link DuplicateMemberError} where an object names a member twice (a SyntaxError, as
 * from `JSON.parse`, where the text is not JSON).
 * @example
 * parseJson('{"a":1,"b":{"c":2,"c":3}}') // throws DuplicateMemberError: b.c is given twice in one object
 */
export function parseJson(text: string): unknown {
  return parseJsonMeasured(text).value;
}

/** A value read by {@link parseJsonMeasured}, and how deep its arrays and objects nest. */
export interface MeasuredJson {
  value: unknown;
  /** The deepest array or object's level, the value itself level 1 (0 for a scalar), as `tooDeep` counts. */
  depth: number;
}

/**
 * {@link parseJson}, with the value's depth from the same walk of it: a reader that bounds the depth (a node's answer)
 * need not walk the value again (a second walk cost a block as much as counting its members).
 * @example
 * parseJsonMeasured('{"a":[[1]]}') // { value: { a: [[1]] }, depth: 3 }
 */
export function parseJsonMeasured(text: string): MeasuredJson {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) return { value, depth: 0 };
  const { members, depth } = membersOf(value);
  // Colons = member names written + colons inside strings ≥ member names written ≥ members read: equal ends it.
  if (colonsIn(text) !== members && memberNamesIn(text) !== members) {
    const duplicate = findDuplicate(text);
    if (duplicate !== undefined) throw duplicate;
  }
  return { value, depth };
}

/**
 * The colons anywhere in `text`. A node's answer holds them only between member names and values (its strings are
 * hex), and counting them natively costs a fraction of finding where each string ends, which was most of this check.
 */
function colonsIn(text: string): number {
  let colons = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) colons++;
  return colons;
}

const BACKSLASH = 92;
const COLON = 58;

/** Whether the quote at `at` is escaped: preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** The index of the quote that closes the string opened at `open`. */
function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (isEscaped(text, end)) end = text.indexOf('"', end + 1);
  return end;
}

/** The index of the first character after `from` that is not JSON whitespace. */
function skipSpace(text: string, from: number): number {
  let at = from;
  for (let c = text.charCodeAt(at); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++at));
  return at;
}

/** The member names in valid JSON `text`: its strings followed by a colon. */
function memberNamesIn(text: string): number {
  let names = 0;
  for (let open = text.indexOf('"'); open !== -1;) {
    const after = skipSpace(text, closingQuote(text, open) + 1);
    if (text.charCodeAt(after) === COLON) names++;
    open = text.indexOf('"', after);
  }
  return names;
}

/** The members of every object in `value`, nested ones included, and the deepest level of an array or object. */
function membersOf(value: object): { members: number; depth: number } {
  let members = 0;
  let depth = 1;
  // Two stacks in step, an object and its level: no pair allocated a value.
  const pending: object[] = [value];
  const levels: number[] = [1];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const level = levels.pop()! + 1;
    if (Array.isArray(next)) {
      for (const child of next as unknown[])
        if (typeof child === 'object' && child !== null) {
          pending.push(child);
          levels.push(level);
          if (level > depth) depth = level;
        }
      continue;
    }
    // for…in allocates nothing (Object.values would, an array per object); JSON.parse makes plain objects.
    for (const member in next) {
      members++;
      const child = (next as Record<string, unknown>)[member];
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        levels.push(level);
        if (level > depth) depth = level;
      }
    }
  }
  return { members, depth };
}

type Frame = { kind: 'object'; names: Set<string>; member: string | undefined } | { kind: 'array'; index: number };

/** The path of the innermost frame's value: each enclosing frame's place (its member, or its index). */
const pathOf = (frames: readonly Frame[]): string =>
  frames
    .slice(0, -1)
    .map((frame) => (frame.kind === 'array' ? `[${frame.index}]` : `.${frame.member ?? ''}`))
    .join('');

/** The first member named twice in one object of valid JSON `text`, with the path of that object. */
function findDuplicate(text: string): DuplicateMemberError | undefined {
  const frames: Frame[] = [];
  for (let at = 0; at < text.length; at++) {
    const c = text[at];
    const top = frames.at(-1);
    if (c === '{') frames.push({ kind: 'object', names: new Set(), member: undefined });
    else if (c === '[') frames.push({ kind: 'array', index: 0 });
    else if (c === '}' || c === ']') frames.pop();
    else if (c === ',' && top?.kind === 'array') top.index++;
    else if (c === '"') {
      const end = closingQuote(text, at);
      if (top?.kind === 'object' && text.charCodeAt(skipSpace(text, end + 1)) === COLON) {
        const member = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.names.has(member)) return new DuplicateMemberError(`${pathOf(frames)}.${member}`.replace(/^\./, ''));
        top.names.add(member);
        top.member = member;
      }
      at = end;
    }
  }
  return undefined;
}
