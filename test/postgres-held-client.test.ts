/**
 * A connection held across statements and lost meanwhile (a restart, an outage, an administrator's
 * pg_terminate_backend): pg emits an 'error' event on the held client, which the pool does not hear.
 * Unheard, it ends the process: an audit worker in a transaction when PostgreSQL went down exited 1.
 * Here the backend of a held connection is cut between two statements, on real PostgreSQL: the work
 * fails with the lost connection's error, the process goes on, and the pool drops that connection.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { holdClient } from '../packages/service/src/postgres/held-client.js';
import { transaction } from '../packages/service/src/postgres/transaction.js';
import { freshDatabase, TEST_DATABASE_URL, type FreshDatabase } from './helpers/postgres.js';

let db: FreshDatabase | undefined;
let pool: pg.Pool | undefined;
afterEach(async () => {
  await pool?.end();
  pool = undefined;
  await db?.drop();
  db = undefined;
});

/**
 * A pool that hears its own 'error' events, as the store's and the queue's do: pg-pool listens to a client it is given
 * back even when it drops it, and a loss heard there (the connection's end after the statement's error) is the pool's
 * event, reported by the queue as a lost connection. What is counted below is what no listener hears.
 */
function listenedPool(url: string): pg.Pool {
  const made = new pg.Pool({ connectionString: url, max: 2 });
  made.on('error', () => {});
  return made;
}

/** Cuts the backend of `client` from another connection: the server ends that connection. */
async function cutBackend(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  } finally {
    await admin.end();
  }
}

/** Runs `work` while counting the process's uncaught exceptions (an unheard 'error' event is one). */
async function countingUncaught(work: () => Promise<void>): Promise<Error[]> {
  const uncaught: Error[] = [];
  const listener = (error: Error) => uncaught.push(error);
  process.on('uncaughtException', listener);
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 200)); // the loss's 'error' event may come after the statement failed
  } finally {
    process.off('uncaughtException', listener);
  }
  return uncaught;
}

describe('a held connection lost between statements', () => {
  it('in a transaction: the transaction fails with the loss, nothing uncaught, the connection is dropped and the pool goes on', async () => {
    db = await freshDatabase();
    pool = listenedPool(db.url);
    await pool.query('CREATE TABLE t (n integer)');
    const uncaught = await countingUncaught(async () => {
      await expect(
        transaction(pool!, async (client) => {
          await client.query('INSERT INTO t VALUES (1)');
          await cutBackend(client);
          await client.query('INSERT INTO t VALUES (2)');
        }),
      ).rejects.toThrow(/terminat|not queryable/i);
    });
    expect(uncaught).toEqual([]);
    expect(pool.totalCount).toBe(0); // the lost connection was not given back to the pool
    await transaction(pool, (client) => client.query('INSERT INTO t VALUES (3)'));
    expect((await pool.query('SELECT n FROM t ORDER BY n')).rows).toEqual([{ n: 3 }]); // the cut transaction left nothing
  });

  it('held outside a transaction: the next statement fails, nothing uncaught, the connection is dropped', async () => {
    db = await freshDatabase();
    pool = listenedPool(db.url);
    const uncaught = await countingUncaught(async () => {
      await expect(
        holdClient(await pool!.connect(), async (client) => {
          await cutBackend(client);
          return client.query('SELECT 1');
        }),
      ).rejects.toThrow(/terminat|not queryable/i);
    });
    expect(uncaught).toEqual([]);
    expect(pool.totalCount).toBe(0);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  // The statement itself ends the session: it fails with the server's FATAL error, and the connection's end comes
  // after it. Released as sound, the client went back to the pool and the late loss was the pool's 'error' event
  // (a CI run of the test above met it by timing): the connection must be dropped by the statement's error alone.
  it('lost by the statement in progress (a FATAL error, the end after it): dropped, not pooled again, nothing uncaught', async () => {
    db = await freshDatabase();
    pool = listenedPool(db.url);
    // How the client went back: with the error that drops it, or as sound (then dropped only if the loss comes later).
    const released: unknown[] = [];
    pool.on('release', (error) => released.push(error));
    const uncaught = await countingUncaught(async () => {
      await expect(
        holdClient(await pool!.connect(), (client) => client.query('SELECT pg_terminate_backend(pg_backend_pid())')),
      ).rejects.toMatchObject({ severity: 'FATAL', code: '57P01' });
    });
    expect(released).toMatchObject([{ severity: 'FATAL', code: '57P01' }]);
    expect(uncaught).toEqual([]);
    expect(pool.totalCount).toBe(0);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
