import { parseArgs } from 'node:util';
import {
  badRequest,
  decodeJsonBody,
  type OperationContext,
  type OperationResult,
  verifyBlockOperation,
  verifyLogsBloom,
  verifyReceiptRoot,
} from 'evm-integrity/api';
import { type ChainInfo, ChainRegistry } from 'evm-integrity';
import { LOCAL_DOCS_URL, readInput, ruleSetName, UsageError, workersOption, type CliIo } from './io.js';
import { verifyBlockFiles, type BlockFiles } from './verify-blocks.js';

/** Exit status of a verification: every claim held, one did not, or nothing could be verified. */
export const EXIT = { identical: 0, different: 1, invalid: 2, not_verifiable: 2 } as const;

/** `--chain 31337:ethereum` → a verifiable chain for this run. */
function parseChainOption(value: string): ChainInfo {
  const match = /^(\d+):(.+)$/.exec(value);
  const chainId = match === null ? NaN : Number(match[1]);
  if (match === null || !Number.isSafeInteger(chainId)) throw new UsageError(`--chain expects ID:RULES such as 31337:ethereum, got "${value}"`);
  return { chainId, name: `chain ${chainId}`, rules: ruleSetName(match[2]!, '--chain'), verifiable: true };
}

/** The endpoint operation on a body's bytes: the same reading, the same answer as the server's. */
function runOperation(bytes: Uint8Array, context: OperationContext, operation: (body: unknown) => OperationResult): OperationResult {
  const parsed = decodeJsonBody(bytes);
  if (!parsed.ok) return { status: 400, verdict: 'invalid', body: badRequest([parsed.error], 1, context) };
  return operation(parsed.value);
}

/** `verify block FILE FILE…` (or one FILE with --workers or --verbose): one answer a block, the highest exit status of them. */
async function runVerifyBlocks(run: BlockFiles, io: CliIo, options: { pretty: boolean; verbose: boolean }): Promise<number> {
  let status: number = EXIT.identical;
  const where = await verifyBlockFiles(run, (result) => {
    io.stdout(`${JSON.stringify(result.body, null, options.pretty ? 2 : undefined)}\n`);
    status = Math.max(status, EXIT[result.verdict]);
  });
  if (options.verbose) {
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    io.stderr(`evm-integrity: ${count(where.inline, 'block')} verified inline, ${where.pooled} on ${count(where.threads.size, 'worker thread')}\n`);
  }
  return status;
}

/**
 * `verify receipt-root|logs-bloom|block …` (argv after `verify`): prints the JSON the
 * endpoint would answer and returns the exit status. Throws UsageError for a mistake in
 * the command line.
 * @example runVerify(['receipt-root', 'body.json'], io) // 0 when every claim of the body holds
 */
export function runVerify(argv: string[], io: CliIo): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      pretty: { type: 'boolean' },
      rules: { type: 'string' },
      chain: { type: 'string', multiple: true },
      workers: { type: 'string' },
      verbose: { type: 'boolean' },
    },
  });
  const [what, ...files] = positionals;
  const [file] = files;
  if (files.length > 1 && what !== 'block') throw new UsageError(`unexpected argument "${files[1]}"`);
  const rules = values.rules === undefined ? undefined : ruleSetName(values.rules, '--rules');
  const workers = workersOption(values.workers);
  const chains = (values.chain ?? []).map(parseChainOption);
  const registry = new ChainRegistry(chains);
  const context: OperationContext = { docsUrl: LOCAL_DOCS_URL };
  const read = io.read ?? readInput;
  if (what === 'block' && (files.length > 1 || workers !== null || values.verbose)) {
    if (files.length > 1 && files.includes('-')) throw new UsageError('verify block reads standard input (-) only as its one FILE');
    return runVerifyBlocks({ files, chains, rules, context, workers, read }, io, { pretty: values.pretty ?? false, verbose: values.verbose ?? false });
  }
  let result: OperationResult;
  switch (what) {
    case 'receipt-root':
      result = runOperation(read(file), context, (body) => verifyReceiptRoot(body, { ...context, registry }));
      break;
    case 'logs-bloom':
      result = runOperation(read(file), context, (body) => verifyLogsBloom(body, context));
      break;
    case 'block':
      if (file === undefined) throw new UsageError('verify block needs a FILE');
      result = runOperation(read(file), context, (body) => verifyBlockOperation(body, { ...context, registry, ...(rules && { rules }) }));
      break;
    case undefined:
      throw new UsageError('verify needs what to verify: receipt-root, logs-bloom or block');
    default:
      throw new UsageError(`cannot verify "${what}": expected receipt-root, logs-bloom or block`);
  }
  io.stdout(`${JSON.stringify(result.body, null, values.pretty ? 2 : undefined)}\n`);
  return EXIT[result.verdict];
}
