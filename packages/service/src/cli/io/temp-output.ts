/**
 * Output that appears whole or not at all: written to a temporary file and, at the end, renamed onto its destination
 * (a regular file or a new one; through a symbolic link, onto its target), or copied into it (a device, a FIFO, a socket: `/dev/null` stays a device), or copied
 * to standard output; removed on failure and on Ctrl-C, so that nothing half-written is ever left behind or read as a
 * result. A directory is refused before any work.
 */
import { closeSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { outputFileKind, outputTarget } from 'evm-integrity/node';
import { cannotWrite } from './writable.js';
import { InputError } from './usage-error.js';
import { stdoutStream } from './streams.js';
import { writeFailure } from '../../files/file-failures.js';
import { EXIT_INTERRUPTED } from '../exit.js';

/**
 * The temporary files open now: removed by the SIGINT handler, and as the process ends however it ends: a reader that
 * closes standard output while a file is copied to it ends the process at once (process.exit, see stdoutStream), and
 * `finally` blocks do not run then.
 */
const temporary = new Set<TempFile>();

function removeAll(): void {
  for (const file of temporary) file.remove();
}

function onInterrupt(): void {
  removeAll();
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
  /** Whether the file is beside its destination, to be renamed onto it. */
  readonly #beside: boolean;
  /** Where the destination's bytes land: the destination, or the target of the symbolic link it is. */
  readonly #target: string | undefined;
  #fd: number | null;
  #bytes = 0;

  /**
   * A temporary file beside `destination` when it is a regular file or a new one (the same file system, so that the
   * rename is atomic), else in the temp directory; an InputError naming `flag` and `destination` when it is a
   * directory or cannot be written.
   */
  constructor(
    readonly destination: string | undefined,
    readonly flag: string,
  ) {
    const name = `.${destination === undefined ? 'evm-integrity' : basename(destination)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      this.#target = destination === undefined ? undefined : outputTarget(destination);
      this.#beside = this.#target !== undefined && outputFileKind(this.#target) === 'replace';
      this.path = join(this.#beside ? dirname(this.#target!) : tmpdir(), name);
      this.#fd = openSync(this.path, 'wx', 0o644);
    } catch (error) {
      throw this.#cannotWrite(error, join(tmpdir(), name));
    }
    if (temporary.size === 0) process.on('SIGINT', onInterrupt).on('exit', removeAll);
    temporary.add(this);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends `chunk`; a write that fails (a full disk) is an InputError naming the file. */
  write(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.#fd!, bytes, done, bytes.length - done);
    } catch (error) {
      throw this.#cannotWrite(error, this.path);
    }
    this.#bytes += bytes.length;
  }

  /**
   * The file renamed onto its destination, or copied into it or to standard output and removed. Whether to rename is
   * asked again here: a device put at the path since is written into, not replaced.
   */
  async commit(): Promise<void> {
    this.#close();
    const destination = this.destination;
    if (destination === undefined) return this.#copy(writeStdout);
    try {
      if (this.#beside && outputFileKind(this.#target!) === 'replace') {
        renameSync(this.path, this.#target!);
        this.#forget();
        return;
      }
      // Opened without blocking the event loop: a FIFO's open waits for its reader, and Ctrl-C must still work.
      const file = await process.getBuiltinModule('node:fs/promises').open(destination, 'w');
      try {
        await this.#copy(async (chunk) => {
          for (let done = 0; done < chunk.length;) done += (await file.write(chunk, done)).bytesWritten;
        });
      } finally {
        await file.close();
      }
    } catch (error) {
      throw this.#cannotWrite(error, this.path);
    }
  }

  /** Copies the file to `write`, then removes it. */
  async #copy(write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(1 << 16);
      for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) await write(buffer.subarray(0, n));
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

  /** The error of a write that failed: naming the flag and its file, or the temporary file in place of stdout. */
  #cannotWrite(error: unknown, temporaryPath: string): InputError {
    if (this.destination !== undefined) return cannotWrite(this.flag, this.destination, error);
    return new InputError(`${temporaryPath}: cannot write it: ${writeFailure(error)}`);
  }

  #close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #forget(): void {
    temporary.delete(this);
    if (temporary.size === 0) process.removeListener('SIGINT', onInterrupt).removeListener('exit', removeAll);
  }
}
