import { accessSync, constants, readFileSync, statSync, writeSync } from 'node:fs';
import { FILE_FAILURES, readFailure, writeFailure } from '../files/file-failures.js';
import { dirname } from 'node:path';
import { EvmIntegrityError, RULE_SET_NAMES, type RuleSetName } from 'evm-integrity';
import { EXIT_PIPE_CLOSED } from './exit.js';

/** Thrown for a mistake in the command line or its files: exit 2 with the message (`main` adds where the help is). */
export class UsageError extends EvmIntegrityError<Record<string, never>, 'CLI_USAGE'> {
  override name = 'UsageError';
  override readonly code = 'CLI_USAGE';

  constructor(message: string) {
    super(message, {});
  }
}

/**
 * A file of the command line that cannot be read or is not what was expected: exit 2 with one line
 * naming the file (no usage text: the command line itself was right).
 */
export class InputError extends UsageError {
  override name = 'InputError';
}

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

/**
 * Where the CLI's error envelopes point (`docs_url`): the error reference shipped in the
 * package, which exists wherever the CLI runs, unlike a server that may not be running.
 */
export const LOCAL_DOCS_URL = new URL('../../docs/errors.md', import.meta.url).href;

/** How messages name an input: its path, or `standard input` for `-` or no file. */
export function inputName(file: string | undefined): string {
  return file === undefined || file === '-' ? 'standard input' : file;
}

/** The error of `file`, given to `flag`, that cannot be written: exit 2, one line naming both and why. */
export function cannotWrite(flag: string, file: string, error: unknown): InputError {
  return new InputError(`${flag} ${file}: cannot write it: ${writeFailure(error)}`);
}

/**
 * Checks that `file` can be written, without making it or changing it (an output made later, at its first line): a
 * writable file, or a writable directory to make it in. An InputError naming it and why otherwise, before any work.
 */
export function checkWritable(flag: string, file: string): void {
  // Else told as a missing directory: '' names no file, in no directory.
  if (file === '') throw new InputError(`${flag}: the path is empty; give a file name`);
  const directory = dirname(file);
  let why: string | undefined;
  try {
    const existing = statSync(file, { throwIfNoEntry: false });
    if (existing?.isDirectory()) why = FILE_FAILURES.EISDIR;
    else if (existing === undefined && !statSync(directory).isDirectory()) why = `${directory} is not a directory`;
    else accessSync(existing === undefined ? directory : file, constants.W_OK);
  } catch (error) {
    why = writeFailure(error);
  }
  if (why !== undefined) throw new InputError(`${flag} ${file}: cannot write it: ${why}`);
}

/**
 * Bytes of FILE, or of standard input for `-` or no file, for the server's body reader
 * (`decodeJsonBody`); an InputError naming the file when it cannot be read.
 */
export function readInput(file: string | undefined): Uint8Array {
  const source = file === undefined || file === '-' ? 0 : file;
  try {
    return readFileSync(source);
  } catch (error) {
    throw new InputError(`${inputName(file)}: cannot read it: ${readFailure(error)}`);
  }
}

/** A rule set named on the command line (`--rules`, `--add-chain ID:RULES`). */
export function ruleSetName(value: string, option: string): RuleSetName {
  if (!RULE_SET_NAMES.includes(value as RuleSetName)) {
    throw new UsageError(`${option} names rule set "${value}"; expected one of ${RULE_SET_NAMES.join(', ')}`);
  }
  return value as RuleSetName;
}

/** The hosted service's API key, from EVM_DATA_SERVICE_API_KEY: a command with `--service` needs it. */
export function serviceApiKey(env: NodeJS.ProcessEnv): string {
  const apiKey = env.EVM_DATA_SERVICE_API_KEY;
  if (apiKey === undefined || apiKey === '')
    throw new UsageError('--service needs the API key in EVM_DATA_SERVICE_API_KEY');
  return apiKey;
}
