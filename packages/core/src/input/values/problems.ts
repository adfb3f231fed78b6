/**
 * Validation problems, reported as the spec's `invalid_parameters[]`:
 * a path into the body, a reason, and what was expected.
 */
import type { ProblemReason } from '../../errors.js';

export interface Problem {
  /** Path into the body, e.g. `transactions[3].logs[0].topics[1]`. */
  name: string;
  location: 'body';
  reason: ProblemReason;
  expected: string;
}

/** At most this many problems are listed. */
export const MAX_PROBLEMS = 100;

/** Collects problems up to {@link MAX_PROBLEMS}; `count` keeps the true total. */
export class Problems {
  readonly list: Problem[] = [];
  count = 0;

  add(name: string, reason: ProblemReason, expected: string): void {
    this.count++;
    if (this.list.length < MAX_PROBLEMS) this.list.push({ name, location: 'body', reason, expected });
  }

  get empty(): boolean {
    return this.count === 0;
  }

  /** The problems found, as the refusal of the input. */
  invalidInput(): InvalidInput {
    return { kind: 'invalid', problems: this.list, count: this.count };
  }
}

/**
 * Why untrusted input was refused (the error of a parser's Result): the problems listed and
 * their true count. `kind` tells it from the other refusals an operation may add.
 */
export interface InvalidInput {
  kind: 'invalid';
  problems: Problem[];
  count: number;
}

/** The single problem of a body that is not a JSON object. */
export function bodyNotAnObject(body: unknown): InvalidInput {
  const got = Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body;
  return {
    kind: 'invalid',
    problems: [{ name: 'body', location: 'body', reason: 'invalid_format', expected: `a JSON object, got ${got}` }],
    count: 1,
  };
}

/** How many problems {@link describeProblems} names before it counts the rest. */
const DESCRIBED_PROBLEMS = 5;

/**
 * The problems of a refused block, in one line: the first few, and how many more (every problem of a block whose
 * every log was off ran to tens of kilobytes): `header.nonce: expected present: …; receipts[0].type: expected …`.
 */
export function describeProblems(input: InvalidInput): string {
  const named = input.problems.slice(0, DESCRIBED_PROBLEMS).map((p) => `${p.name}: expected ${p.expected}`);
  const more = input.count - named.length;
  return `${named.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}
