/** One transaction on a connection of its own, for the audit queue's writes. */
import type pg from 'pg';
import { holdClient } from './held-client.js';

/**
 * Runs `work` in a transaction of its own: committed when it returns, rolled back when it throws.
 * @example
 * await transaction(pool, (client) => client.query('UPDATE t SET n = n + 1'));
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return holdClient(await pool.connect(), async (client) => {
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
