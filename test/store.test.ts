import { spawn } from 'node:child_process';
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LoggedRequest, MemoryStore } from '../packages/service/src/store/memory-store.js';
import {
  addCalendarMonths,
  billingPeriodAt,
  cuAllowance,
  periodIndexAt,
} from '../packages/service/src/store/periods.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../packages/service/src/store/sqlite/migrations.js';
import { SqliteStore } from '../packages/service/src/store/sqlite/sqlite-store.js';
import { DEFAULT_RESERVATION_LEASE_MS } from '../packages/service/src/store/leases.js';
import { PostgresStore } from '../packages/service/src/store/postgres/postgres-store.js';
import pg from 'pg';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import {
  type AccountInput,
  DEFAULT_REQUEST_RETENTION_DAYS,
  type RequestRecord,
  type Reservation,
  type Store,
  type Usage,
} from '../packages/service/src/store/store.js';
import { StoreError } from '../packages/service/src/store/store-error.js';
import { runs } from './helpers/runs.js';

// Count the digest comparisons authentication makes (the real function still runs).
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const at = (iso: string) => new Date(iso);
const T0 = at('2024-01-31T10:00:00.000Z');
const DAY_MS = 86_400_000;
const ACME: AccountInput = { id: 'acme', name: 'Acme', plan: 'self-hosted', cuLimit: 1000, rateLimitRps: 3 };
const request = (endpoint: string, cu: number, requestId = 'req', status = 200): RequestRecord => ({
  requestId,
  endpoint,
  status,
  cu,
});

/** What a 2xx answer costs: reserve, then settle. Returns the usage with the CU charged. */
async function charge(store: Store, accountId: string, cu: number, record: RequestRecord, now: Date): Promise<Usage> {
  const held = await store.reserve(accountId, record.endpoint, cu, now);
  if (!held.ok) throw new Error(`reserve of ${cu} CU refused at ${held.error.usage.cuUsed} CU used`);
  await store.settle(held.value.reservation, record, now);
  return store.usage(accountId, now);
}

/** Reserves and expects the CU to be granted. */
async function hold(store: Store, accountId: string, endpoint: string, cu: number, now: Date): Promise<Reservation> {
  const held = await store.reserve(accountId, endpoint, cu, now);
  if (!held.ok) throw new Error(`reserve of ${cu} CU refused at ${held.error.usage.cuUsed} CU used`);
  return held.value.reservation;
}

/** The request log of an SQLite file, oldest first, as MemoryStore.requests() lists it. */
function loggedInFile(file: string): LoggedRequest[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[], LoggedRequest>(
        'SELECT request_id AS requestId, account_id AS accountId, endpoint, status, cu, period_start AS periodStart, at FROM requests ORDER BY seq',
      )
      .all();
  } finally {
    db.close();
  }
}

/** One move of a request against a store: take CU, end a request in progress, or let time pass. */
type Step =
  | { kind: 'reserve'; by: number; endpoint: string; cu: number }
  | { kind: 'settle' | 'release'; by: number; pick: number }
  | { kind: 'wait'; ms: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('reserve' as const),
    by: fc.integer({ min: 0, max: 1 }),
    endpoint: fc.constantFrom('e', 'f'),
    cu: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({
    kind: fc.constantFrom('settle' as const, 'release' as const),
    by: fc.integer({ min: 0, max: 1 }),
    pick: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('wait' as const),
    // Within a lease (120 s by default) or past it, and across periods.
    ms: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 0, max: 20 * DAY_MS })),
  }),
);

/** CU of `reservations` summed by `key`. */
function sumBy(reservations: Reservation[], key: (r: Reservation) => string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const r of reservations) sums[key(r)] = (sums[key(r)] ?? 0) + r.cu;
  return sums;
}

/**
 * Property: random interleavings of reserve/settle/release on two handles of one store (cu_limit
 * 20, periods rolling and leases running out in between). After every step the current period holds
 * exactly the CU settled or held (lease not run out) in it and never more than its allowance, and a
 * reserve is refused exactly when it would exceed the allowance. A settle after the lease ran out
 * charges again when the period has room and is refused (then released) otherwise. When all requests
 * have ended, `totalsInStore` (if given: CU used and logged per period, as stored) equals what was
 * settled, period by period. Every store keeps each period's usage, so a late settle into an earlier
 * period finds that period's own room.
 */
async function checkInterleavings(
  stores: [Store, Store],
  totalsInStore?: (accountId: string) => { used: Record<string, number>; logged: Record<string, number> },
): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(stepArbitrary, { maxLength: 40 }), async (steps) => {
      const id = `race-${run++}`;
      await stores[0].createAccount({ ...ACME, id, cuLimit: 20 }, T0);
      let now = T0;
      const held: Reservation[] = [];
      const swept = new Set<Reservation>();
      const settled: Reservation[] = [];
      const inPeriod = (reservations: Reservation[], periodStart: string) =>
        reservations.filter((r) => r.periodStart === periodStart);
      const holding = () => held.filter((r) => !swept.has(r));
      const taken = (periodStart: string) => inPeriod([...settled, ...holding()], periodStart);
      const expectUsage = async () => {
        const usage = await stores[0].usage(id, now); // sweeps the holds whose lease ran out
        for (const r of held) if (Date.parse(r.expiresAt) <= now.getTime()) swept.add(r);
        const charged = sumBy(inPeriod(settled, usage.periodStart), (r) => r.endpoint);
        expect(usage.cuByEndpoint).toEqual(charged);
        expect(usage.cuUsed).toBe(Object.values(charged).reduce((a, b) => a + b, 0));
        expect(usage.cuHeld).toBe(sumBy(inPeriod(holding(), usage.periodStart), () => 'all').all ?? 0);
        expect(usage.cuUsed + usage.cuHeld).toBeLessThanOrEqual(cuAllowance(usage));
        return usage;
      };
      const end = async (by: number, kind: 'settle' | 'release', reservation: Reservation) => {
        const requestId = `${id}-${settled.length}-${held.length}`;
        if (kind === 'settle') {
          const result = await stores[by]!.settle(
            reservation,
            request(reservation.endpoint, reservation.cu, requestId),
            now,
          );
          const room =
            !swept.has(reservation) ||
            (sumBy(taken(reservation.periodStart), () => 'all').all ?? 0) + reservation.cu <= 20;
          expect(result.ok).toBe(room);
          if (result.ok) settled.push(reservation);
          else await stores[by]!.release(reservation, request(reservation.endpoint, 0, requestId, 429), now);
        } else {
          await stores[by]!.release(reservation, request(reservation.endpoint, 0, requestId, 500), now);
        }
      };
      for (const step of steps) {
        if (step.kind === 'wait') {
          now = new Date(now.getTime() + step.ms);
        } else if (step.kind === 'reserve') {
          const before = await expectUsage();
          const result = await stores[step.by]!.reserve(id, step.endpoint, step.cu, now);
          expect(result.ok).toBe(before.cuUsed + before.cuHeld + step.cu <= cuAllowance(before));
          if (result.ok) held.push(result.value.reservation);
        } else if (held.length > 0) {
          await end(step.by, step.kind, held.splice(step.pick % held.length, 1)[0]!);
        }
        await expectUsage();
      }
      // One at a time: those still held count in the room a late settle finds.
      for (let i = 0; held.length > 0; i++) await end(i % 2, i % 2 === 0 ? 'settle' : 'release', held.shift()!);
      await expectUsage();
      const byPeriod = sumBy(settled, (r) => r.periodStart);
      if (totalsInStore !== undefined) expect(totalsInStore(id)).toEqual({ used: byPeriod, logged: byPeriod });
    }),
    { numRuns: runs(100) },
  );
}

/** Runs `fn` and returns the StoreError it throws. */
async function storeError(fn: () => unknown): Promise<StoreError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

