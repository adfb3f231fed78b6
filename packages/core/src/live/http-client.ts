/**
 * The one HTTP client of the live sources (the hosted service, a JSON-RPC node): a JSON POST
 * with a time limit, retried by one set of rules. A 429 waits at least what the server asks
 * (`Retry-After` as seconds or an HTTP date, else a hint from the body, else 1 s) and doubles
 * on further 429s; a retryable failure (a network error, a timeout, a retryable 5xx) backs off
 * exponentially from 0.5 s, and at least `Retry-After` when the server sent one. Each source
 * only says which answers are final, which are retried, and which are refused.
 *
 * A server cannot exhaust memory or time: an answer is read as a stream of chunks, counted as they
 * come and abandoned past `maxAnswerBytes`; the time limit covers the whole answer, body included;
 * requests go on at most `maxConnections` kept-alive connections (see http-transport.ts).
 */
import { collectBytes } from '../bytes/collect.js';
import { isObject } from '../input/values/json-values.js';
import { MAX_JSON_DEPTH, tooDeep } from '../json/depth.js';
import { parseJsonMeasured } from '../json/parse-json.js';
import { AnswerTooLargeError, DuplicateMemberError, SourceError } from '../errors.js';
import { fetchTransport, pooledTransport, type RawAnswer, type Transport } from './http-transport.js';

/** `text` parsed by JSON.parse (the last copy of a member named twice taken); undefined when it is not JSON. */
function lenientParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An answer: its status, its body parsed as JSON (undefined when it is not JSON), and its Retry-After in seconds. */
export interface HttpAnswer {
  status: number;
  json: unknown;
  retryAfterSeconds: number | undefined;
  /** The body's length in characters (its bytes, for JSON in ASCII): what sizes a node's batches. */
  length: number;
}

/** What a source makes of an answer. */
export type AnswerVerdict =
  /** The answer to return. */
  | { kind: 'final' }
  /** A rate limit: wait (at least `waitSeconds` when the body says so), then retry. */
  | { kind: 'rate_limited'; failure: string; waitSeconds?: number }
  /** A transient failure: back off, then retry. */
  | { kind: 'retry'; failure: string }
  /** Refused for good: the message of the SourceError. */
  | { kind: 'refuse'; message: string };

export interface HttpClientOptions {
  /** A `fetch` to send with instead of the default pool of `maxConnections` kept-alive connections (http-transport.ts). */
  fetch?: typeof fetch;
  /** Waits between retries; tests inject one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Retries of one request. */
  maxRetries: number;
  /** One attempt's time limit, default 60 000 ms; a timeout is retried like a network error. */
  timeoutMs?: number;
  /** A rate limit asking for a longer wait than this is not waited for (an exhausted allowance); default 300 s. */
  maxRetryAfterSeconds?: number;
  /**
   * The largest answer body read, in bytes (default {@link DEFAULT_MAX_ANSWER_BYTES}, at most {@link MAX_ANSWER_BYTES});
   * a larger one is abandoned.
   */
  maxAnswerBytes?: number;
  /** Kept-alive connections to a server at most (default 8): requests beyond wait for one to be free. */
  maxConnections?: number;
  /**
   * Once aborted, every request is abandoned: those in flight are cut, their waits end, and each `post` then fails
   * with the signal's reason instead of trying again (a Ctrl-C must not wait for timeouts and retries to run out).
   */
  signal?: AbortSignal;
}

/**
 * 32 MiB: the largest real answer, a block's receipts, is a few MB today (a 36M-gas block spent on
 * log data alone is about 9 MB of hex JSON), so this leaves room for blocks twice as large; and a
 * body of tiny JSON objects this size still parses within about 1 GB of memory.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * 511 MiB, the largest cap on an answer: a body is read into one string, and V8's strings hold at most
 * 2^29 - 24 UTF-16 units (Node 20 to 24); a larger body would fail as "Invalid string length".
 */
export const MAX_ANSWER_BYTES = 511 * 1024 * 1024;

/** The decoder of answers: UTF-8, malformed bytes replaced (a body that is then not JSON is judged as such). */
const utf8 = new TextDecoder();

const FIRST_RETRY_DELAY_MS = 500;
const MIB = 1024 * 1024;
/** A byte count in MiB, as the CLI flag gives it. */
const mib = (bytes: number) => `${+(bytes / MIB).toFixed(2)} MiB`;
const MAX_BACKOFF_MS = 60_000;

