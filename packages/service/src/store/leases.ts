/**
 * Reservation leases, shared by the stores. CU reserved for a request are held under a lease; a
 * process that dies between reserve and settle/release leaves its holds behind, and once their
 * lease has run out the next reserve, usage or start of any process on the store gives them back
 * to the period they were taken from ("sweeps" them). A settle that comes after its hold was swept
 * takes the CU again if the period still has room, so the request is charged exactly once.
 */
import { randomUUID } from 'node:crypto';
import type { StoreOptions } from './store.js';
import { StoreError } from './store-error.js';
import { requireCount } from './validation.js';

/**
 * The default lease: two minutes. A hold is taken after the body was read (`body_timeout_ms`, 30 s by default, is
 * over by then) and lasts while the request waits for a place on the worker pool and is verified: seconds even for a
 * 32 MiB body on a busy pool. Two minutes is many times that, and a crashed process's CU come back within it.
 */
export const DEFAULT_RESERVATION_LEASE_MS = 120_000;

/** The shortest lease accepted: shorter ones would sweep requests still being verified. */
export const MIN_RESERVATION_LEASE_MS = 1000;

/** A validated lease length; STORE_INVALID naming `reservationLeaseMs` otherwise. */
export function requireLeaseMs(value: unknown): number {
  const ms = requireCount('reservationLeaseMs', value, 1);
  if (ms < MIN_RESERVATION_LEASE_MS)
    throw new StoreError(
      'STORE_INVALID',
      `reservationLeaseMs must be at least ${MIN_RESERVATION_LEASE_MS} ms, got ${ms}`,
      'reservationLeaseMs',
    );
  return ms;
}

/** The lease of a store opened with `options`, validated. */
export function leaseOf(options: StoreOptions): number {
  return requireLeaseMs(options.reservationLeaseMs ?? DEFAULT_RESERVATION_LEASE_MS);
}

/** When a hold taken at `now` expires (ISO instant; ISO instants of this form compare as strings). */
export function leaseExpiry(now: Date, leaseMs: number): string {
  return new Date(now.getTime() + leaseMs).toISOString();
}

/** Whether a hold expiring at `expiresAt` may be swept at `now`. */
export function leaseExpired(expiresAt: string, now: Date): boolean {
  return expiresAt <= now.toISOString();
}

/** A new hold id (a reservation's identity in the store). */
export function newHoldId(): string {
  return `hold_${randomUUID()}`;
}

/** The refusal of a settle or release whose hold the store does not know: it already ended, or never was. */
export function holdNotFound(id: string): StoreError {
  return new StoreError(
    'STORE_INVALID',
    `reservation ${id} was already settled or released (or is not one of this store's)`,
    'reservation',
  );
}
