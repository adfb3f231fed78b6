import { totalmem } from 'node:os';
import { ApiProblem } from '../responses.js';

/**
 * The share of the machine's memory (or of the process's, under a cgroup limit) that bodies being
 * read and verified may hold at once: a body costs about three times its bytes while it is read as
 * JSON (the bytes, their text, the value), so an eighth of memory in bodies stays within about half.
 */
const MEMORY_SHARE = 8;

/**
 * The body bytes a server on this machine may hold at once: an eighth of its memory, and never
 * less than `largestBody` (a body at the largest limit must always be able to pass).
 */
export function maxBodyBytesFor(
  largestBody: number,
  memory = Math.min(totalmem(), process.constrainedMemory() || Infinity),
): number {
  return Math.max(largestBody, Math.floor(memory / MEMORY_SHARE));
}

/** 503: the server holds as many body bytes as it may; a body beyond them is not read. */
export const bodiesOverBudget = (maxBytes: number) =>
  new ApiProblem(
    {
      code: 'SERVICE_UNAVAILABLE',
      http_status: 503,
      message: `The server is reading or verifying as many request bodies as it may hold at once (${maxBytes} bytes).`,
      hint: 'Retry after the number of seconds in Retry-After.',
      retryable: true,
      details: null,
    },
    { 'Retry-After': '1' },
  );

/**
 * The bound on body bytes held at once across the server (`max_body_bytes_in_flight`): a request
 * takes its body's declared length (or its endpoint's limit when none is declared) before the body
 * is read and gives it back once answered, so concurrent large bodies cannot take the process's
 * memory. A body that does not fit is refused (bodiesOverBudget) unread.
 */
export class BodyBudget {
  #held = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes `bytes`, or throws the 503 when they do not fit. Give them back with `give` exactly once. */
  take(bytes: number): void {
    if (this.#held + bytes > this.maxBytes) throw bodiesOverBudget(this.maxBytes);
    this.#held += bytes;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }
}