/** Waits `ms`, or until `signal` aborts: its timer is then cleared, so that it keeps no process alive. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Seconds from a `Retry-After` header: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** Text of a network failure, with the cause's code (ECONNREFUSED, …) when there is one. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `no answer in time (${error.message})`;
  const cause = (error as { cause?: unknown }).cause;
  const code =
    isObject(cause) && typeof cause.code === 'string' ? cause.code : cause instanceof Error ? cause.message : undefined;
  return code === undefined ? error.message : `${error.message} (${code})`;
}

/**
 * A failure while an answer's body is read, said as what befell the answer: a body not valid under its
 * `Content-Encoding` (zlib and brotli name neither), a body cut short (Node says only "aborted", and ECONNRESET even
 * where the node closed the connection cleanly), or another network error.
 */
function bodyFailure(error: unknown, encoding: string | null): { networkError: unknown } | { undecodable: string } {
  if (!(error instanceof Error)) return { networkError: error };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^(Z_|ERR__ERROR)/.test(code))
    return {
      undecodable: `a body not valid under its Content-Encoding, ${encoding ?? 'none'}: ${error.message} (${code})`,
    };
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || error.message === 'aborted')
    return { networkError: new Error('the connection closed before the answer was complete') };
  return { networkError: error };
}

/**
 * POSTs JSON and retries by the rules above. `who` names the server in messages by origin only
 * (a provider URL's path often holds an API key), `what` the request.
 *
 * @example
 * const client = new HttpClient({ maxRetries: 5 })
 * const answer = await client.post(url, '{"a":1}', {}, { who: 'the service', what: 'POST /evm/lineage/record' },
 *   (a) => (a.status === 200 ? { kind: 'final' } : { kind: 'refuse', message: `HTTP ${a.status}` }))
 */
export class HttpClient {
  private readonly send: Transport;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly maxAnswerBytes: number;
  private readonly signal: AbortSignal | undefined;

