import type { ServerConfig } from '../config/config.js';

/**
 * Verify operations one verifying thread may have queued: about 31 ms each for the 3.57 MB body of
 * a large mainnet block (mainnet-15537394, 63.6 requests a second on two workers, docs/speed.md),
 * so a request queued behind a full queue is still answered within about a second.
 */
export const QUEUE_PER_VERIFIER = 32;

/** The bounds on verify operations in progress: in all, and for one account. */
export interface InFlightBounds {
  maxInFlight: number;
  maxInFlightPerAccount: number;
}

/**
 * The bounds a machine with `verifiers` verifying threads can serve (the pool's workers; 1, the
 * event loop, without a pool): QUEUE_PER_VERIFIER per thread for one account, and twice that in
 * all, so a second account finds as many places as the first can hold, and the pool's turns keep
 * each account's wait to its own queue. Derived rather than a constant: on two workers, fifty
 * clients of one account are answered instead of a third of them refused.
 *
 * @example
 * inFlightBoundsFor(2) // { maxInFlight: 128, maxInFlightPerAccount: 64 }
 * inFlightBoundsFor(0) // { maxInFlight: 64, maxInFlightPerAccount: 32 }: the event loop alone
 */
export function inFlightBoundsFor(verifiers: number): InFlightBounds {
  const perAccount = Math.max(1, verifiers) * QUEUE_PER_VERIFIER;
  return { maxInFlight: 2 * perAccount, maxInFlightPerAccount: perAccount };
}

/**
 * The bounds `config` sets, each one it leaves null derived from `verifiers` (inFlightBoundsFor).
 *
 * @example
 * inFlightBoundsOf({ maxInFlight: 10, maxInFlightPerAccount: null }, 2) // { maxInFlight: 10, maxInFlightPerAccount: 64 }
 */
export function inFlightBoundsOf(
  config: Pick<ServerConfig, 'maxInFlight' | 'maxInFlightPerAccount'>,
  verifiers: number,
): InFlightBounds {
  const derived = inFlightBoundsFor(verifiers);
  return {
    maxInFlight: config.maxInFlight ?? derived.maxInFlight,
    maxInFlightPerAccount: config.maxInFlightPerAccount ?? derived.maxInFlightPerAccount,
  };
}
