/**
 * The store in PostgreSQL (pg's Pool): what several replicas of the server share. The store's rules (rules-store.ts)
 * over the rows of postgres-rows.ts: the operations of every request are one statement each; the rare cases (a
 * period to roll, a settle or release whose hold was swept) run in a transaction that first locks the account's row.
 * The schema is migrated at first use (migrations.ts). A database that cannot answer is STORE_UNAVAILABLE. A
 * statement or transaction that a conflict rolls back all the same (deadlock, serialization failure) is run again a
 * few times (retryConflicts, unavailable.ts).
 */
import pg from 'pg';
import { holdClient } from '../../postgres/held-client.js';
import { withinTransaction } from '../../postgres/transaction.js';
import { leaseOf } from '../leases.js';
import { RulesStore } from '../rules-store.js';
import type { Rows, Storage } from '../storage.js';
import type { StoreOptions } from '../store.js';
import { requireCount } from '../validation.js';
import { migrate } from './migrations.js';
import { named } from './named-statements.js';
import { PostgresRows, type Query } from './postgres-rows.js';
import { connect, retryConflicts, storeFailure } from './unavailable.js';

/** How a PostgresStore connects. */
export interface PostgresStoreOptions extends StoreOptions {
  /** `postgres://user:password@host:port/database`. */
  databaseUrl: string;
  /** Connections of this process at most (pg's pool `max`). */
  poolSize: number;
  /** Milliseconds a statement may run before the server cancels it (STORE_UNAVAILABLE). */
  statementTimeoutMs: number;
  /** Milliseconds to wait for a connection before giving up (STORE_UNAVAILABLE). */
  connectTimeoutMs: number;
  /**
   * Whose clock the requests-per-second window follows: `database` (the default; every replica counts in the same
   * one-second windows of the database's clock, whatever their own clocks say) or `caller` (the `nowMs` passed, as
   * the other stores do; for tests that set the time).
   */
  rateClock?: 'database' | 'caller';
}

/** PostgreSQL's type id of bigint. */
const INT8_OID = 20;
const textParser = (oid: number) => pg.types.getTypeParser(oid, 'text') as (value: string) => unknown;
/** bigint (CU, milliseconds) as numbers: every value the store keeps is a safe integer. */
const TYPES = {
  getTypeParser: ((oid: number) => (oid === INT8_OID ? Number : textParser(oid))) as typeof pg.types.getTypeParser,
};

/** A PostgreSQL database as the store's backend: its pool, statements and transactions. */
class PostgresStorage implements Storage {
  readonly rows: Rows;
  readonly #pool: pg.Pool;
  readonly #rows: (q: Query) => Rows;
  #migrated: Promise<void> | undefined;
  /** Set by stopWaiting: a wait for another replica's migration gives up. */
  #givenUp = false;

  /** Makes the pool and the rows on it. */
  constructor(options: PostgresStoreOptions) {
    this.#pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: requireCount('poolSize', options.poolSize, 1),
      statement_timeout: requireCount('statementTimeoutMs', options.statementTimeoutMs, 1),
      // The client's own bound, for a server that stops answering without closing the connection.
      query_timeout: options.statementTimeoutMs + 1000,
      connectionTimeoutMillis: requireCount('connectTimeoutMs', options.connectTimeoutMs, 1),
      application_name: 'evm-integrity',
      types: TYPES,
    });
    // An idle connection cut by a database restart: the pool drops it and the next operation opens another.
    this.#pool.on('error', () => {});
    const rateClock = options.rateClock ?? 'database';
    this.rows = new PostgresRows((sql, params) => this.#query(sql, params), rateClock);
    this.#rows = (q) => new PostgresRows(q, rateClock);
  }

  /** Migrates once per store (again after a failed attempt, such as a database still starting). */
  async #ready(): Promise<void> {
    this.#migrated ??= migrate(this.#pool, () => this.#givenUp).catch((error: unknown) => {
      this.#migrated = undefined;
      throw storeFailure(error);
    });
    return this.#migrated;
  }

  /** One statement outside a transaction (run again when a conflict rolled it back). */
  async #query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.#ready();
    try {
      return await retryConflicts(() =>
        this.#onConnection(async (client, drop) => {
          try {
            return (await client.query<R>(named(sql, params))).rows;
          } catch (error) {
            drop(error as Error); // as pg's pool.query: a timed-out statement may still be running on it
            throw error;
          }
        }),
      );
    } catch (error) {
      throw storeFailure(error);
    }
  }

  /** Runs `work` in one transaction on one connection (all of it again when a conflict rolled it back). */
  async transaction<T>(work: (rows: Rows) => Promise<T>): Promise<T> {
    await this.#ready();
    try {
      return await retryConflicts(() => this.#attempt((q) => work(this.#rows(q))));
    } catch (error) {
      throw storeFailure(error);
    }
  }

  /** One attempt at `fn` in a transaction; a connection that failed is dropped from the pool. */
  async #attempt<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.#onConnection(async (client, drop) => {
      const q: Query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
        (await client.query<R>(named(sql, params))).rows;
      return withinTransaction(client, drop, () => fn(q));
    });
  }

  /**
   * Runs `use` on a connection of the pool (failing to get one is STORE_UNAVAILABLE, whatever the reason: connect),
   * then gives it back, or drops it when `use` called `drop` or the connection was lost meanwhile.
   */
  async #onConnection<T>(use: (client: pg.PoolClient, drop: (error: Error) => void) => Promise<T>): Promise<T> {
    return holdClient(await connect(this.#pool), use);
  }

  async ping(): Promise<void> {
    await this.#query('SELECT 1');
  }

  /** Ends a wait for another replica's migration: the operation that waits fails STORE_UNAVAILABLE. */
  stopWaiting(): void {
    this.#givenUp = true;
  }

  async close(): Promise<void> {
    this.#givenUp = true;
    if (!this.#pool.ended) await this.#pool.end();
  }
}

/**
 * The store in a PostgreSQL database (`store: "postgres"`): the same rules as SqliteStore, shared
 * by any number of server processes on any number of machines.
 * @example
 * const store = new PostgresStore({ databaseUrl: process.env.DATABASE_URL!, poolSize: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
 */
export class PostgresStore extends RulesStore {
  /** Makes the pool; nothing connects until the first operation, which migrates the schema first. */
  readonly #storage: PostgresStorage;

  constructor(options: PostgresStoreOptions) {
    const leaseMs = leaseOf(options);
    const storage = new PostgresStorage(options);
    super(storage, leaseMs);
    this.#storage = storage;
  }

  /**
   * Ends a start that waits for another replica's migration (a signal to stop while it waits): the operation waiting
   * fails STORE_UNAVAILABLE, and so does any after it.
   */
  stopWaiting(): void {
    this.#storage.stopWaiting();
  }
}
