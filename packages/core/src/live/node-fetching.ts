/**
 * How a range audit asks a JSON-RPC node, from two numbers: `concurrency` requests at once, each of
 * at most `batch` calls. The one rule of `audit` on one machine and of the queue's workers, so that a
 * worker keeps the node as busy as one machine does: the blocks fetched ahead fill every request in
 * flight (a block is two calls, its header and its receipts).
 */
import { DEFAULT_BATCH } from './json-rpc-transport.js';

/** HTTP requests in flight at once by default (`--concurrency`): 4 requests of 8 blocks, see docs/audit.md. */
export const DEFAULT_CONCURRENCY = 4;

/** The settings of one audit's node: the source's batch and connections, and the engine's window. */
export interface NodeFetching {
  /** JSON-RPC calls per HTTP request (`RpcBlockSourceOptions.batch`). */
  batch: number;
  /** HTTP requests in flight at once (`RpcBlockSourceOptions.connections`). */
  connections: number;
  /** Blocks fetched ahead of the audit (`AuditRangeOptions.concurrency`). */
  window: number;
}

/**
 * The node settings of `concurrency` requests of `batch` calls (defaults {@link DEFAULT_CONCURRENCY} and
 * `DEFAULT_BATCH`): `concurrency` full batches of blocks ahead; without batching (`batch` 1) a block's
 * two calls go on two connections at once, `concurrency` blocks at a time.
 * @example
 * nodeFetching({}) // { batch: 16, connections: 4, window: 32 }
 */
export function nodeFetching(given: { concurrency?: number; batch?: number }): NodeFetching {
  const concurrency = given.concurrency ?? DEFAULT_CONCURRENCY;
  const batch = given.batch ?? DEFAULT_BATCH;
  return {
    batch,
    connections: batch === 1 ? 2 * concurrency : concurrency,
    window: concurrency * Math.max(1, Math.floor(batch / 2)),
  };
}
