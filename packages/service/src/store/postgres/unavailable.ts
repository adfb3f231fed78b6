/**
 * Which PostgreSQL failures mean "the store cannot answer now" (STORE_UNAVAILABLE: the client gets
 * 503 with Retry-After and may retry), as opposed to a fault of the program (a 500 with an incident).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { StoreError } from '../store-error.js';
import { currentWaitBudget, within } from '../wait-budget.js';

/**
 * SQLSTATE classes of a store that is down, restarting, overloaded or timed out: 08 connection
 * exception, 53 insufficient resources (too many connections), 57 operator intervention (admin or
 * crash shutdown, cannot connect now, statement timeout 57014), 40 transaction rollback
 * (serialization failure, deadlock).
 */
const UNAVAILABLE_CLASSES = ['08', '53', '57', '40'];

/** Whether `error` (from pg or its socket) says the database cannot answer now. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreError) return error.code === 'STORE_UNAVAILABLE';
  if (!(error instanceof Error)) return false;
  const { code, severity, syscall } = error as { code?: unknown; severity?: unknown; syscall?: unknown };
  // An error the server sent (pg's DatabaseError carries its severity): by its SQLSTATE class.
  if (typeof severity === 'string' && typeof code === 'string') return UNAVAILABLE_CLASSES.includes(code.slice(0, 2));
  // A socket's (ECONNREFUSED, ECONNRESET, EPIPE…) or pg's own: terminated connection, connect or query timeout.
  return (
    typeof syscall === 'string' ||
    (typeof code === 'string' && /^E[A-Z]+$/.test(code)) ||
    /connection|terminated|timeout|not queryable/i.test(error.message)
  );
}

/** `error` as thrown to the store's callers: a StoreError STORE_UNAVAILABLE when the database cannot answer now. */
export function storeFailure(error: unknown): unknown {
  if (error instanceof StoreError || !isUnavailable(error)) return error;
  return new StoreError(
    'STORE_UNAVAILABLE',
    `the PostgreSQL store cannot answer now: ${(error as Error).message.split('\n')[0]}`,
  );
}

/**
 * A connection of `pool`. Whatever stops one being opened is STORE_UNAVAILABLE, nothing having run: refused, timed
 * out, too many connections, the server starting or shutting down, a database not accepting connections (55000, as
 * ALTER DATABASE … ALLOW_CONNECTIONS false), a password refused (28P01, as during a rotation). Those SQLSTATEs mean
 * something else after the connection is made, so they are told by when they come, not by their code. The wait spends
 * the request's WaitBudget, where there is one (fairStore): a connection opened past it is given back unused.
 */
export async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  const budget = currentWaitBudget();
  const opening = pool.connect();
  try {
    if (budget === undefined) return await opening;
    return await budget.spend((leftMs) => within(opening, leftMs, budget, (client) => client.release()));
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `the PostgreSQL store cannot answer now: cannot connect: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

/**
 * SQLSTATEs of a statement or transaction that PostgreSQL rolled back because of others running at once: deadlock
 * detected (40P01) and serialization failure (40001). Nothing of it was applied, and PostgreSQL's documentation
 * advises running it again.
 */
const CONFLICT_CODES = ['40P01', '40001'];

/** How many times in all a statement or transaction rolled back by a conflict is run before STORE_UNAVAILABLE. */
export const CONFLICT_ATTEMPTS = 4;

/** Whether PostgreSQL rolled back `error`'s statement or transaction for a conflict with others (CONFLICT_CODES). */
function isConflict(error: unknown): boolean {
  return error instanceof Error && CONFLICT_CODES.includes(String((error as { code?: unknown }).code));
}

/**
 * Runs `attempt` (one statement, or one whole transaction) again while PostgreSQL rolls it back for a conflict, up to
 * CONFLICT_ATTEMPTS times, after a short random pause so that the transactions that met do not meet again in step.
 * The last failure, or any other, is thrown as it came.
 */
export async function retryConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      if (attempts >= CONFLICT_ATTEMPTS || !isConflict(error)) throw error;
      await sleep(Math.random() * 20 * attempts);
    }
  }
}
