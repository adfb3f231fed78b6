/**
 * A connection taken from a pg pool and held across statements, kept from ending the process. pg emits
 * an 'error' event on a held client whose connection is lost (a restart, an outage), even when the
 * statement it was running fails with the same error; the pool listens only to its idle clients, so an
 * unheard event on a held one is an uncaught exception. Every service code path that holds a client
 * (the store's statements and the audit queue's transactions) takes it through here.
 */
import type pg from 'pg';

/**
 * Runs `use` on `client`, a connection just taken from its pool, then gives it back: dropped (not
 * pooled again) when its connection was lost meanwhile or `use` called `drop`.
 * @example
 * const rows = await holdClient(await pool.connect(), (client) => client.query('SELECT 1'));
 */
export async function holdClient<T>(
  client: pg.PoolClient,
  use: (client: pg.PoolClient, drop: (error: Error) => void) => Promise<T>,
): Promise<T> {
  let broken: Error | undefined;
  const drop = (error: Error) => {
    broken ??= error;
  };
  // The statement in progress, if any, fails with the same error; the next one fails at once.
  client.on('error', drop);
  try {
    return await use(client, drop);
  } catch (error) {
    // A statement the server ended the session with (a FATAL error: an administrator's pg_terminate_backend, a
    // shutdown) fails before the connection's end is heard: given back as sound, the loss would come to the pool.
    if (endsSession(error)) drop(error as Error);
    throw error;
  } finally {
    client.off('error', drop);
    client.release(broken);
  }
}

/** Whether `error` is the server's word that it ended the session (severity FATAL or PANIC): the connection is lost. */
const endsSession = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  ['FATAL', 'PANIC'].includes((error as { severity?: unknown }).severity as string);