/** The calendar step after `start` for an anchor on day `anchorDay`, computed independently. */
function nextStep(start: Date, anchorDay: number): Date {
  const year = start.getUTCFullYear() + (start.getUTCMonth() === 11 ? 1 : 0);
  const month = (start.getUTCMonth() + 1) % 12;
  const monthLength = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchorDay, monthLength),
      start.getUTCHours(),
      start.getUTCMinutes(),
      start.getUTCSeconds(),
      start.getUTCMilliseconds(),
    ),
  );
}

interface Harness {
  /** The store under test (fresh for each test). */
  store: Store;
  /** Closes and opens the store again; the same data for SQLite. */
  reopen?: () => Promise<Store>;
  file?: string;
  /** The request log, oldest first. */
  logged: () => LoggedRequest[] | Promise<LoggedRequest[]>;
  cleanup: () => void | Promise<void>;
}

/** The PostgreSQL database of this file's PostgresStore tests, made at the first one. */
let database: Promise<FreshDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

/** The tables of the store, children first, emptied before each test. */
const PG_TABLES = ['holds', 'requests', 'rate_windows', 'endpoint_usage', 'usage_periods', 'api_keys', 'accounts'];

/** A PostgresStore on this file's database (the caller's clock for rate windows, as the other stores). */
async function openPostgres(): Promise<PostgresStore> {
  database ??= freshDatabase();
  return new PostgresStore({
    databaseUrl: (await database).url,
    poolSize: 4,
    statementTimeoutMs: 10_000,
    connectTimeoutMs: 5_000,
    rateClock: 'caller',
  });
}

const IMPLEMENTATIONS: { name: string; open: () => Harness | Promise<Harness> }[] = [
  {
    name: 'MemoryStore',
    open: () => {
      const store = new MemoryStore();
      return { store, logged: () => store.requests(), cleanup: () => {} };
    },
  },
  {
    name: 'SqliteStore',
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'evmi-store-'));
      const file = join(dir, 'nested', 'evm-integrity.sqlite');
      const opened: Store[] = [];
      const open = () => {
        const store = new SqliteStore(file);
        opened.push(store);
        return store;
      };
      const harness: Harness = {
        store: open(),
        file,
        reopen: async () => {
          await harness.store.close();
          harness.store = open();
          return harness.store;
        },
        logged: () => loggedInFile(file),
        cleanup: async () => {
          for (const store of opened) await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
      return harness;
    },
  },
  {
    name: 'PostgresStore',
    open: async () => {
      const store = await openPostgres();
      await store.ping(); // migrates a new database
      const sql = new pg.Client({ connectionString: (await database!).url });
      await sql.connect();
      await sql.query(`TRUNCATE ${PG_TABLES.join(', ')}`);
      return {
        store,
        logged: async () =>
          (
            await sql.query<LoggedRequest>(
              'SELECT request_id AS "requestId", account_id AS "accountId", endpoint, status, cu::integer AS cu, period_start AS "periodStart", at FROM requests ORDER BY seq',
            )
          ).rows,
        cleanup: async () => {
          await store.close();
          await sql.end();
        },
      };
    },
  },
];

