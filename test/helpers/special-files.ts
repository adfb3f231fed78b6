/**
 * Files that are not regular files, for the commands that write an output file: a FIFO, a character device, a
 * directory. An output written onto one of them must go into it (or be refused, for a directory), never replace it.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, linkSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** A fresh directory under the temp directory. */
export const specialDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A FIFO made in `dir`. */
export function makeFifo(dir: string, name = 'out.fifo'): string {
  const path = join(dir, name);
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr}`);
  return path;
}

/**
 * A character device to write onto: a copy of /dev/null (1,3) made in `dir` (root may make one), else /dev/null
 * itself, which a process that may not make a device may not replace either: a command that renamed a file onto it
 * fails instead of passing. Never the machine's /dev/null where a copy can be made, so that a regression cannot
 * replace it.
 */
export function makeDevice(dir: string): string {
  const path = join(dir, 'null');
  return spawnSync('mknod', [path, 'c', '1', '3']).status === 0 ? path : '/dev/null';
}

/** What `path` is now: `fifo`, `character device`, `directory`, `file`, or `other`. */
export function kindOf(path: string): string {
  const status = statSync(path);
  if (status.isFIFO()) return 'fifo';
  if (status.isCharacterDevice()) return 'character device';
  if (status.isDirectory()) return 'directory';
  return status.isFile() ? 'file' : 'other';
}

/**
 * Reads everything written into `fifo` while `run` runs: the run's result and the bytes. When the run never opened the
 * FIFO (or replaced it), the reader is released with an empty read, never left waiting for a writer: it is reached
 * through a hard link made beside the FIFO's directory, which a rename onto the FIFO's path does not replace.
 */
export async function readFifoDuring<T>(fifo: string, run: () => Promise<T>): Promise<{ result: T; bytes: Buffer }> {
  const link = join(dirname(dirname(fifo)), `.${basename(fifo)}.${process.pid}.${Date.now()}.link`);
  linkSync(fifo, link);
  try {
    const reading = readFile(fifo);
    const result = await run();
    try {
      // A reader waiting to open the FIFO lets this open, and the close ends its read. A reader done has closed the
      // FIFO: no reader is left, and the open fails (ENXIO).
      closeSync(openSync(link, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // The reader has read to the end.
    }
    return { result, bytes: await reading };
  } finally {
    rmSync(link);
  }
}
