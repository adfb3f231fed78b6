import { EvmIntegrityError } from 'evm-integrity';
import type { StoreErrorCode } from '../error-codes.js';

/** A rule of the store was not met; `message` is one line meant for the operator. */
export class StoreError extends EvmIntegrityError<{ field?: string }, StoreErrorCode> {
  override name = 'StoreError';
  override readonly code: StoreErrorCode;

  /** @param field for STORE_INVALID: the input field at fault. */
  constructor(code: StoreErrorCode, message: string, field?: string) {
    super(message, field === undefined ? {} : { field });
    this.code = code;
  }
}

/** The error for an account id that names no account. */
export function accountNotFound(id: string): StoreError {
  return new StoreError(
    'STORE_NOT_FOUND',
    `no account ${JSON.stringify(id)} (evm-integrity accounts list shows the accounts)`,
  );
}

/**
 * Whether a store refused a row for a reference to a row that is gone: PostgreSQL's foreign-key violation (SQLSTATE
 * 23503), as when an account is deleted while one of its requests adds a hold or a rate window.
 */
export const refersToMissingRow = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === FOREIGN_KEY_VIOLATION;

/** PostgreSQL's SQLSTATE for a row still referenced, or referring to a row that is gone. */
export const FOREIGN_KEY_VIOLATION = '23503';
