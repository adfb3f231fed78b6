import { readFileSync } from 'node:fs';

/** Thrown for what the operator must fix before anything can be verified (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Text of FILE, or of standard input for `-` or no file. */
export function readInput(file: string | undefined): string {
  const source = file === undefined || file === '-' ? 0 : file;
  try {
    return readFileSync(source, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${source === 0 ? 'standard input' : file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}
