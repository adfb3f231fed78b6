/**
 * Where a lineage walk gets its facts: the hosted service's lineage answers
 * (from a recorded bundle or the live service) and blocks (from the bundle or a
 * JSON-RPC node). Answers are kept as the service sent them (JSON), so that the
 * walker's shape checks see exactly what a client would.
 */
import { EvmIntegrityError } from '../errors.js';
import type { ProblemReason } from '../input/problems.js';

/** `POST /evm/lineage/record` → `data`: `{dataset, record}`. */
export interface RecordAnswer {
  /** A dataset id (`0301`) or a full table name (`svc_evm.b0301_…`), as the service sent it; empty when it sent none. */
  dataset: string;
  record: Record<string, unknown>;
}

/** Every page of `POST /evm/lineage/genesis`, merged. */
export interface GenesisAnswer {
  dataset: string;
  logs: unknown[];
  functionResults: unknown[];
}

/** One request/response pair of the hosted API, as a bundle records it (docs/lineage.md "The bundle format"). */
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
  /** Where a block it gave stands in the input (a bundle's `blocks[3]`), to name a faulty member; absent for a live source. */
  pathOf?(chainId: number, blockNumber: number): string | undefined;
  /** Checks that the source serves chain `chainId` (a node's `eth_chainId`): ChainMismatchError when it serves another. */
  checkChain?(chainId: number): Promise<void>;
}

/**
 * What makes the input unusable, as a request's invalid parameter: the path in the bundle
 * (`exchanges[3].body.cursor`; empty for the bundle as a whole), the reason and what was expected.
 */
export interface InputProblem {
  path: string;
  reason: ProblemReason;
  expected: string;
}

/**
 * A source that cannot be reached or answered something unusable (`SOURCE_FAILED`), or input
 * beyond a limit or malformed (`SOURCE_INPUT_INVALID`): never an audit verdict (the CLI's exit 2,
 * the endpoint's 400). `details.problem` is set when the fault is in the input (a bundle's
 * member, a limit), so that it can be named as a parameter.
 */
export class SourceError extends EvmIntegrityError<{ problem?: InputProblem }> {
  override name = 'SourceError';
  override readonly code: 'SOURCE_FAILED' | 'SOURCE_INPUT_INVALID' | 'SOURCE_CHAIN_MISMATCH';

  constructor(message: string, problem?: InputProblem) {
    super(message, problem === undefined ? {} : { problem });
    this.code = problem === undefined ? 'SOURCE_FAILED' : 'SOURCE_INPUT_INVALID';
  }
}

/**
 * The source serves another chain than the one asked for: a mistake in the command or the
 * configuration, not an outage, so it is never retried nor reported as unreachable.
 */
export class ChainMismatchError extends SourceError {
  override name = 'ChainMismatchError';
  override readonly code = 'SOURCE_CHAIN_MISMATCH';

  constructor(
    where: string,
    readonly served: bigint,
    readonly asked: number,
  ) {
    super(`${where} serves chain ${served}, not chain ${asked}: give the chain id it serves, or a node of chain ${asked}`);
  }
}
