import { fstatSync, statSync, writeSync } from 'node:fs';
import { EXIT_OUTPUT_FAILED, EXIT_PIPE_CLOSED } from '../exit.js';
import { writeFailure } from '../../files/file-failures.js';

/** Streams the CLI writes to, so tests can run it in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads the bytes of FILE or standard input. */
  read?: (file: string | undefined) => Uint8Array;
  /**
   * Writes to standard output what must not be lost unseen (a key shown once), resolving once it is written whole, or
   * with why it could not be, where `stdout` would end the process: the command withdraws it first. Absent, `stdout`.
   */
  tryStdout?: (text: string) => Promise<NodeJS.ErrnoException | undefined>;
  /** Whether standard output is the null device ({@link isNullDevice}); absent, it is not. */
  stdoutIsNull?: () => boolean;
}

/** Why standard output or error could not be written, in the words of every command: `standard output: cannot write it: …`. */
export function outputFailure(stream: 'standard output' | 'standard error', error: NodeJS.ErrnoException): string {
  return `${stream}: cannot write it: ${error.code === 'EPIPE' ? 'its reader has gone' : writeFailure(error)}`;
}

/**
 * Whether standard output (1) or error (2) is the null device, where everything written is seen by nobody: sent there
 * (`>/dev/null`), or closed (`>&-`), which Node's start fills with it. For what must not be shown to nobody (a key shown
 * once); false where it cannot be told (no /dev/null, a descriptor that cannot be read).
 */
export function isNullDevice(fd: 1 | 2): boolean {
  try {
    const [own, nul] = [fstatSync(fd), statSync('/dev/null')];
    return own.isCharacterDevice() && own.rdev === nul.rdev;
  } catch {
    return false;
  }
}

/** The exit status of a command whose standard output could not be written: as the process ends for `error`. */
export const outputFailedExit = (error: NodeJS.ErrnoException): number =>
  error.code === 'EPIPE' ? EXIT_PIPE_CLOSED : EXIT_OUTPUT_FAILED;

/**
 * Standard output (fd 1) or standard error (2). `write` writes straight to the descriptor, as process.stdout and
 * process.stderr themselves do for files, pipes and terminals on POSIX, until `stream` is in use: then through it, so
 * that the output stays in order. The stream is made on first use only: it loads Node's stream code, and for a pipe its
 * network code, about 2 ms of a `verify block` process that prints one line. A full non-blocking pipe (EAGAIN) is left
 * to the stream, which waits on it; every other failed write, the direct one's or the stream's, is `failed`'s, but
 * that of `tryWrite`, which hands it to its caller instead.
 */
function standardStream(fd: 1 | 2, failed: (error: NodeJS.ErrnoException) => void) {
  let made: NodeJS.WriteStream | undefined;
  // Set once a write of tryWrite's failed through the stream, whose error event follows: its caller has it.
  let handedOver = false;
  const stream = (): NodeJS.WriteStream => {
    if (made === undefined) {
      made = fd === 1 ? process.stdout : process.stderr;
      made.on('error', (error: NodeJS.ErrnoException) => {
        if (!handedOver) failed(error);
      });
    }
    return made;
  };
  const write = (text: string): void => {
    if (made !== undefined) {
      made.write(text);
      return;
    }
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') stream().write(bytes.subarray(written));
      else failed(error as NodeJS.ErrnoException);
    }
  };
  const tryWrite = (text: string): Promise<NodeJS.ErrnoException | undefined> => {
    let rest = Buffer.from(text);
    if (made === undefined) {
      try {
        while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
        return Promise.resolve(undefined);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Promise.resolve(error as NodeJS.ErrnoException);
      }
    }
    return new Promise((resolve) =>
      stream().write(rest, (error) => {
        handedOver ||= Boolean(error);
        resolve(error ?? undefined);
      }),
    );
  };
  return { stream, write, tryWrite };
}

/**
 * A write to standard output that failed ends the process, every command alike, without a stack trace: as SIGPIPE
 * would (status 141, nothing more printed) when its reader closed it; else (a full disk, a file size limit) with one
 * line naming it and why, and the status of an output that cannot be written, never a verdict's: the answers did not
 * reach their reader.
 */
const stdout = standardStream(1, (error) => {
  if (error.code !== 'EPIPE') stderr.write(`evm-integrity: ${outputFailure('standard output', error)}\n`);
  process.exit(outputFailedExit(error));
});

/**
 * A write to standard error that fails (its reader gone: `2>&1 >out | true`; a full disk) loses only the diagnostics
 * it carried: neither the answers on standard output nor the exit status their verdicts give change.
 */
const stderr = standardStream(2, () => {});

/** process.stdout, ending the process as a write to standard output that fails does (see {@link processIo}). */
export const stdoutStream = stdout.stream;

/** Writes `text` to standard error, resolving with why it could not be written (see {@link CliIo.tryStdout}). */
export const tryStderr = stderr.tryWrite;

export const processIo: CliIo = {
  stdout: stdout.write,
  stderr: stderr.write,
  tryStdout: stdout.tryWrite,
  stdoutIsNull: () => isNullDevice(1),
};
