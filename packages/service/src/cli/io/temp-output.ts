/**
 * Output that appears whole or not at all: written to a temporary file and, at the end, renamed onto its destination
 * (a regular file or a new one; through a symbolic link, onto its target), or copied into it (a device, a FIFO, a socket: `/dev/null` stays a device), or copied
 * to standard output; removed on failure and when the process is stopped (Ctrl-C, SIGTERM, SIGHUP), so that nothing
 * half-written is ever left behind or read as a result. A directory is refused before any work.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { outputFileKind, outputTarget } from 'evm-integrity/node';
import { cannotWrite } from './writable.js';
import { InputError, UsageError } from './usage-error.js';
import { outputFailure, processIo, stdoutStream } from './streams.js';
import { writeFailure } from '../../files/file-failures.js';

/**
 * The temporary files open now: removed when a signal stops the process, and as the process ends however it ends: a
 * write to standard output that fails while a file is copied to it (its reader gone, a full disk) ends the process at
 * once (process.exit, see stdoutStream), and `finally` blocks do not run then.
 */
const temporary = new Set<TempFile>();

/** The signals that stop a command holding a temporary file: the file is removed first. */
const STOPPING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function removeAll(): void {
  for (const file of temporary) file.remove();
}

/** Removes the files and ends the process as the signal would have (128 + its number: 130 for Ctrl-C). */
function onStopped(signal: NodeJS.Signals): void {
  const begun = [...temporary].some((file) => file.delivering);
  removeAll();
  const what = signal === 'SIGINT' ? 'interrupted' : `stopped by ${signal}`;
  // Once a copy to its destination has begun, part of the output is there, or all of it, if the last write was taken.
  processIo.stderr(`evm-integrity: ${what}; ${begun ? 'the output may be incomplete' : 'nothing was written'}\n`);
  // process.exit joins the thread pool's threads, and a write into a FIFO whose reader does not read holds one of them
  // until it does: with a copy under way, the signal (its handlers gone with the files) is raised again and ends the
  // process at once, as a shell then reports it (128 + its number).
  if (begun) process.kill(process.pid, signal);
  else process.exit(128 + constants.signals[signal]);
}

/** Whether the descriptor `fd` is open on a regular file. */
function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** The file an output flag names: undefined for standard output, which `-` names, as it does for an input. */
export const outputFile = (value: string | undefined): string | undefined => (value === '-' ? undefined : value);

/** Refuses `-` for an output flag whose command writes something else to standard output, `holding` it. */
export function refuseStandardOutput(flag: string, value: string | undefined, holding: string): void {
  if (value === '-') throw new UsageError(`${flag} -: standard output holds ${holding}; give ${flag} a FILE`);
}

/**
 * Resolves once all that was written to standard output has reached it. A write that failed (a reader that closed it,
 * a full disk) ends the process instead (see stdoutStream), so that nothing is said of output that did not arrive: a
 * write still pending calls back once done, and a write that failed has its error emitted on a later tick, before
 * this resolves.
 */
function stdoutDelivered(): Promise<void> {
  const stdout = stdoutStream();
  return new Promise((resolve) => {
    if (stdout.writableLength === 0) setImmediate(resolve);
    else
      stdout.write(new Uint8Array(0), (error) => {
        if (!error) setImmediate(resolve); // else the stream's error handler ends the process
      });
  });
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
  #delivering = false;

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
    if (temporary.size === 0) {
      for (const signal of STOPPING_SIGNALS) process.on(signal, onStopped);
      process.on('exit', removeAll);
    }
    temporary.add(this);
  }

  /** Whether its copy to its destination has begun: some or all of the output may be there. */
  get delivering(): boolean {
    return this.#delivering;
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
    // The file, and what a signal does while it is held, stay until the copy has reached its destination.
    if (destination === undefined) {
      await this.#copy(writeStdout);
      await stdoutDelivered();
      this.remove();
      return;
    }
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
      this.remove();
    } catch (error) {
      throw this.#cannotWrite(error, this.path);
    }
  }

  /** Copies the file to `write`. */
  async #copy(write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
    this.#delivering = true;
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(1 << 16);
      for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) await write(buffer.subarray(0, n));
    } finally {
      closeSync(fd);
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

  /**
   * The error of a write that failed: naming the flag and its file; in place of standard output, standard output where
   * it is a file under the file size limit the temporary file met (EFBIG), which would hold it at the same size, else
   * the temporary file.
   */
  #cannotWrite(error: unknown, temporaryPath: string): InputError {
    if (this.destination !== undefined) return cannotWrite(this.flag, this.destination, error);
    if ((error as NodeJS.ErrnoException).code === 'EFBIG' && isFile(1))
      return new InputError(outputFailure('standard output', error as NodeJS.ErrnoException));
    return new InputError(
      `${temporaryPath}, where standard output's output waits until it is whole: cannot write it: ${writeFailure(error)} (TMPDIR names another directory)`,
    );
  }

  #close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #forget(): void {
    temporary.delete(this);
    if (temporary.size !== 0) return;
    for (const signal of STOPPING_SIGNALS) process.removeListener(signal, onStopped);
    process.removeListener('exit', removeAll);
  }
}
