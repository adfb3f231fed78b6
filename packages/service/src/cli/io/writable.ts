import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { FILE_FAILURES, writeFailure } from '../../files/file-failures.js';
import { InputError } from './usage-error.js';

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