describe.each(IMPLEMENTATIONS)('$name', ({ open }) => {
  let h: Harness;
  let store: Store;
  beforeEach(async () => {
    h = await open();
    store = h.store;
  });
  afterEach(() => h.cleanup());

  describe('accounts', () => {
    it('creates an account whose first period starts at creation', async () => {
      const account = await store.createAccount(
        { ...ACME, entitlements: { endpoints: ['verify/receipt-root'], chains: [1, 10] } },
        T0,
      );
      expect(account).toEqual({
        id: 'acme',
        name: 'Acme',
        plan: 'self-hosted',
        cuLimit: 1000,
        rateLimitRps: 3,
        entitlements: { endpoints: ['verify/receipt-root'], chains: [1, 10] },
        periodAnchor: T0.toISOString(),
        createdAt: T0.toISOString(),
      });
      expect(await store.getAccount('acme')).toEqual(account);
      expect(await store.getAccount('nobody')).toBeUndefined();
      expect(await store.usage('acme', T0)).toMatchObject({
        periodStart: '2024-01-31T10:00:00.000Z',
        periodEnd: '2024-02-29T10:00:00.000Z',
        cuUsed: 0,
        cuExtra: 0,
        cuLimit: 1000,
      });
    });

    it('derives an id from the name when none is given, and refuses a taken id', async () => {
      const input = { name: 'Acme Corp.', plan: 'p', cuLimit: 1, rateLimitRps: 1 };
      expect((await store.createAccount(input, T0)).id).toBe('acme-corp');
      expect((await store.createAccount(input, T0)).id).toBe('acme-corp-2');
      expect((await store.createAccount({ ...input, name: '!!!' }, T0)).id).toBe('account');
      const error = await storeError(() => store.createAccount({ ...input, id: 'acme-corp' }, T0));
      expect(error.code).toBe('STORE_CONFLICT');
      expect(error.message).toBe('account acme-corp already exists');
      expect((await store.listAccounts()).map((a) => a.id)).toEqual(['acme-corp', 'acme-corp-2', 'account']);
    });

    it('validates every field, naming it', async () => {
      const cases: [Partial<AccountInput>, string][] = [
        [{ name: '' }, 'name'],
        [{ name: '   ' }, 'name'],
        [{ plan: '' }, 'plan'],
        [{ cuLimit: -1 }, 'cuLimit'],
        [{ cuLimit: 1.5 }, 'cuLimit'],
        [{ cuLimit: Number.NaN }, 'cuLimit'],
        [{ rateLimitRps: 0 }, 'rateLimitRps'],
        [{ rateLimitRps: 2.5 }, 'rateLimitRps'],
        [{ id: 'has space' }, 'id'],
        [{ id: '' }, 'id'],
        [{ entitlements: { chains: [0] } }, 'entitlements.chains[0]'],
        [{ entitlements: { endpoints: [''] } }, 'entitlements.endpoints[0]'],
      ];
      for (const [change, field] of cases) {
        const error = await storeError(() => store.createAccount({ ...ACME, ...change }, T0));
        expect(error.code, field).toBe('STORE_INVALID');
        expect(error.details.field).toBe(field);
        expect(error.message.startsWith(`${field} must be`), error.message).toBe(true);
      }
      expect(await store.listAccounts()).toEqual([]);
    });

    it('upserts: creates, then updates limits but keeps the period anchor', async () => {
      const created = await store.upsertAccount({ ...ACME, id: 'acme' }, T0);
      const later = at('2024-03-05T00:00:00.000Z');
      const updated = await store.upsertAccount(
        { ...ACME, id: 'acme', name: 'Acme 2', cuLimit: 50, entitlements: { chains: [1] } },
        later,
      );
      expect(updated).toEqual({ ...created, name: 'Acme 2', cuLimit: 50, entitlements: { chains: [1] } });
      expect((await store.upsertAccount({ ...ACME, id: 'acme' }, later)).entitlements).toBeNull();
      expect(await store.listAccounts()).toHaveLength(1);
    });
  });

  describe('keys', () => {
    beforeEach(async () => {
      await store.createAccount(ACME, T0);
    });

    it('creates a key shown once, stored as its SHA-256 with an 8-character hint', async () => {
      const { key, record } = await store.createKey('acme', 'ci', T0);
      expect(key).toMatch(/^evmi_[A-Za-z0-9_-]{43}$/);
      expect(record).toEqual({
        id: record.id,
        accountId: 'acme',
        label: 'ci',
        hash: sha256(key),
        hint: key.slice(0, 8),
        createdAt: T0.toISOString(),
        revokedAt: null,
      });
      expect(await store.listKeys()).toEqual([record]);
      expect(await store.listKeys('acme')).toEqual([record]);
      expect(JSON.stringify(await store.listKeys())).not.toContain(key);
      expect((await store.createKey('acme', 'ci', T0)).key).not.toBe(key);
    });

    it('authenticates an active key, then reports it revoked', async () => {
      const { key, record } = await store.createKey('acme', 'ci', T0);
      const result = await store.authenticate(key);
      expect(result).toEqual({ status: 'active', key: record, account: await store.getAccount('acme') });
      const revokedAt = at('2024-02-01T00:00:00.000Z');
      expect(await store.revokeKey(record.id, revokedAt)).toEqual({ ...record, revokedAt: revokedAt.toISOString() });
      expect(await store.authenticate(key)).toEqual({
        status: 'revoked',
        key: { ...record, revokedAt: revokedAt.toISOString() },
      });
      // Revoking again changes nothing.
      expect((await store.revokeKey(record.id, at('2024-03-01T00:00:00.000Z'))).revokedAt).toBe(
        revokedAt.toISOString(),
      );
    });

    it('revokes by hint, and asks for the id when a hint is ambiguous', async () => {
      const { key, record } = await store.createKey('acme', 'ci', T0);
      expect((await store.revokeKey(record.hint, T0)).id).toBe(record.id);
      expect((await store.authenticate(key)).status).toBe('revoked');
      const a = await store.importKey('acme', 'a', { plain: 'shared-prefix-AAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, T0);
      const b = await store.importKey('acme', 'b', { plain: 'shared-prefix-BBBBBBBBBBBBBBBBBBBBBBBBBBBB' }, T0);
      expect(a.hint).toBe('shared-p');
      const error = await storeError(() => store.revokeKey('shared-p', T0));
      expect(error.code).toBe('STORE_CONFLICT');
      expect(error.message).toBe(`hint shared-p matches 2 keys (${a.id}, ${b.id}); revoke by key id`);
      await store.revokeKey(a.id, T0);
      expect((await store.revokeKey('shared-p', T0)).id).toBe(b.id); // the one still active
      const missing = await storeError(() => store.revokeKey('evmi_nope', T0));
      expect(missing.code).toBe('STORE_NOT_FOUND');
      expect(missing.message).toBe('no key with id or hint "evmi_nope" (evm-integrity keys list shows them)');
      expect((await storeError(() => store.revokeKey('', T0))).code).toBe('STORE_INVALID');
    });

    it('refuses a 6th active key, and allows one again after a revocation', async () => {
      const records = [];
      for (let i = 0; i < 5; i++) records.push((await store.createKey('acme', `k${i}`, T0)).record);
      const error = await storeError(() => store.createKey('acme', 'sixth', T0));
      expect(error.code).toBe('STORE_KEY_LIMIT');
      expect(error.message).toBe(
        'account acme already has 5 active keys; revoke one first (evm-integrity keys revoke ID)',
      );
      expect(
        (await storeError(() => store.importKey('acme', 'sixth', { plain: 'another-key-that-is-long-enough-000' }, T0)))
          .code,
      ).toBe('STORE_KEY_LIMIT');
      await store.revokeKey(records[0]!.id, T0);
      expect((await store.createKey('acme', 'sixth', T0)).record.label).toBe('sixth');
      expect(await store.listKeys('acme')).toHaveLength(6);
      expect((await storeError(() => store.createKey('acme', 'seventh', T0))).code).toBe('STORE_KEY_LIMIT');
      // Another account has its own five.
      await store.createAccount({ ...ACME, id: 'other' }, T0);
      expect((await store.createKey('other', 'x', T0)).record.accountId).toBe('other');
    });

    it('validates the account and the label', async () => {
      const error = await storeError(() => store.createKey('nobody', 'x', T0));
      expect(error.code).toBe('STORE_NOT_FOUND');
      expect(error.message).toBe('no account "nobody" (evm-integrity accounts list shows the accounts)');
      expect(await storeError(() => store.createKey('acme', '', T0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'label' },
      });
      expect((await storeError(() => store.listKeys('nobody'))).code).toBe('STORE_NOT_FOUND');
    });

    it('imports keys by plain value or hash, idempotently', async () => {
      const plain = 'config-key-0123456789abcdefghijklmnop';
      const first = await store.importKey('acme', 'from config', { plain }, T0);
      expect(first).toMatchObject({ hash: sha256(plain), hint: 'config-k', label: 'from config', revokedAt: null });
      expect(await store.importKey('acme', 'again', { plain }, T0)).toEqual(first);
      expect(await store.importKey('acme', 'by hash', { sha256: sha256(plain).toUpperCase() }, T0)).toEqual(first);
      const hashed = await store.importKey('acme', 'hash only', { sha256: sha256('secret-from-a-vault') }, T0);
      expect(hashed.hint).toBe('');
      expect(await store.authenticate('secret-from-a-vault')).toMatchObject({
        status: 'active',
        key: { id: hashed.id },
      });
      expect(await store.authenticate(plain)).toMatchObject({ status: 'active', key: { id: first.id } });
      expect((await store.importKey('acme', 'short', { plain: 'dev' }, T0)).hint).toBe(''); // 8 characters would give too much away
      await store.createAccount({ ...ACME, id: 'other' }, T0);
      const conflict = await storeError(() => store.importKey('other', 'x', { plain }, T0));
      expect(conflict.code).toBe('STORE_CONFLICT');
      expect(conflict.message).toBe(`that key is already registered to account acme (as ${first.id})`);
      expect(await storeError(() => store.importKey('acme', 'x', { sha256: 'abc' }, T0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'sha256' },
      });
      expect(await storeError(() => store.importKey('acme', 'x', { plain: 'has space' }, T0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'key' },
      });
      expect(await storeError(() => store.importKey('acme', 'x', { plain: '' }, T0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'key' },
      });
    });

    it('answers every unknown key alike, after one digest comparison as for a known key', async () => {
      const { key, record } = await store.createKey('acme', 'ci', T0);
      const compare = vi.mocked(timingSafeEqual);
      const unknown = [
        '',
        'evmi_',
        key.slice(0, -1),
        `${key}x`,
        key.toUpperCase(),
        record.hash,
        'x'.repeat(10_000),
        'evmi_' + 'A'.repeat(43),
      ];
      for (const candidate of unknown) {
        compare.mockClear();
        expect(await store.authenticate(candidate)).toEqual({ status: 'unknown' });
        expect(compare).toHaveBeenCalledTimes(1);
      }
      compare.mockClear();
      expect((await store.authenticate(key)).status).toBe('active');
      expect(compare).toHaveBeenCalledTimes(1);
    });
  });

  describe('disabling and deleting an account', () => {
    beforeEach(async () => {
      await store.createAccount(ACME, T0);
      await store.createAccount({ ...ACME, id: 'other', name: 'Other' }, T0);
    });

    it('revokeAccountKeys revokes every active key of the account at once, none of another; a second call revokes none', async () => {
      const first = await store.createKey('acme', 'a', T0);
      const second = await store.createKey('acme', 'b', T0);
      const already = await store.revokeKey((await store.createKey('acme', 'c', T0)).record.id, T0);
      const other = await store.createKey('other', 'o', T0);
      const later = at('2024-02-01T00:00:00.000Z');
      const revoked = await store.revokeAccountKeys('acme', later);
      expect(revoked.map((k) => k.id).sort()).toEqual([first.record.id, second.record.id].sort());
      expect(revoked.every((k) => k.revokedAt === later.toISOString())).toBe(true);
      expect(await store.authenticate(first.key)).toMatchObject({ status: 'revoked' });
      expect(await store.authenticate(second.key)).toMatchObject({ status: 'revoked' });
      expect((await store.listKeys('acme')).find((k) => k.id === already.id)!.revokedAt).toBe(T0.toISOString());
      expect(await store.authenticate(other.key)).toMatchObject({ status: 'active' });
      expect(await store.revokeAccountKeys('acme', later)).toEqual([]);
      expect((await storeError(() => store.revokeAccountKeys('nobody', later))).code).toBe('STORE_NOT_FOUND');
    });

    it('deleteAccount removes the account, its keys, usage and request log; other accounts keep theirs', async () => {
      const key = await store.createKey('acme', 'a', T0);
      await store.createKey('acme', 'b', T0);
      const otherKey = await store.createKey('other', 'o', T0);
      await charge(store, 'acme', 5, request('verify/receipt-root', 5, 'r1'), T0);
      await charge(store, 'other', 7, request('verify/receipt-root', 7, 'r2'), T0);
      await store.takeRateToken('acme', 3, T0.getTime());
      expect(await store.deleteAccount('acme')).toEqual({ keys: 2, requests: 1 });
      expect(await store.getAccount('acme')).toBeUndefined();
      expect((await store.listAccounts()).map((a) => a.id)).toEqual(['other']);
      expect(await store.authenticate(key.key)).toEqual({ status: 'unknown' });
      expect((await store.listKeys()).map((k) => k.accountId)).toEqual(['other']);
      expect(await store.authenticate(otherKey.key)).toMatchObject({ status: 'active' });
      expect((await store.usage('other', T0)).cuUsed).toBe(7);
      expect((await storeError(() => store.usage('acme', T0))).code).toBe('STORE_NOT_FOUND');
      expect((await storeError(() => store.deleteAccount('acme'))).code).toBe('STORE_NOT_FOUND');
      // The id is free again: a new account under it starts afresh.
      await store.createAccount(ACME, at('2024-02-10T00:00:00.000Z'));
      expect(await store.usage('acme', at('2024-02-10T00:00:00.000Z'))).toMatchObject({ cuUsed: 0, cuByEndpoint: {} });
      expect(await store.listKeys('acme')).toEqual([]);
    });
  });

  describe('usage, reservations and charges', () => {
    beforeEach(async () => {
      await store.createAccount(ACME, T0);
    });

    it('adds each settled charge to the period and to its endpoint', async () => {
      const t = at('2024-02-10T00:00:00.000Z');
      await charge(store, 'acme', 1, request('verify/receipt-root', 1, 'r1'), t);
      await charge(store, 'acme', 1, request('verify/receipt-root', 1, 'r2'), t);
      const usage = await charge(store, 'acme', 3, request('verify/logs-bloom', 3, 'r3'), t);
      expect(usage).toEqual({
        accountId: 'acme',
        periodStart: '2024-01-31T10:00:00.000Z',
        periodEnd: '2024-02-29T10:00:00.000Z',
        cuLimit: 1000,
        cuExtra: 0,
        cuUsed: 5,
        cuHeld: 0,
        cuByEndpoint: { 'verify/logs-bloom': 3, 'verify/receipt-root': 2 },
      });
      expect(await store.usage('acme', t)).toEqual(usage);
      expect((await charge(store, 'acme', 0, request('verify/logs-bloom', 0), t)).cuUsed).toBe(5);
      expect((await h.logged()).map((r) => [r.requestId, r.endpoint, r.status, r.cu, r.periodStart, r.at])).toEqual([
        ['r1', 'verify/receipt-root', 200, 1, usage.periodStart, t.toISOString()],
        ['r2', 'verify/receipt-root', 200, 1, usage.periodStart, t.toISOString()],
        ['r3', 'verify/logs-bloom', 200, 3, usage.periodStart, t.toISOString()],
        ['req', 'verify/logs-bloom', 200, 0, usage.periodStart, t.toISOString()],
      ]);
    });

    it('refuses a reservation over the allowance, counting the CU held by requests in progress', async () => {
      await store.upsertAccount({ ...ACME, id: 'acme', cuLimit: 20 }, T0);
      const t = at('2024-02-10T00:00:00.000Z');
      const first = await store.reserve('acme', 'e', 15, t);
      expect(first).toMatchObject({
        ok: true,
        value: {
          reservation: { accountId: 'acme', endpoint: 'e', cu: 15, periodStart: '2024-01-31T10:00:00.000Z' },
        },
      });
      expect(await store.usage('acme', t)).toMatchObject({ cuUsed: 0, cuHeld: 15 });
      // Held, not yet settled: already counted, apart from the CU charged.
      expect(await store.reserve('acme', 'e', 6, t)).toEqual({
        ok: false,
        error: { usage: await store.usage('acme', t) },
      });
      expect(await store.usage('acme', t)).toMatchObject({ cuUsed: 0, cuHeld: 15, cuByEndpoint: {} });
      expect((await store.reserve('acme', 'e', 5, t)).ok).toBe(true); // exactly the allowance
      expect(await store.usage('acme', t)).toMatchObject({ cuUsed: 0, cuHeld: 20 });
      expect((await store.reserve('acme', 'e', 0, t)).ok).toBe(true);
      expect((await store.reserve('acme', 'e', 1, t)).ok).toBe(false);
      await store.addCu('acme', 1, t);
      expect((await store.reserve('acme', 'e', 1, t)).ok).toBe(true);
      expect(await store.usage('acme', t)).toMatchObject({ cuUsed: 0, cuHeld: 21, cuExtra: 1 });
      expect(await h.logged()).toEqual([]); // a reservation alone logs nothing
    });

    it('release gives the held CU back (total and per endpoint) and logs the request with cu 0', async () => {
      const t = at('2024-02-10T00:00:00.000Z');
      await charge(store, 'acme', 5, request('verify/receipt-root', 5, 'ok'), t);
      const before = await store.usage('acme', t);
      const failed = await hold(store, 'acme', 'verify/receipt-root', 3, t);
      const left = await hold(store, 'acme', 'verify/logs-bloom', 2, t);
      expect(await store.usage('acme', t)).toMatchObject({
        cuUsed: 5,
        cuHeld: 5,
        cuByEndpoint: { 'verify/receipt-root': 5 },
      });
      await store.release(failed, request('verify/receipt-root', 0, 'bad', 400), t);
      await store.release(left, request('verify/logs-bloom', 0, 'gone', 499), t);
      expect(await store.usage('acme', t)).toEqual(before);
      expect((await h.logged()).map((r) => [r.requestId, r.endpoint, r.status, r.cu])).toEqual([
        ['ok', 'verify/receipt-root', 200, 5],
        ['bad', 'verify/receipt-root', 400, 0],
        ['gone', 'verify/logs-bloom', 499, 0],
      ]);
    });

    it('a period roll between reserve and the end of the request: the CU stay with, or go back to, the period they were taken from', async () => {
      await store.upsertAccount({ ...ACME, id: 'acme', cuLimit: 20 }, T0);
      const late = at('2024-02-29T09:59:59.000Z');
      const next = at('2024-02-29T10:00:01.000Z');
      const failed = await hold(store, 'acme', 'e', 20, late);
      const served = await hold(store, 'acme', 'f', 0, late);
      const fresh = await hold(store, 'acme', 'e', 12, next); // the new period starts with all 20
      expect(fresh.periodStart).toBe('2024-02-29T10:00:00.000Z');
      await store.release(failed, request('e', 0, 'failed', 500), next);
      await store.settle(served, request('f', 0, 'served'), next);
      expect(await store.usage('acme', next)).toMatchObject({
        periodStart: fresh.periodStart,
        cuUsed: 0,
        cuHeld: 12,
        cuByEndpoint: {},
      });
      expect((await store.reserve('acme', 'e', 9, next)).ok).toBe(false); // not credited with the old period's CU
      await store.release(fresh, request('e', 0, 'fresh', 502), next);
      expect(await store.usage('acme', next)).toMatchObject({ cuUsed: 0, cuHeld: 0, cuByEndpoint: {} });
      expect((await h.logged()).map((r) => [r.requestId, r.periodStart])).toEqual([
        ['failed', '2024-01-31T10:00:00.000Z'],
        ['served', '2024-01-31T10:00:00.000Z'],
        ['fresh', '2024-02-29T10:00:00.000Z'],
      ]);
    });

    it('validates reservations and the requests that end them, naming the field', async () => {
      const t = at('2024-02-10T00:00:00.000Z');
      expect(await storeError(() => store.reserve('acme', 'e', -1, t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'cu' },
      });
      expect(await storeError(() => store.reserve('acme', 'e', 1.5, t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'cu' },
      });
      expect(await storeError(() => store.reserve('acme', '', 1, t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'endpoint' },
      });
      expect(await storeError(() => store.reserve('acme', 'e', 1, new Date(Number.NaN)))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'now' },
      });
      expect((await storeError(() => store.reserve('nobody', 'e', 1, t))).code).toBe('STORE_NOT_FOUND');
      expect((await storeError(() => store.usage('nobody', t))).code).toBe('STORE_NOT_FOUND');
      const held = await hold(store, 'acme', 'e', 2, t);
      expect(await storeError(() => store.settle(held, request('e', 1), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'request.cu' },
        message: 'request.cu must equal the cu charged (2), got 1',
      });
      expect(await storeError(() => store.release(held, request('e', 2), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'request.cu' },
        message: 'request.cu must equal the cu charged (0), got 2',
      });
      expect(await storeError(() => store.settle(held, request('f', 2), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'request.endpoint' },
        message: "request.endpoint must equal the reservation's endpoint (e), got f",
      });
      expect(await storeError(() => store.settle(held, request('e', 2, 'r', 42), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'request.status' },
      });
      expect(await storeError(() => store.settle(held, request('e', 2, ''), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'request.requestId' },
      });
      expect(
        await storeError(() => store.settle({ ...held, periodStart: 'yesterday' }, request('e', 2), t)),
      ).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'reservation.periodStart' },
      });
      expect(await storeError(() => store.release({ ...held, cu: -2 }, request('e', 0), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'reservation.cu' },
      });
      expect(await storeError(() => store.release(null as unknown as Reservation, request('e', 0), t))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'reservation' },
      });
      expect((await storeError(() => store.release({ ...held, accountId: 'nobody' }, request('e', 0), t))).code).toBe(
        'STORE_NOT_FOUND',
      );
      // Nothing above changed the usage or the log.
      expect(await store.usage('acme', t)).toMatchObject({ cuUsed: 0, cuHeld: 2, cuByEndpoint: {} });
      expect(await h.logged()).toEqual([]);
    });

    it('rolls over at the end of the period, clamping the day to the month (Jan 31 → Feb 29 → Mar 31 → Apr 30)', async () => {
      await charge(store, 'acme', 7, request('e', 7), at('2024-02-29T09:59:59.999Z'));
      await store.addCu('acme', 100, at('2024-02-29T09:59:59.999Z'));
      expect(await store.usage('acme', at('2024-02-29T09:59:59.999Z'))).toMatchObject({
        cuUsed: 7,
        cuExtra: 100,
        periodEnd: '2024-02-29T10:00:00.000Z',
      });
      const next = await store.usage('acme', at('2024-02-29T10:00:00.000Z'));
      expect(next).toMatchObject({
        periodStart: '2024-02-29T10:00:00.000Z',
        periodEnd: '2024-03-31T10:00:00.000Z',
        cuUsed: 0,
        cuExtra: 0,
        cuByEndpoint: {},
      });
      expect(await charge(store, 'acme', 2, request('e', 2), at('2024-04-01T00:00:00.000Z'))).toMatchObject({
        periodStart: '2024-03-31T10:00:00.000Z',
        periodEnd: '2024-04-30T10:00:00.000Z',
        cuUsed: 2,
      });
      // Several months at once, and the day does not drift to the 29th or 30th.
      expect(await store.usage('acme', at('2024-07-15T00:00:00.000Z'))).toMatchObject({
        periodStart: '2024-06-30T10:00:00.000Z',
        periodEnd: '2024-07-31T10:00:00.000Z',
        cuUsed: 0,
      });
      expect(await store.usage('acme', at('2025-02-28T10:00:00.000Z'))).toMatchObject({
        periodStart: '2025-02-28T10:00:00.000Z',
        periodEnd: '2025-03-31T10:00:00.000Z',
      });
    });

    it('property: periodStart <= now < periodEnd, one calendar month step from the anchor', async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.date({ min: at('2000-01-01T00:00:00.000Z'), max: at('2100-01-01T00:00:00.000Z'), noInvalidDate: true }),
          fc.array(fc.integer({ min: 0, max: 200 * 24 * 3600 * 1000 }), { minLength: 1, maxLength: 8 }),
          async (anchor, steps) => {
            const id = `p${n++}`;
            await store.createAccount({ ...ACME, id }, anchor);
            let now = anchor.getTime();
            let previous: string | undefined;
            for (const step of steps) {
              now += step;
              const usage = await charge(store, id, 1, request('e', 1), new Date(now));
              const start = new Date(usage.periodStart);
              const end = new Date(usage.periodEnd);
              expect(start.getTime()).toBeLessThanOrEqual(now);
              expect(end.getTime()).toBeGreaterThan(now);
              expect(end).toEqual(nextStep(start, anchor.getUTCDate()));
              expect(start.getUTCDate()).toBe(
                Math.min(
                  anchor.getUTCDate(),
                  new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate(),
                ),
              );
              expect(start.getTime() % 1000).toBe(anchor.getTime() % 1000);
              // A charge in a new period starts counting again.
              if (usage.periodStart !== previous) expect(usage.cuUsed).toBe(1);
              previous = usage.periodStart;
            }
          },
        ),
        { numRuns: runs(60) },
      );
    });

    it('property: any interleaving of reserve/settle/release stays within the allowance and charges exactly what was settled', async () => {
      await checkInterleavings([store, store]);
    });

    describe('reservation leases', () => {
      const t = at('2024-02-10T00:00:00.000Z');
      const afterLease = (ms = 0) => new Date(t.getTime() + DEFAULT_RESERVATION_LEASE_MS + ms);
      beforeEach(async () => {
        await store.upsertAccount({ ...ACME, id: 'acme', cuLimit: 20 }, T0);
      });

      it('a hold carries an id and the end of its lease; until then its CU stay held', async () => {
        const held = await hold(store, 'acme', 'e', 5, t);
        expect(held).toMatchObject({ id: expect.stringMatching(/^hold_/), expiresAt: afterLease().toISOString() });
        expect(await store.usage('acme', afterLease(-1))).toMatchObject({ cuUsed: 0, cuHeld: 5 });
        expect(await store.sweepExpiredHolds(afterLease(-1))).toBe(0);
      });

      it('CU held past the lease go back to their period on the next usage, reserve or sweep, once', async () => {
        await hold(store, 'acme', 'e', 5, t);
        expect(await store.usage('acme', afterLease())).toMatchObject({ cuUsed: 0, cuByEndpoint: {} });
        await hold(store, 'acme', 'e', 7, t);
        expect(await store.reserve('acme', 'f', 20, afterLease())).toMatchObject({ ok: true }); // the 7 went back first
        expect(await store.sweepExpiredHolds(afterLease(DEFAULT_RESERVATION_LEASE_MS))).toBe(1); // the 20 of f
        expect(await store.sweepExpiredHolds(afterLease(DEFAULT_RESERVATION_LEASE_MS))).toBe(0);
        expect((await store.usage('acme', afterLease(DEFAULT_RESERVATION_LEASE_MS))).cuUsed).toBe(0);
        expect(await h.logged()).toEqual([]);
      });

      it('a settle after the lease ran out charges the CU again, exactly once, when the period has room', async () => {
        const held = await hold(store, 'acme', 'e', 5, t);
        expect(await store.sweepExpiredHolds(afterLease())).toBe(1);
        expect(await store.settle(held, request('e', 5, 'late'), afterLease())).toEqual({ ok: true, value: undefined });
        expect(await store.usage('acme', afterLease())).toMatchObject({ cuUsed: 5, cuByEndpoint: { e: 5 } });
        expect((await h.logged()).map((r) => [r.requestId, r.cu])).toEqual([['late', 5]]);
        expect(await storeError(() => store.settle(held, request('e', 5, 'again'), afterLease()))).toMatchObject({
          code: 'STORE_INVALID',
          details: { field: 'reservation' },
        });
        expect((await store.usage('acme', afterLease())).cuUsed).toBe(5);
      });

      it('a settle after the lease ran out is refused, changing nothing, when the period has no room; the release then gives nothing back twice', async () => {
        const held = await hold(store, 'acme', 'e', 5, t);
        await hold(store, 'acme', 'f', 16, afterLease()); // the 5 went back; 16 of 20 taken
        const refused = await store.settle(held, request('e', 5, 'late'), afterLease());
        expect(refused).toMatchObject({ ok: false, error: { usage: { cuUsed: 0, cuHeld: 16 } } });
        await store.release(held, request('e', 0, 'late', 429), afterLease());
        expect(await store.usage('acme', afterLease())).toMatchObject({ cuUsed: 0, cuHeld: 16, cuByEndpoint: {} });
        expect((await h.logged()).map((r) => [r.requestId, r.status, r.cu])).toEqual([['late', 429, 0]]);
      });

      it('a release after the lease ran out gives nothing back twice; a second release is refused', async () => {
        const held = await hold(store, 'acme', 'e', 5, t);
        await hold(store, 'acme', 'e', 3, afterLease()); // sweeps the 5
        await store.release(held, request('e', 0, 'failed', 500), afterLease());
        expect(await store.usage('acme', afterLease())).toMatchObject({ cuUsed: 0, cuHeld: 3 });
        expect(await storeError(() => store.release(held, request('e', 0, 'x', 500), afterLease()))).toMatchObject({
          code: 'STORE_INVALID',
        });
      });
    });

    it('adds CU packages to the current period only', async () => {
      const usage = await store.addCu('acme', 500, at('2024-02-01T00:00:00.000Z'));
      expect(usage).toMatchObject({ cuLimit: 1000, cuExtra: 500, cuUsed: 0 });
      expect((await store.addCu('acme', 1, at('2024-02-01T00:00:00.000Z'))).cuExtra).toBe(501);
      expect((await store.usage('acme', at('2024-03-01T00:00:00.000Z'))).cuExtra).toBe(0);
      expect(await storeError(() => store.addCu('acme', 0, T0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'cu' },
      });
      expect(await storeError(() => store.addCu('acme', -5, T0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'cu' },
      });
      expect((await storeError(() => store.addCu('nobody', 5, T0))).code).toBe('STORE_NOT_FOUND');
    });
  });

  describe('request-log retention', () => {
    it('prunes only the entries logged before the cutoff, and the usage figures stay as they were', async () => {
      await store.createAccount(ACME, T0);
      const times = [
        '2024-02-01T00:00:00.000Z',
        '2024-02-15T00:00:00.000Z',
        '2024-03-01T00:00:00.000Z',
        '2024-03-02T00:00:00.000Z',
      ].map(at);
      for (const [i, t] of times.entries())
        await charge(store, 'acme', i + 1, request('verify/receipt-root', i + 1, `r${i}`), t);
      await store.release(
        await hold(store, 'acme', 'verify/logs-bloom', 7, times[1]!),
        request('verify/logs-bloom', 0, 'failed', 500),
        times[1]!,
      );
      const now = at('2024-03-03T00:00:00.000Z');
      const usage = await store.usage('acme', now);
      const cutoff = at('2024-03-01T00:00:00.000Z');
      const kept = (await h.logged()).filter((r) => r.at >= cutoff.toISOString());
      expect(kept.map((r) => r.requestId)).toEqual(['r2', 'r3']);
      expect(await store.pruneRequests(cutoff)).toBe(3);
      expect(await h.logged()).toEqual(kept);
      expect(await store.usage('acme', now)).toEqual(usage);
      expect(await store.pruneRequests(cutoff)).toBe(0);
      expect(await storeError(() => store.pruneRequests(new Date(Number.NaN)))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'before' },
      });
    });
  });

  describe('rate tokens', () => {
    beforeEach(async () => {
      await store.createAccount(ACME, T0);
      await store.createAccount({ ...ACME, id: 'other' }, T0);
    });

    it('allows N per second, then denies with Retry-After 1 until the next second', async () => {
      const second = 1_700_000_000_000;
      const tokens = [];
      for (const ms of [0, 100, 200]) tokens.push(await store.takeRateToken('acme', 3, second + ms));
      expect(tokens).toEqual([
        { allowed: true, limit: 3, remaining: 2, count: 1, retryAfterSeconds: 0 },
        { allowed: true, limit: 3, remaining: 1, count: 2, retryAfterSeconds: 0 },
        { allowed: true, limit: 3, remaining: 0, count: 3, retryAfterSeconds: 0 },
      ]);
      expect(await store.takeRateToken('acme', 3, second + 999)).toEqual({
        allowed: false,
        limit: 3,
        remaining: 0,
        count: 4,
        retryAfterSeconds: 1,
      });
      expect(await store.takeRateToken('acme', 3, second + 500)).toEqual({
        allowed: false,
        limit: 3,
        remaining: 0,
        count: 5,
        retryAfterSeconds: 1,
      });
      // Another account has its own window.
      expect((await store.takeRateToken('other', 3, second + 999)).allowed).toBe(true);
      expect(await store.takeRateToken('acme', 3, second + 1000)).toEqual({
        allowed: true,
        limit: 3,
        remaining: 2,
        count: 1,
        retryAfterSeconds: 0,
      });
      // A request stamped a little late by a slower clock counts in the current window.
      expect((await store.takeRateToken('acme', 3, second + 999)).remaining).toBe(1);
    });

    it('validates its arguments', async () => {
      expect(await storeError(() => store.takeRateToken('acme', 0, 0))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'limitRps' },
      });
      expect(await storeError(() => store.takeRateToken('acme', 1, Number.NaN))).toMatchObject({
        code: 'STORE_INVALID',
        details: { field: 'nowMs' },
      });
      expect((await storeError(() => store.takeRateToken('nobody', 1, 0))).code).toBe('STORE_NOT_FOUND');
    });
  });
});

