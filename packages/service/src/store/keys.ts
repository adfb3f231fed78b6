/**
 * API key rules shared by the stores: generation, hashing, hints, the active-key limit,
 * constant-time authentication and which key a revocation names. Keys are never stored, only
 * their SHA-256.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, AuthResult, KeyRecord } from './store.js';
import { StoreError } from './store-error.js';
import { requireText } from './validation.js';

/** At most this many active (not revoked) keys per account. */
export const MAX_ACTIVE_KEYS = 5;

export const KEY_PREFIX = 'evmi_';
const HINT_LENGTH = 8;
/** Shorter imported keys get no hint: 8 characters would give too much of them away. */
const MIN_KEY_LENGTH_FOR_HINT = 32;

/** A new API key: `evmi_` + 32 random bytes in base64url (43 characters). */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** SHA-256 of the key, lowercase hex: the only form in which a key is stored. */
export function hashKey(key: string): string {
  return digest(key).toString('hex');
}

/** What lists show of a key: its first 8 characters ('' for short keys). */
export function keyHint(key: string): string {
  return key.length >= MIN_KEY_LENGTH_FOR_HINT ? key.slice(0, HINT_LENGTH) : '';
}

/** A new key id: `key_` and 12 random hex digits (never the key). */
export function newKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}

/** Whether a key is active (not revoked). */
export function isActive(key: KeyRecord): boolean {
  return key.revokedAt === null;
}

/** The hash and hint of a key given in a configuration file, validated. */
export function importedKey(hashOrPlain: { sha256: string } | { plain: string }): { hash: string; hint: string } {
  if (typeof hashOrPlain !== 'object' || hashOrPlain === null)
    throw new StoreError('STORE_INVALID', 'key must be given as {sha256} or {plain}', 'key');
  if ('sha256' in hashOrPlain) {
    const { sha256 } = hashOrPlain;
    if (typeof sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256)) {
      throw new StoreError('STORE_INVALID', 'sha256 must be the SHA-256 of the key as 64 hex characters', 'sha256');
    }
    return { hash: sha256.toLowerCase(), hint: '' };
  }
  const { plain } = hashOrPlain;
  if (typeof plain !== 'string' || plain === '' || /\s/.test(plain)) {
    throw new StoreError('STORE_INVALID', 'key must be a non-empty string without whitespace', 'key');
  }
  return { hash: hashKey(plain), hint: keyHint(plain) };
}

/** A key's label, validated: a non-empty text of at most 100 characters. */
export function validLabel(label: unknown): string {
  return requireText('label', label, 100);
}

/** Refuses one more key for an account that already has the maximum of active keys. */
export function assertKeyLimit(accountId: string, activeKeys: number): void {
  if (activeKeys >= MAX_ACTIVE_KEYS) {
    throw new StoreError(
      'STORE_KEY_LIMIT',
      `account ${accountId} already has ${MAX_ACTIVE_KEYS} active keys; revoke one first (evm-integrity keys revoke ID)`,
    );
  }
}

/** Refuses to import a hash that belongs to another account. */
export function assertSameAccount(existing: KeyRecord, accountId: string): void {
  if (existing.accountId !== accountId) {
    throw new StoreError(
      'STORE_CONFLICT',
      `that key is already registered to account ${existing.accountId} (as ${existing.id})`,
    );
  }
}

const NO_KEY = digest('evm-integrity: compared against when no key matches');

/**
 * Authentication with the same work whatever the key: hash it, look the hash up, compare the
 * digests with timingSafeEqual (against a fixed digest when nothing matched).
 */
export function authenticateKey(
  key: string,
  findByHash: (hash: string) => KeyRecord | undefined,
  findAccount: (id: string) => Account | undefined,
): AuthResult {
  const presented = digest(typeof key === 'string' ? key : '');
  const record = findByHash(presented.toString('hex'));
  const stored = record === undefined ? NO_KEY : Buffer.from(record.hash, 'hex');
  const same = stored.length === presented.length && timingSafeEqual(stored, presented);
  if (record === undefined || !same) return { status: 'unknown' };
  if (!isActive(record)) return { status: 'revoked', key: record };
  const account = findAccount(record.accountId);
  if (account === undefined) return { status: 'unknown' };
  return { status: 'active', key: record, account };
}

/**
 * The key `idOrHint` names: the key with that id, else the one key with that hint (an active one
 * before revoked ones). A hint shared by several keys must be replaced by the key id.
 */
export function keyToRevoke(idOrHint: string, byId: KeyRecord | undefined, byHint: KeyRecord[]): KeyRecord {
  if (byId !== undefined) return byId;
  const active = byHint.filter(isActive);
  const candidates = active.length > 0 ? active : byHint;
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0)
    throw new StoreError(
      'STORE_NOT_FOUND',
      `no key with id or hint ${JSON.stringify(idOrHint)} (evm-integrity keys list shows them)`,
    );
  throw new StoreError(
    'STORE_CONFLICT',
    `hint ${idOrHint} matches ${candidates.length} keys (${candidates.map((k) => k.id).join(', ')}); revoke by key id`,
  );
}

/** Validates the argument of revokeKey. */
export function validIdOrHint(idOrHint: unknown): string {
  if (typeof idOrHint !== 'string' || idOrHint.trim() === '')
    throw new StoreError('STORE_INVALID', 'key id or hint must be a non-empty string', 'idOrHint');
  return idOrHint.trim();
}
