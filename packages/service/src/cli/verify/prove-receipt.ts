/**
 * `prove receipt FILE --index N [--out P]`: the proof document of one receipt of a block in the
 * fixtures' format, made by the core's `proveReceipt` (which verifies the block first).
 */
import { parseArgs } from 'node:util';
import { chainNotSupported, proveReceipt, type ProveRefusal } from 'evm-integrity/api';
import { wholeValue } from '../flags.js';
import { addedChains, CHAIN_OPTIONS, chainValue, withAddChainHint, withChainId } from '../chain-flag.js';
import { inputName, readInput } from '../io/read-input.js';
import { LOCAL_DOCS_URL } from '../error-docs.js';
import { UsageError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';
import { notALine, parseInputJson } from '../io/json-input.js';
import { outputFile, TempFile } from '../io/temp-output.js';
import { VERDICT_EXIT as EXIT } from '../exit.js';
import { registryOf, setupOf } from '../../evidence/registry-setup.js';

/** Why no proof was made, in one line, and the exit status it gets. */
function refusalOf(file: string | undefined, refusal: ProveRefusal): { line: string; status: number } {
  const named = (line: string) => `${inputName(file)}: ${line}`;
  switch (refusal.kind) {
    case 'invalid':
      return { line: notALine(file, 'a block', refusal), status: EXIT.invalid };
    case 'chain_not_supported': {
      const { body } = chainNotSupported(refusal.subject, { docsUrl: LOCAL_DOCS_URL });
      const message = refusal.message ?? (body as { error: { message: string } }).error.message;
      return { line: named(withAddChainHint(message)), status: EXIT.not_verifiable };
    }
    case 'different':
      return { line: named(refusal.message), status: EXIT.different };
    case 'index_out_of_range':
      return { line: named(`--index: ${refusal.message}`), status: EXIT.invalid };
  }
}

/**
 * `prove receipt FILE --index N [--out P] [--chain C] [--add-chain ID:R]…` (argv after `prove receipt`): writes the proof document to P or
 * stdout and returns the exit status: 0 written, 1 the block's data do not match its commitments,
 * 2 bad input, an index with no receipt, or a block that cannot be verified.
 * @example await runProveReceipt(['block.json', '--index', '3'], io) // 0, the proof on stdout
 */
export async function runProveReceipt(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      index: { type: 'string' },
      out: { type: 'string' },
      pretty: { type: 'boolean' },
      // The proof is JSON with or without it.
      json: { type: 'boolean' },
      ...CHAIN_OPTIONS,
      evidence: { type: 'string' },
    },
  });
  const [file, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}": prove receipt reads one FILE`);
  if (values.index === undefined)
    throw new UsageError('--index is required: the position of the receipt in its block (0 for the first)');
  const index = wholeValue('--index', values.index, 0);
  if (values.out === '') throw new UsageError('--out needs a file name');
  const chainId = values.chain === undefined ? undefined : chainValue('--chain', values.chain);
  const chains = addedChains(values['add-chain']);
  const bytes = (io.read ?? readInput)(file);
  const registry = registryOf(await setupOf(chains, values.evidence));
  const proof = proveReceipt(withChainId(parseInputJson(bytes, file), chainId, file), index, { registry });
  if (!proof.ok) {
    const { line, status } = refusalOf(file, proof.error);
    io.stderr(`evm-integrity: ${line}\n`);
    return status;
  }
  const text = `${JSON.stringify(proof.value, null, values.pretty ? 2 : undefined)}\n`;
  const destination = outputFile(values.out);
  if (destination === undefined) {
    io.stdout(text);
    return EXIT.identical;
  }
  // Whole or not at all: a temporary file renamed onto P (or copied into it, a device or a FIFO).
  const out = new TempFile(destination, '--out');
  try {
    out.write(text);
    await out.commit();
  } finally {
    out.remove();
  }
  return EXIT.identical;
}
