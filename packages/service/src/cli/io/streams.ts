import { writeSync } from 'node:fs';
import { EXIT_PIPE_CLOSED } from '../exit.js';

/** Streams the CLI writes to, so tests can run it in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads the bytes of FILE or standard input. */
  read?: (file: string | undefined) => Uint8Array;
}

let stdoutStreamInUse = false;

/**
 * process.stdout, ending the process as SIGPIPE would (status 141, nothing more printed, no stack trace) when its reader
 * closes the pipe. Made on first use only: the stream loads Node's stream code, and for a pipe its network code, about
 * 2 ms of a `verify block` process that prints one line; {@link processIo} writes without it while it can.
 */
export function stdoutStream(): NodeJS.WriteStream {
  if (!stdoutStreamInUse) {
    stdoutStreamInUse = true;
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT_PIPE_CLOSED);
      throw error;
    });
  }
  return process.stdout;
}

/**
 * Writes to standard output: straight to its file descriptor, as process.stdout itself does for files, pipes and
 * terminals on POSIX, until process.stdout is in use (then through it, so that the output stays in order); also through
 * it from where a write fails other than on a closed pipe.
 */
function writeStdoutText(text: string): void {
  if (stdoutStreamInUse) {
    stdoutStream().write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(EXIT_PIPE_CLOSED);
    // The rest is the stream's, as it was before: it waits on a full non-blocking pipe (EAGAIN), drops what is
    // written to a closed descriptor (EBADF), and emits any other error.
    stdoutStream().write(bytes.subarray(written));
  }
}

export const processIo: CliIo = {
  stdout: writeStdoutText,
  stderr: (text) => process.stderr.write(text),
};
