/**
 * The library's errors: every class of the family, each with plain data, so that this file imports nothing and every
 * room of the library may import it.
 */

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
  | 'SOURCE_CHAIN_MISMATCH'
  | 'RECEIPT_NOT_PLAINLY_VALID'
  | 'NOT_READ_FROM_TAPE'
  | 'SSZ_INVALID'
  | 'ANCHOR_FORMAT'
  | 'LIGHT_CLIENT_INVALID'
  | 'RLP_INVALID';

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

/** A member name given twice in one object: `details.path` is the member's path into the document (`header.receiptsRoot`). */
export class DuplicateMemberError extends EvmIntegrityError<{ path: string }> {
  override name = 'DuplicateMemberError';
  override readonly code = 'JSON_DUPLICATE_MEMBER';
  constructor(path: string) {
    super(`${path} is given twice in one object`, { path });
  }
}

/**
 * Thrown by a block's receipt stream (`streamRpcBlock`) for a receipt that is not plainly valid: the block is then
 * read whole (`readRpcBlock`), which names the problems. Caught inside block verification; `details.path` is the
 * receipt's path (`receipts[3]`, `receipts[3].logsBloom`).
 */
export class ReceiptNotPlainlyValid extends EvmIntegrityError<{ path: string }> {
  override name = 'ReceiptNotPlainlyValid';
  override readonly code = 'RECEIPT_NOT_PLAINLY_VALID';
  constructor(path: string) {
    super(path, { path });
  }
}

/**
 * Thrown by a reader of the JSON scanner's tape (json/scan/tape-value.ts) where a value cannot be built as `JSON.parse`
 * builds it: an object that names a member twice (JSON.parse keeps the last, the library refuses it) or a member named
 * `__proto__` (an own member for JSON.parse, the prototype for an assignment). Caught inside verifyBlockText, which
 * then parses the text and names the problem; never reaches a caller.
 */
export class NotReadFromTape extends EvmIntegrityError<object> {
  override name = 'NotReadFromTape';
  override readonly code = 'NOT_READ_FROM_TAPE';
  constructor() {
    super('read this text with JSON.parse', {});
  }
}

/** A reason of an input problem, as the spec's `invalid_parameters[].reason` names it. */
export type ProblemReason = 'missing' | 'invalid_format' | 'out_of_range' | 'duplicate' | 'conflict' | 'unknown_type';

/**
 * What makes the input unusable, as a request's invalid parameter: the path in the bundle
 * (`exchanges[3].body.cursor`; empty for the bundle as a whole), the reason and what was expected.
 */
export interface InputProblem {
  path: string;
  reason: ProblemReason;
  expected: string;
  /**
   * Set when the input is well formed but holds no answer to a request the audit made (a tracing id or chain it did
   * not record): what it lacks, not a fault of its format.
   */
  unanswered?: true;
}

/**
 * A source that cannot be reached or answered something unusable (`SOURCE_FAILED`), or input
 * beyond a limit or malformed (`SOURCE_INPUT_INVALID`): never an audit verdict (the CLI's exit 2,
 * the endpoint's 400). `details.problem` is set when the fault is in the input (a bundle's
 * member, a limit), so that it can be named as a parameter.
 */
export class SourceError extends EvmIntegrityError<{ problem?: InputProblem }> {
  override name = 'SourceError';
  override readonly code: 'SOURCE_FAILED' | 'SOURCE_INPUT_INVALID' | 'SOURCE_CHAIN_MISMATCH';

  constructor(message: string, problem?: InputProblem) {
    super(message, problem === undefined ? {} : { problem });
    this.code = problem === undefined ? 'SOURCE_FAILED' : 'SOURCE_INPUT_INVALID';
  }
}

/**
 * The source serves another chain than the one asked for: a mistake in the command or the
 * configuration, not an outage, so it is never retried nor reported as unreachable.
 */
export class ChainMismatchError extends SourceError {
  override name = 'ChainMismatchError';
  override readonly code = 'SOURCE_CHAIN_MISMATCH';

  constructor(
    where: string,
    readonly served: bigint,
    readonly asked: number,
  ) {
    super(
      `${where} serves chain ${served}, not chain ${asked}: give the chain id it serves, or a node of chain ${asked}`,
    );
  }
}

/** An answer larger than the HTTP client's cap: abandoned, never retried (it would be as large again). */
export class AnswerTooLargeError extends SourceError {
  constructor(
    message: string,
    /** The cap, in bytes. */
    readonly maxBytes: number,
  ) {
    super(message);
  }
}

/** A JSON-RPC error object's code and message, as a node answered a call. */
export class JsonRpcError extends SourceError {
  constructor(
    message: string,
    readonly rpcCode: number | undefined,
    readonly rpcMessage: string,
  ) {
    super(message);
  }
}

/** Bytes that are not the SSZ serialization of the type they are read as (a beacon block, a light-client object). */
export class SszShapeError extends EvmIntegrityError<{ expected: string }> {
  override name = 'SszShapeError';
  override readonly code = 'SSZ_INVALID';
  constructor(message: string, expected = 'SSZ bytes of the type') {
    super(message, { expected });
  }
}

/** A line of an anchor proof file that is not what the format says: `path` names the member (`$.proof.era`). */
export class AnchorFormatError extends EvmIntegrityError<{ path: string }> {
  override name = 'AnchorFormatError';
  override readonly code = 'ANCHOR_FORMAT';
}

/** A light-client object (bootstrap, update) whose member `field` is not what its fork's container holds. */
export class LightClientDecodeError extends EvmIntegrityError<{ field: string; expected: string }> {
  override name = 'LightClientDecodeError';
  override readonly code = 'LIGHT_CLIENT_INVALID';
}

/** Bytes that are not canonical RLP (a proof's trie node, a proven receipt); the message says where and why. */
export class RlpShapeError extends EvmIntegrityError<{ expected: string }> {
  override name = 'RlpShapeError';
  override readonly code = 'RLP_INVALID';
  constructor(message: string) {
    super(message, { expected: 'canonical RLP' });
  }
}
