/**
 * What a lineage walk asks of a source: the hosted service's lineage answers, from a recorded
 * bundle or the live service. Answers are kept as the service sent them (JSON), so that the
 * walker's shape checks see exactly what a client would; only the integers the checks read, when
 * sent as decimal strings, are read as numbers (integers.ts), one form for every check.
 */

/** `POST /evm/lineage/record` → `data`: `{dataset, record}`. */
export interface RecordAnswer {
  /**
   * A dataset id (`0301`) or a full table name (`svc_evm.b0301_…`), as the service sent it; empty when it sent none.
   */
  dataset: string;
  record: Record<string, unknown>;
}

/** Every page of `POST /evm/lineage/genesis`, merged. */
export interface GenesisAnswer {
  dataset: string;
  logs: unknown[];
  functionResults: unknown[];
}

/** The record and the genesis artifacts of a derived record, wherever they come from. */
export interface LineageSource {
  /** The record, or null when the service answers 404 (a missing record). */
  record(chainId: number, tracingId: string): Promise<RecordAnswer | null>;
  /** All genesis artifacts, every page fetched; null when the service answers 404. */
  genesis(chainId: number, tracingId: string): Promise<GenesisAnswer | null>;
  /**
   * The raw block record (dataset 0101) answered for the block when the source has one, whatever block it names: its
   * `block_number`, `block_hash` and `receipt_root` are compared with the block.
   */
  rawBlock?(chainId: number, blockNumber: number): Promise<Record<string, unknown> | null>;
}
