/**
 * The hosted service's client rules, for every source that reads from it (the lineage walk, the
 * raw-dataset audit): the base URL (`…/v1`), the bearer key, and which answers are final, retried
 * or refused, over the one shared {@link HttpClient}.
 */
import { isObject, type JsonObject } from '../input/values/json-values.js';
import { HttpClient, type AnswerVerdict, type HttpAnswer } from './http-client.js';
import { SourceError } from '../errors.js';
import { type Exchange } from '../sources/exchange.js';

export interface ServiceClientOptions {
  /** The service's base URL, ending with `/v1` (added when missing; a trailing `/` is dropped). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Waits between retries; tests inject one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Retries of one request (429, retryable 5xx, network errors), default 5. */
  maxRetries?: number;
  /** A 429 whose `Retry-After` asks for longer than this is not waited for (an exhausted CU allowance); default 300. */
  maxRetryAfterSeconds?: number;
  /** One attempt's time limit; a timeout counts as a network error. Default 60 000 ms. */
  timeoutMs?: number;
  /** Abandons every request once aborted, in flight or waiting (see the HTTP client's `signal`). */
  signal?: AbortSignal;
}

const errorOf = (json: unknown): JsonObject | undefined =>
  isObject(json) && isObject(json.error) ? json.error : undefined;

/** `HTTP 400 BAD_REQUEST: message (hint: …)` from an error envelope, or the bare status. */
function describeAnswer(answer: HttpAnswer): string {
  const error = errorOf(answer.json);
  if (error === undefined) return `HTTP ${answer.status}${answer.json === undefined ? ' (the body is not JSON)' : ''}`;
  const code = typeof error.code === 'string' ? ` ${error.code}` : '';
  const message = typeof error.message === 'string' ? `: ${error.message}` : '';
  const hint = typeof error.hint === 'string' && error.hint !== '' ? ` (hint: ${error.hint})` : '';
  return `HTTP ${answer.status}${code}${message}${hint}`;
}

/**
 * The base URL as requests use it: validated, without a trailing `/`, ending with `/v1`; a SourceError names what is
 * wrong.
 */
export function serviceBaseUrl(given: string): string {
  const base = given.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new SourceError(`the service URL "${given}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SourceError(`the service URL must be http(s), got "${url.protocol}"`);
  if (url.search !== '' || url.hash !== '') throw new SourceError('the service URL must not carry a query or fragment');
  return /\/v1$/.test(url.pathname) ? base : `${base}/v1`;
}

/**
 * Every request is `POST {baseUrl}{path}` with the bearer key and a JSON body, and follows the
 * spec's client rules: on 429 wait at least `Retry-After` (header, else
 * `details.retry_after_seconds`, else 1 s) and back off exponentially on further 429s; retry a
 * 5xx whose envelope's `retryable` is true or absent, and network errors, with exponential
 * backoff from 0.5 s; never retry other 4xx. At most `maxRetries` retries per request; then, or
 * on an error that is not retried, a {@link SourceError} names the path, status, code and message
 * (a 401 says the API key was refused).
 */
export class ServiceClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly client: HttpClient;

  constructor(options: ServiceClientOptions) {
    this.baseUrl = serviceBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey;
    this.client = new HttpClient({ ...options, maxRetries: options.maxRetries ?? 5 });
  }

  /**
   * POSTs a body and returns the final answer: a 2xx with a JSON body, or a 404 when
   * `notFoundIsAnswer`. `onAnswer` sees each answer kept as the service gave it (the final one,
   * and a refusal with a JSON body), for recording.
   */
  async post(
    path: string,
    body: JsonObject,
    notFoundIsAnswer: boolean,
    onAnswer?: (exchange: Exchange) => void,
  ): Promise<HttpAnswer> {
    const text = JSON.stringify(body);
    const what = `POST ${path}`;
    const record = (answer: HttpAnswer) =>
      onAnswer?.({
        method: 'POST',
        path,
        body: JSON.parse(text) as JsonObject,
        status: answer.status,
        response: answer.json,
      });
    return this.client.post(
      `${this.baseUrl}${path}`,
      text,
      { Authorization: `Bearer ${this.apiKey}` },
      { who: 'the service', what },
      (answer): AnswerVerdict => {
        const { status, json } = answer;
        if ((status >= 200 && status < 300) || (status === 404 && notFoundIsAnswer)) {
          if (json === undefined)
            return {
              kind: 'refuse',
              message: `the service answered ${what} with HTTP ${status} and a body that is not JSON`,
            };
          record(answer);
          return { kind: 'final' };
        }
        const failure = describeAnswer(answer);
        const error = errorOf(json);
        if (status === 429) {
          const details = error?.details;
          const detailSeconds =
            isObject(details) && typeof details.retry_after_seconds === 'number'
              ? details.retry_after_seconds
              : undefined;
          return { kind: 'rate_limited', failure, ...(detailSeconds !== undefined && { waitSeconds: detailSeconds }) };
        }
        if (status >= 500 && error?.retryable !== false) return { kind: 'retry', failure };
        if (json !== undefined) record(answer);
        const refused =
          status === 401
            ? ' (the API key was refused)'
            : status === 403
              ? ' (the API key is not entitled to this endpoint or chain)'
              : '';
        return { kind: 'refuse', message: `the service answered ${what} with ${failure}${refused}; not retried` };
      },
    );
  }
}
