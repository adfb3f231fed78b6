import type { Logger } from 'pino';
import type { Store } from '../store/store.js';

const DAY_MS = 86_400_000;
/** Pruning is cheap and the log grows by the request; once an hour keeps it near its bound. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Keeps the request log to its last `retentionDays`: prunes at once (the promise settles after that
 * first prune) and then every hour until stopped; a later prune that fails is logged and retried
 * the next hour. Usage figures live apart from the log, so they are never touched.
 *
 * @example
 * const stop = await keepRequestLog(store, 45, logger); // … at shutdown: stop()
 */
export async function keepRequestLog(
  store: Store,
  retentionDays: number,
  logger: Logger,
  now: () => Date = () => new Date(),
): Promise<() => void> {
  const prune = async () => {
    const before = new Date(now().getTime() - retentionDays * DAY_MS);
    const removed = await store.pruneRequests(before);
    if (removed > 0)
      logger.info(
        { removed, before: before.toISOString(), request_retention_days: retentionDays },
        'request log pruned',
      );
  };
  await prune();
  const timer = setInterval(() => {
    prune().catch((error: unknown) => logger.warn({ err: error }, 'request log prune failed; retried in an hour'));
  }, PRUNE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
