import type { BlockRefusal, BlockReport, ChainRegistry, Result, RuleSetName } from 'evm-integrity';
import { verifyBlockBytes } from 'evm-integrity/api';

/**
 * A block handed to a worker: its JSON text as UTF-8 bytes (transferred, not copied), and the rule set named for it.
 */
export interface BlockJob {
  kind: 'block';
  bytes: Uint8Array<ArrayBuffer>;
  /** For a block of a chain outside the registry or without a chain id (`--rules`). */
  rules?: RuleSetName;
}

/** A worker's answer to a block job: the verification, and the thread that computed it (`--verbose` tells it). */
export interface BlockOutcome {
  result: Result<BlockReport, BlockRefusal>;
  threadId: number;
}

/** What a worker does with a block: read its bytes and verify it, as `verify block` does inline. */
export function runBlockJob(job: BlockJob, registry: ChainRegistry, threadId: number): BlockOutcome {
  const rules = job.rules;
  return { result: verifyBlockBytes(job.bytes, { registry, ...(rules && { rules }) }), threadId };
}
