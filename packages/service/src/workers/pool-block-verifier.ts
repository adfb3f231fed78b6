import type { RuleSetName } from 'evm-integrity';
import type { BlockVerifier } from 'evm-integrity/lineage';
import { runOnPool, type VerifyPool } from './verify-pool.js';

const encoder = new TextEncoder();

/**
 * Blocks verified on the pool's workers, against the chains the pool was made with: each block
 * sent as its JSON text (bytes, transferred rather than cloned as an object graph), its report back.
 * @example await walkLineage({ chainId, tracingId, source, blocks, verify: poolBlockVerifier(pool) })
 */
export function poolBlockVerifier(pool: VerifyPool, rules?: RuleSetName): BlockVerifier {
  return async (block) =>
    (await runOnPool(pool, { kind: 'block', bytes: encoder.encode(JSON.stringify(block)), ...(rules && { rules }) }))
      .result;
}
