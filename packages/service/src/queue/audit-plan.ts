/**
 * What a distributed audit is: its range, its node and the options that shape its lines, from which
 * its id is derived (so that enqueuing the same audit twice finds the same id), and its chunks,
 * aligned to multiples of the chunk size as the engine aligns them.
 */
import { createHash } from 'node:crypto';
import type { RuleSetName } from 'evm-integrity';

/** Everything a worker needs to audit a chunk of the audit, as stored in `audits.plan`. */
export interface AuditPlan {
  chain_id: number;
  from: number;
  to: number;
  /** The JSON-RPC node every worker fetches from. */
  rpc: string;
  chunk_size: number;
  /** HTTP requests a worker has in flight to the node at once (`--concurrency`), as one machine's audit. */
  concurrency: number;
  /**
   * JSON-RPC calls per request (`--batch`); absent when not given (sized by the answers, as one machine's audit does).
   * Plans enqueued before 2026-12-04 hold 16 where it was not given, the default then.
   */
  batch?: number;
  /** The hash block `from` must link to (`--head-hash`). */
  head_hash?: string;
  /** Hashes blocks of the range must have (`--anchor`, `--tail-hash`), by block number. */
  anchors?: Record<string, string>;
  /** The rule set of a chain outside the registry (`audit --add-chain`). */
  rules?: RuleSetName;
  /** Seconds a chunk may run before its lease expires and another worker takes it. */
  chunk_timeout_s: number;
  /** Retries of a chunk whose node is unreachable, with backoff, before it is parked. */
  chunk_retries: number;
}

/**
 * Blocks a chunk of the queue holds when `--chunk-size` is not given (one machine's audit chunks by 100, its service
 * cross-check's unit). Each chunk costs a worker about 19 queries (taken, stored, joined; about 6 ms of its CPU on a
 * 2-core machine): at 100 blocks of the small early blocks, audited at thousands a second, that was a tenth to a fifth
 * of a worker's speed; at 500 it is within the noise, and a chunk of modern blocks still takes seconds, far inside its
 * lease.
 */
export const DEFAULT_QUEUE_CHUNK_SIZE = 500;

/** One chunk of an audit: blocks `first`..`last`, inclusive. */
export interface ChunkRange {
  first: number;
  last: number;
}

/**
 * The node's URL as the audit's id takes it: a URL whose path is the root alone is the same request with its trailing
 * slash or without (`http://node:8545/` is `http://node:8545`), which is dropped; any other path is kept as given, as a
 * server may route `/key` and `/key/` apart.
 */
function nodeOfId(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url; // refused before any plan is made
  }
  return parsed.pathname === '/' && parsed.search === '' && url.endsWith('/') ? url.slice(0, -1) : url;
}

/**
 * The audit's id: its chain and range, and a digest of what decides its lines (node, chunk size, anchors, rules). The
 * concurrency, batch, timeout and retries are left out: they change how it runs, not what it finds.
 */
export function auditIdOf(plan: AuditPlan): string {
  const identity = {
    chain_id: plan.chain_id,
    from: plan.from,
    to: plan.to,
    rpc: nodeOfId(plan.rpc),
    chunk_size: plan.chunk_size,
    head_hash: plan.head_hash ?? null,
    anchors: plan.anchors ?? {},
    rules: plan.rules ?? null,
  };
  const digest = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 12);
  return `${plan.chain_id}-${plan.from}-${plan.to}-${digest}`;
}

/** The chunks of the range: aligned to multiples of the chunk size, clipped to the range. */
export function chunksOf(plan: Pick<AuditPlan, 'from' | 'to' | 'chunk_size'>): ChunkRange[] {
  const chunks: ChunkRange[] = [];
  for (let first = plan.from; first <= plan.to;) {
    const last = Math.min(plan.to, (Math.floor(first / plan.chunk_size) + 1) * plan.chunk_size - 1);
    chunks.push({ first, last });
    first = last + 1;
  }
  return chunks;
}

/** The anchors of the plan that fall inside a chunk, as the engine takes them. */
export function anchorsWithin(plan: AuditPlan, chunk: ChunkRange): Map<number, string> | undefined {
  const within = Object.entries(plan.anchors ?? {})
    .map(([n, hash]) => [Number(n), hash] as [number, string])
    .filter(([n]) => n >= chunk.first && n <= chunk.last);
  return within.length > 0 ? new Map(within) : undefined;
}
