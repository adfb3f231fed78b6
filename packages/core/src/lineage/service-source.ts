import { rename, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { isObject, type JsonObject } from '../input/fields.js';
import { readGenesisPage, readRecordAnswer, type Read } from './answers.js';
import { collectGenesis } from './genesis.js';
import type { HttpAnswer } from './http-client.js';
import { ServiceClient, type ServiceClientOptions } from './service-client.js';
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

export interface ServiceSourceOptions extends ServiceClientOptions {
  /** `limit` of each lineage/genesis page, default 250 (the service's maximum is 1000). */
  pageLimit?: number;
  recorder?: BundleRecorder;
}

/**
 * The live hosted service as a lineage source, by the service's client rules
 * ({@link ServiceClient}: bearer key, 429 and `Retry-After`, retries, refusals).
 */
export class ServiceSource implements LineageSource {
  readonly baseUrl: string;
  private readonly client: ServiceClient;
  private readonly pageLimit: number;
  private readonly recorder: BundleRecorder | undefined;

  constructor(options: ServiceSourceOptions) {
    this.client = new ServiceClient(options);
    this.baseUrl = this.client.baseUrl;
    this.pageLimit = options.pageLimit ?? 250;
    this.recorder = options.recorder;
  }

  /** The final answer (a 2xx, or a 404 when `notFoundIsAnswer`), recorded when recording. */
  private request(path: string, body: Json, notFoundIsAnswer: boolean): Promise<HttpAnswer> {
    return this.client.post(path, body, notFoundIsAnswer, (exchange) => this.recorder?.addExchange(exchange));
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
