import { DuplicateMemberError } from '../errors.js';
import { parseJson } from '../json/parse-json.js';
import type { Problem } from '../input/values/problems.js';
import { err, ok, type Result } from '../result.js';

/**
 * Strict UTF-8: a malformed byte is an error, not U+FFFD; a byte order mark is kept, for the one rule below to drop.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const BOM = 0xfeff;

/** The refusal of a body that starts with two byte order marks (its `expected`). */
export const TWO_BOMS = 'JSON after at most one byte order mark (U+FEFF); the body starts with two';
/** The refusal of a body whose bytes are not UTF-8 (its `expected`). */
export const NOT_UTF8 = 'UTF-8 text (JSON); the body has bytes that are not UTF-8';
const NOT_JSON = /^valid JSON \((.*)\)$/s;
const DUPLICATE_MEMBER =
  'the member once in its object; it is given twice, and JSON parsers differ on which copy counts (JSON.parse takes the last, others the first)';

/**
 * What a body may hold before it is parsed, counted natively (indexOf: a tenth of JSON.parse's time on a real block):
 * past `free` of the marks, each must come with at least `characters` characters. JSON.parse and the walks after it
 * spend about a microsecond on each array and object (30 MB of nested arrays took a worker 13 s) and on each member
 * and value (an object of 2.5 million members, 36 s), and a request's real data holds far fewer: a block's receipts
 * open an array or object per 160 to 190 characters and write a comma or colon per 31 to 86 (mainnet 15537394,
 * 15040641, 22869878, 19426587), logs without topics or data one per 40 and one per 13.5. The first quarter of a
 * million arrays and objects, and two million commas and colons, are free, so that a bundle's own limits (nesting,
 * artifacts, exchanges) name what exceeds them.
 */
const BUDGETS = [
  { marks: ['[', '{'], counted: 'brackets', what: 'arrays and objects it opens', free: 250_000, characters: 32 },
  {
    marks: [',', ':'],
    counted: 'separators',
    what: 'commas and colons (values and members)',
    free: 2_000_000,
    characters: 12,
  },
] as const;

/**
 * A text's count of each kind of mark a budget counts, in strings or not, where its scanner has counted them
 * (json/scan/json-tape.ts' `marks`): counted as it is read, where counting with indexOf took a tenth of verifying a
 * block of 10,041 logs.
 */
export interface MarkCounts {
  /** `[` and `{`. */
  readonly brackets: number;
  /** `,` and `:`. */
  readonly separators: number;
}

/** Whether `text` holds more of `marks` than `limit`; counting stops there. */
function holdsMoreThan(text: string, marks: readonly string[], limit: number): boolean {
  let count = 0;
  for (const mark of marks)
    for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark, at + 1)) if (++count > limit) return true;
  return false;
}

/**
 * The problem of a body, the JSON text `json`, that holds far more than any request's data ({@link BUDGETS}); undefined
 * for one that does not. `counted`: its marks, where a scanner has counted them; else they are counted here.
 */
export function overBudget(json: string, counted?: MarkCounts): Problem | undefined {
  for (const { marks, counted: kind, what, free, characters } of BUDGETS) {
    const limit = Math.max(free, Math.floor(json.length / characters));
    // A text holds at most one mark a character: a shorter one is not counted (most bodies).
    const over =
      json.length > limit && (counted === undefined ? holdsMoreThan(json, marks, limit) : counted[kind] > limit);
    if (over)
      return {
        name: 'body',
        location: 'body',
        reason: 'out_of_range',
        expected: `at most one of the ${what} per ${characters} characters, past the first ${free.toLocaleString('en-US')}: a request's data holds far fewer, and reading more costs seconds; the body holds more than ${limit.toLocaleString('en-US')} in its ${json.length.toLocaleString('en-US')} characters`,
      };
  }
  return undefined;
}

/**
 * The JSON parser's message when `problem` is the body reader's refusal of bytes that are not JSON (as
 * {@link decodeJsonBody} and {@link parseJsonBody} make it: not UTF-8, not JSON, two byte order marks), the
 * refusal's own text for the other two; undefined for a problem of the value read, such as a body that is not an
 * object.
 */
export function unreadableBodyReason(problem: Problem): string | undefined {
  if (problem.name !== 'body' || problem.reason !== 'invalid_format') return undefined;
  if (problem.expected === TWO_BOMS || problem.expected === NOT_UTF8) return problem.expected;
  return NOT_JSON.exec(problem.expected)?.[1];
}

/**
 * Parses a request body's JSON text: the value, or the one problem that says why it is not JSON, or that it names a
 * member twice in one object (json/parse-json.ts), or that it holds far more arrays, objects, values or members than
 * any request's data (before it is parsed: {@link BUDGETS}). One leading byte order mark is dropped (an editor may write
 * one); a second is not JSON.
 */
export function parseJsonBody(text: string): Result<unknown, Problem> {
  const json = jsonBodyText(text);
  return json.ok ? parseJsonText(json.value) : json;
}

/**
 * The JSON a body's text holds, before it is parsed: its one leading byte order mark dropped; the problem of a second,
 * or of a text over its {@link BUDGETS}. {@link parseJsonBody}'s first step, for a reader that reads the text in
 * another way first (verifyBlockText).
 */
export function jsonBodyText(text: string): Result<string, Problem> {
  const json = bomless(text);
  if (!json.ok) return json;
  const over = overBudget(json.value);
  return over === undefined ? json : err(over);
}

/**
 * A body's text without its one leading byte order mark; the problem of a second. {@link jsonBodyText} without the
 * budget, for a reader that counts the text's marks as it scans it (verifyBlockText), then asks {@link overBudget}.
 */
export function bomless(text: string): Result<string, Problem> {
  const json = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  if (json.charCodeAt(0) === BOM)
    return err({ name: 'body', location: 'body', reason: 'invalid_format', expected: TWO_BOMS });
  return ok(json);
}

/** {@link parseJsonBody}'s second step: `json`, as jsonBodyText gives it, parsed; or the problem of its text. */
export function parseJsonText(json: string): Result<unknown, Problem> {
  try {
    return ok(parseJson(json));
  } catch (error) {
    if (error instanceof DuplicateMemberError)
      return err({ name: error.details.path, location: 'body', reason: 'duplicate', expected: DUPLICATE_MEMBER });
    return err({
      name: 'body',
      location: 'body',
      reason: 'invalid_format',
      expected: `valid JSON (${(error as Error).message})`,
    });
  }
}

/**
 * Reads a request body from its bytes: strict UTF-8, exactly one leading byte order mark dropped,
 * then JSON. The server and the CLI both read bodies (HTTP, file, standard input) with it alone,
 * so a body gets the same answer from either.
 *
 * @example
 * decodeJsonBody(new TextEncoder().encode('\uFEFF{"a":1}')) // ok({ a: 1 })
 * decodeJsonBody(new Uint8Array([0x7b, 0xff, 0x7d]))       // err({ name: 'body', reason: 'invalid_format', expected: 'UTF-8 text …' })
 */
export function decodeJsonBody(bytes: Uint8Array): Result<unknown, Problem> {
  const text = decodeBodyText(bytes);
  return text.ok ? parseJsonBody(text.value) : text;
}

/** A body's bytes as text: strict UTF-8, or the problem of bytes that are not. {@link decodeJsonBody}'s first step. */
export function decodeBodyText(bytes: Uint8Array): Result<string, Problem> {
  try {
    return ok(utf8.decode(bytes));
  } catch {
    return err({
      name: 'body',
      location: 'body',
      reason: 'invalid_format',
      expected: NOT_UTF8,
    });
  }
}
