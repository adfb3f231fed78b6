/**
 * How a file named for output is put in place, the one rule of every writer of the package and of the CLI: a regular
 * file or a new path is written beside it and renamed onto it (whole or not at all); a device, a FIFO or a socket is
 * written into (renaming onto `/dev/null` would put a regular file in its place); a directory is refused. A symbolic
 * link is written through: its target is replaced, and the link stays, as a plain write through it would leave it.
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

/** Links followed before a path is refused as a loop, as Linux's own bound on a path's resolution. */
const MAX_LINKS = 40;

/**
 * The path a write to `file` lands on: `file` itself or, for a symbolic link (a chain of them, dangling or not), its
 * final target, so that a rename replaces the target and keeps the link rather than putting a file in its place.
 * Throws an error with code `ELOOP` for links that never end.
 */
export function outputTarget(file: string): string {
  const { lstatSync, readlinkSync } = process.getBuiltinModule('node:fs');
  const paths = process.getBuiltinModule('node:path');
  let path = file;
  for (let links = 0; links <= MAX_LINKS; links++) {
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return path;
    path = paths.resolve(paths.dirname(path), readlinkSync(path));
  }
  throw Object.assign(new Error(`ELOOP: too many symbolic links encountered, open '${file}'`), {
    code: 'ELOOP',
    path: file,
  });
}
