/**
 * File system errors in a few words, the same for every command and for the evidence directory: `no such file`, `it is
 * a directory`, `permission denied`…
 */

/**
 * What a file system error says about a file named by the operator, in a few words, the same for every command
 * (ENOENT is told by {@link readFailure} and {@link writeFailure}: a file missing, or its directory).
 */
export const FILE_FAILURES = {
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EIO: 'an input/output error',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file is larger than this process may write (ulimit -f)',
  EEXIST: 'it exists',
} as const satisfies Readonly<Record<string, string>>;

function fileFailure(error: unknown, missing: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return missing;
  return (code !== undefined && (FILE_FAILURES as Readonly<Record<string, string>>)[code]) || (error as Error).message;
}

/** Why a file could not be read, in a few words (`no such file`, `it is a directory`…). */
export function readFailure(error: unknown): string {
  return fileFailure(error, 'no such file');
}

/** Why a file could not be written, in a few words: a missing path is a missing directory, the file being made. */
export function writeFailure(error: unknown): string {
  return fileFailure(error, 'no such directory');
}

/**
 * Why a directory could not be made, in a few words: a file where it should be (EEXIST, which alone would read as
 * nothing wrong), or on its path.
 */
export function directoryFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EEXIST') return 'it is a file; a directory was expected';
  if (code === 'ENOTDIR') return 'a part of its path is a file; a directory was expected';
  return writeFailure(error);
}
