/* eslint-disable @typescript-eslint/require-await -- the file answers at once, but ping and close are asynchronous as for PostgreSQL: a refusal is a rejected promise, never a synchronous throw. */
/**
 * The store in an SQLite file (better-sqlite3): what a self-hosted server and its operator CLI
 * share. WAL mode and a busy timeout let several processes use one file; every operation that
 * writes runs in one IMMEDIATE transaction (write lock taken up front, so concurrent processes
 * queue instead of failing), which makes `reserve` (check and take CU) and `takeRateToken` atomic
 * across processes. The rules are the store's (rules-store.ts); the rows are sqlite-rows.ts's.
 */
import Database from 'better-sqlite3';
import { leaseOf } from '../leases.js';
import { ownerOnlyStoreFile } from '../owner-only.js';
import { RulesStore } from '../rules-store.js';
import { type Access, type SerialBackend, SerialStorage } from '../serial-rows.js';
import type { StoreOptions } from '../store.js';
import { StoreError } from '../store-error.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { SqliteRows } from './sqlite-rows.js';

/** How long a process waits for another one's write lock before giving up. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * SQLite's result codes (with their extended codes: SQLITE_IOERR_WRITE…) of a file that cannot be written: I/O failed
 * (a file size limit, a disk error), the disk is full, the file or its directory is read-only or cannot be opened.
 */
const UNWRITABLE = ['SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_CANTOPEN'];

/**
 * Runs `step` again while SQLite answers SQLITE_BUSY, for up to BUSY_TIMEOUT_MS. Switching a new
 * file to WAL needs an exclusive lock, and when several processes open the same new store at once
 * SQLite refuses some of them at once, without calling the busy handler (it would deadlock): seen
 * as "database is locked" by the second of two servers started together.
 */
function retryWhileBusy<T>(step: () => T): T {
  const giveUpAt = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return step();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw error;
      Atomics.wait(PAUSE, 0, 0, 5 + Math.random() * 20); // a synchronous pause: the constructor is synchronous
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** An SQLite file opened for the store: its transactions and the operations that run on their own. */
class SqliteBackend implements SerialBackend {
  readonly db: Database.Database;
  readonly #file: string;
  readonly #runner: Database.Transaction<(fn: () => unknown) => unknown>;

  /** Opens (creating the directory, the file and the schema as needed, owner-only) the store in `file`. */
  constructor(file: string) {
    this.#file = file;
    try {
      if (file !== ':memory:' && file !== '') ownerOnlyStoreFile(file);
      this.db = new Database(file);
    } catch (error) {
      throw new StoreError('STORE_INVALID', `cannot open the store ${file}: ${(error as Error).message}`, 'file');
    }
    try {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      retryWhileBusy(() => this.db.pragma('journal_mode = WAL'));
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.#runner = this.db.transaction((fn: () => unknown) => fn());
      this.#migrate();
    } catch (error) {
      this.db.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError('STORE_INVALID', `cannot open the store ${file}: ${(error as Error).message}`, 'file');
    }
  }

  /**
   * Runs `operation` in one transaction: DEFERRED to read, IMMEDIATE to write (the write lock taken up front, so
   * concurrent processes queue instead of failing).
   */
  atomically<T>(access: Access, operation: () => T): T {
    return access === 'read'
      ? (this.#runner.deferred(operation) as T)
      : this.#writing(() => this.#runner.immediate(operation) as T);
  }

  begin(): void {
    this.#writing(() => this.db.exec('BEGIN IMMEDIATE'));
  }

  commit(): void {
    this.#writing(() => this.db.exec('COMMIT'));
  }

  rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  async ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
    } catch (error) {
      throw new StoreError('STORE_UNAVAILABLE', `the store ${this.#file} cannot answer: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs `step`, which takes the write lock and writes. Another process holding the lock past the busy timeout, or a
   * file that cannot be written (a full disk, a file size limit, a read-only file), is STORE_UNAVAILABLE naming the
   * file: the request may be retried once the operator has seen to it; it is no fault of this one nor of the program.
   */
  #writing<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      const code = String((error as { code?: unknown }).code);
      if (code === 'SQLITE_BUSY')
        throw new StoreError(
          'STORE_UNAVAILABLE',
          `the store ${this.#file} stayed locked by another process: ${(error as Error).message}`,
        );
      if (UNWRITABLE.some((prefix) => code.startsWith(prefix)))
        throw new StoreError(
          'STORE_UNAVAILABLE',
          `the store ${this.#file} cannot be written (${code}): ${(error as Error).message}`,
        );
      throw error;
    }
  }

  #migrate(): void {
    const version = () => this.db.pragma('user_version', { simple: true }) as number;
    const check = (found: number) => {
      if (found > SCHEMA_VERSION) {
        throw new StoreError(
          'STORE_INVALID',
          `the store ${this.#file} has schema version ${found}, newer than this program's ${SCHEMA_VERSION}; upgrade evm-integrity`,
          'file',
        );
      }
    };
    check(version());
    if (version() === SCHEMA_VERSION) return;
    this.atomically('write', () => {
      const found = version(); // another process may have migrated meanwhile
      check(found);
      for (let v = found; v < SCHEMA_VERSION; v++) this.db.exec(MIGRATIONS[v]!);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    });
  }
}

/**
 * The store in one SQLite file (the service's default, `data/evm-integrity.sqlite`): accounts, key
 * hashes, usage per period, the request log and rate windows, shared safely by the processes that
 * open the same file, and closed to other users of the machine (`owner-only.ts`).
 * @example
 * const store = new SqliteStore('data/evm-integrity.sqlite');
 */
export class SqliteStore extends RulesStore {
  readonly file: string;

  /** Opens (creating the directory, the file and the schema as needed, owner-only) the store in `file`. */
  constructor(file: string, options: StoreOptions = {}) {
    const leaseMs = leaseOf(options);
    const backend = new SqliteBackend(file);
    super(new SerialStorage(new SqliteRows(backend.db), backend), leaseMs);
    this.file = file;
  }
}
