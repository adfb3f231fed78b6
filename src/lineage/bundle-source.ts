import type { BlockJson, BlockSource, Exchange, GenesisAnswer, LineageSource, RecordAnswer } from './source.js';
import { SourceError } from './source.js';
import { isObject, type JsonObject } from '../input/fields.js';

/** A lineage bundle (DECISIONS.md "Lineage"): what the hosted service answered, plus blocks. */
export interface Bundle {
  base_url?: string;
  exchanges: Exchange[];
  blocks: BlockJson[];
}

type Json = JsonObject;

/** Checks a parsed bundle's shape; the message names what is wrong. */
export function parseBundle(json: unknown): Bundle {
  if (!isObject(json)) throw new SourceError('a lineage bundle is a JSON object with exchanges and blocks');
  const exchanges = json.exchanges ?? [];
  const blocks = json.blocks ?? [];
  if (!Array.isArray(exchanges)) throw new SourceError('bundle.exchanges: expected an array');
  if (!Array.isArray(blocks)) throw new SourceError('bundle.blocks: expected an array');
  exchanges.forEach((e, i) => {
    if (!isObject(e) || typeof e.path !== 'string' || !isObject(e.body) || typeof e.status !== 'number') {
      throw new SourceError(`bundle.exchanges[${i}]: expected {method, path, body, status, response}`);
    }
  });
  blocks.forEach((b, i) => {
    if (!isObject(b) || !isObject(b.header) || !Array.isArray(b.receipts)) throw new SourceError(`bundle.blocks[${i}]: expected {chain_id, header, receipts}`);
  });
  return { ...(typeof json.base_url === 'string' && { base_url: json.base_url }), exchanges: exchanges as Exchange[], blocks: blocks as BlockJson[] };
}

/** The tracing id of a request body, spelled `tracing_id` or `_tracing_id`. */
const tracingIdOf = (body: Json) => (body.tracing_id ?? body._tracing_id) as unknown;
const sameCursor = (a: unknown, b: unknown) => (a ?? null) === (b ?? null);
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/**
 * Answers lineage requests and block lookups from a bundle, fully offline. A
 * request matches a recorded exchange when its path matches and its identifying
 * members are equal (chain_id, tracing id in either spelling, cursor with absent
 * = null); members that only shape a page are ignored.
 */
export class BundleSource implements LineageSource, BlockSource {
  constructor(private readonly bundle: Bundle) {}

  private find(path: string, matches: (body: Json) => boolean): Exchange | undefined {
    return this.bundle.exchanges.find((e) => e.path.replace(/^\/v1/, '') === path && matches(e.body));
  }

  private answer(exchange: Exchange, what: string): Json | null {
    if (exchange.status === 404) return null;
    if (exchange.status !== 200 || !isObject(exchange.response) || !isObject(exchange.response.data)) {
      throw new SourceError(`the bundle's answer to ${what} is status ${exchange.status}, not a 200 with data`);
    }
    return exchange.response;
  }

  private lineageMatch(chainId: number, tracingId: string, cursor?: unknown) {
    return (body: Json) =>
      body.chain_id === chainId && lower(tracingIdOf(body)) === tracingId.toLowerCase() && (cursor === undefined || sameCursor(body.cursor, cursor));
  }

  async record(chainId: number, tracingId: string): Promise<RecordAnswer | null> {
    const exchange = this.find('/evm/lineage/record', this.lineageMatch(chainId, tracingId));
    if (exchange === undefined) return null;
    const response = this.answer(exchange, `lineage/record ${tracingId}`);
    if (response === null) return null;
    const data = response.data as Json;
    return { dataset: String(data.dataset ?? ''), record: isObject(data.record) ? data.record : {} };
  }

  async genesis(chainId: number, tracingId: string): Promise<GenesisAnswer | null> {
    const merged: GenesisAnswer = { dataset: '', logs: [], functionResults: [] };
    const seen = new Set<unknown>();
    for (let cursor: unknown = null; ; ) {
      const exchange = this.find('/evm/lineage/genesis', this.lineageMatch(chainId, tracingId, cursor));
      if (exchange === undefined) {
        if (cursor === null) return null;
        throw new SourceError(`the bundle has no lineage/genesis page for ${tracingId} at cursor ${JSON.stringify(cursor)}`);
      }
      const response = this.answer(exchange, `lineage/genesis ${tracingId}`);
      if (response === null) return cursor === null ? null : merged;
      const data = response.data as Json;
      const genesis = isObject(data.genesis) ? data.genesis : {};
      merged.dataset ||= String(data.dataset ?? '');
      const logs = Array.isArray(genesis.logs) ? genesis.logs : [];
      const results = Array.isArray(genesis.function_results) ? genesis.function_results : [];
      merged.logs.push(...logs);
      merged.functionResults.push(...results);
      const count = response.count ?? response.page_count ?? logs.length + results.length;
      const next = response.cursor ?? null;
      if (next === null || count === 0) return merged;
      if (seen.has(next)) throw new SourceError(`lineage/genesis for ${tracingId} repeats cursor ${JSON.stringify(next)}`);
      seen.add(next);
      cursor = next;
    }
  }

  async rawBlock(chainId: number, blockNumber: number): Promise<Record<string, unknown> | null> {
    const exchange = this.find('/evm/raw/blocks', (b) => b.chain_id === chainId && Array.isArray(b.block_numbers) && b.block_numbers.includes(blockNumber));
    if (exchange === undefined || exchange.status !== 200 || !isObject(exchange.response)) return null;
    const rows = exchange.response.data;
    return Array.isArray(rows) ? ((rows.find((r) => isObject(r) && r.block_number === blockNumber) as Json | undefined) ?? null) : null;
  }

  async block(chainId: number, blockNumber: number): Promise<BlockJson | null> {
    return this.bundle.blocks.find((b) => (b.chain_id ?? chainId) === chainId && Number(b.header.number) === blockNumber) ?? null;
  }
}