describe('SqliteStore on a file', () => {
  let dir: string;
  let file: string;
  const stores: SqliteStore[] = [];
  const openStore = () => {
    const store = new SqliteStore(file);
    stores.push(store);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evmi-sqlite-'));
    file = join(dir, 'data', 'evm-integrity.sqlite');
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write lock held by another process past the busy timeout is STORE_UNAVAILABLE, and the store works once it is let go', async () => {
    const store = openStore();
    await store.createAccount(ACME, T0);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      expect(await storeError(() => store.reserve('acme', 'e', 1, T0))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.reserve('acme', 'e', 1, T0)).ok).toBe(true);
  }, 20_000);

  it('keeps its files to their owner: a directory it makes 0700, the database and its WAL files 0600', async () => {
    const store = openStore();
    await store.createAccount(ACME, T0); // a write: the -wal and -shm files exist now
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(dirname(file))).toBe(0o700);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path), path).toBe(0o600);
  });

  it('narrows a store file that others can read to 0600 when it opens it, and leaves a directory it did not make', async () => {
    await openStore().createAccount(ACME, T0);
    for (const store of stores.splice(0)) await store.close();
    chmodSync(dirname(file), 0o755);
    for (const path of [file, `${file}-wal`]) if (existsSync(path)) chmodSync(path, 0o644);
    openStore();
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(file)).toBe(0o600);
    if (existsSync(`${file}-wal`)) expect(mode(`${file}-wal`)).toBe(0o600);
    expect(mode(dirname(file))).toBe(0o755);
  });

  it('creates its directory and a WAL-mode file at the current schema version', async () => {
    await openStore().close();
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    openStore(); // opening again does not migrate twice
  });

  it('refuses a file written by a newer version', async () => {
    await openStore().close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const error = await storeError(() => openStore());
    expect(error.message).toBe(
      `the store ${file} has schema version ${SCHEMA_VERSION + 1}, newer than this program's ${SCHEMA_VERSION}; upgrade evm-integrity`,
    );
  });

  it('refuses a file that is not a database, saying which', async () => {
    mkdirSync(join(dir, 'data'));
    writeFileSync(file, 'not an SQLite database\n'.repeat(100));
    expect((await storeError(() => openStore())).message).toMatch(
      new RegExp(`^cannot open the store ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
  });

  it('stores keys only as hashes: the key is nowhere in the file', async () => {
    const store = openStore();
    await store.createAccount(ACME, T0);
    const { key, record } = await store.createKey('acme', 'ci', T0);
    await store.close();
    const bytes = readFileSync(file).toString('latin1');
    expect(bytes).toContain(record.hash);
    expect(bytes).not.toContain(key);
    expect(bytes).not.toContain(key.slice(8));
    expect((await openStore().authenticate(key)).status).toBe('active');
  });

  it('keeps accounts, keys and usage across close and reopen', async () => {
    let store = openStore();
    await store.createAccount(ACME, T0);
    const { key } = await store.createKey('acme', 'ci', T0);
    await charge(store, 'acme', 4, request('verify/receipt-root', 4), at('2024-02-01T00:00:00.000Z'));
    await store.addCu('acme', 10, at('2024-02-01T00:00:00.000Z'));
    await store.close();
    store = openStore();
    expect((await store.authenticate(key)).status).toBe('active');
    expect(await store.usage('acme', at('2024-02-02T00:00:00.000Z'))).toMatchObject({
      cuUsed: 4,
      cuExtra: 10,
      cuByEndpoint: { 'verify/receipt-root': 4 },
    });
    expect(await store.usage('acme', at('2024-03-01T00:00:00.000Z'))).toMatchObject({ cuUsed: 0, cuExtra: 0 });
    await store.close();
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT request_id, account_id, endpoint, status, cu FROM requests').all()).toEqual([
        { request_id: 'req', account_id: 'acme', endpoint: 'verify/receipt-root', status: 200, cu: 4 },
      ]);
      expect(db.prepare('SELECT period_start, cu_used FROM usage_periods ORDER BY period_start').all()).toEqual([
        { period_start: '2024-01-31T10:00:00.000Z', cu_used: 4 },
        { period_start: '2024-02-29T10:00:00.000Z', cu_used: 0 },
      ]);
    } finally {
      db.close();
    }
  });

  it('two stores on one file share the rate window, the CU count and the keys', async () => {
    const a = openStore();
    const b = openStore();
    await a.createAccount(ACME, T0);
    const second = 1_700_000_000_000;
    expect((await a.takeRateToken('acme', 3, second)).remaining).toBe(2);
    expect((await b.takeRateToken('acme', 3, second + 1)).remaining).toBe(1);
    expect((await a.takeRateToken('acme', 3, second + 2)).remaining).toBe(0);
    expect(await b.takeRateToken('acme', 3, second + 3)).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      count: 4,
      retryAfterSeconds: 1,
    });
    const t = at('2024-02-01T00:00:00.000Z');
    for (let i = 0; i < 50; i++) await charge(i % 2 === 0 ? a : b, 'acme', 1, request('e', 1, `r${i}`), t);
    expect((await a.usage('acme', t)).cuUsed).toBe(50);
    expect((await b.usage('acme', t)).cuUsed).toBe(50);
    const { key, record } = await a.createKey('acme', 'ci', T0);
    expect((await b.authenticate(key)).status).toBe('active');
    await b.revokeKey(record.id, t);
    expect((await a.authenticate(key)).status).toBe('revoked');
  });

  it('migrates a version-1 file (before the requests(at) index), keeping its data', async () => {
    mkdirSync(join(dir, 'data'));
    const old = new Database(file);
    old.exec(MIGRATIONS[0]!);
    old.pragma('user_version = 1');
    old
      .prepare("INSERT INTO accounts VALUES ('acme', 'Acme', 'p', 20, 3, NULL, ?, ?)")
      .run(T0.toISOString(), T0.toISOString());
    old.prepare("INSERT INTO usage_periods VALUES ('acme', ?, '2024-02-29T10:00:00.000Z', 5, 2)").run(T0.toISOString());
    old.prepare("INSERT INTO endpoint_usage VALUES ('acme', ?, 'e', 5)").run(T0.toISOString());
    old
      .prepare(
        "INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at) VALUES ('r', 'acme', 'e', 200, 5, ?, '2024-02-01T00:00:00.000Z')",
      )
      .run(T0.toISOString());
    old.close();
    const store = openStore();
    const t = at('2024-02-10T00:00:00.000Z');
    expect(await store.usage('acme', t)).toMatchObject({ cuLimit: 20, cuExtra: 2, cuUsed: 5, cuByEndpoint: { e: 5 } });
    expect(loggedInFile(file)).toEqual([
      {
        requestId: 'r',
        accountId: 'acme',
        endpoint: 'e',
        status: 200,
        cu: 5,
        periodStart: T0.toISOString(),
        at: '2024-02-01T00:00:00.000Z',
      },
    ]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare("EXPLAIN QUERY PLAN SELECT seq FROM requests WHERE at < '2024'").all()).toEqual([
        expect.objectContaining({ detail: expect.stringContaining('USING COVERING INDEX requests_at') }),
      ]);
    } finally {
      db.close();
    }
    expect((await store.reserve('acme', 'e', 18, t)).ok).toBe(false); // 5 used of 22
    expect(await store.pruneRequests(t)).toBe(1);
  });

  it('prunes a large request log in several transactions, and only the old entries', async () => {
    const store = openStore();
    await store.createAccount(ACME, T0);
    const db = new Database(file);
    const insert = db.prepare(
      "INSERT INTO requests (request_id, account_id, endpoint, status, cu, period_start, at) VALUES (?, 'acme', 'e', 200, 1, ?, ?)",
    );
    const old = 12_345; // more than two batches
    db.transaction(() => {
      for (let i = 0; i < old; i++) insert.run(`old-${i}`, T0.toISOString(), new Date(T0.getTime() + i).toISOString());
      for (let i = 0; i < 10; i++)
        insert.run(`new-${i}`, T0.toISOString(), new Date(T0.getTime() + DAY_MS + i).toISOString());
    })();
    db.close();
    const usage = await store.usage('acme', T0);
    expect(await store.pruneRequests(new Date(T0.getTime() + DAY_MS))).toBe(old);
    expect(loggedInFile(file).map((r) => r.requestId)).toEqual(Array.from({ length: 10 }, (_, i) => `new-${i}`));
    expect(await store.usage('acme', T0)).toEqual(usage);
  });

  it('two stores on one file racing reserve() never overdraw: exactly cu_limit CU are granted', async () => {
    const a = openStore();
    const b = openStore();
    await a.createAccount({ ...ACME, cuLimit: 20 }, T0);
    const t = at('2024-02-01T00:00:00.000Z');
    const granted: Reservation[] = [];
    for (let i = 0; i < 30; i++) {
      const held = await (i % 2 === 0 ? a : b).reserve('acme', 'e', 1, t);
      if (held.ok) granted.push(held.value.reservation);
    }
    expect(granted).toHaveLength(20);
    expect(await a.usage('acme', t)).toMatchObject({ cuUsed: 0, cuHeld: 20 });
    // b gives back one that a reserved: a can take it again, once.
    await b.release(granted.pop()!, request('e', 0, 'failed', 500), t);
    expect((await a.reserve('acme', 'e', 1, t)).ok).toBe(true);
    expect((await b.reserve('acme', 'e', 1, t)).ok).toBe(false);
  });

  it('property: any interleaving of reserve/settle/release on two stores stays within the allowance and charges exactly what was settled', async () => {
    await checkInterleavings([openStore(), openStore()], (accountId) => {
      const db = new Database(file, { readonly: true });
      try {
        const used = db
          .prepare<[string], { period: string; cu: number }>(
            'SELECT period_start AS period, cu_used AS cu FROM usage_periods WHERE account_id = ? AND cu_used > 0',
          )
          .all(accountId);
        const logged = db
          .prepare<[string], { period: string; cu: number }>(
            'SELECT period_start AS period, sum(cu) AS cu FROM requests WHERE account_id = ? GROUP BY period_start HAVING sum(cu) > 0',
          )
          .all(accountId);
        return {
          used: Object.fromEntries(used.map((r) => [r.period, r.cu])),
          logged: Object.fromEntries(logged.map((r) => [r.period, r.cu])),
        };
      } finally {
        db.close();
      }
    });
  });
});

/**
 * The service's sources compiled to JavaScript in `dir`, with the project's node_modules linked
 * (the core is its build, through the workspace link), so that separate Node processes can run
 * SqliteStore on one file.
 */
function compileStoreInto(dir: string): void {
  const source = fileURLToPath(new URL('../packages/service/src/', import.meta.url));
  for (const name of readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(source, name), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name.replace(/\.ts$/, '.js')), outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  symlinkSync(fileURLToPath(new URL('../node_modules', import.meta.url)), join(dir, 'node_modules'), 'dir');
  writeFileSync(
    join(dir, 'worker.js'),
    `import { SqliteStore } from './store/sqlite/sqlite-store.js';
const [file, count, limit, nowMs, startAt] = process.argv.slice(2);
const store = new SqliteStore(file);
while (Date.now() < Number(startAt)); // start together, to contend for the file
let allowed = 0;
for (let i = 0; i < Number(count); i++) {
  const held = await store.reserve('acme', 'verify/receipt-root', 1, new Date(Number(nowMs)));
  if (held.ok) await store.settle(held.value.reservation, { requestId: process.pid + '-' + i, endpoint: 'verify/receipt-root', status: 200, cu: 1 }, new Date(Number(nowMs)));
  if ((await store.takeRateToken('acme', Number(limit), Number(nowMs))).allowed) allowed++;
}
await store.close();
process.stdout.write(JSON.stringify({ allowed }));
`,
  );
  writeFileSync(
    join(dir, 'open-worker.js'),
    `import { SqliteStore } from './store/sqlite/sqlite-store.js';
const [startAt, ...files] = process.argv.slice(2);
for (const [i, file] of files.entries()) {
  while (Date.now() < Number(startAt) + i * 200); // every process opens each new file at the same instant
  await new SqliteStore(file).close();
}
`,
  );
  writeFileSync(
    join(dir, 'reserve-worker.js'),
    `import { SqliteStore } from './store/sqlite/sqlite-store.js';
const [file, attempts, nowMs, startAt] = process.argv.slice(2);
const store = new SqliteStore(file);
const now = new Date(Number(nowMs));
while (Date.now() < Number(startAt)); // start together, to contend for the allowance
const held = [];
for (let i = 0; i < Number(attempts); i++) {
  const result = await store.reserve('acme', 'verify/receipt-root', 1, now);
  if (result.ok) held.push(result.value.reservation);
}
for (const [i, reservation] of held.entries()) await store.settle(reservation, { requestId: process.pid + '-' + i, endpoint: 'verify/receipt-root', status: 200, cu: 1 }, now);
await store.close();
process.stdout.write(JSON.stringify({ reserved: held.length }));
`,
  );
}

function runNode(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}: ${err}`))));
  });
}

