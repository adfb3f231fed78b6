import { rename, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { isObject, type JsonObject } from '../input/fields.js';
import { readGenesisPage, readRecordAnswer, type Read } from './answers.js';
import { collectGenesis } from './genesis.js';
import { LINEAGE_LIMITS } from './limits.js';
import { tooDeep } from './nesting.js';
import { plain } from './show.js';
import type { BlockJson, Exchange, GenesisAnswer, LineageSource, RecordAnswer } from './source.js';
import { SourceError } from './source.js';

type Json = JsonObject;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A lineage bundle as {@link BundleRecorder.toBundle} writes it (README "Lineage bundles"). */
export interface RecordedBundle {
  base_url: string;
  exchanges: Exchange[];
  blocks: BlockJson[];
}

/**
 * Collects what a live audit fetched, so that it can be replayed offline
 * (`--record FILE`, then `--bundle FILE`): one exchange per request, with the
 * body as sent and the final answer as received (answers that were retried,
 * such as a 429 followed by a 200, are not kept: a replay must find the answer
 * the audit used), and every block a block source fetched.
 */
/** Puts `value` at `key`'s place in `list`, or appends it: a later answer replaces an earlier one. */
function upsert<T>(list: T[], at: Map<string, number>, key: string, value: T): void {
  const index = at.get(key);
  if (index === undefined) {
    at.set(key, list.length);
    list.push(value);
  } else list[index] = value;
}

export class BundleRecorder {
  private readonly exchanges: Exchange[] = [];
  private readonly exchangeAt = new Map<string, number>();
  private readonly blocks: BlockJson[] = [];
  private readonly blockAt = new Map<string, number>();

  /** Records one exchange; the same request (method, path, body) twice keeps the latest answer. */
  addExchange(exchange: Exchange): void {
    const copy = structuredClone(exchange);
    const key = `${copy.method} ${copy.path} ${JSON.stringify(copy.body)}`;
    upsert(this.exchanges, this.exchangeAt, key, copy);
  }

  /** Records a block in the fixtures' JSON-RPC format; the same block (chain, number, hash) twice is kept once. */
  addBlock(block: BlockJson): void {
    const copy = structuredClone(block);
    const key = `${copy.chain_id} ${String(copy.header.number)} ${String(copy.header.hash)}`;
    upsert(this.blocks, this.blockAt, key, copy);
  }

  /** The bundle: `{base_url, exchanges, blocks}` (copies; recording may go on). */
  toBundle(baseUrl: string): RecordedBundle {
    return { base_url: baseUrl, exchanges: structuredClone(this.exchanges), blocks: structuredClone(this.blocks) };
  }
}

/**
 * Writes a bundle as JSON, gzip-compressed when the file name ends with `.gz`.
 * The file is written next to its final name and renamed, so a failed write
 * never leaves a truncated bundle behind.
 */
export async function writeBundle(file: string, bundle: { base_url?: string; exchanges: Exchange[]; blocks: BlockJson[] }): Promise<void> {
  const text = JSON.stringify(bundle);
  const bytes = file.endsWith('.gz') ? await promisify(gzip)(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8');
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

export interface ServiceSourceOptions {
  /** The service's base URL, ending with `/v1` (added when missing; a trailing `/` is dropped). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Waits between retries; tests inject one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Retries of one request (429, retryable 5xx, network errors), default 5. */
  maxRetries?: number;
  /** `limit` of each lineage/genesis page, default 250 (the service's maximum is 1000). */
  pageLimit?: number;
  recorder?: BundleRecorder;
  /** A 429 whose `Retry-After` asks for longer than this is not waited for (an exhausted CU allowance); default 300. */
  maxRetryAfterSeconds?: number;
  /** One attempt's time limit; a timeout counts as a network error. Default 60 000 ms. */
  timeoutMs?: number;
}

/** The answer a request ended with: the JSON body (or undefined when it was not JSON) and its status. */
interface Answer {
  status: number;
  json: unknown;
}

const FIRST_5XX_DELAY_MS = 500;
const MAX_BACKOFF_MS = 60_000;

/** Seconds from a `Retry-After` header: delta-seconds or an HTTP date. */
function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

const errorOf = (json: unknown): Json | undefined => (isObject(json) && isObject(json.error) ? json.error : undefined);

/** `HTTP 400 BAD_REQUEST: message (hint: …)` from an error envelope, or the bare status. */
function describeAnswer(answer: Answer): string {
  const error = errorOf(answer.json);
  if (error === undefined) return `HTTP ${answer.status}${answer.json === undefined ? ' (the body is not JSON)' : ''}`;
  const code = typeof error.code === 'string' ? ` ${error.code}` : '';
  const message = typeof error.message === 'string' ? `: ${error.message}` : '';
  const hint = typeof error.hint === 'string' && error.hint !== '' ? ` (hint: ${error.hint})` : '';
  return `HTTP ${answer.status}${code}${message}${hint}`;
}

/** Text of a network failure, with the cause's code (ECONNREFUSED, …) when there is one. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `no answer in time (${error.message})`;
  const cause = (error as { cause?: unknown }).cause;
  const code = isObject(cause) && typeof cause.code === 'string' ? cause.code : cause instanceof Error ? cause.message : undefined;
  return code === undefined ? error.message : `${error.message} (${code})`;
}

/**
 * The live hosted service as a lineage source. Every request is
 * `POST {baseUrl}{path}` with the bearer key and a JSON body, and follows the
 * spec's client rules: on 429 wait at least `Retry-After` (header, else
 * `details.retry_after_seconds`, else 1 s) and back off exponentially on
 * further 429s; retry a 5xx whose envelope's `retryable` is true or absent,
 * and network errors, with exponential backoff from 0.5 s; never retry other
 * 4xx. At most `maxRetries` retries per request; then, or on an error that is
 * not retried, a {@link SourceError} names the path, status, code and message.
 */
export class ServiceSource implements LineageSource {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetries: number;
  private readonly pageLimit: number;
  private readonly recorder: BundleRecorder | undefined;
  private readonly maxRetryAfterMs: number;
  private readonly timeoutMs: number;

  constructor(options: ServiceSourceOptions) {
    let base = options.baseUrl.trim().replace(/\/+$/, '');
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new SourceError(`the service URL "${options.baseUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError(`the service URL must be http(s), got "${url.protocol}"`);
    if (url.search !== '' || url.hash !== '') throw new SourceError('the service URL must not carry a query or fragment');
    if (!/\/v1$/.test(url.pathname)) base = `${base}/v1`;
    this.baseUrl = base;
    this.apiKey = options.apiKey;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? realSleep;
    this.maxRetries = Math.max(0, options.maxRetries ?? 5);
    this.pageLimit = options.pageLimit ?? 250;
    this.recorder = options.recorder;
    this.maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 300) * 1000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** One attempt: the status and the parsed body, or the network error. */
  private async attempt(path: string, text: string): Promise<{ answer: Answer; retryAfter: string | null } | { networkError: unknown }> {
    try {
      const response = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${this.apiKey}`, 'Content-Type': 'application/json', Accept: 'application/json' },
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
      return { answer: { status: response.status, json }, retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      return { networkError: error };
    }
  }

  /**
   * POSTs a body and returns the final answer: a 2xx with a JSON body, or a
   * 404 when `notFoundIsAnswer` (the caller turns it into null). Everything
   * else ends in a SourceError after the retries the rules allow.
   */
  private async request(path: string, body: Json, notFoundIsAnswer: boolean): Promise<Answer> {
    const text = JSON.stringify(body);
    const what = `POST ${path}`;
    let retries = 0;
    let last429DelayMs = 0;
    let serverErrors = 0;
    for (;;) {
      const outcome = await this.attempt(path, text);
      let delayMs: number;
      let failure: string;
      if ('networkError' in outcome) {
        failure = `network error: ${describeNetworkError(outcome.networkError)}`;
        delayMs = Math.min(FIRST_5XX_DELAY_MS * 2 ** serverErrors++, MAX_BACKOFF_MS);
      } else {
        const { answer, retryAfter } = outcome;
        const { status, json } = answer;
        // Before anything recurses into the answer (recording clones it, writing a bundle stringifies it).
        const deep = tooDeep(json, LINEAGE_LIMITS.jsonDepth);
        if (deep !== null) throw new SourceError(`the service answered ${what} with HTTP ${status} and JSON nested deeper than the limit of ${LINEAGE_LIMITS.jsonDepth} levels, at ${deep}`);
        const final = (status >= 200 && status < 300) || (status === 404 && notFoundIsAnswer);
        if (final) {
          if (json === undefined) throw new SourceError(`the service answered ${what} with HTTP ${status} and a body that is not JSON`);
          this.recorder?.addExchange({ method: 'POST', path, body: JSON.parse(text) as Json, status, response: json });
          return answer;
        }
        failure = describeAnswer(answer);
        const error = errorOf(json);
        const headerSeconds = retryAfterSeconds(retryAfter, Date.now());
        if (status === 429) {
          const details = error?.details;
          const detailSeconds = isObject(details) && typeof details.retry_after_seconds === 'number' ? details.retry_after_seconds : undefined;
          const waitMs = (headerSeconds ?? detailSeconds ?? 1) * 1000;
          if (waitMs > this.maxRetryAfterMs) {
            throw new SourceError(`the service answered ${what} with ${failure}; it asks to wait ${Math.ceil(waitMs / 1000)} s (the CU allowance may be exhausted), more than the ${this.maxRetryAfterMs / 1000} s this client waits`);
          }
          delayMs = Math.max(waitMs, Math.min(last429DelayMs * 2, MAX_BACKOFF_MS));
          last429DelayMs = delayMs;
        } else if (status >= 500 && error?.retryable !== false) {
          delayMs = Math.max(Math.min(FIRST_5XX_DELAY_MS * 2 ** serverErrors++, MAX_BACKOFF_MS), (headerSeconds ?? 0) * 1000);
        } else {
          if (json !== undefined) this.recorder?.addExchange({ method: 'POST', path, body: JSON.parse(text) as Json, status, response: json });
          const refused = status === 401 ? ' (the API key was refused)' : status === 403 ? ' (the API key is not entitled to this endpoint or chain)' : '';
          throw new SourceError(`the service answered ${what} with ${failure}${refused}; not retried`);
        }
      }
      if (retries >= this.maxRetries) {
        throw new SourceError(`the service answered ${what} with ${failure}, still after ${retries} ${retries === 1 ? 'retry' : 'retries'}`);
      }
      retries++;
      await this.sleep(delayMs);
    }
  }

  /** The content of a 200 answer, read by the rule every source shares; a SourceError naming the member otherwise. */
  private contentOf<T>(answer: Answer, what: string, read: (response: unknown) => Read<T>): T {
    const result = read(answer.json);
    if (!result.ok) throw new SourceError(`the service's answer to ${what} is unusable: ${result.path || 'the body'}: expected ${result.expected}`);
    return result.value;
  }

  async record(chainId: number, tracingId: string): Promise<RecordAnswer | null> {
    const answer = await this.request('/evm/lineage/record', { chain_id: chainId, tracing_id: tracingId }, true);
    return answer.status === 404 ? null : this.contentOf(answer, `lineage/record ${plain(tracingId)}`, readRecordAnswer);
  }

  async genesis(chainId: number, tracingId: string): Promise<GenesisAnswer | null> {
    return collectGenesis(tracingId, async (cursor, pageIndex) => {
      const body: Json = { chain_id: chainId, tracing_id: tracingId, limit: this.pageLimit, ...(cursor !== null && { cursor }) };
      const answer = await this.request('/evm/lineage/genesis', body, true);
      if (answer.status === 404) return null;
      const what = `lineage/genesis ${plain(tracingId)}${pageIndex === 0 ? '' : ` (page ${pageIndex + 1})`}`;
      return { page: this.contentOf(answer, what, readGenesisPage), where: `the service's answer to ${what}` };
    });
  }

  async rawBlock(chainId: number, blockNumber: number): Promise<Record<string, unknown> | null> {
    const answer = await this.request('/evm/raw/blocks', { chain_id: chainId, block_numbers: [blockNumber] }, true);
    if (answer.status === 404 || !isObject(answer.json)) return null;
    const rows = answer.json.data;
    if (!Array.isArray(rows)) throw new SourceError(`the service's answer to raw/blocks ${blockNumber} has no data array`);
    return (rows.find((r) => isObject(r) && r.block_number === blockNumber) as Json | undefined) ?? null;
  }
}
