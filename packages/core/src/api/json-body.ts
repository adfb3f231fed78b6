import type { Problem } from '../input/problems.js';
import { err, ok, type Result } from '../result.js';

/**
 * Parses a request body's JSON text: the value, or the one problem that says why it is not JSON.
 * A leading UTF-8 byte order mark is dropped, as a WHATWG text decoder (the server's) drops it,
 * so a file saved by an editor that writes one is read alike by the CLI and the server.
 */
export function parseJsonBody(text: string): Result<unknown, Problem> {
  try {
    return ok(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
  } catch (error) {
    return err({ name: 'body', location: 'body', reason: 'invalid_format', expected: `valid JSON (${(error as Error).message})` });
  }
}