describe('SqliteStore across processes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evmi-processes-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('charges and rate tokens are atomic when four processes share the file', async () => {
    compileStoreInto(dir);
    const file = join(dir, 'data', 'store.sqlite');
    const setup = new SqliteStore(file);
    const t = at('2024-02-01T00:00:00.000Z');
    await setup.createAccount(ACME, T0);
    await setup.close();
    const processes = 4;
    const perProcess = 150;
    const limit = 100;
    const startAt = Date.now() + 1500;
    const outputs = await Promise.all(
      Array.from({ length: processes }, () =>
        runNode([
          join(dir, 'worker.js'),
          file,
          String(perProcess),
          String(limit),
          String(t.getTime()),
          String(startAt),
        ]),
      ),
    );
    const allowed = outputs.map((o) => (JSON.parse(o) as { allowed: number }).allowed);
    expect(allowed.reduce((a, b) => a + b, 0)).toBe(limit); // exactly `limit` in the shared window
    const store = new SqliteStore(file);
    try {
      expect(await store.usage('acme', t)).toMatchObject({
        cuUsed: processes * perProcess,
        cuByEndpoint: { 'verify/receipt-root': processes * perProcess },
      });
      expect(await store.takeRateToken('acme', limit, t.getTime())).toMatchObject({ allowed: false, remaining: 0 });
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('SqliteStore opened by several processes at once', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evmi-open-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('four processes opening the same new file at the same instant all open it (the switch to WAL is retried while busy)', async () => {
    compileStoreInto(dir);
    const files = Array.from({ length: 8 }, (_, i) => join(dir, `data-${i}`, 'store.sqlite'));
    const startAt = Date.now() + 1500;
    await Promise.all(
      Array.from({ length: 4 }, () => runNode([join(dir, 'open-worker.js'), String(startAt), ...files])),
    );
    for (const file of files) {
      const db = new Database(file, { readonly: true });
      expect([db.pragma('journal_mode', { simple: true }), db.pragma('user_version', { simple: true })]).toEqual([
        'wal',
        SCHEMA_VERSION,
      ]);
      db.close();
    }
  }, 60_000);
});

describe('SqliteStore reservations across processes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evmi-reserve-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('four processes racing reserve() on one file with cu_limit 20 get exactly 20 CU between them', async () => {
    compileStoreInto(dir);
    const file = join(dir, 'data', 'store.sqlite');
    const setup = new SqliteStore(file);
    await setup.createAccount({ ...ACME, cuLimit: 20 }, T0);
    await setup.close();
    const t = at('2024-02-01T00:00:00.000Z');
    const startAt = Date.now() + 1500;
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runNode([join(dir, 'reserve-worker.js'), file, '15', String(t.getTime()), String(startAt)]),
      ),
    );
    const reserved = outputs.map((o) => (JSON.parse(o) as { reserved: number }).reserved);
    expect(reserved.reduce((a, b) => a + b, 0)).toBe(20);
    const store = new SqliteStore(file);
    try {
      expect(await store.usage('acme', t)).toMatchObject({ cuUsed: 20, cuByEndpoint: { 'verify/receipt-root': 20 } });
      expect((await store.reserve('acme', 'verify/receipt-root', 1, t)).ok).toBe(false);
    } finally {
      await store.close();
    }
    expect(loggedInFile(file)).toHaveLength(20);
  }, 60_000);
});

