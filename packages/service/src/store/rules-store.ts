/**
 * The store's rules, written once over a Storage (storage.ts) that memory, SQLite and PostgreSQL implement: what is
 * validated, how ids and keys are made, when a period rolls, what a reserve, settle or release may take or give back,
 * which error answers. The common operations run as atomic operations of the backend on their own (one statement in
 * PostgreSQL); the rare ones (a period to roll, a hold swept before its request ended) in a transaction that first
 * locks the account.
 */
import { err, ok } from 'evm-integrity';
import { newAccountId, slugFromName } from './account-ids.js';
import {
  assertKeyLimit,
  assertSameAccount,
  authenticateKey,
  generateKey,
  hashKey,
  importedKey,
  isActive,
  keyHint,
  keyToRevoke,
  newKeyId,
  validIdOrHint,
  validLabel,
} from './keys.js';
import { holdNotFound, leaseExpiry, newHoldId } from './leases.js';
import { exceedsAllowance, nextPeriod, type Period, rateDecision } from './periods.js';
import type { HoldRow, PeriodUsageRow, Rows, Storage } from './storage.js';
import type {
  Account,
  AccountInput,
  AuthResult,
  KeyRecord,
  RateToken,
  RequestRecord,
  Reservation,
  ReserveResult,
  SettleResult,
  Store,
  Usage,
} from './store.js';
import { accountNotFound, StoreError } from './store-error.js';
import { makeUsage } from './usage.js';
import {
  normalizeAccountInput,
  normalizeRequest,
  normalizeReservation,
  normalizeReserve,
  requireCount,
  requireDate,
  requireId,
  requireTimeMs,
} from './validation.js';

/** Request-log rows deleted at a time when pruning, so that a first prune of a large log holds no lock for long. */
const PRUNE_BATCH_ROWS = 5000;

/** The Usage of `account` in the period of `row`. */
const toUsage = (account: Pick<Account, 'id' | 'cuLimit'>, row: PeriodUsageRow): Usage =>
  makeUsage(account.id, row, account.cuLimit, row.cuExtra, { cu: row.cuTaken, byEndpoint: row.taken }, row.held);

/** The account `id` (locked when `lock`); STORE_NOT_FOUND when there is none. */
async function knownAccount(rows: Rows, id: string, lock: boolean): Promise<Account> {
  const account = typeof id === 'string' ? await rows.account(id, lock) : undefined;
  if (account === undefined) throw accountNotFound(id);
  return account;
}

/** The account's period at `now`, the next one started when the stored one is over. */
async function currentPeriod(rows: Rows, account: Account, now: Date): Promise<Period> {
  const latest = await rows.latestPeriod(account.id);
  const next = nextPeriod(account.periodAnchor, latest, now);
  if (next === null) return latest!;
  await rows.insertPeriod(account.id, next);
  return next;
}

/** The account's usage in the period that starts at `periodStart`. */
async function usageOf(rows: Rows, account: Account, periodStart: string): Promise<Usage> {
  return toUsage(account, (await rows.periodUsage(account.id, periodStart))!);
}

/** A new key record, its id drawn again while taken. */
async function insertKey(
  rows: Rows,
  accountId: string,
  fields: Pick<KeyRecord, 'label' | 'hash' | 'hint'>,
  now: Date,
): Promise<KeyRecord> {
  for (;;) {
    const record: KeyRecord = { id: newKeyId(), accountId, ...fields, createdAt: now.toISOString(), revokedAt: null };
    if (await rows.insertKey(record)) return record;
  }
}

/** The stored hold that `held` names, locked (STORE_INVALID when it has already ended). */
async function endingHold(rows: Rows, held: Reservation): Promise<HoldRow> {
  const hold = await rows.hold(held.id, held.accountId);
  if (hold === undefined) throw holdNotFound(held.id);
  return hold;
}

/**
 * The store over `storage`: MemoryStore, SqliteStore and PostgresStore are this with their backend.
 * @example
 * const store = new RulesStore(storage, leaseOf({ reservationLeaseMs: 60_000 }));
 */
export class RulesStore implements Store {
  readonly #storage: Storage;
  readonly #leaseMs: number;

  /** @param leaseMs the reservations' lease, validated (leaseOf, leases.ts). */
  constructor(storage: Storage, leaseMs: number) {
    this.#storage = storage;
    this.#leaseMs = leaseMs;
  }

