/**
 * The SQLite store's files hold key hashes, hints and every account's usage: they are kept to
 * their owner. A directory the store creates is 0700; the database file is created 0600 and, when
 * it already exists with broader permissions, narrowed to 0600 at every open, with its `-wal` and
 * `-shm` files (SQLite gives those the database file's permissions when it creates them). A
 * directory that already existed is left as it is: it may be shared, and the files in it are
 * closed to others anyway.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Read and write for the owner only. */
const FILE_MODE = 0o600;
/** Read, write and enter for the owner only: a directory made for the store. */
export const DIRECTORY_MODE = 0o700;
/** Any permission for the group or others. */
const OPEN_TO_OTHERS = 0o077;

/**
 * Prepares `file` for the store to open: its directory (0700 when created here) and the file
 * itself (created empty at 0600, or narrowed to 0600 with its WAL and shared-memory files).
 * @example
 * ownerOnlyStoreFile('data/evm-integrity.sqlite'); // then new Database('data/evm-integrity.sqlite')
 */
export function ownerOnlyStoreFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: DIRECTORY_MODE });
  // 'a' creates the file without truncating one that exists; the mode applies only to a new file.
  closeSync(openSync(file, 'a', FILE_MODE));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path) && (statSync(path).mode & OPEN_TO_OTHERS) !== 0) chmodSync(path, FILE_MODE);
  }
}
