/**
 * Where a lineage walk gets its facts: the hosted service's lineage answers
 * (from a recorded bundle or the live service) and blocks (from the bundle or a
 * JSON-RPC node). Answers are kept as the service sent them (JSON), so that the
 * walker's shape checks see exactly what a client would.
 */

/** `POST /evm/lineage/record` → `data`: `{dataset, record}`. */
export interface RecordAnswer {
  /** A dataset id (`0301`) or a full table name (`svc_evm.b0301_…`), as the service sent it. */
  dataset: string;
  record: Record<string, unknown>;
}

/** Every page of `POST /evm/lineage/genesis`, merged. */
export interface GenesisAnswer {
  dataset: string;
  logs: unknown[];
  functionResults: unknown[];
}

/** One request/response pair of the hosted API, as a bundle records it (DECISIONS.md "Lineage"). */
export interface Exchange {
  method: 'POST' | 'GET';
  /** Relative to the base URL, e.g. `/evm/lineage/genesis`. */
  path: string;
  body: Record<string, unknown>;
  status: number;
  response: unknown;
}

export interface LineageSource {
  /** The record, or null when the service answers 404 (a missing record). */
  record(chainId: number, tracingId: string): Promise<RecordAnswer | null>;
  /** All genesis artifacts, every page fetched; null when the service answers 404. */
  genesis(chainId: number, tracingId: string): Promise<GenesisAnswer | null>;
  /** The raw block record (dataset 0101) when the source has one, for its `receipt_root`. */
  rawBlock?(chainId: number, blockNumber: number): Promise<Record<string, unknown> | null>;
}

/** A block in the fixtures' JSON-RPC format: `{chain_id, header, receipts}` (see fixtures/README.md). */
export type BlockJson = { chain_id: number; header: Record<string, unknown>; receipts: unknown[] } & Record<string, unknown>;

export interface BlockSource {
  /** Header and complete receipts of a block, or null when the source does not have it. */
  block(chainId: number, blockNumber: number): Promise<BlockJson | null>;
}

/** A source that cannot be reached or answered something unusable (the CLI's exit 2). */
export class SourceError extends Error {
  override name = 'SourceError';
}
