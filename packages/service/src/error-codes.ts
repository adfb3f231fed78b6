/**
 * The codes of the service's own errors. They extend the library's family
 * (`EvmIntegrityError`, whose codes are `EvmIntegrityErrorCode`) here, so that a new
 * service error never needs a new release of the library.
 */

/** A rule of an account store was not met (`StoreError`). */
export type StoreErrorCode = 'STORE_NOT_FOUND' | 'STORE_KEY_LIMIT' | 'STORE_CONFLICT' | 'STORE_INVALID';

/**
 * Every code a service error carries: the store's, a command line's mistake, an unusable configuration, an audit queue
 * that cannot be opened.
 */
export type ServiceErrorCode = StoreErrorCode | 'CLI_USAGE' | 'CONFIG_INVALID' | 'AUDIT_QUEUE';
