import { isObject, type JsonObject } from '../input/values/json-values.js';
import {
  rawRecordFor,
  readGenesisPage,
  readRawBlocks,
  readRecordAnswer,
  type Read,
} from '../lineage/sources/service-answers.js';
import { collectGenesis } from '../lineage/sources/genesis-pages.js';
import type { HttpAnswer } from './http-client.js';
import { ServiceClient, type ServiceClientOptions } from './service-client.js';
import { plain } from '../json/show.js';
import type { ExchangeRecorder } from '../sources/exchange.js';
import type { GenesisAnswer, LineageSource, RecordAnswer } from '../lineage/sources/lineage-source.js';
import { SourceError } from '../errors.js';

type Json = JsonObject;

export interface ServiceSourceOptions extends ServiceClientOptions {
  /** `limit` of each lineage/genesis page, default 250 (the service's maximum is 1000). */
  pageLimit?: number;
  recorder?: ExchangeRecorder;
}

/**
 * The live hosted service as a lineage source, by the service's client rules
 * ({@link ServiceClient}: bearer key, 429 and `Retry-After`, retries, refusals).
 */
export class ServiceSource implements LineageSource {
  readonly baseUrl: string;
  private readonly client: ServiceClient;
  private readonly pageLimit: number;
  private readonly recorder: ExchangeRecorder | undefined;

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
  private contentOf<T>(
    answer: HttpAnswer,
    what: string,
    chainId: number,
    read: (response: unknown, chainId: number) => Read<T>,
  ): T {
    const result = read(answer.json, chainId);
    if (!result.ok)
      throw new SourceError(
        `the service's answer to ${what} is unusable: ${result.error.path || 'the body'}: expected ${result.error.expected}`,
      );
    return result.value;
  }

  async record(chainId: number, tracingId: string): Promise<RecordAnswer | null> {
    const answer = await this.request('/evm/lineage/record', { chain_id: chainId, tracing_id: tracingId }, true);
    return answer.status === 404
      ? null
      : this.contentOf(answer, `lineage/record ${plain(tracingId)}`, chainId, readRecordAnswer);
  }

  async genesis(chainId: number, tracingId: string): Promise<GenesisAnswer | null> {
    return collectGenesis(tracingId, async (cursor, pageIndex) => {
      const body: Json = {
        chain_id: chainId,
        tracing_id: tracingId,
        limit: this.pageLimit,
        ...(cursor !== null && { cursor }),
      };
      const answer = await this.request('/evm/lineage/genesis', body, true);
      if (answer.status === 404) return null;
      const what = `lineage/genesis ${plain(tracingId)}${pageIndex === 0 ? '' : ` (page ${pageIndex + 1})`}`;
      return { page: this.contentOf(answer, what, chainId, readGenesisPage), where: `the service's answer to ${what}` };
    });
  }

  async rawBlock(chainId: number, blockNumber: number): Promise<Record<string, unknown> | null> {
    const answer = await this.request('/evm/raw/blocks', { chain_id: chainId, block_numbers: [blockNumber] }, true);
    if (answer.status === 404 || !isObject(answer.json)) return null;
    return rawRecordFor(
      this.contentOf(answer, `raw/blocks ${blockNumber}`, chainId, readRawBlocks),
      [blockNumber],
      blockNumber,
    );
  }
}
