import type { Problem } from '../input/problems.js';

/** Parses a request body's JSON text: the value, or the one problem that says why it is not JSON. */
export function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: { name: 'body', location: 'body', reason: 'invalid_format', expected: `valid JSON (${(error as Error).message})` } };
  }
}
