/**
 * The connection of a distributed audit's process to PostgreSQL: a pool for the audit tables, and
 * pg-boss on the same database for the chunk jobs (lease, expiry, retries with backoff). Both
 * reconnect by themselves after PostgreSQL restarts: a pool opens new connections on the next
 * query, and pg-boss keeps polling through errors.
 */
import pg from 'pg';
import { EvmIntegrityError } from 'evm-integrity';
import type { ServiceErrorCode } from '../error-codes.js';
import { PgBoss, type Db } from 'pg-boss';
import { migrateAuditSchema } from './audit-schema.js';

/** The pg-boss queue of chunk jobs, shared by every audit. */
export const CHUNK_QUEUE = 'evm-integrity-audit-chunk';

/**
 * Where pg-boss moves a chunk job that failed its last attempt without the worker saying why: its lease expired (the
 * worker died, or the chunk overran its timeout) or an error escaped. A worker parks such a chunk.
 */
export const LOST_CHUNK_QUEUE = 'evm-integrity-audit-chunk-lost';

/** A job of {@link CHUNK_QUEUE}: one chunk of an audit, and the hash its first block must link to when known. */
export interface ChunkJob {
  audit_id: string;
  first: number;
  last: number;
  /** Present when the join pass asks the engine to judge the chunk's first link (null: that block gave no hash). */
  anchor?: string | null;
  /**
   * The chunk's `join_attempts` when the job was sent: the join pass counts each time it sends a chunk back, so a job
   * of an earlier count is stale. Absent in a job sent before it was kept: never taken for stale.
   */
  generation?: number;
}

/** The queue's database cannot be reached or set up: one line for the operator, naming the server (never its password). */
export class AuditQueueError extends EvmIntegrityError<{ server: string }, ServiceErrorCode & 'AUDIT_QUEUE'> {
  override name = 'AuditQueueError';
  override readonly code = 'AUDIT_QUEUE';
}

/** The server of a postgres:// URL, for messages: host, port and database, without the credentials. */
export function serverOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/** An open connection to the audit queue. */
export interface AuditQueue {
  pool: pg.Pool;
  boss: PgBoss;
  /** Its database, for messages ({@link serverOf}). */
  server: string;
  close(): Promise<void>;
}

/** The messages of node-postgres (pg, pg-pool) for a connection lost, refused or closed. */
const CONNECTION_LOST =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end)/;

/**
 * Why a chunk's job failed, for the operator: an error of PostgreSQL or of the connection to it names the queue's
 * database, so that it does not read as the node's (a node's failures name the node).
 */
export function queueFailure(error: unknown, queue: Pick<AuditQueue, 'server'>): string {
  const message = error instanceof Error ? error.message : String(error);
  const fromDatabase =
    error instanceof pg.DatabaseError ||
    (error instanceof Error && ('syscall' in error || CONNECTION_LOST.test(message)));
  return fromDatabase ? `the queue's database at ${queue.server}: ${message}` : message;
}

/** What opening the queue is told: how often pg-boss looks for expired leases (workers), and where to say errors. */
export interface OpenQueueOptions {
  /** Seconds between pg-boss's supervision passes (lease expiry); default 60. */
  superviseSeconds?: number;
  /** Connections of the pool (default 4). */
  poolSize?: number;
  /** Where connection errors are told (once per outage); they never end the process. */
  onError?: (message: string) => void;
}

/** Runs statements of pg-boss inside a transaction of ours, so that a job is created with the rows that need it. */
export function inTransaction(client: pg.PoolClient): Db {
  return { executeSql: (text: string, values?: unknown[]) => client.query(text, values) };
}

/**
 * Opens the queue at `url` (postgres://…): the audit tables migrated, pg-boss started (its schema migrated) and the
 * chunk queue created.
 */
export async function openAuditQueue(url: string, options: OpenQueueOptions = {}): Promise<AuditQueue> {
  const onError = options.onError ?? (() => undefined);
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 4, connectionTimeoutMillis: 10_000 });
  // An idle connection cut by a restart is an 'error' event; unheard, it would end the process.
  pool.on('error', (error) => onError(`PostgreSQL connection lost: ${error.message}`));
  const boss = new PgBoss({
    connectionString: url,
    max: options.poolSize ?? 4,
    superviseIntervalSeconds: options.superviseSeconds ?? 60,
    monitorIntervalSeconds: options.superviseSeconds ?? 60,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', (error: Error) => onError(`queue: ${error.message}`));
  const server = serverOf(url);
  try {
    await migrateAuditSchema(pool);
    await boss.start();
    await boss.createQueue(LOST_CHUNK_QUEUE);
    await boss.createQueue(CHUNK_QUEUE, { deadLetter: LOST_CHUNK_QUEUE });
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw new AuditQueueError(`the audit queue at ${server} cannot be opened: ${(error as Error).message}`, { server });
  }
  return {
    pool,
    boss,
    server,
    async close() {
      await boss.stop({ graceful: false, timeout: 1000 }).catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
