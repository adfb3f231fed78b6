/**
 * Every JSON file the command line reads (blocks, request bodies, proofs, bundles, the configuration): parsed as the
 * server parses a body (the same function, so a byte order mark is read alike), and a text that is not JSON told in
 * the CLI's words, on one line naming the file: `blocks.json: not JSON (Unexpected token '}' at line 3 column 1)`.
 */
import type { InvalidInput, Problem } from 'evm-integrity';
import { decodeJsonBody, NOT_UTF8, TWO_BOMS, unreadableBodyReason } from 'evm-integrity/api';
import { InputError } from './usage-error.js';
import { inputName, notUtf8Message } from './read-input.js';
import { jsonFaultOffset } from './json-fault.js';
import { characterName, printable } from './printable.js';

/** Line and column (1-based) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/**
 * Why a text is not JSON, on one line: the parser's message with the line and column of the fault in place of its
 * character offset, e.g. `not JSON (Expected double-quoted property name at line 3 column 1)`. Where the parser
 * gives no offset (`Unexpected token 'h', "hello\n" is not valid JSON`, which also quotes the text), the fault is
 * found in the text (json-fault.ts) and named, never quoted.
 */
function notJsonMessage(json: string, bytes: Uint8Array, parserMessage: string): string {
  if (parserMessage === NOT_UTF8) return notUtf8Message(bytes, 'a JSON text is UTF-8');
  if (parserMessage === TWO_BOMS) return 'not JSON (it starts with two byte order marks, U+FEFF; one is allowed)';
  if (json.trim() === '') return 'not JSON (it is empty)';
  const at = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s.exec(parserMessage);
  let what: string;
  let offset: number | undefined;
  if (at !== null) {
    what = at[1]!;
    offset = Number(at[2]);
  } else {
    offset = jsonFaultOffset(json);
    what =
      offset === undefined
        ? parserMessage.replace(/ in JSON$/, '')
        : offset === json.length
          ? 'Unexpected end of JSON input'
          : `Unexpected token ${characterName(String.fromCodePoint(json.codePointAt(offset)!))}`;
  }
  const place = offset === undefined ? undefined : lineAndColumn(json, offset);
  const where = place === undefined ? '' : ` at line ${place.line} column ${place.column}`;
  const html = /^\s*</.test(json) ? '; it looks like an HTML page, not JSON' : '';
  return `not JSON (${printable(what)}${where}${html})`;
}

/**
 * The line that says `file` (or standard input) is not JSON, when `problem` is the body reader's
 * refusal (`decodeJsonBody`: not UTF-8, not JSON, two byte order marks); undefined for any other problem.
 */
export function notJsonLine(
  file: string | undefined,
  bytes: Uint8Array,
  problem: Problem | undefined,
  name = inputName(file),
): string | undefined {
  const reason = problem === undefined ? undefined : unreadableBodyReason(problem);
  if (reason === undefined) return undefined;
  // Decoded again only to place the fault by line and column in the message (as decodeJsonBody read it: without the
  // one byte order mark it drops).
  return `${printable(name)}: ${notJsonMessage(new TextDecoder().decode(bytes), bytes, reason)}`;
}

/**
 * A file's JSON value, read from its bytes as the server reads a body (one leading byte order mark dropped): every
 * command reads a JSON file with it. An InputError naming the input (`name`: by default its path, or `standard input`)
 * when it is not JSON, or naming the member an object gives twice (`proof.json: header.receiptsRoot: expected the
 * member once …`).
 */
export function parseInputJson(bytes: Uint8Array, file: string | undefined, name = inputName(file)): unknown {
  const parsed = decodeJsonBody(bytes);
  if (parsed.ok) return parsed.value;
  const problem = parsed.error;
  throw new InputError(
    notJsonLine(file, bytes, problem, name) ?? `${name}: ${problem.name}: expected ${problem.expected}`,
  );
}

/**
 * The one line that says why `file` is not `what` (a block, a receipt proof): its first problem's path and what was
 * expected there, e.g. `proof.json: not a receipt proof: index: expected zero-based transaction index (JSON integer)`.
 */
export function notALine(file: string | undefined, what: string, invalid: InvalidInput): string {
  const first = invalid.problems[0]!;
  const more = invalid.count > 1 ? ` (and ${invalid.count - 1} more)` : '';
  return `${inputName(file)}: not ${what}: ${first.name}: expected ${first.expected}${more}`;
}
