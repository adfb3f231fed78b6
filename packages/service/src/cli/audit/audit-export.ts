/**
 * `audit-export ID --queue URL [--out FILE]`: the NDJSON of a distributed audit, as
 * `evm-integrity audit` writes it: the header, the block and reorg lines in block order, and a
 * summary summed from those lines by the same tally, each line after the header with its digest.
 */
import { statSync } from 'node:fs';
import type pg from 'pg';
import { parseArgs } from 'node:util';
import { AuditTally, type AuditEvent } from 'evm-integrity/audit';
import type { AuditHeader } from './audit-checkpoint.js';
import { auditLines, exportSnapshot, firstGap, storedAudit } from '../../queue/audit-export.js';
import { auditProgress, heldOutFailures, retriedFailures } from '../../queue/audit-progress.js';
import { ChainedLines, headerDigest } from '../../queue/audit-lines.js';
import { openAuditQueue, serverOf } from '../../queue/audit-queue.js';
import { statusOfVerdicts, type WrittenSummary } from './audit-output.js';
import { auditIdAndQueue } from './queue-args.js';
import { checkWritable } from '../io/writable.js';
import { InputError } from '../io/usage-error.js';
import { outputFile, TempFile } from '../io/temp-output.js';

/** `audit-export …`: exit 0 every block passes, 1 a block fails, 2 not verifiable, not finished, or no such audit. */
export async function runAuditExport(
  argv: string[],
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { queue: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' } }, // NDJSON with or without --json
  });
  const { id, queue: url } = auditIdAndQueue('audit-export', positionals, values.queue);
  // The file is checked before the queue is asked anything; it is made only once the audit is found.
  const out = outputFile(values.out);
  if (out !== undefined) {
    checkWritable('--out', out);
    if (statSync(out, { throwIfNoEntry: false })?.isFile() === true)
      throw new InputError(`${out} exists: remove it or name another file`);
  }
  const queue = await openAuditQueue(url, { poolSize: 1 });
  try {
    return await exportSnapshot(queue.pool, (db) => exportAudit(db, id, url, out, io));
  } finally {
    await queue.close();
  }
}

/** Writes audit `id`'s export from `db`, one snapshot; its exit status. */
async function exportAudit(
  db: pg.PoolClient,
  id: string,
  url: string,
  out: string | undefined,
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
  const stored = await storedAudit(db, id);
  if (stored === null) throw new InputError(`no audit ${id} in the queue at ${serverOf(url)}`);
  const { plan } = stored;
  const file = out === undefined ? undefined : new TempFile(out, '--out');
  const write = (line: string) => (file === undefined ? io.stdout(`${line}\n`) : file.write(`${line}\n`));
  const anchors = new Map(Object.entries(plan.anchors ?? {}).map(([n, hash]) => [Number(n), hash]));
  // The checkpoint an anchor proof proved the anchors from is the header's: the plan holds the anchors alone.
  const { checkpoint } = (JSON.parse(stored.header) as AuditHeader).audit;
  const tally = new AuditTally(plan.chain_id, plan.from, plan.to, {
    head: plan.head_hash ?? null,
    ...(anchors.size > 0 && { anchors }),
    ...(checkpoint !== undefined && { checkpoint }),
  });
  try {
    write(stored.header);
    // Chained as `audit` chains its lines: the export resumes, and is checked, as a single machine's output.
    const lines = new ChainedLines(headerDigest(JSON.parse(stored.header) as { audit: object }));
    for await (const line of auditLines(db, id)) {
      const event = JSON.parse(line) as AuditEvent;
      tally.add(event);
      write(lines.line(event));
    }
    // The lines of a chunk whose link is not judged are held out, but a block failing there is a finding all the same;
    // so is a failing line of an attempt not stored, which one machine's output keeps.
    const heldOut = await heldOutFailures(db, id);
    const retried = await retriedFailures(db, id);
    const summary = tally.summary(stored.timings, tally.blocks);
    // Unfinished while a chunk is held out, though other chunks' lines (a deep reorg's) may give its blocks a verdict.
    const gap = await firstGap(db, id);
    const total: WrittenSummary = {
      ...summary,
      ...(gap !== null && {
        complete: false,
        next_block: summary.next_block === null ? gap : Math.min(summary.next_block, gap),
      }),
      ...(heldOut && { held_out_failures: heldOut }),
      ...(retried && { retried_failures: retried }),
    };
    write(lines.line({ summary: total }));
    await file?.commit();
    if (gap !== null) {
      const progress = await auditProgress(db, id);
      return statusOfVerdicts(
        total,
        io.stderr,
        `audit ${id} is not finished (${progress!.chunks.done} of ${progress!.chunks.total} chunks done, ${progress!.joined} links joined, ${progress!.parked.length} parked); see audit-status`,
      );
    }
    // Never a pass over a range some of whose blocks the tables do not hold, or that a node never answered.
    const range = plan.to - plan.from + 1;
    if (total.blocks < range || total.verdicts.unreachable > 0)
      return statusOfVerdicts(
        total,
        io.stderr,
        `audit ${id} holds ${total.blocks} of the range's ${range} blocks, ${total.verdicts.unreachable} unreachable: not a pass`,
      );
    return statusOfVerdicts(total, io.stderr);
  } finally {
    file?.remove();
  }
}
