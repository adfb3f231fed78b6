import { EvmIntegrityError } from '../errors.js';
import type { ProblemReason } from '../input/values/problems.js';

/**
 * What makes the input unusable, as a request's invalid parameter: the path in the bundle
 * (`exchanges[3].body.cursor`; empty for the bundle as a whole), the reason and what was expected.
 */
export interface InputProblem {
  path: string;
  reason: ProblemReason;
  expected: string;
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
