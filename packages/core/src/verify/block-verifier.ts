/**
 * How a block is verified where the caller chooses: on this thread (the default) or elsewhere,
 * such as a pool of worker threads (the service's `poolBlockVerifier`). The lineage walk's block
 * checks and a range audit take one, so that the core stays free of worker code.
 */
import { verifyBlock, type BlockRefusal, type BlockReport, type BlockVerifyContext } from './verify-block.js';
import type { Result } from '../result.js';
import type { BlockJson } from '../sources/block-source.js';

/** Verifies one block in the fixtures' JSON-RPC format, as `verifyBlock` does. */
export type BlockVerifier = (block: BlockJson) => Promise<Result<BlockReport, BlockRefusal>>;

/**
 * `verifyBlock` on this thread, with `context` (its registry and rules).
 * @example const verify = inlineBlockVerifier({ registry }); (await verify(block)).ok
 */
export function inlineBlockVerifier(context: BlockVerifyContext = {}): BlockVerifier {
  return (block) => Promise.resolve(verifyBlock(block, context));
}
