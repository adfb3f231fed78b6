import type { OperationResult } from 'evm-integrity/api';

/**
 * A verify request's answer, where it was computed (the route or a worker): the status and JSON text of the response,
 * or the chain the account may not use (the route answers 403).
 */
export type VerifyOutcome = { kind: 'answer'; status: number; json: string } | { kind: 'forbidden'; chainId: number };

/** An operation's result as the answer the route sends, serialised where it was computed. */
export const answerOf = (result: OperationResult): VerifyOutcome => ({
  kind: 'answer',
  status: result.status,
  json: JSON.stringify(result.body),
});
