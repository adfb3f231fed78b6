import type { BlockJson } from './block-source.js';

/** One request/response pair of the hosted API, as a bundle records it (docs/lineage.md "The bundle format"). */
export interface Exchange {
  method: 'POST' | 'GET';
  /** Relative to the base URL, e.g. `/evm/lineage/genesis`. */
  path: string;
  body: Record<string, unknown>;
  status: number;
  response: unknown;
}

/**
 * Where a live source puts what it fetched, so that it can be replayed offline: every exchange
 * with the hosted service and every block (a bundle's recorder, `--record FILE`).
 */
export interface ExchangeRecorder {
  addExchange(exchange: Exchange): void;
  addBlock(block: BlockJson): void;
}
