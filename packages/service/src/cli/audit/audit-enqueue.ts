/**
 * `audit … --queue URL`: the audit cut into chunks and put on the queue for `audit-worker`s, its id
 * printed alone on the last line of stdout. The same audit enqueued again finds the same id and adds
 * no chunk (it hands parked chunks back to the queue).
 */
import { DEFAULT_QUEUE_CHUNK_SIZE, type AuditPlan } from '../../queue/audit-plan.js';
import { auditProgress } from '../../queue/audit-progress.js';
import { openAuditQueue, type AuditQueue } from '../../queue/audit-queue.js';
import { enqueueAudit, enqueuedChunkSize } from '../../queue/enqueue.js';
import { formatHeaderLine } from '../../queue/audit-lines.js';
import type { AuditHeader } from './audit-checkpoint.js';
import type { AuditOptions } from './audit-options.js';

/**
 * The options of how an audit runs, which its id leaves out: enqueuing it again with others finds the same audit and
 * keeps its plan's, which is said.
 */
const RUN_OPTIONS: ReadonlyArray<readonly ['concurrency' | 'batch' | 'chunk_timeout_s' | 'chunk_retries', string]> = [
  ['concurrency', '--concurrency'],
  ['batch', '--batch'],
  ['chunk_timeout_s', '--chunk-timeout'],
  ['chunk_retries', '--chunk-retries'],
];

/**
 * Where an audit enqueued before stands, when enqueuing it again put nothing on the queue: a complete one's verdicts are
 * those of its first run (a user check read "0 put on the queue now" and took the audit for one run again).
 */
async function standing(queue: AuditQueue, id: string): Promise<string> {
  const progress = await auditProgress(queue.pool, id);
  if (progress?.complete === true)
    return 'this audit is complete (every chunk done, every link joined): nothing is audited again, its lines are those of its run (audit-export writes them)';
  const { done, total } = progress?.chunks ?? { done: 0, total: 0 };
  return `this audit is not finished (${done} of ${total} chunks done, the others on the queue for audit-worker): audit-status tells where it stands`;
}

/** Enqueues the audit of `options` (whose first line is `header`); exit 0. */
export async function runEnqueue(
  options: AuditOptions,
  header: AuditHeader,
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
  const chunkSizeGiven = options['chunk-size'] !== undefined;
  const plan: AuditPlan = {
    chain_id: options.chainId,
    from: options.from,
    to: options.to,
    rpc: options.rpc!,
    chunk_size: chunkSizeGiven ? options.chunkSize : DEFAULT_QUEUE_CHUNK_SIZE,
    concurrency: options.concurrency,
    batch: options.batch,
    ...(options.headHash !== undefined && { head_hash: options.headHash.toLowerCase() }),
    ...(options.anchors.size > 0 && { anchors: Object.fromEntries(options.anchors) }),
    ...(options.rules !== undefined && { rules: options.rules }),
    chunk_timeout_s: options.chunkTimeout,
    chunk_retries: options.chunkRetries,
  };
  const queue = await openAuditQueue(options.queue!, { poolSize: 1 });
  try {
    // Not given, the chunk size of this audit enqueued before under another (an older default) is kept: the same audit.
    const sizeBefore = chunkSizeGiven ? undefined : await enqueuedChunkSize(queue, plan);
    if (sizeBefore !== undefined) plan.chunk_size = sizeBefore;
    const { id, chunks, queued, plan: kept } = await enqueueAudit(queue, plan, formatHeaderLine(header));
    io.stdout(
      `audit ${id}: ${chunks} ${chunks === 1 ? 'chunk' : 'chunks'} (at most ${plan.chunk_size} blocks each, aligned to multiples of ${plan.chunk_size}), ${queued} put on the queue now\n`,
    );
    if (queued === 0) io.stdout(`${await standing(queue, id)}\n`);
    if (sizeBefore !== undefined)
      io.stdout(
        `enqueued before with --chunk-size ${sizeBefore}: this is that audit (give --chunk-size to enqueue another)\n`,
      );
    const differing = RUN_OPTIONS.filter(([key]) => (kept[key] ?? null) !== (plan[key] ?? null));
    if (differing.length > 0)
      io.stdout(
        `enqueued before with ${differing.map(([key, flag]) => `${flag} ${kept[key] ?? 'at its default'}`).join(', ')}: ` +
          `its workers keep that${queued > 0 ? `; the ${queued} chunks handed back now take this run's --chunk-timeout and --chunk-retries` : ''}\n`,
      );
    io.stdout(`${id}\n`);
    return 0;
  } finally {
    await queue.close();
  }
}
