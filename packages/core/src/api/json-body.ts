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
 * How many arrays and objects a body may open (`[` and `{` anywhere in it, strings too) past which each must come with
 * at least {@link BYTES_PER_CONTAINER} bytes: JSON.parse and the walks after it spend about a microsecond on each
 * (0.7 s for a million nested, where 30 MB of them took a worker 13 s), and a request's real data opens far fewer. A
 * block's receipts open one per 175 bytes (mainnet 15537394), one per 40 at the densest (logs without topics or data);
 * the first quarter of a million is free, so that a bundle's own limits (nesting, artifacts) name what exceeds them.
 */
const FREE_CONTAINERS = 250_000;
const BYTES_PER_CONTAINER = 32;

/**
 * Whether `text` opens more arrays and objects (`[` and `{`, counted natively with indexOf: a tenth of JSON.parse's
 * time on a real block) than `limit`; counting stops there.
 */
function opensMoreThan(text: string, limit: number): boolean {
  let count = 0;
  for (const open of ['[', '{'])
    for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, at + 1)) if (++count > limit) return true;
  return false;
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
 * member twice in one object (json/parse-json.ts), or that it opens far more arrays and objects than any request's
 * data (before it is parsed: {@link FREE_CONTAINERS}). One leading byte order mark is dropped (an editor may write
 * one); a second is not JSON.
 */
export function parseJsonBody(text: string): Result<unknown, Problem> {
  const json = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  if (json.charCodeAt(0) === BOM) {
    return err({
      name: 'body',
      location: 'body',
      reason: 'invalid_format',
      expected: TWO_BOMS,
    });
  }
  const limit = Math.max(FREE_CONTAINERS, Math.floor(json.length / BYTES_PER_CONTAINER));
  // A text opens at most one array or object a character: a shorter one is not counted (most bodies).
  if (json.length > limit && opensMoreThan(json, limit))
    return err({
      name: 'body',
      location: 'body',
      reason: 'out_of_range',
      expected: `at most one array or object per ${BYTES_PER_CONTAINER} characters, past the first ${FREE_CONTAINERS.toLocaleString('en-US')}: a request's data opens far fewer (a block's receipts one per 40 at their densest), and reading more costs seconds; the body opens more than ${limit.toLocaleString('en-US')} in its ${json.length.toLocaleString('en-US')} characters`,
    });
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
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return err({
      name: 'body',
      location: 'body',
      reason: 'invalid_format',
      expected: NOT_UTF8,
    });
  }
  return parseJsonBody(text);
}
