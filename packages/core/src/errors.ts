/**
 * Every code the library's own errors carry, one per situation a caller may want to tell apart;
 * each class narrows `code` to its own. A package built on the library extends the family with
 * codes of its own (the service's `STORE_*`), through the second type parameter of
 * {@link EvmIntegrityError}, without a new release of the library.
 */
export type EvmIntegrityErrorCode =
  | 'RECEIPT_TYPE_UNKNOWN'
  | 'RECEIPT_INVALID'
  | 'HEADER_INVALID'
  | 'CHAIN_CONFLICT'
  | 'EVIDENCE_REFUSED'
  | 'JSON_DUPLICATE_MEMBER'
  | 'SOURCE_FAILED'
  | 'SOURCE_INPUT_INVALID'
  | 'SOURCE_CHAIN_MISMATCH';

/**
 * The root of the library's errors, in the style of viem: a one-line message plus a typed
 * `code` and machine-readable `details`, so callers branch on the code and show the text.
 * Abstract: each situation is a subclass that fixes its code.
 * @example
 * class QuotaError extends EvmIntegrityError<{ limit: number }, 'QUOTA_EXCEEDED'> {
 *   override readonly code = 'QUOTA_EXCEEDED';
 * }
 */
export abstract class EvmIntegrityError<
  Details extends object = object,
  Code extends string = EvmIntegrityErrorCode,
> extends Error {
  override name = 'EvmIntegrityError';
  abstract readonly code: Code;
  readonly details: Details;

  constructor(message: string, details: Details) {
    super(message);
    this.details = details;
  }
}

/** A receipt's type is not one its chain's rule set knows. */
export class UnknownReceiptTypeError extends EvmIntegrityError<{ type: number; rules: string; known: string }> {
  override name = 'UnknownReceiptTypeError';
  override readonly code = 'RECEIPT_TYPE_UNKNOWN';
}

/** A receipt or log whose fields cannot be consensus-encoded (for example both `status` and `root`). */
export class InvalidReceiptError extends EvmIntegrityError<{ field: string; expected: string }> {
  override name = 'InvalidReceiptError';
  override readonly code = 'RECEIPT_INVALID';
}

/** A block header that cannot be encoded or decoded. */
export class InvalidHeaderError extends EvmIntegrityError<{ field: string; expected: string }> {
  override name = 'InvalidHeaderError';
  override readonly code = 'HEADER_INVALID';
}

/**
 * A chain added to a registry that would replace a built-in one or another added one: the built-in
 * chain's eras (what can be verified, and how) would be lost without a word.
 */
export class ChainConflictError extends EvmIntegrityError<{ chainId: number }> {
  override name = 'ChainConflictError';
  override readonly code = 'CHAIN_CONFLICT';
}

/**
 * Operator evidence a registry cannot take: its chain is not built in, or its block is in an era whose rules are not
 * implemented. Naming the file, so that an evidence directory never counts for less than the operator thinks.
 */
export class EvidenceError extends EvmIntegrityError<{ file: string; chainId: number; block: number }> {
  override name = 'EvidenceError';
  override readonly code = 'EVIDENCE_REFUSED';
}
