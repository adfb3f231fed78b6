/** `audit-status ID --queue URL [--json]`: where a distributed audit stands, read from its tables. */
import { parseArgs } from 'node:util';
import { auditProgress, type AuditProgress } from '../../queue/audit-progress.js';
import { openAuditQueue, serverOf } from '../../queue/audit-queue.js';
import { InputError } from '../io/usage-error.js';
import { printable } from '../io/printable.js';
import { auditIdAndQueue } from './queue-args.js';

/** `12.5 s`, `3 min 20 s`, `2 h 5 min`. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/**
 * When the audit should finish: an ETA, or none when it is done, or when a chunk is parked: then it cannot finish
 * without an operator, and the line says what to do.
 */
function eta(p: AuditProgress): string {
  if (p.needs_operator) {
    const parked = p.parked.length === 1 ? '1 chunk parked' : `${p.parked.length} chunks parked`;
    return `no ETA: ${parked}, the audit cannot finish until it is enqueued again (audit … --queue, the same flags), which hands them back`;
  }
  if (p.eta_seconds !== null) return `ETA ${duration(p.eta_seconds)}`;
  return `ETA ${p.blocks.audited === p.blocks.total ? 'none' : '?'}`;
}

/** The progress in a few lines for a person. */
function describe(p: AuditProgress): string {
  const { chunks, blocks, verdicts } = p;
  // The retrying and parked lists hold links too: a done chunk whose link the node could not help judge.
  const links = { retrying: p.retrying.length - chunks.retrying, parked: p.parked.length - chunks.parked };
  const unjudged =
    links.retrying + links.parked > 0
      ? ` (of the links not joined, ${links.retrying} retrying and ${links.parked} parked)`
      : '';
  const lines = [
    `audit ${p.id}: chain ${p.chain_id}, blocks ${p.from}-${p.to}${p.complete ? ', complete' : ''}`,
    `chunks: ${chunks.done} done, ${chunks.running} running, ${chunks.queued} queued, ${chunks.retrying} retrying, ${chunks.parked} parked, of ${chunks.total}; ${p.joined} of ${chunks.total} links joined${unjudged}`,
    `blocks: ${blocks.audited} of ${blocks.total} audited, ${p.blocks_per_second.toFixed(1)} blocks/s, ${eta(p)}`,
    `verdicts: ${verdicts.pass} pass, ${verdicts.fail} fail, ${verdicts.not_verifiable} not verifiable`,
  ];
  for (const f of p.failures) lines.push(`failed: block ${f.block_number} (${f.checks.join(', ')})`);
  if (verdicts.fail! > p.failures.length) lines.push(`… and ${verdicts.fail! - p.failures.length} more failed blocks`);
  // A block's failing line that a reorg replaced: not in the verdicts (each block by its last line), a finding still.
  const replaced = p.replaced_failures;
  for (const f of replaced?.listed ?? [])
    lines.push(
      `failed, then replaced by a reorg: block ${f.block_number} ${printable(f.block_hash ?? '(no hash)')} (${f.checks.join(', ')})`,
    );
  if (replaced !== undefined && replaced.blocks > replaced.listed.length)
    lines.push(`… and ${replaced.blocks - replaced.listed.length} more failed blocks a reorg replaced`);
  // A failing line of an attempt not stored: not in the verdicts (the chunk's stored lines), a finding still.
  const retried = p.retried_failures;
  for (const f of retried?.listed ?? [])
    lines.push(
      `failed in an attempt of its chunk that was not stored: block ${f.block_number} ${printable(f.block_hash ?? '(no hash)')} (${f.checks.join(', ')})`,
    );
  if (retried !== undefined && retried.blocks > retried.listed.length)
    lines.push(`… and ${retried.blocks - retried.listed.length} more failed blocks of attempts not stored`);
  for (const [state, list] of [['retrying', p.retrying] as const, ['parked', p.parked] as const])
    for (const c of list)
      lines.push(
        `${state}: chunk ${c.first}-${c.last} after ${c.attempts} attempt${c.attempts === 1 ? '' : 's'}: ${c.reason}`,
      );
  return `${lines.join('\n')}\n`;
}

/** `audit-status …`: exit 0, or 2 when there is no such audit. */
export async function runAuditStatus(argv: string[], io: { stdout: (text: string) => void }): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { queue: { type: 'string' }, json: { type: 'boolean' } },
  });
  const { id, queue: url } = auditIdAndQueue('audit-status', positionals, values.queue);
  const queue = await openAuditQueue(url, { poolSize: 1 });
  try {
    const progress = await auditProgress(queue.pool, id);
    if (progress === null) throw new InputError(`no audit ${id} in the queue at ${serverOf(url)}`);
    io.stdout(values.json ? `${JSON.stringify(progress)}\n` : describe(progress));
    return 0;
  } finally {
    await queue.close();
  }
}
