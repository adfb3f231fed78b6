import { parseArgs } from 'node:util';
import type { OperationContext } from 'evm-integrity/api';
import { ChainRegistry, type BlockReport, type Problem, type RuleSetName } from 'evm-integrity';
import { inputName, readInput } from '../io/read-input.js';
import { printable } from '../io/printable.js';
import { LOCAL_DOCS_URL } from '../error-docs.js';
import { UsageError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';
import { exitOfVerdicts } from '../exit.js';
import { hashValue, ruleSetName, workersOption } from '../flags.js';
import { addedChains, CHAIN_OPTIONS, chainValue, withAddChainHint, withChainId } from '../chain-flag.js';
import { parseInputJson } from '../io/json-input.js';
import { verifyBlockFiles, type BlockFiles, type FileAnswer } from './verify-blocks.js';
import { setupOf, type RegistrySetup } from '../../evidence/registry-setup.js';
import { ANCHOR_OPTIONS, anchorProofFlags, readAnchorText } from '../anchor/anchor-flags.js';

/** The invalid parameters a refusal of several names on stderr; the rest are in its envelope on stdout. */
const PROBLEMS_ON_STDERR = 3;

interface RefusalEnvelope {
  error: { message: string; details?: { invalid_parameters?: Problem[] } };
}

/**
 * The one line on stderr for a block refused (400, 422): the file and the envelope's message; for several invalid
 * parameters, the first few too, each named with what was expected there.
 */
function refusalLine(answer: FileAnswer): string | undefined {
  if ('error' in answer) return answer.error;
  if (answer.result.status === 200) return undefined;
  const { error } = answer.result.body as RefusalEnvelope;
  const problems = error.details?.invalid_parameters ?? [];
  if (problems.length < 2) return `${inputName(answer.file)}: ${withAddChainHint(error.message)}`;
  const named = problems.slice(0, PROBLEMS_ON_STDERR).map((p) => `${p.name}: expected ${p.expected}`);
  const rest = problems.length - named.length;
  const more = rest > 0 ? `; and ${rest} more on standard output` : '';
  return `${inputName(answer.file)}: ${error.message.replace(/\.$/, '')}: ${named.join('; ')}${more}`;
}

/** What `verify block FILE…`'s files gave: a verdict, or none (refused as input, or not verifiable). */
const COUNTED = ['identical', 'different', 'refused', 'not verifiable'] as const;

/** The count line of `verify block FILE…`: each kind of answer, "not verifiable" only where a file gave it. */
function countLine(counts: Record<(typeof COUNTED)[number], number>): string {
  const files = COUNTED.reduce((sum, kind) => sum + counts[kind], 0);
  const kinds = COUNTED.filter((kind) => kind !== 'not verifiable' || counts[kind] > 0);
  return `${files} files: ${kinds.map((kind) => `${counts[kind]} ${kind}`).join(', ')}`;
}

/**
 * Where `--rules` was given and the block was verified by other rules (its chain is in the registry, and has its own):
 * the line saying so, so that a flag the block did not take is not passed over in silence.
 */
function rulesNotApplied(answer: FileAnswer, rules: RuleSetName | undefined): string | undefined {
  if (rules === undefined || !('result' in answer) || answer.result.status !== 200) return undefined;
  const report = answer.result.body as BlockReport;
  if (report.rules === rules) return undefined;
  return `${answer.file}: --rules ${rules} not applied: chain ${report.chain_id} is in the registry, and its blocks are verified by its own rules (${report.rules})`;
}

/**
 * `verify block FILE…`: one answer a block on stdout, in argument order; a file that cannot be read
 * or is not JSON, and a block refused, also get one line on stderr naming the file. With several files, a last line on
 * stderr counts what they gave, and the exit status is the many verdicts' (exitOfVerdicts): 1 when a block differs,
 * whatever the others gave.
 */
async function runVerifyBlocks(
  run: BlockFiles,
  io: CliIo,
  options: { pretty: boolean; verbose: boolean },
): Promise<number> {
  const counts = { identical: 0, different: 0, refused: 0, 'not verifiable': 0 };
  const where = await verifyBlockFiles(run, (answer) => {
    if ('result' in answer) io.stdout(`${JSON.stringify(answer.result.body, null, options.pretty ? 2 : undefined)}\n`);
    // A file's name is the user's text: shown, never sent to the terminal as it is.
    const notApplied = rulesNotApplied(answer, run.rules);
    if (notApplied !== undefined) io.stderr(`evm-integrity: ${printable(notApplied)}\n`);
    const refusal = refusalLine(answer);
    if (refusal !== undefined) io.stderr(`evm-integrity: ${printable(refusal)}\n`);
    const verdict = 'result' in answer ? answer.result.verdict : 'invalid';
    counts[verdict === 'invalid' ? 'refused' : verdict === 'not_verifiable' ? 'not verifiable' : verdict]++;
  });
  if (run.files.length > 1) io.stderr(`evm-integrity: ${countLine(counts)}\n`);
  if (options.verbose) {
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    io.stderr(
      `evm-integrity: ${count(where.inline, 'block')} verified inline, ${where.pooled} on ${count(where.threads.size, 'worker thread')}\n`,
    );
  }
  return exitOfVerdicts({
    findings: counts.different,
    withoutVerdict: counts.refused + counts['not verifiable'],
  });
}

/**
 * `verify receipt-root|logs-bloom|receipt-proof|block|logs-proof …` (argv after `verify`): prints the JSON the
 * endpoint would answer and returns the exit status. Throws UsageError for a mistake in
 * the command line.
 * @example runVerify(['receipt-root', 'body.json'], io) // 0 when every claim of the body holds
 */
export function runVerify(argv: string[], io: CliIo): number | Promise<number> {
  // A proof of a range has flags of its own (--chain, --out): loaded only when asked.
  if (argv[0] === 'logs-proof')
    return import('./verify-logs-proof.js').then((m) => m.runVerifyLogsProof(argv.slice(1), io));
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: VERIFY_OPTIONS });
  const chains = addedChains(values['add-chain']);
  return setupOf(chains, values.evidence).then((setup) => verifyWith(positionals, values, setup, io));
}

