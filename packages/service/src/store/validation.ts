/** The store's rules for what it is given: ids, texts, counts, dates, account fields, reservations, logged requests. */
import type { Account, AccountInput, Entitlements, RequestRecord, Reservation } from './store.js';
import { StoreError } from './store-error.js';

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function invalid(field: string, message: string): never {
  throw new StoreError('STORE_INVALID', `${field} ${message}`, field);
}

/** A non-empty text (trimmed) of at most `max` characters; else a STORE_INVALID naming `field`. */
export function requireText(field: string, value: unknown, max = 200): string {
  if (typeof value !== 'string' || value.trim() === '') invalid(field, 'must be a non-empty string');
  const text = value.trim();
  if (text.length > max) invalid(field, `must be at most ${max} characters, got ${text.length}`);
  return text;
}

/** An id: 1-64 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export function requireId(field: string, value: unknown): string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    invalid(
      field,
      `must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A non-negative safe integer (`min` 1 for a positive one). */
export function requireCount(field: string, value: unknown, min = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    invalid(
      field,
      `must be ${min === 0 ? 'a non-negative' : 'a positive'} integer, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A finite number of milliseconds. */
export function requireTimeMs(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    invalid(field, `must be a finite number of milliseconds, got ${String(value)}`);
  return value;
}

/** A valid Date. */
export function requireDate(field: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) invalid(field, 'must be a valid Date');
  return value;
}

function normalizeEntitlements(value: Entitlements | null | undefined): Entitlements | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    invalid('entitlements', 'must be an object with endpoints and/or chains');
  const result: Entitlements = {};
  if (value.endpoints !== undefined) {
    if (!Array.isArray(value.endpoints)) invalid('entitlements.endpoints', 'must be an array of endpoint names');
    result.endpoints = [...new Set(value.endpoints.map((e, i) => requireText(`entitlements.endpoints[${i}]`, e)))];
  }
  if (value.chains !== undefined) {
    if (!Array.isArray(value.chains)) invalid('entitlements.chains', 'must be an array of chain ids');
    result.chains = [...new Set(value.chains.map((c, i) => requireCount(`entitlements.chains[${i}]`, c, 1)))];
  }
  return result;
}

/** Validated and normalized account fields (everything but the id). */
export function normalizeAccountInput(input: AccountInput): Omit<Account, 'id' | 'periodAnchor' | 'createdAt'> {
  if (typeof input !== 'object' || input === null) invalid('account', 'must be an object');
  return {
    name: requireText('name', input.name),
    plan: requireText('plan', input.plan, 64),
    cuLimit: requireCount('cuLimit', input.cuLimit),
    rateLimitRps: requireCount('rateLimitRps', input.rateLimitRps, 1),
    entitlements: normalizeEntitlements(input.entitlements),
  };
}

/** Validates what a reservation is asked for. */
export function normalizeReserve(endpoint: string, cu: number): { endpoint: string; cu: number } {
  return { endpoint: requireText('endpoint', endpoint), cu: requireCount('cu', cu) };
}

/** Validates a reservation handed back to settle or release. */
export function normalizeReservation(reservation: Reservation): Reservation {
  if (typeof reservation !== 'object' || reservation === null)
    invalid('reservation', 'must be the reservation reserve() returned');
  const periodStart = reservation.periodStart;
  if (typeof periodStart !== 'string' || Number.isNaN(Date.parse(periodStart)))
    invalid('reservation.periodStart', `must be an ISO instant, got ${JSON.stringify(periodStart)}`);
  const expiresAt = reservation.expiresAt;
  if (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt)))
    invalid('reservation.expiresAt', `must be an ISO instant, got ${JSON.stringify(expiresAt)}`);
  return {
    id: requireText('reservation.id', reservation.id),
    accountId: requireText('reservation.accountId', reservation.accountId),
    endpoint: requireText('reservation.endpoint', reservation.endpoint),
    cu: requireCount('reservation.cu', reservation.cu),
    periodStart,
    expiresAt,
  };
}

/** Validates the request logged when a reservation ends: same endpoint, and `cu` the CU it keeps charged. */
export function normalizeRequest(request: RequestRecord, reservation: Reservation, cu: number): RequestRecord {
  if (typeof request !== 'object' || request === null) invalid('request', 'must be an object');
  const status = request.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    invalid('request.status', `must be an HTTP status (100-599), got ${String(status)}`);
  if (request.cu !== cu) invalid('request.cu', `must equal the cu charged (${cu}), got ${String(request.cu)}`);
  const endpoint = requireText('request.endpoint', request.endpoint);
  if (endpoint !== reservation.endpoint)
    invalid('request.endpoint', `must equal the reservation's endpoint (${reservation.endpoint}), got ${endpoint}`);
  return { requestId: requireText('request.requestId', request.requestId), endpoint, status, cu };
}