describe('period arithmetic', () => {
  it('steps calendar months from the anchor with the day clamped', async () => {
    const anchor = at('2023-01-31T23:59:59.999Z');
    expect([0, 1, 2, 3, 13, -1, -11].map((k) => addCalendarMonths(anchor, k).toISOString())).toEqual([
      '2023-01-31T23:59:59.999Z',
      '2023-02-28T23:59:59.999Z',
      '2023-03-31T23:59:59.999Z',
      '2023-04-30T23:59:59.999Z',
      '2024-02-29T23:59:59.999Z',
      '2022-12-31T23:59:59.999Z',
      '2022-02-28T23:59:59.999Z',
    ]);
  });

  it('property: any instant lies in the period of its index, before or after the anchor', async () => {
    const date = fc.date({
      min: at('1970-01-01T00:00:00.000Z'),
      max: at('2200-01-01T00:00:00.000Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(date, date, (anchor, now) => {
        const k = periodIndexAt(anchor, now);
        const start = addCalendarMonths(anchor, k);
        const end = addCalendarMonths(anchor, k + 1);
        expect(start.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(end.getTime()).toBeGreaterThan(now.getTime());
        expect(end).toEqual(nextStep(start, anchor.getUTCDate()));
        // The default request-log retention outlasts any whole period by a 14-day margin.
        expect(end.getTime() - start.getTime() + 14 * DAY_MS).toBeLessThanOrEqual(
          DEFAULT_REQUEST_RETENTION_DAYS * DAY_MS,
        );
        if (now >= anchor)
          expect(billingPeriodAt(anchor.toISOString(), now)).toEqual({
            periodStart: start.toISOString(),
            periodEnd: end.toISOString(),
          });
        else expect(billingPeriodAt(anchor.toISOString(), now).periodStart).toBe(anchor.toISOString());
      }),
      { numRuns: runs(2000) },
    );
  });
});
