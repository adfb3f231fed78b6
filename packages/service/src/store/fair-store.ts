/**
 * A Store whose operations take turns at the store's connections by account (Turns), so that one account's flood
 * of requests, each a few statements on its own rows, cannot hold every connection and queue the others' requests
 * behind its own.
 */
import type { Store } from './store.js';
import { Turns } from './turns.js';
import { currentWaitBudget, WaitBudget, withWaitBudget } from './wait-budget.js';

/** The turns of keys not (yet) known to belong to an account: one owner, so a flood of unknown keys is one flood. */
const UNKNOWN_KEY = 'unknown key';
/** The turns of the service's own work (accounts and keys provisioned, holds swept, the log pruned, pings). */
const SERVICE = 'service';
const ofAccount = (id: string) => `account ${id}`;
/**
 * Connections one account's operations may hold at once. Its writes (its rate window, its period's usage) change
 * the same few rows of its own, which PostgreSQL lets one transaction at a time change: more connections gain it
 * little and keep others' statements waiting behind its commits (bench/hostile.bench.ts measures it).
 */
const PER_ACCOUNT = 2;

/**
 * `store`, its operations run at most `connections` at once (its pool of connections), one account's at most
 * PER_ACCOUNT of them and never all, so another account's operation finds one free; operations waiting take the
 * connections freed in turn by account, oldest first within one. A key's operation counts as its account's once
 * the key has authenticated. An operation's wait for its turn, and for a new connection, spends its request's
 * WaitBudget (`connectTimeoutMs` in all), or one of its own outside a request: past it, STORE_UNAVAILABLE.
 *
 * @example
 * const store = fairStore(new PostgresStore({ ...options, poolSize: 10 }), 10, 5000);
 */
export function fairStore(store: Store, connections: number, connectTimeoutMs: number): Store {
  const turns = new Turns(connections, Math.max(1, Math.min(PER_ACCOUNT, connections - 1)));
  /** The account of each key that authenticated: only valid keys, so as many as the operator made. */
  const accountOfKey = new Map<string, string>();
  /** `work` in a turn of `owner`'s; the budget goes with it, for the wait for a new connection (PostgresStore). */
  const run = <T>(owner: string, work: () => Promise<T>) => {
    const budget = currentWaitBudget() ?? new WaitBudget(connectTimeoutMs);
    return turns.run(owner, () => withWaitBudget(budget, work), budget);
  };
  const service = <T>(work: () => Promise<T>) => run(SERVICE, work);
  const account = <T>(id: string, work: () => Promise<T>) => run(ofAccount(id), work);
  return {
    createAccount: (input, now) => service(() => store.createAccount(input, now)),
    upsertAccount: (input, now) => service(() => store.upsertAccount(input, now)),
    getAccount: (id) => service(() => store.getAccount(id)),
    listAccounts: () => service(() => store.listAccounts()),
    createKey: (accountId, label, now) => service(() => store.createKey(accountId, label, now)),
    importKey: (accountId, label, key, now) => service(() => store.importKey(accountId, label, key, now)),
    listKeys: (accountId) => service(() => store.listKeys(accountId)),
    revokeKey: (idOrHint, now) => service(() => store.revokeKey(idOrHint, now)),
    revokeAccountKeys: (accountId, now) => service(() => store.revokeAccountKeys(accountId, now)),
    deleteAccount: (accountId) => service(() => store.deleteAccount(accountId)),
    authenticate: async (key) => {
      const known = accountOfKey.get(key);
      const result = await run(known === undefined ? UNKNOWN_KEY : ofAccount(known), () => store.authenticate(key));
      if (result.status !== 'unknown') accountOfKey.set(key, result.key.accountId);
      return result;
    },
    usage: (accountId, now) => account(accountId, () => store.usage(accountId, now)),
    reserve: (accountId, endpoint, cu, now) => account(accountId, () => store.reserve(accountId, endpoint, cu, now)),
    settle: (reservation, request, now) =>
      account(reservation.accountId, () => store.settle(reservation, request, now)),
    release: (reservation, request, now) =>
      account(reservation.accountId, () => store.release(reservation, request, now)),
    sweepExpiredHolds: (now) => service(() => store.sweepExpiredHolds(now)),
    pruneRequests: (before) => service(() => store.pruneRequests(before)),
    addCu: (accountId, cu, now) => service(() => store.addCu(accountId, cu, now)),
    takeRateToken: (accountId, limitRps, nowMs) =>
      account(accountId, () => store.takeRateToken(accountId, limitRps, nowMs)),
    ping: () => service(() => store.ping()),
    close: () => store.close(),
  };
}
