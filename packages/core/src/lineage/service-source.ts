import { rename, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { isObject, type JsonObject } from '../input/fields.js';
import { readGenesisPage, readRecordAnswer, type Read } from './answers.js';
import { collectGenesis } from './genesis.js';
import { HttpClient, type AnswerVerdict, type HttpAnswer } from './http-client.js';
import { plain } from './show.js';
import type { BlockJson, Exchange, GenesisAnswer, LineageSource, RecordAnswer } from './source.js';
import { SourceError } from './source.js';

type Json = JsonObject;

/** A lineage bundle as {@link BundleRecorder.toBundle} writes it (docs/lineage.md "The bundle format"). */
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

const errorOf = (json: unknown): Json | undefined => (isObject(json) && isObject(json.error) ? json.error : undefined);

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
  private readonly client: HttpClient;
  private readonly pageLimit: number;
  private readonly recorder: BundleRecorder | undefined;

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
    this.client = new HttpClient({ ...options, maxRetries: options.maxRetries ?? 5 });
    this.pageLimit = options.pageLimit ?? 250;
    this.recorder = options.recorder;
  }

  /**
   * POSTs a body and returns the final answer: a 2xx with a JSON body, or a 404 when
   * `notFoundIsAnswer` (the caller turns it into null). A 429 and a 5xx whose envelope's
   * `retryable` is not false are retried; anything else is a SourceError naming the path,
   * status, code and message.
   */
  private async request(path: string, body: Json, notFoundIsAnswer: boolean): Promise<HttpAnswer> {
    const text = JSON.stringify(body);
    const what = `POST ${path}`;
    const record = (answer: HttpAnswer) =>
      this.recorder?.addExchange({ method: 'POST', path, body: JSON.parse(text) as Json, status: answer.status, response: answer.json });
    return this.client.post(
      `${this.baseUrl}${path}`,
      text,
      { Authorization: `Bearer ${this.apiKey}` },
      { who: 'the service', what },
      (answer): AnswerVerdict => {
        const { status, json } = answer;
        if ((status >= 200 && status < 300) || (status === 404 && notFoundIsAnswer)) {
          if (json === undefined) return { kind: 'refuse', message: `the service answered ${what} with HTTP ${status} and a body that is not JSON` };
          record(answer);
          return { kind: 'final' };
        }
        const failure = describeAnswer(answer);
        const error = errorOf(json);
        if (status === 429) {
          const details = error?.details;
          const detailSeconds = isObject(details) && typeof details.retry_after_seconds === 'number' ? details.retry_after_seconds : undefined;
          return { kind: 'rate_limited', failure, ...(detailSeconds !== undefined && { waitSeconds: detailSeconds }) };
        }
        if (status >= 500 && error?.retryable !== false) return { kind: 'retry', failure };
        if (json !== undefined) record(answer);
        const refused = status === 401 ? ' (the API key was refused)' : status === 403 ? ' (the API key is not entitled to this endpoint or chain)' : '';
        return { kind: 'refuse', message: `the service answered ${what} with ${failure}${refused}; not retried` };
      },
    );
  }

  /** The content of a 200 answer, read by the rule every source shares; a SourceError naming the member otherwise. */
  private contentOf<T>(answer: HttpAnswer, what: string, read: (response: unknown) => Read<T>): T {
    const result = read(answer.json);
    if (!result.ok) throw new SourceError(`the service's answer to ${what} is unusable: ${result.error.path || 'the body'}: expected ${result.error.expected}`);
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
