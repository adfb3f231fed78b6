/**
 * How a file named for output is put in place, the one rule of every writer of the package and of the CLI: a regular
 * file or a new path is written beside it and renamed onto it (whole or not at all); a device, a FIFO or a socket is
 * written into (renaming onto `/dev/null` would put a regular file in its place); a directory is refused.
 */

/** `replace`: written beside the path and renamed onto it. `stream`: written into the file as it is. */
export type OutputFileKind = 'replace' | 'stream';

/**
 * How `file` is written (the link's target decides, for a symbolic link). Throws the file system's error for a
 * directory (code `EISDIR`) and for a path that cannot be looked up (`ENOTDIR`, `EACCES`…).
 */
export function outputFileKind(file: string): OutputFileKind {
  // Loaded when a file is written: an import of node:fs costs every process that writes none its start.
  const status = process.getBuiltinModule('node:fs').statSync(file, { throwIfNoEntry: false });
  if (status === undefined || status.isFile()) return 'replace';
  if (status.isDirectory())
    throw Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${file}'`), {
      code: 'EISDIR',
      path: file,
    });
  return 'stream';
}