  constructor(options: HttpClientOptions) {
    this.send =
      options.fetch === undefined
        ? pooledTransport(Math.max(1, options.maxConnections ?? 8))
        : fetchTransport(options.fetch);
    this.signal = options.signal;
    this.sleep = options.sleep ?? ((ms) => pause(ms, options.signal));
    this.maxRetries = Math.max(0, options.maxRetries);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 300) * 1000;
    this.maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    if (!(this.maxAnswerBytes >= 1 && this.maxAnswerBytes <= MAX_ANSWER_BYTES))
      throw new RangeError(`maxAnswerBytes: expected 1 to ${MAX_ANSWER_BYTES} bytes, got ${this.maxAnswerBytes}`);
  }

  /** The body as text, gathered as it comes; null once it passes the cap (the request is then aborted). */
  private async readBody(answer: RawAnswer, abort: AbortController): Promise<string | null> {
    if (answer.body === null) return '';
    const declared = Number(answer.header('content-length') ?? Number.NaN);
    // A declared length over the cap is refused before a byte is read.
    const bytes =
      declared > this.maxAnswerBytes ? null : await collectBytes(answer.body, this.maxAnswerBytes, declared);
    if (bytes === null) {
      abort.abort();
      return null;
    }
    // Decoded once, whole: a string built piece by piece is a rope that JSON.parse must flatten first, which cost a
    // 3.5 MB answer more than twice the decoding and the parse of one flat string.
    return utf8.decode(bytes);
  }

  /** One attempt: the answer, the network error (a timeout while the body is read included), a body not valid under its encoding, or too large. */
  private async attempt(
    url: string,
    text: string,
    headers: Record<string, string>,
  ): Promise<
    | (HttpAnswer & { depth: number })
    | { networkError: unknown }
    | { undecodable: string }
    | { tooLarge: true }
    | { duplicate: DuplicateMemberError; status: number; lenient: unknown }
  > {
    const abort = new AbortController();
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      // The time limit covers reading the body: the signal aborts the stream too.
      const answer = await this.send(url, {
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
        body: text,
        signal: AbortSignal.any([abort.signal, timeout, ...(this.signal === undefined ? [] : [this.signal])]),
      });
      let body: string | null;
      try {
        body = await this.readBody(answer, abort);
      } catch (error) {
        return timeout.aborted
          ? { networkError: timeout.reason }
          : bodyFailure(error, answer.header('content-encoding'));
      }
      if (body === null) return { tooLarge: true };
      let json: unknown;
      let depth = 0;
      try {
        // An answer naming a member twice is refused below, naming the member: neither copy is taken.
        if (body !== '') ({ value: json, depth } = parseJsonMeasured(body));
      } catch (error) {
        // Read again the lenient way, only to tell whose part of the answer it is (a batch's call): never taken.
        if (error instanceof DuplicateMemberError)
          return { duplicate: error, status: answer.status, lenient: lenientParse(body) };
        json = undefined;
      }
      return {
        status: answer.status,
        json,
        depth,
        retryAfterSeconds: retryAfterSeconds(answer.header('retry-after'), Date.now()),
        length: body.length,
      };
    } catch (error) {
      // The stream cut by the time limit fails as "aborted": the limit is the reason.
      return { networkError: timeout.aborted ? timeout.reason : error };
    }
  }

  /**
   * The answer `judge` calls final, or a SourceError once it refuses one or the retries are spent
   * (an {@link AnswerTooLargeError} at once for an answer over the cap).
   */
  async post(
    url: string,
    text: string,
    headers: Record<string, string>,
    label: {
      who: string;
      what: string;
      /**
       * Whose the member named twice (at `path`, in `answer` read leniently) is, for the message: `its answer to
       * eth_getBlockReceipts for block 1000023`; undefined when it cannot be told.
       */
      partOf?: (path: string, answer: unknown) => string | undefined;
    },
    judge: (answer: HttpAnswer) => AnswerVerdict,
  ): Promise<HttpAnswer> {
    const { who, what } = label;
    let last429DelayMs = 0;
    let failures = 0;
    for (let retries = 0; ; retries++) {
      this.signal?.throwIfAborted();
      const outcome = await this.attempt(url, text, headers);
      this.signal?.throwIfAborted();
      let failure: string;
      let delayMs: number;
      if ('tooLarge' in outcome) {
        throw new AnswerTooLargeError(
          `${who} answered ${what} with more than ${mib(this.maxAnswerBytes)}, the cap on an answer (maxAnswerBytes; audit's --max-answer-mb on the command line); the answer was abandoned`,
          this.maxAnswerBytes,
        );
      } else if ('duplicate' in outcome) {
        // Not a transient fault: the node would answer alike again, and neither copy may be taken.
        const { path } = outcome.duplicate.details;
        const part = label.partOf?.(path, outcome.lenient);
        throw new SourceError(
          `${who} answered ${what} with HTTP ${outcome.status} and JSON naming ${path} twice in one object${part === undefined ? '' : `, in ${part}`}: JSON parsers differ on which copy counts, so neither is taken`,
        );
      } else if ('networkError' in outcome || 'undecodable' in outcome) {
        // A body not valid under its encoding is retried as a network error is: a proxy may have mangled it.
        failure =
          'undecodable' in outcome
            ? outcome.undecodable
            : `a network error: ${describeNetworkError(outcome.networkError)}`;
        delayMs = Math.min(FIRST_RETRY_DELAY_MS * 2 ** failures++, MAX_BACKOFF_MS);
      } else {
        // Before anything recurses into the answer (recording clones it, writing a bundle stringifies it).
        const deep = outcome.depth > MAX_JSON_DEPTH ? tooDeep(outcome.json, MAX_JSON_DEPTH) : null;
        if (deep !== null)
          throw new SourceError(
            `${who} answered ${what} with HTTP ${outcome.status} and JSON nested deeper than the limit of ${MAX_JSON_DEPTH} levels, at ${deep}`,
          );
        const verdict = judge(outcome);
        if (verdict.kind === 'final') return outcome;
        if (verdict.kind === 'refuse') throw new SourceError(verdict.message);
        failure = verdict.failure;
        if (verdict.kind === 'rate_limited') {
          const waitMs = (outcome.retryAfterSeconds ?? verdict.waitSeconds ?? 1) * 1000;
          if (waitMs > this.maxRetryAfterMs) {
            throw new SourceError(
              `${who} answered ${what} with ${failure}; it asks to wait ${Math.ceil(waitMs / 1000)} s (an allowance may be exhausted), more than the ${this.maxRetryAfterMs / 1000} s this client waits`,
            );
          }
          delayMs = Math.max(waitMs, Math.min(last429DelayMs * 2, MAX_BACKOFF_MS));
          last429DelayMs = delayMs;
        } else {
          delayMs = Math.max(
            Math.min(FIRST_RETRY_DELAY_MS * 2 ** failures++, MAX_BACKOFF_MS),
            (outcome.retryAfterSeconds ?? 0) * 1000,
          );
        }
      }
      if (retries >= this.maxRetries)
        throw new SourceError(
          `${who} answered ${what} with ${failure}, still after ${retries} ${retries === 1 ? 'retry' : 'retries'}`,
        );
      await this.sleep(delayMs);
    }
  }
}
