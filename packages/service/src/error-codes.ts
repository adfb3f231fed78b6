/**
 * The codes of the service's own errors. They extend the library's family
 * (`EvmIntegrityError`, whose codes are `EvmIntegrityErrorCode`) here, so that a new
 * service error never needs a new release of the library.
 */

/**
 * A rule of an account store was not met (`StoreError`), or (STORE_UNAVAILABLE) the store cannot
 * answer now: unreachable, restarting or timed out; the request may be retried.
 */
export type StoreErrorCode =
  'STORE_NOT_FOUND' | 'STORE_KEY_LIMIT' | 'STORE_CONFLICT' | 'STORE_INVALID' | 'STORE_UNAVAILABLE';

/**
 * Every code a service error carries: the store's, a command line's mistake, an unusable configuration, an evidence
 * directory that cannot be read or written, an audit queue that cannot be opened, a chunk's node of another chain, an
 * anchor proof that cannot be made (a beacon node that fails, a block it cannot prove).
 */
export type ServiceErrorCode =
  | StoreErrorCode
  | 'CLI_USAGE'
  | 'CONFIG_INVALID'
  | 'EVIDENCE_DIR'
  | 'AUDIT_QUEUE'
  | 'AUDIT_WRONG_CHAIN'
  | 'ANCHOR_PROVE';
