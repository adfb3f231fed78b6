import { readFileSync } from 'node:fs';
import { readFailure } from '../../files/file-failures.js';
import { InputError } from './usage-error.js';

/** How messages name an input: its path, or `standard input` for `-` or no file. */
export function inputName(file: string | undefined): string {
  return file === undefined || file === '-' ? 'standard input' : file;
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
