/**
 * How a range audit asks a JSON-RPC node, from two numbers: `concurrency` requests at once, each of
 * `batch` calls (by default sized by the answers). The one rule of `audit` on one machine and of the
 * queue's workers, so that a worker keeps the node as busy as one machine does: the blocks fetched
 * ahead fill every request in flight (a block is two calls, its header and its receipts).
 */

import { RpcBlockSource, type RpcBlockSourceOptions } from './rpc-block-source.js';

/** HTTP requests in flight at once by default (`--concurrency`): 4 requests of 8 blocks or more, see docs/audit.md. */
export const DEFAULT_CONCURRENCY = 4;

/** The settings of one audit's node: the source's batch and connections, and the engine's window. */
export interface NodeFetching {
  /** JSON-RPC calls per HTTP request (`RpcBlockSourceOptions.batch`): undefined to size them by the answers. */
  batch: number | undefined;
  /** HTTP requests in flight at once (`RpcBlockSourceOptions.connections`). */
  connections: number;
  /**
   * Blocks fetched ahead of the audit (`AuditRangeOptions.concurrency`) while the source asks `batchNow` calls a
   * request (`RpcBlockSource.batchSize`, which follows the answers' size and the node's refusals).
   */
  window: (batchNow: number) => number;
}

/**
 * The node settings of `concurrency` requests (default {@link DEFAULT_CONCURRENCY}) of `batch` calls (default: sized by
 * the answers): `concurrency` full batches of blocks ahead; without batching (`batch` 1) a block's two calls go on two
 * connections at once, `concurrency` blocks at a time.
 * @example
 * const fetching = nodeFetching({}) // { batch: undefined, connections: 4, window }
 * fetching.window(16) // 32 blocks ahead while requests hold 16 calls
 */
export function nodeFetching(given: { concurrency?: number; batch?: number }): NodeFetching {
  const concurrency = given.concurrency ?? DEFAULT_CONCURRENCY;
  const { batch } = given;
  return {
    batch,
    connections: batch === 1 ? 2 * concurrency : concurrency,
    window: (batchNow) => concurrency * Math.max(1, Math.floor(batchNow / 2)),
  };
}

/**
 * The node source of a range audit asked by `given` (nodeFetching), with `options` for the rest, and the blocks to fetch
 * ahead of it now (`AuditRangeOptions.concurrency`), which follow its batches' size: `audit`'s and a queue worker's.
 * @example
 * const { source, window } = nodeSource({}, { url, keepMiscountedReceipts: true });
 * auditRange({ source, concurrency: window, chainId: 1, from, to });
 */
export function nodeSource(
  given: { concurrency?: number; batch?: number },
  options: Omit<RpcBlockSourceOptions, 'batch' | 'connections'>,
): { source: RpcBlockSource; window: () => number } {
  const { batch, connections, window } = nodeFetching(given);
  const source = new RpcBlockSource({ ...options, batch, connections });
  return { source, window: () => window(source.batchSize) };
}
