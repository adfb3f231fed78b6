/**
 * A complete-log proof given as a file (`verify logs-proof`, `audit-logs --proof`): its bytes as they stream in, and
 * its refusal told in one line.
 */
import { createReadStream } from 'node:fs';
import type { LogsProofRefusal } from 'evm-integrity/proof';
import { readFailure } from '../../files/file-failures.js';
import { inputName } from '../io/read-input.js';
import { InputError } from '../io/usage-error.js';
import { withAddChainHint } from '../chain-flag.js';

/** The refusal in one line: its reason, its block when it is at one, and why (a chain outside the registry: how to add it). */
export function describeRefusal(refusal: LogsProofRefusal): string {
  return `${refusal.reason}${refusal.block === undefined ? '' : ` at block ${refusal.block}`}: ${withAddChainHint(refusal.message)}`;
}

/** The bytes of FILE, or of standard input for `-`, as a stream; an InputError naming the file when it cannot be read. */
export async function* proofChunks(file: string): AsyncGenerator<Uint8Array> {
  const stream = file === '-' ? process.stdin : createReadStream(file);
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (error) {
    throw new InputError(`${inputName(file)}: cannot read it: ${readFailure(error)}`);
  }
}
