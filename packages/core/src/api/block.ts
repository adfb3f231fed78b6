import { verifyBlock, type BlockVerifyContext } from '../verify/block.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';

/**
 * `verify block` as an operation: the core's report as the body of a 200, or its refusal as the
 * error envelope (400 for invalid input, 422 for a chain or era that cannot be verified).
 */
export function verifyBlockOperation(input: unknown, context: BlockVerifyContext & OperationContext = {}): OperationResult {
  const result = verifyBlock(input, context);
  if (result.ok) return { status: 200, verdict: result.value.verdict, body: result.value };
  const refusal = result.error;
  if (refusal.kind === 'invalid') return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
  return chainNotSupported(refusal.subject, context, { unknownChainHint: refusal.hint });
}