  async createAccount(input: AccountInput, now: Date): Promise<Account> {
    requireDate('now', now);
    const fields = normalizeAccountInput(input);
    return this.#storage.transaction(async (rows) => {
      // Every id the new one could collide with, then the choice.
      const base = input.id !== undefined ? requireId('id', input.id) : slugFromName(fields.name);
      const taken = new Set(await rows.accountIdsFrom(base));
      const id = newAccountId(input, fields.name, (candidate) => taken.has(candidate));
      const at = now.toISOString();
      const account: Account = { id, ...fields, periodAnchor: at, createdAt: at };
      // Another process created it since the look-up.
      if (!(await rows.insertAccount(account))) throw new StoreError('STORE_CONFLICT', `account ${id} already exists`);
      await currentPeriod(rows, account, now);
      return account;
    });
  }

  async upsertAccount(input: AccountInput & { id: string }, now: Date): Promise<Account> {
    requireDate('now', now);
    const id = requireId('id', input.id);
    const fields = normalizeAccountInput(input);
    const at = now.toISOString();
    return this.#storage.transaction(async (rows) => {
      const account = await rows.upsertAccount({ id, ...fields, periodAnchor: at, createdAt: at });
      await currentPeriod(rows, account, now);
      return account;
    });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    return this.#storage.rows.account(id, false);
  }

  async listAccounts(): Promise<Account[]> {
    return this.#storage.rows.accounts();
  }

  async createKey(accountId: string, label: string, now: Date): Promise<{ key: string; record: KeyRecord }> {
    requireDate('now', now);
    const validated = validLabel(label);
    return this.#storage.transaction(async (rows) => {
      const account = await knownAccount(rows, accountId, true);
      assertKeyLimit(account.id, await rows.activeKeyCount(account.id));
      const key = generateKey();
      const record = await insertKey(
        rows,
        account.id,
        { label: validated, hash: hashKey(key), hint: keyHint(key) },
        now,
      );
      return { key, record };
    });
  }

  async importKey(
    accountId: string,
    label: string,
    hashOrPlain: { sha256: string } | { plain: string },
    now: Date,
  ): Promise<KeyRecord> {
    requireDate('now', now);
    const validated = validLabel(label);
    const { hash, hint } = importedKey(hashOrPlain);
    return this.#storage.transaction(async (rows) => {
      const account = await knownAccount(rows, accountId, true);
      const existing = await rows.keyByHash(hash);
      if (existing !== undefined) {
        assertSameAccount(existing, account.id);
        return existing;
      }
      assertKeyLimit(account.id, await rows.activeKeyCount(account.id));
      return insertKey(rows, account.id, { label: validated, hash, hint }, now);
    });
  }

  async listKeys(accountId?: string): Promise<KeyRecord[]> {
    if (accountId === undefined) return this.#storage.rows.keys();
    return this.#storage.transaction(async (rows) => {
      await knownAccount(rows, accountId, false);
      return rows.keys(accountId);
    });
  }

  async revokeKey(idOrHint: string, now: Date): Promise<KeyRecord> {
    requireDate('now', now);
    const wanted = validIdOrHint(idOrHint);
    return this.#storage.transaction(async (rows) => {
      const key = keyToRevoke(wanted, await rows.key(wanted), await rows.keysByHint(wanted));
      if (!isActive(key)) return key;
      return (await rows.revokeKey(key.id, now.toISOString())) ?? key;
    });
  }

  async revokeAccountKeys(accountId: string, now: Date): Promise<KeyRecord[]> {
    requireDate('now', now);
    return this.#storage.transaction(async (rows) => {
      const account = await knownAccount(rows, accountId, true);
      return rows.revokeAccountKeys(account.id, now.toISOString());
    });
  }

  async deleteAccount(accountId: string): Promise<{ keys: number; requests: number }> {
    return this.#storage.transaction(async (rows) =>
      rows.deleteAccount((await knownAccount(rows, accountId, true)).id),
    );
  }

  async authenticate(key: string): Promise<AuthResult> {
    const hash = hashKey(typeof key === 'string' ? key : '');
    const found = await this.#storage.rows.keyWithAccount(hash);
    return authenticateKey(
      key,
      (presented) => (presented === hash ? found?.key : undefined),
      () => found?.account,
    );
  }

  async usage(accountId: string, now: Date): Promise<Usage> {
    requireDate('now', now);
    const direct = this.#storage.rows;
    // Most calls only read, at once; the account is locked only when the period has to move on.
    const read = typeof accountId === 'string' ? await direct.accountUsage(accountId, now) : undefined;
    if (read === undefined) throw accountNotFound(accountId);
    const { account, latest } = read;
    if (latest !== undefined && nextPeriod(account.periodAnchor, latest, now) === null) {
      if (!read.expired) return toUsage(account, latest);
      // Leases ran out: swept atomically, without the account's lock that every request would queue for.
      await direct.sweep(account.id, now);
      return usageOf(direct, account, latest.periodStart);
    }
    return this.#storage.transaction(async (rows) => {
      const locked = await knownAccount(rows, accountId, true);
      await rows.sweep(locked.id, now);
      return usageOf(rows, locked, (await currentPeriod(rows, locked, now)).periodStart);
    });
  }

  async reserve(accountId: string, endpoint: string, cu: number, now: Date): Promise<ReserveResult> {
    requireDate('now', now);
    const wanted = normalizeReserve(endpoint, cu);
    const hold = { id: newHoldId(), accountId, ...wanted, expiresAt: leaseExpiry(now, this.#leaseMs) };
    const held = (period: Period): ReserveResult => ok({ reservation: { ...hold, periodStart: period.periodStart } });
    // Usually one atomic operation: the period runs, no lease has run out, the allowance has room.
    const direct = this.#storage.rows;
    let period = typeof accountId === 'string' ? await direct.reserveIfRoom(hold, now) : undefined;
    if (period === undefined) {
      // A lease ran out, the period is over, or no room. usage() sweeps and rolls what it must; then no room is the
      // answer, else the same operation again.
      const usage = await this.usage(accountId, now);
      if (exceedsAllowance(usage, wanted.cu)) return err({ usage });
      period = await direct.reserveIfRoom(hold, now);
    }
    // The hold is committed: nothing is read after it, so no failure can leave it without a reservation to end it.
    if (period !== undefined) return held(period);
    // Otherwise (a lease or the period ran out since), under the account's lock: holds swept, the period rolled, then
    // the same operation decides.
    return this.#storage.transaction(async (rows): Promise<ReserveResult> => {
      const account = await knownAccount(rows, accountId, true);
      await rows.sweep(account.id, now);
      const current = await currentPeriod(rows, account, now);
      const taken = await rows.reserveIfRoom(hold, now);
      if (taken === undefined) return err({ usage: await usageOf(rows, account, current.periodStart) });
      return held(taken);
    });
  }

  async settle(reservation: Reservation, request: RequestRecord, now: Date): Promise<SettleResult> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, held.cu);
    // Usually one atomic operation: the hold, still under its lease, ends and the request is logged; its CU stay.
    if (await this.#storage.rows.endHold(held, record, now.toISOString(), false)) return ok(undefined);
    return this.#storage.transaction(async (rows): Promise<SettleResult> => {
      const account = await knownAccount(rows, held.accountId, true);
      const hold = await endingHold(rows, held);
      // The lease ran out and the CU went back: take them again, if the period still has room.
      if (hold.swept && !(await rows.takeIfRoom(hold, account.cuLimit)))
        return err({ usage: await usageOf(rows, account, (await currentPeriod(rows, account, now)).periodStart) });
      await rows.deleteHold(hold.id);
      await rows.logRequest(account.id, held.periodStart, record, now.toISOString());
      return ok(undefined);
    });
  }

  async release(reservation: Reservation, request: RequestRecord, now: Date): Promise<void> {
    requireDate('now', now);
    const held = normalizeReservation(reservation);
    const record = normalizeRequest(request, held, 0);
    // Usually one atomic operation: the hold ends, its CU go back and the request is logged.
    if (await this.#storage.rows.endHold(held, record, now.toISOString(), true)) return;
    await this.#storage.transaction(async (rows) => {
      const account = await knownAccount(rows, held.accountId, true);
      const hold = await endingHold(rows, held);
      if (!hold.swept) await rows.giveBack(hold); // a swept hold's CU went back then
      await rows.deleteHold(hold.id);
      await rows.logRequest(account.id, held.periodStart, record, now.toISOString());
    });
  }

  async sweepExpiredHolds(now: Date): Promise<number> {
    requireDate('now', now);
    const direct = this.#storage.rows;
    let swept = 0;
    for (const accountId of await direct.accountsWithExpiredHolds(now)) swept += await direct.sweep(accountId, now);
    return swept;
  }

  async pruneRequests(before: Date): Promise<number> {
    requireDate('before', before);
    const direct = this.#storage.rows;
    const cutoff = before.toISOString();
    await direct.pruneSweptHolds(cutoff);
    let pruned = 0;
    for (;;) {
      const n = await direct.pruneRequests(cutoff, PRUNE_BATCH_ROWS);
      pruned += n;
      if (n < PRUNE_BATCH_ROWS) return pruned;
    }
  }

  async addCu(accountId: string, cu: number, now: Date): Promise<Usage> {
    requireDate('now', now);
    requireCount('cu', cu, 1);
    return this.#storage.transaction(async (rows) => {
      const account = await knownAccount(rows, accountId, true);
      const period = await currentPeriod(rows, account, now);
      await rows.addExtra(account.id, period.periodStart, cu);
      return usageOf(rows, account, period.periodStart);
    });
  }

  async takeRateToken(accountId: string, limitRps: number, nowMs: number): Promise<RateToken> {
    requireCount('limitRps', limitRps, 1);
    requireTimeMs('nowMs', nowMs);
    const counted =
      typeof accountId === 'string' ? await this.#storage.rows.countRateRequest(accountId, nowMs) : undefined;
    if (counted === undefined) throw accountNotFound(accountId);
    return rateDecision(counted.window, limitRps, counted.nowMs);
  }

  async ping(): Promise<void> {
    await this.#storage.ping();
  }

  async close(): Promise<void> {
    await this.#storage.close();
  }
}
