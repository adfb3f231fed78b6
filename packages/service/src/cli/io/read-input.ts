import { readFileSync } from 'node:fs';
import { readFailure } from '../../files/file-failures.js';
import { InputError } from './usage-error.js';

/** How messages name an input: its path, or `standard input` for `-` or no file, or an empty path as such. */
export function inputName(file: string | undefined): string {
  return file === undefined || file === '-' ? 'standard input' : file === '' ? 'the empty path ""' : file;
}

/**
 * Bytes of FILE, or of standard input for `-` or no file, for the server's body reader
 * (`decodeJsonBody`); an InputError naming the file when it cannot be read.
 */
export function readInput(file: string | undefined): Uint8Array {
  if (file === '') throw new InputError('the path is empty ""; give a file name, or - for standard input');
  const source = file === undefined || file === '-' ? 0 : file;
  try {
    return readFileSync(source);
  } catch (error) {
    throw new InputError(`${inputName(file)}: cannot read it: ${readFailure(error)}`);
  }
}

/**
 * Why bytes that are not UTF-8 are no input of the command, `why` saying what it reads (`a JSON text is UTF-8`):
 * gzip-compressed bytes (1f 8b) are named as such, with the remedy, since that is all that is wrong with them.
 */
export function notUtf8Message(bytes: Uint8Array, why: string): string {
  return bytes[0] === 0x1f && bytes[1] === 0x8b
    ? 'not UTF-8 text: it is gzip-compressed (it starts with the bytes 1f 8b); decompress it first (gunzip)'
    : `not UTF-8 text (${why}): it has bytes that are not UTF-8`;
}
