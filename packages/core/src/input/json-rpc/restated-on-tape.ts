/**
 * A log's restated members (restated-members.ts) compared where they lie on the JSON scanner's tape, none built: the
 * check of a log left on the tape (tape-log.ts). Apart from restated-members.ts so that a reader of parsed JSON
 * (verifyBlock, the browser's bundle) carries none of the tape's code.
 */
import { TOKEN } from '../../json/scan/scan-layout.js';
import type { TapeReader } from '../../json/scan/tape-value.js';
import type { LogRestates } from '../values/log-list.js';
import { plainQuantityText } from './repeated-values.js';

/**
 * Whether a log left on `tape` (its other members `names`, their values at tokens `values`) repeats `restates` as a node writes it: restated-members.ts' logIsPlain read off the
 * tape, by its rules (a member null is absent, a hash the very string, a quantity as a node writes it); false for
 * anything else (a quantity written as a JSON number among them), which the log's members built are then told by.
 * @example
 * logIsPlainOnTape(tape, ['logIndex'], [token], restates) // true where the token is restates.logIndex as a node writes it
 */
export function logIsPlainOnTape(
  tape: TapeReader,
  names: readonly string[],
  values: readonly number[],
  restates: LogRestates,
): boolean {
  for (let k = 0; k < names.length; k++) {
    const token = values[k]!;
    if (tape.kind(token) === TOKEN.null) continue;
    let plain = true;
    switch (names[k]) {
      case 'blockHash':
        plain = tape.isString(token, restates.blockHash);
        break;
      case 'blockNumber':
        plain = quantityOnTape(tape, token, restates.blockNumber);
        break;
      case 'blockTimestamp':
        plain = quantityOnTape(tape, token, restates.blockTimestamp);
        break;
      case 'transactionHash':
        plain = tape.isString(token, restates.transactionHash);
        break;
      case 'transactionIndex':
        plain = quantityOnTape(tape, token, restates.transactionIndex);
        break;
      case 'logIndex':
        plain = quantityOnTape(tape, token, restates.logIndex);
        break;
      case 'transactionLogIndex':
        plain = quantityOnTape(tape, token, restates.transactionLogIndex);
        break;
      case 'removed':
        plain = tape.kind(token) === TOKEN.false;
        break;
      case 'type':
        plain = tape.isString(token, 'mined');
        break;
    }
    if (!plain) return false;
  }
  return true;
}

/** Whether token `token` is a string that spells `n` as a node writes a quantity (plainQuantityText). */
function quantityOnTape(tape: TapeReader, token: number, n: number): boolean {
  const at = tape.stringAt(token);
  return at !== -1 && plainQuantityText(tape.text, at, at + tape.stringLength(token), n);
}
