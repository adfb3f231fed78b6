import { err, type Result } from '../result.js';
import { verifyBlock, type BlockRefusal, type BlockReport, type BlockVerifyContext } from '../verify/verify-block.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';
import { decodeJsonBody } from './json-body.js';

/**
 * `verify block` as an operation: the core's report as the body of a 200, or its refusal as the
 * error envelope (400 for invalid input, 422 for a chain or era that cannot be verified).
 */
export function verifyBlockOperation(
  input: unknown,
  context: BlockVerifyContext & OperationContext = {},
): OperationResult {
  return blockAnswer(verifyBlock(input, context), context);
}

/** A block's verification as the operation answers it, wherever it was computed (inline or on a worker). */
export function blockAnswer(result: Result<BlockReport, BlockRefusal>, context: OperationContext): OperationResult {
  if (result.ok) return { status: 200, verdict: result.value.verdict, body: result.value };
  const refusal = result.error;
  if (refusal.kind === 'invalid')
    return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
  return chainNotSupported(refusal.subject, context, { unknownChainHint: refusal.hint });
}

/**
 * A block's JSON bytes verified: bytes that are not UTF-8 JSON are refused as invalid input, with
 * the body's one problem, as the endpoints refuse them (`decodeJsonBody`). For a block that arrives
 * as bytes (a file, a worker's job), parsed where it is verified.
 */
export function verifyBlockBytes(
  bytes: Uint8Array,
  context: BlockVerifyContext = {},
): Result<BlockReport, BlockRefusal> {
  const parsed = decodeJsonBody(bytes);
  return parsed.ok ? verifyBlock(parsed.value, context) : err({ kind: 'invalid', problems: [parsed.error], count: 1 });
}