const VERIFY_OPTIONS = {
  pretty: { type: 'boolean' },
  rules: { type: 'string' },
  ...CHAIN_OPTIONS,
  // The output is JSON with or without it.
  json: { type: 'boolean' },
  workers: { type: 'string' },
  verbose: { type: 'boolean' },
  'block-hash': { type: 'string' },
  ...ANCHOR_OPTIONS,
  evidence: { type: 'string' },
} as const;

type VerifyValues = ReturnType<typeof parseArgs<{ options: typeof VERIFY_OPTIONS; allowPositionals: true }>>['values'];

/** The verify command once its registry's setup (the chains added, an operator's evidence) is known. */
function verifyWith(
  positionals: string[],
  values: VerifyValues,
  setup: RegistrySetup,
  io: CliIo,
): number | Promise<number> {
  const [what, ...files] = positionals;
  const [file] = files;
  const { chains } = setup;
  if (values['block-hash'] !== undefined && what !== 'receipt-proof')
    throw new UsageError('--block-hash is for verify receipt-proof only');
  const anchorFlags = anchorProofFlags(values, { '--block-hash': values['block-hash'] });
  if (anchorFlags !== undefined && what !== 'receipt-proof')
    throw new UsageError('--anchor-proof and --checkpoint are for verify receipt-proof and verify logs-proof');
  if (anchorFlags?.file === '-' && (file === undefined || file === '-'))
    throw new UsageError('standard input holds the receipt proof: give --anchor-proof a FILE');
  if (files.length > 1 && what !== 'block')
    throw new UsageError(`unexpected argument "${files[1]}": verify ${what} reads one FILE`);
  if (values.rules !== undefined && what !== 'block')
    throw new UsageError(
      `--rules is for verify block only: verify ${what} reads its chain's rules from the registry (--add-chain ID:RULES for a chain outside it)`,
    );
  const rules = values.rules === undefined ? undefined : ruleSetName(values.rules, '--rules');
  // The chain of a block (or body) that names none.
  const chainId = values.chain === undefined ? undefined : chainValue('--chain', values.chain);
  const workers = workersOption(values.workers);
  const registry = new ChainRegistry(chains, { evidence: setup.evidence });
  const named = chainId === undefined ? undefined : registry.get(chainId);
  // --rules is for a chain outside the registry: one in it is verified by its own, which another --rules contradicts.
  if (rules !== undefined && named !== undefined && named.rules !== rules)
    throw new UsageError(
      `--rules ${rules} is for a block whose chain is outside the registry; --chain ${chainId} is ${named.name}, verified by its own rules (${named.rules}): drop --rules`,
    );
  const context: OperationContext = { docsUrl: LOCAL_DOCS_URL };
  const read = io.read ?? readInput;
  const body = () =>
    withChainId(parseInputJson(read(file), file), chainId, file, what === 'receipt-proof' ? 'proof' : 'body');
  const pretty = values.pretty ?? false;
  switch (what) {
    case 'block': {
      const blockFiles = files.length === 0 ? ['-'] : files;
      if (blockFiles.filter((f) => f === '-').length > 1)
        throw new UsageError('verify block reads standard input (-) once: give - at most once');
      return runVerifyBlocks({ files: blockFiles, setup, rules, chainId, context, workers, read }, io, {
        pretty,
        verbose: values.verbose ?? false,
      });
    }
    case 'receipt-root':
    case 'logs-bloom':
    case 'receipt-proof': {
      const blockHash =
        values['block-hash'] === undefined ? undefined : hashValue('--block-hash', values['block-hash']);
      const anchor =
        anchorFlags === undefined
          ? undefined
          : {
              file: anchorFlags.file,
              checkpoint: anchorFlags.checkpoint,
              proof: readAnchorText(anchorFlags.file, read),
            };
      // Loaded only for these: a `verify block` process (once per block in a pipeline) then
      // loads neither the request schemas nor the proof code.
      return import('./verify-claim.js').then((m) =>
        m.runVerifyClaim(what, body, file, { ...context, registry }, { blockHash, anchor, pretty }, io),
      );
    }
    case undefined:
      throw new UsageError('verify needs what to verify: receipt-root, logs-bloom, receipt-proof, block or logs-proof');
    default:
      throw new UsageError(
        `cannot verify "${what}": expected receipt-root, logs-bloom, receipt-proof, block or logs-proof`,
      );
  }
}
