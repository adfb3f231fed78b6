/**
 * Output that appears whole or not at all: written to a temporary file beside its destination and
 * renamed onto it at the end, or copied to standard output; removed on failure and on Ctrl-C, so
 * that nothing half-written is ever left behind or read as a result.
 */
import { closeSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { InputError, stdoutStream, writeFailure } from './io.js';

/** Exit status after Ctrl-C, as a shell reports a process stopped by SIGINT. */
export const EXIT_INTERRUPTED = 130;

/** The temporary files open now: removed by the SIGINT handler before the process ends. */
const open = new Set<TempFile>();

function onInterrupt(): void {
  for (const file of open) file.remove();
  process.stderr.write('evm-integrity: interrupted; nothing was written\n');
  process.exit(EXIT_INTERRUPTED);
}

/** Writes to standard output, waiting while the reader is behind (memory holds no more than a pipe's buffer). */
export async function writeStdout(chunk: Uint8Array | string): Promise<void> {
  const stdout = stdoutStream();
  if (!stdout.write(chunk)) await new Promise((resolve) => stdout.once('drain', resolve));
}

/** A file written in place of `destination`, or of standard output, until {@link commit}. */
export class TempFile {
  readonly path: string;
  #fd: number | null;
  #bytes = 0;

  /** A temporary file beside `destination` (the same file system, so that the rename is atomic), or in the temp directory. */
  constructor(readonly destination: string | undefined) {
    const name = `.${destination === undefined ? 'evm-integrity' : basename(destination)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    this.path = join(destination === undefined ? tmpdir() : dirname(destination), name);
    try {
      this.#fd = openSync(this.path, 'wx', 0o644);
    } catch (error) {
      throw new InputError(`${destination ?? this.path}: cannot write it: ${writeFailure(error)}`);
    }
    if (open.size === 0) process.on('SIGINT', onInterrupt);
    open.add(this);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  write(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let done = 0;
    while (done < bytes.length) done += writeSync(this.#fd!, bytes, done, bytes.length - done);
    this.#bytes += bytes.length;
  }

  /** The file in place of its destination, or copied to standard output and removed. */
  async commit(): Promise<void> {
    this.#close();
    if (this.destination !== undefined) {
      renameSync(this.path, this.destination);
      this.#forget();
      return;
    }
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(1 << 16);
      for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) await writeStdout(buffer.subarray(0, n));
    } finally {
      closeSync(fd);
      this.remove();
    }
  }

  /** Removes the file (its destination is left as it was). */
  remove(): void {
    this.#close();
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
    this.#forget();
  }

  #close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #forget(): void {
    open.delete(this);
    if (open.size === 0) process.removeListener('SIGINT', onInterrupt);
  }
}
