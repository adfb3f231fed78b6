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

/** The problems of a refused block, in one line: `header.nonce: present: …; receipts[0].type: …`. */
export function describeProblems(input: InvalidInput): string {
  return input.problems.map((p) => `${p.name}: ${p.expected}`).join('; ');
}
