/** Where an audit's lines go, how it shows progress, and how to continue one that stopped. */
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import type { AuditSummary, AuditTally, UncountedFailures } from 'evm-integrity/audit';
import { monotonicMs } from '../clock.js';
import { exitOfVerdicts } from '../exit.js';
import { printable } from '../io/printable.js';
import { cannotWrite, checkWritable } from '../io/writable.js';
import { InputError } from '../io/usage-error.js';

/** What an audit writes its lines to. */
export interface AuditOutput {
  write(line: string): void;
  close(): void;
}

/**
 * How to go on from `next`: --resume when the lines are in a file, else the flags that start there, linked to `link`
 * (the hash of the block before `next`: the last one audited, or --head-hash when none was).
 */
export function howToContinue(out: string | undefined, next: number | null, link: string | null | undefined): string {
  if (out !== undefined) return 'continue later with the same command and --resume';
  return `continue later with --from ${next}${link ? ` --head-hash ${link}` : ''} and the other flags as before`;
}

/**
 * Checks the files an audit writes before it asks anything of a source: `--out` (a regular file is refused when it
 * exists, even empty, unless `--resume`; a device or a FIFO is written to, but is no checkpoint to resume) and
 * `--record` must be writable. A file that cannot be written is one line naming it, exit 2.
 */
export function checkOutputFiles(options: { out?: string; resume?: boolean; record?: string }): void {
  const { out, resume, record } = options;
  if (out !== undefined) {
    checkWritable('--out', out);
    const existing = statSync(out, { throwIfNoEntry: false });
    if (existing?.isFile() === true && !resume)
      throw new InputError(`${out} exists: add --resume to continue that audit, or remove it`);
    if (existing !== undefined && !existing.isFile() && resume)
      throw new InputError(`--resume: ${out} is not a regular file, so it holds no audit to continue`);
  }
  if (record !== undefined) checkWritable('--record', record);
}

/**
 * Where the lines go: appended to --out with one write each (a line is never half in the file but at a kill), or
 * stdout. The file (checked by {@link checkOutputFiles}) is opened at the first line, so that an audit stopped before
 * its first line (a node of another chain) leaves no file behind; a write that fails even so (a full disk) is one line
 * naming the file.
 */
export function openOutput(file: string | undefined, stdout: (text: string) => void): AuditOutput {
  if (file === undefined) return { write: (line) => stdout(line), close: () => undefined };
  let fd: number | undefined;
  return {
    write: (line) => {
      try {
        writeSync((fd ??= openSync(file, 'a')), line);
      } catch (error) {
        throw cannotWrite('--out', file, error);
      }
    },
    close: () => fd !== undefined && closeSync(fd),
  };
}

/** `output` with `header` written before its first line: a run that writes no line writes no header. */
export function headedOutput(output: AuditOutput, header: string): AuditOutput {
  let pending = true;
  return {
    write: (line) => {
      if (pending) output.write(header);
      pending = false;
      output.write(line);
    },
    close: () => output.close(),
  };
}

/** One line on stderr, redrawn every second: blocks done, blocks/s, ETA, failures. Returns what stops it. */
export function progress(tally: AuditTally, total: number, stderr: (text: string) => void): () => void {
  const started = monotonicMs();
  const before = tally.blocks;
  const draw = () => {
    const seconds = (monotonicMs() - started) / 1000;
    const rate = seconds > 0 ? (tally.blocks - before) / seconds : 0;
    const eta = rate > 0 ? `${Math.ceil((total - tally.blocks) / rate)} s` : '?';
    stderr(`\r${tally.blocks}/${total} blocks, ${rate.toFixed(1)} blocks/s, ETA ${eta}, ${tally.failed} failed `);
  };
  const timer = setInterval(draw, 1000);
  return () => {
    clearInterval(timer);
    stderr('\n');
  };
}

/**
 * An audit's summary as written: a distributed audit's export adds the failing lines it holds out (those of chunks done
 * whose link to the chunk before is not judged yet), and those of attempts of a chunk that were not stored.
 */
export type WrittenSummary = AuditSummary & {
  held_out_failures?: UncountedFailures;
  retried_failures?: UncountedFailures;
};

/** `block 1000025 0x57a2… (receipts_root), …`, and how many more than those listed. */
export function namedFailures({ blocks, listed }: UncountedFailures): string {
  // A hash is the source's word: it drives no terminal.
  const named = listed.map(
    (l) => `block ${l.block_number} ${printable(l.block_hash ?? '(no hash)')} (${l.checks.join(', ')})`,
  );
  const more = blocks - listed.length;
  return `${named.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

const blocksFailed = (n: number) => `${n} block${n === 1 ? '' : 's'} failed a check`;

/**
 * The exit status the verdicts of a whole audit make, however it ended: 1 a block fails, by its last line, by a line a
 * reorg then replaced, by a line an export holds out, or by a line of an attempt not stored (each of the last three named
 * in a line on stderr), also where the
 * audit then stopped short of its range (a finding is never hidden behind "could not finish", nor behind a reorg); 2 the
 * audit stopped (`stopped`: where and why, and how to go on, said on stderr whatever the status), a block of the range
 * has no verdict, or one is not verifiable, and none fails (one line on stderr counts them: a block that could not be
 * verified is no pass); else 0: every block of the range has its verdict, and passed.
 */
export function statusOfVerdicts(total: WrittenSummary, stderr: (text: string) => void, stopped?: string): number {
  if (stopped !== undefined) stderr(`evm-integrity: ${stopped}\n`);
  const replaced = total.replaced_failures;
  if (replaced !== undefined)
    stderr(
      `evm-integrity: ${blocksFailed(replaced.blocks)} on a chain that a reorg then replaced (the failing lines are in the output, before their reorg line; the summary's verdicts count each block by its last line): ${namedFailures(replaced)}\n`,
    );
  const heldOut = total.held_out_failures;
  if (heldOut !== undefined)
    stderr(
      `evm-integrity: ${blocksFailed(heldOut.blocks)} in chunks done whose link to the chunk before is not judged yet, so their lines are not in the export: ${namedFailures(heldOut)}\n`,
    );
  const retried = total.retried_failures;
  if (retried !== undefined)
    stderr(
      `evm-integrity: ${blocksFailed(retried.blocks)} in an attempt of its chunk that was not stored (the node failed later in the chunk, the worker was killed or stopped, or the chunk was audited again), so the failing line is not in the export: ${namedFailures(retried)}\n`,
    );
  const findings = total.verdicts.fail + (replaced?.blocks ?? 0) + (heldOut?.blocks ?? 0) + (retried?.blocks ?? 0);
  // Each block of the range with neither pass nor fail (not verifiable, unreachable, not reached), and a stop.
  const withoutVerdict =
    total.to - total.from + 1 - total.verdicts.pass - total.verdicts.fail + (stopped === undefined ? 0 : 1);
  // Where nothing failed, why the audit is no pass (a stop has said so already).
  if (findings === 0 && stopped === undefined) {
    const range = total.to - total.from + 1;
    const unverified = total.verdicts.not_verifiable;
    if (!total.complete)
      stderr(`evm-integrity: ${range - total.blocks} of the range's ${range} blocks have no verdict: not a pass\n`);
    else if (unverified > 0)
      stderr(
        `evm-integrity: ${unverified} of ${total.blocks} blocks could not be verified (verdict not_verifiable; each line says why)\n`,
      );
  }
  return exitOfVerdicts({ findings, withoutVerdict });
}
