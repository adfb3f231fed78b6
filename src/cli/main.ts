#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { badRequest, type OperationResult } from '../api/envelope.js';
import { parseJsonBody } from '../api/json-body.js';
import { verifyLogsBloom } from '../api/logs-bloom.js';
import { verifyReceiptRoot } from '../api/receipt-root.js';
import { ChainRegistry, type ChainInfo } from '../chains/registry.js';
import { RULE_SET_NAMES, type RuleSetName } from '../receipts/rules.js';
import { verifyBlock } from '../verify/block.js';
import { readInput, UsageError } from './io.js';
import { StoreError } from '../server/store/types.js';
import { LINEAGE_USAGE, runLineage } from './lineage.js';
import { ConfigError, runAdminCommand, runServe, SERVER_USAGE } from './serve.js';

const USAGE = `evm-integrity: offline proofs that EVM chain data is what it claims to be

Usage:
  evm-integrity verify receipt-root [FILE|-]   body of POST /v1/evm/verify/receipt-root
  evm-integrity verify logs-bloom [FILE|-]     body of POST /v1/evm/verify/logs-bloom
  evm-integrity verify block FILE [--rules R]  JSON-RPC header + receipts of one block

${SERVER_USAGE}
${LINEAGE_USAGE}

Options:
  --pretty      indent the JSON output
  --chain ID:R  add chain ID, following rule set R, to the registry for this run
                (a devnet); repeatable
  --rules R     verify a block with rule set R (for blocks that name no chain)
Rule sets: ${RULE_SET_NAMES.join(', ')}
  -h, --help    this text

Prints the JSON the HTTP endpoint would answer. Exit status: 0 identical,
1 not identical, 2 bad input.`;

export const EXIT = { identical: 0, different: 1, invalid: 2, not_verifiable: 2 } as const;

/** Streams the CLI writes to, so tests can run it in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads FILE or standard input. */
  read?: (file: string | undefined) => string;
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

function ruleSetName(value: string, option: string): RuleSetName {
  if (!RULE_SET_NAMES.includes(value as RuleSetName)) {
    throw new UsageError(`${option} names rule set "${value}"; expected one of ${RULE_SET_NAMES.join(', ')}`);
  }
  return value as RuleSetName;
}

/** `--chain 31337:ethereum` → a verifiable chain for this run. */
function parseChainOption(value: string): ChainInfo {
  const match = /^(\d+):(.+)$/.exec(value);
  const chainId = match === null ? NaN : Number(match[1]);
  if (match === null || !Number.isSafeInteger(chainId)) throw new UsageError(`--chain expects ID:RULES such as 31337:ethereum, got "${value}"`);
  return { chainId, name: `chain ${chainId}`, rules: ruleSetName(match[2]!, '--chain'), verifiable: true };
}

function runOperation(text: string, operation: (body: unknown) => OperationResult): OperationResult {
  const parsed = parseJsonBody(text);
  if (!parsed.ok) return { status: 400, verdict: 'invalid', body: badRequest([parsed.problem], 1) };
  return operation(parsed.value);
}

/**
 * Runs the CLI with `argv` (without node and script). Returns the exit status.
 * @example runCli(['verify', 'receipt-root', 'body.json'], io) // 0 when the root is identical
 */
export function runCli(argv: string[], io: CliIo = processIo): number {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        pretty: { type: 'boolean' },
        rules: { type: 'string' },
        chain: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr(`evm-integrity: ${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.invalid;
  }
  const [command, what, file, ...extra] = args.positionals;
  if (args.values.help || command === undefined) {
    io.stdout(`${USAGE}\n`);
    return args.values.help ? 0 : EXIT.invalid;
  }
  const read = io.read ?? readInput;
  try {
    if (command !== 'verify') throw new UsageError(`unknown command "${command}"`);
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    const rules = args.values.rules === undefined ? undefined : ruleSetName(args.values.rules, '--rules');
    const registry = new ChainRegistry((args.values.chain ?? []).map(parseChainOption));
    let result: OperationResult;
    switch (what) {
      case 'receipt-root':
        result = runOperation(read(file), (body) => verifyReceiptRoot(body, { registry }));
        break;
      case 'logs-bloom':
        result = runOperation(read(file), (body) => verifyLogsBloom(body));
        break;
      case 'block':
        if (file === undefined) throw new UsageError('verify block needs a FILE');
        result = runOperation(read(file), (body) => verifyBlock(body, rules === undefined ? { registry } : { registry, rules }));
        break;
      default:
        throw new UsageError(what === undefined ? 'verify needs what to verify: receipt-root, logs-bloom or block' : `cannot verify "${what}"`);
    }
    io.stdout(`${JSON.stringify(result.body, null, args.values.pretty ? 2 : undefined)}\n`);
    return EXIT[result.verdict];
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`evm-integrity: ${error.message}\n\n${USAGE}\n`);
    return EXIT.invalid;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

/** Runs a command that needs more than the pure core: the server, or its store. */
async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  try {
    if (command === 'serve') return await runServe(argv.slice(1));
    if (command === 'accounts' || command === 'keys') return runAdminCommand(argv, processIo);
    if (command === 'lineage') return await runLineage(argv.slice(1), processIo);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError || error instanceof StoreError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw error;
    processIo.stderr(`evm-integrity: ${(error as Error).message}\n`);
    return EXIT.invalid;
  }
  return runCli(argv);
}

if (isEntryPoint()) process.exitCode = await main(process.argv.slice(2));
