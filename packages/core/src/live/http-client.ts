/**
 * The one HTTP client of the live sources (the hosted service, a JSON-RPC node): a JSON POST
 * with a time limit, retried by one set of rules. A 429 waits at least what the server asks
 * (`Retry-After` as seconds or an HTTP date, else a hint from the body, else 1 s) and doubles
 * on further 429s; a retryable failure (a network error, a timeout, a retryable 5xx) backs off
 * exponentially from 0.5 s, and at least `Retry-After` when the server sent one. Each source
 * only says which answers are final, which are retried, and which are refused.
 */
import { isObject } from '../input/json-values.js';
import { MAX_JSON_DEPTH, tooDeep } from '../json/depth.js';
import { SourceError } from '../sources/source-error.js';

/** An answer: its status, its body parsed as JSON (undefined when it is not JSON), and its Retry-After in seconds. */
export interface HttpAnswer {
  status: number;
  json: unknown;
  retryAfterSeconds: number | undefined;
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
  fetch?: typeof fetch;
  /** Waits between retries; tests inject one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Retries of one request. */
  maxRetries: number;
  /** One attempt's time limit, default 60 000 ms; a timeout is retried like a network error. */
  timeoutMs?: number;
  /** A rate limit asking for a longer wait than this is not waited for (an exhausted allowance); default 300 s. */
  maxRetryAfterSeconds?: number;
}

const FIRST_RETRY_DELAY_MS = 500;
const MAX_BACKOFF_MS = 60_000;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
 * POSTs JSON and retries by the rules above. `who` names the server in messages by origin only
 * (a provider URL's path often holds an API key), `what` the request.
 *
 * @example
 * const client = new HttpClient({ maxRetries: 5 })
 * const answer = await client.post(url, '{"a":1}', {}, { who: 'the service', what: 'POST /evm/lineage/record' },
 *   (a) => (a.status === 200 ? { kind: 'final' } : { kind: 'refuse', message: `HTTP ${a.status}` }))
 */
export class HttpClient {
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly maxRetryAfterMs: number;

  constructor(options: HttpClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? realSleep;
    this.maxRetries = Math.max(0, options.maxRetries);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 300) * 1000;
  }

  /** One attempt: the answer, or the network error. */
  private async attempt(
    url: string,
    text: string,
    headers: Record<string, string>,
  ): Promise<HttpAnswer | { networkError: unknown }> {
    try {
      const response = await this.fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
        body: text,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = await response.text();
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      return {
        status: response.status,
        json,
        retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after'), Date.now()),
      };
    } catch (error) {
      return { networkError: error };
    }
  }

  /** The answer `judge` calls final, or a SourceError once it refuses one or the retries are spent. */
  async post(
    url: string,
    text: string,
    headers: Record<string, string>,
    label: { who: string; what: string },
    judge: (answer: HttpAnswer) => AnswerVerdict,
  ): Promise<HttpAnswer> {
    const { who, what } = label;
    let last429DelayMs = 0;
    let failures = 0;
    for (let retries = 0; ; retries++) {
      const outcome = await this.attempt(url, text, headers);
      let failure: string;
      let delayMs: number;
      if ('networkError' in outcome) {
        failure = `a network error: ${describeNetworkError(outcome.networkError)}`;
        delayMs = Math.min(FIRST_RETRY_DELAY_MS * 2 ** failures++, MAX_BACKOFF_MS);
      } else {
        // Before anything recurses into the answer (recording clones it, writing a bundle stringifies it).
        const deep = tooDeep(outcome.json, MAX_JSON_DEPTH);
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
