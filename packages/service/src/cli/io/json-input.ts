/**
 * Request bodies and blocks read from the command line: parsed as the server parses a body (the
 * same function, so a byte order mark is read alike), and a text that is not JSON told in the
 * CLI's words, naming the file: `blocks.json: not JSON (Unexpected token } at line 3 column 1)`.
 */
import type { InvalidInput, Problem } from 'evm-integrity';
import { decodeJsonBody, NOT_UTF8, TWO_BOMS, unreadableBodyReason } from 'evm-integrity/api';
import { InputError } from './usage-error.js';
import { inputName } from './read-input.js';

/** Line and column (1-based) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/**
 * Why a text is not JSON: the parser's message with the line and column of the fault in place of
 * its character offset, e.g. `not JSON (Expected double-quoted property name at line 3 column 1)`.
 */
function notJsonMessage(text: string, parserMessage: string): string {
  if (parserMessage === NOT_UTF8) return 'not UTF-8 text (a JSON text is UTF-8): it has bytes that are not UTF-8';
  if (parserMessage === TWO_BOMS) return 'not JSON (it starts with two byte order marks, U+FEFF; one is allowed)';
  if (text.trim() === '') return 'not JSON (it is empty)';
  const at = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s.exec(parserMessage);
  if (at === null) return `not JSON (${parserMessage.replace(/ in JSON$/, '')})`;
  const { line, column } = lineAndColumn(text, Number(at[2]));
  return `not JSON (${at[1]} at line ${line} column ${column})`;
}

/**
 * The line that says `file` (or standard input) is not JSON, when `problem` is the body reader's
 * refusal (`decodeJsonBody`: not UTF-8, not JSON, two byte order marks); undefined for any other problem.
 */
export function notJsonLine(
  file: string | undefined,
  bytes: Uint8Array,
  problem: Problem | undefined,
): string | undefined {
  const reason = problem === undefined ? undefined : unreadableBodyReason(problem);
  if (reason === undefined) return undefined;
  // Decoded again only to place the fault by line and column in the message.
  return `${inputName(file)}: ${notJsonMessage(new TextDecoder().decode(bytes), reason)}`;
}

/**
 * A body's JSON value, read from its bytes as the server reads a body; an InputError naming the input when it is not
 * JSON, or naming the member an object gives twice (`proof.json: header.receiptsRoot is given twice in one object …`).
 */
export function parseInputJson(bytes: Uint8Array, file: string | undefined): unknown {
  const parsed = decodeJsonBody(bytes);
  if (parsed.ok) return parsed.value;
  const problem = parsed.error;
  throw new InputError(
    notJsonLine(file, bytes, problem) ?? `${inputName(file)}: ${problem.name}: expected ${problem.expected}`,
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
