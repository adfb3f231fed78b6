/**
 * `anchor verify FILE|- --checkpoint ROOT [--json]`: an anchor proof file verified against the checkpoint the user
 * trusts, each block it proves printed (number, hash, how, slot); `--json` prints what `POST /v1/evm/verify/anchor`
 * answers, from the same operation.
 */
import { parseArgs } from 'node:util';
import { verifyAnchorOperation } from 'evm-integrity/api';
import { bytesToHex } from 'evm-integrity';
import { checkpointValue, readAnchorText } from './anchor-flags.js';
import { provenByAnchor, provenFrom } from './anchor-proof.js';
import { LOCAL_DOCS_URL } from '../error-docs.js';
import { VERDICT_EXIT } from '../exit.js';
import { inputName, readInput } from '../io/read-input.js';
import type { CliIo } from '../io/streams.js';
import { UsageError } from '../io/usage-error.js';

/**
 * `anchor verify …` (argv after `verify`). Exit 0 the file verifies, 1 it does not (its line and why on stderr), 2 it
 * is no anchor proof, cannot be read, or a bad flag.
 * @example runAnchorVerify(['anchor.jsonl', '--checkpoint', '0x5ab5…8e82'], io) // 0, a line a proven block
 */
export function runAnchorVerify(rest: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { checkpoint: { type: 'string' }, json: { type: 'boolean' } },
  });
  const [file, extra] = positionals;
  if (file === undefined) throw new UsageError('anchor verify needs the anchor proof: FILE, or - for standard input');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}": anchor verify reads one FILE`);
  if (values.checkpoint === undefined)
    throw new UsageError(
      '--checkpoint is required: the root of a finalized beacon block you trust, which the file hangs from',
    );
  const checkpoint = checkpointValue(values.checkpoint);
  const read = io.read ?? readInput;
  if (values.json) {
    const result = verifyAnchorOperation(
      { checkpoint, proof: readAnchorText(file, read) },
      { docsUrl: LOCAL_DOCS_URL },
    );
    io.stdout(`${JSON.stringify(result.body)}\n`);
    return VERDICT_EXIT[result.verdict];
  }
  const anchored = provenByAnchor({ file, checkpoint }, null, read);
  const width = Math.max(...anchored.blocks.map((block) => String(block.number).length), 0);
  for (const block of anchored.blocks) {
    const slot = block.slot === undefined ? '' : `  slot ${block.slot}`;
    io.stdout(`${String(block.number).padStart(width)}  0x${bytesToHex(block.hash)}  ${block.via}${slot}\n`);
  }
  io.stderr(`evm-integrity: ${inputName(file)}: the anchor proof holds: ${provenFrom(anchored)}\n`);
  return VERDICT_EXIT.identical;
}
