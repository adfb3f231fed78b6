/**
 * CU of requests answered 503 because the store could not take their settle or release: their hold is still in the
 * store, its CU held. Released again until the store takes it, so the CU come back as soon as it answers again, not
 * only when the lease runs out.
 */
import { leaseExpired } from '../../store/leases.js';
import { StoreError } from '../../store/store-error.js';
import type { RequestRecord, Reservation, Store } from '../../store/store.js';
import { apartFromRequests } from '../../store/wait-budget.js';

/** How often the releases still pending are tried again. */
export const PENDING_RELEASE_RETRY_MS = 1000;

const storeUnavailable = (error: unknown) => error instanceof StoreError && error.code === 'STORE_UNAVAILABLE';

/**
 * The releases the store could not take yet, tried again every PENDING_RELEASE_RETRY_MS while the store cannot
 * answer. One is given up once its lease has run out (the next reserve or usage of the account sweeps the hold and
 * gives the CU back then), or when the store refuses it for anything else: a hold that had already ended, because
 * the settle that seemed to fail had been written (then the request stays charged).
 */
export class PendingReleases {
  readonly #pending = new Map<string, { reservation: Reservation; request: RequestRecord }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** Releases `reservation`, logging `request` (cu 0), once the store answers again. */
  add(reservation: Reservation, request: RequestRecord): void {
    this.#pending.set(reservation.id, { reservation, request });
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    // Unref'd: a pending release never keeps a process from ending; its lease covers it. Apart from the request that
    // left it: each try waits for a connection on a budget of its own, not on what is left of that request's.
    this.#timer = apartFromRequests(() => setTimeout(() => void this.#retry(), PENDING_RELEASE_RETRY_MS).unref());
  }

  async #retry(): Promise<void> {
    for (const [id, { reservation, request }] of this.#pending) {
      if (leaseExpired(reservation.expiresAt, this.now())) {
        this.#pending.delete(id);
        continue;
      }
      try {
        await this.store.release(reservation, request, this.now());
      } catch (error) {
        if (storeUnavailable(error)) break; // still down: all wait for the next try
      }
      this.#pending.delete(id);
    }
    this.#timer = undefined;
    if (this.#pending.size > 0) this.#schedule();
  }
}
