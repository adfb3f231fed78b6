/**
 * One chunk audited by the single-machine engine (`auditRange`) with the same verifier: the worker
 * adds nothing to the checks. It keeps what the join pass needs besides the lines: the first
 * block's parent hash and the last block's hash.
 */
import {
  auditRange,
  ChainMismatchError,
  isReorg,
  parentHashOf,
  type AuditEvent,
  type AuditSummary,
  type BlockAudit,
  type BlockSource,
  type BlockVerifier,
} from 'evm-integrity/audit';
import { EvmIntegrityError } from 'evm-integrity';
import type { ServiceErrorCode } from '../error-codes.js';
import { anchorsWithin, type AuditPlan } from './audit-plan.js';
import { HEAD_HASH_NAME } from './audit-lines.js';
import type { ChunkJob } from './audit-queue.js';

/** A chunk's audit: its lines in order and its summary, or why its node could not give a block. */
export interface ChunkAudit {
  events: AuditEvent[];
  summary: AuditSummary;
  /** The parentHash of the chunk's first block (null: it gave none). */
  firstParentHash: string | null;
  /** The hash of the chunk's last block as audited (null: it gave none). */
  lastHash: string | null;
  /** Set when a block was unreachable past the source's retries: the chunk is to be tried again. */
  unreachable?: string;
  /** Set when the worker's stop cut the chunk short before its last block: the chunk is to be handed back. */
  stopped?: true;
}

/** The node of another chain: not an outage, so the chunk is parked at once rather than retried. */
export class WrongChainError extends EvmIntegrityError<Record<string, never>, ServiceErrorCode & 'AUDIT_WRONG_CHAIN'> {
  override name = 'WrongChainError';
  override readonly code = 'AUDIT_WRONG_CHAIN';
  constructor(message: string) {
    super(message, {});
  }
}

/** Where a worker's chunks of one audit come from and how they are verified. */
export interface ChunkSource {
  source: BlockSource;
  /** Blocks fetched ahead of the audit now: the plan's `nodeSource(plan, …).window`, as one machine's audit. */
  window: () => number;
  verify: BlockVerifier | undefined;
  /** The worker's stop at its deadline: cuts the chunk's fetches short (the source is given the same signal). */
  signal?: AbortSignal;
}

/**
 * Audits the chunk of `job` from `source`, its first block linked to the job's anchor when it has one; `asked`, when
 * given, is called once the chunk's last block has been asked for (the next chunk may start fetching), and `failed`
 * with each failing block line as it is judged, awaited before the next line.
 */
export async function auditChunk(
  plan: AuditPlan,
  job: ChunkJob,
  from: ChunkSource,
  asked?: () => void,
  failed?: (line: BlockAudit) => Promise<void>,
): Promise<ChunkAudit> {
  const { source, window, verify, signal } = from;
  let firstParentHash: string | null = null;
  const watched: BlockSource = {
    block: async (chainId, number) => {
      const fetching = source.block(chainId, number);
      if (number === job.last) asked?.();
      const block = await fetching;
      if (block !== null && number === job.first) firstParentHash = parentHashOf(block);
      return block;
    },
  };
  const anchors = anchorsWithin(plan, job);
  const audit = auditRange({
    source: watched,
    chainId: plan.chain_id,
    from: job.first,
    to: job.last,
    concurrency: window,
    chunkSize: plan.chunk_size,
    ...(job.anchor !== undefined && { anchor: job.anchor }),
    // The first chunk links to --head-hash; a later one to the block audited before it, as in a single-machine audit.
    ...(job.first === plan.from && { anchorName: HEAD_HASH_NAME }),
    ...(anchors && { anchors }),
    ...(verify && { verify }),
    ...(signal && { signal }),
  });
  const events: AuditEvent[] = [];
  try {
    for await (const event of audit) {
      events.push(event);
      if (failed !== undefined && !isReorg(event) && event.verdict === 'fail') await failed(event);
    }
  } catch (error) {
    if (error instanceof ChainMismatchError) throw new WrongChainError(error.message);
    throw error;
  }
  const blocks = events.filter((e): e is BlockAudit => !isReorg(e));
  const unreachable = blocks.find((e) => e.verdict === 'unreachable');
  const last = blocks.filter((e) => e.block_number === job.last).at(-1);
  // The engine writes no line for a block whose fetch the signal cut short: a chunk without its last line was stopped.
  const stopped = signal?.aborted === true && last === undefined && unreachable === undefined;
  return {
    events,
    summary: audit.summary(),
    firstParentHash,
    lastHash: last?.block_hash ?? null,
    ...(unreachable && { unreachable: unreachable.reason ?? `block ${unreachable.block_number} is unreachable` }),
    ...(stopped && { stopped: true as const }),
  };
}
