/**
 * Typed errors of the core, in the style of viem: a short message plus
 * machine-readable details, so callers can branch on the class and show the text.
 */
export class EvmIntegrityError<Details extends object = object> extends Error {
  override name = 'EvmIntegrityError';
  readonly details: Details;

  constructor(message: string, details: Details) {
    super(message);
    this.details = details;
  }
}

/** A receipt's type is not one its chain's rule set knows. */
export class UnknownReceiptTypeError extends EvmIntegrityError<{ type: number; rules: string; known: string }> {
  override name = 'UnknownReceiptTypeError';
}

/** A receipt or log whose fields cannot be consensus-encoded (for example both `status` and `root`). */
export class InvalidReceiptError extends EvmIntegrityError<{ field: string; expected: string }> {
  override name = 'InvalidReceiptError';
}

/** A block header that cannot be encoded or decoded. */
export class InvalidHeaderError extends EvmIntegrityError<{ field: string; expected: string }> {
  override name = 'InvalidHeaderError';
}
