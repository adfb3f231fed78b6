import { EvmIntegrityError } from 'evm-integrity';

/** Thrown for a mistake in the command line or its files: exit 2 with the message (`main` adds where the help is). */
export class UsageError extends EvmIntegrityError<Record<string, never>, 'CLI_USAGE'> {
  override name = 'UsageError';
  override readonly code = 'CLI_USAGE';

  constructor(message: string) {
    super(message, {});
  }
}

/**
 * A file of the command line that cannot be read or is not what was expected: exit 2 with one line
 * naming the file (no usage text: the command line itself was right).
 */
export class InputError extends UsageError {
  override name = 'InputError';
}

/**
 * Evidence the command was given that does not verify (an anchor proof refused, or one that does not prove the block
 * needed): exit 1, a false verdict, with one line naming the file and why (no usage text: the command line was right).
 */
export class RefusedError extends EvmIntegrityError<Record<string, never>, 'CLI_REFUSED'> {
  override name = 'RefusedError';
  override readonly code = 'CLI_REFUSED';

  constructor(message: string) {
    super(message, {});
  }
}
