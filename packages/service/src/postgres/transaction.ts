/** One transaction on one connection: the store's and the audit queue's, written once. */
import type pg from 'pg';
import { holdClient } from './held-client.js';

/**
 * Runs `work` between BEGIN and COMMIT on `client`, a held connection (holdClient): rolled back when it throws, and the
 * connection dropped (through `drop`) when even the rollback fails.
 * @example
 * await holdClient(await pool.connect(), (client, drop) => withinTransaction(client, drop, () => client.query('…')));
 */
export async function withinTransaction<T>(
  client: pg.PoolClient,
  drop: (error: Error) => void,
  work: () => Promise<T>,
): Promise<T> {
  try {
    await client.query('BEGIN');
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(drop);
    throw error;
  }
}

/**
 * Runs `work` in a transaction of its own, on a connection of `pool`.
 * @example
 * await transaction(pool, (client) => client.query('UPDATE t SET n = n + 1'));
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return holdClient(await pool.connect(), (client, drop) => withinTransaction(client, drop, () => work(client)));
}
