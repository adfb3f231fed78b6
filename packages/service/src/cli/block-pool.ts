/**
 * Worker threads that verify blocks for `lineage --workers N`.
 * The pool's code is loaded only when a command asks for one, so that the others start as fast.
 */
import type { RuleSetName } from 'evm-integrity';
import type { BlockVerifier } from 'evm-integrity/audit';
import type { RegistrySetup } from '../evidence/registry-setup.js';

export interface BlockPool {
  verify: BlockVerifier;
  terminate(): Promise<void>;
}

/**
 * A pool of `workers` threads verifying blocks of the built-in chains (with `setup`'s evidence, when given), under
 * `rules` when named (`audit --add-chain`).
 */
export async function startBlockPool(
  workers: number,
  rules?: RuleSetName,
  setup: RegistrySetup = { chains: [], evidence: [] },
): Promise<BlockPool> {
  const [{ createVerifyPool }, { poolBlockVerifier }] = await Promise.all([
    import('../workers/verify-pool.js'),
    import('../workers/pool-block-verifier.js'),
  ]);
  const pool = createVerifyPool(workers, setup);
  return { verify: poolBlockVerifier(pool, rules), terminate: () => pool.terminate() };
}
