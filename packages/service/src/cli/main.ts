import { readFileSync } from 'node:fs';
import { EvmIntegrityError } from 'evm-integrity';
import { InputError, RefusedError, UsageError } from './io/usage-error.js';
import { processIo, type CliIo } from './io/streams.js';
import { printable } from './io/printable.js';
import {
  ANCHOR_USAGE,
  AUDIT_EXPORT_USAGE,
  AUDIT_LOGS_USAGE,
  AUDIT_STATUS_USAGE,
  AUDIT_USAGE,
  AUDIT_WORKER_USAGE,
  CHAINS_USAGE,
  EVIDENCE_USAGE,
  LINEAGE_USAGE,
  OVERVIEW,
  PROVE_USAGE,
  REQUEST_USAGE,
  SERVE_USAGE,
  VERIFY_USAGE,
} from './usage.js';
import { runVerify } from './verify/verify.js';
import { EXIT_FAULT, VERDICT_EXIT } from './exit.js';

interface Command {
  /** Printed for `COMMAND --help` and `help COMMAND`. */
  usage: () => string | Promise<string>;
  run: (argv: string[], io: CliIo) => number | Promise<number>;
}

// Server and lineage code is imported only by the commands that use it, so that
// `verify` starts without loading the HTTP stack or the store.
const COMMANDS: Record<string, Command> = {
  verify: { usage: () => VERIFY_USAGE, run: runVerify },
  request: {
    usage: () => REQUEST_USAGE,
    run: async (argv, io) => (await import('./verify/request.js')).runRequest(argv, io),
  },
  prove: { usage: () => PROVE_USAGE, run: runProve },
  lineage: { usage: () => LINEAGE_USAGE, run: async (argv, io) => (await import('./lineage.js')).runLineage(argv, io) },
  // The beacon-chain anchor's commands (verify, prove): loaded only when they run.
  anchor: {
    usage: () => ANCHOR_USAGE,
    run: async (argv, io) => (await import('./anchor/anchor.js')).runAnchor(argv, io),
  },
  audit: {
    usage: () => AUDIT_USAGE,
    // tty.isatty, not process.stderr.isTTY: making process.stderr cost an audit whose stderr is a pipe 0.7 ms.
    run: async (argv, io) =>
      (await import('./audit/audit.js')).runAudit(argv, {
        ...io,
        stderrIsTty: io === processIo && process.getBuiltinModule('node:tty').isatty(2),
      }),
  },
  'audit-logs': {
    usage: () => AUDIT_LOGS_USAGE,
    run: async (argv, io) => (await import('./audit/audit-logs.js')).runAuditLogs(argv, io),
  },
  // The audit queue (PostgreSQL, pg-boss): loaded only by these commands.
  'audit-worker': {
    usage: () => AUDIT_WORKER_USAGE,
    run: async (argv, io) => (await import('./audit/audit-worker.js')).runAuditWorker(argv, io),
  },
  'audit-status': {
    usage: () => AUDIT_STATUS_USAGE,
    run: async (argv, io) => (await import('./audit/audit-status.js')).runAuditStatus(argv, io),
  },
  'audit-export': {
    usage: () => AUDIT_EXPORT_USAGE,
    run: async (argv, io) => (await import('./audit/audit-export.js')).runAuditExport(argv, io),
  },
  evidence: {
    usage: () => EVIDENCE_USAGE,
    run: async (argv, io) => (await import('./chains/evidence.js')).runEvidence(argv, io),
  },
  chains: {
    usage: () => CHAINS_USAGE,
    run: async (argv, io) => (await import('./chains/chains.js')).runChains(argv, io),
  },
  serve: { usage: () => SERVE_USAGE, run: async (argv) => (await import('./serve.js')).runServe(argv) },
  accounts: { usage: adminUsage, run: runAdmin },
  keys: { usage: adminUsage, run: runAdmin },
};

/** `prove receipt|logs …` (argv after `prove`). */
async function runProve(argv: string[], io: CliIo): Promise<number> {
  const [what, ...rest] = argv;
  if (what === 'receipt') return (await import('./verify/prove-receipt.js')).runProveReceipt(rest, io);
  if (what === 'logs') return (await import('./verify/prove-logs.js')).runProveLogs(rest, io);
  throw new UsageError(
    what === undefined
      ? 'prove needs what to prove: receipt or logs'
      : `cannot prove "${what}": expected receipt or logs`,
  );
}

async function adminUsage(): Promise<string> {
  return (await import('./admin/admin.js')).ADMIN_USAGE;
}

/** `accounts …` and `keys …` (argv starts with the group); help opens no store. */
async function runAdmin(argv: string[], io: CliIo): Promise<number> {
  const help = (await import('./admin/admin.js')).adminHelp(argv);
  if (help !== null) {
    io.stdout(`${help}\n`);
    return 0;
  }
  return (await import('./admin/admin-store.js')).runAdminCommand(argv, io);
}

const wantsHelp = (argv: readonly string[]) => {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The commands that take `--chain C` and `--add-chain ID:RULES`. */
const CHAIN_COMMANDS = new Set(['verify', 'request', 'prove', 'lineage', 'audit', 'audit-logs']);

/** An unknown option, and what to give instead when it is a flag the command had or one it has under another name. */
function unknownOptionMessage(option: string, command: string): string {
  if (option === '--chain-id' && CHAIN_COMMANDS.has(command))
    return `unknown option '--chain-id': give --chain (a chain id or name)`;
  if (command === 'evidence' && ['--chain-id', '--chain', '--add-chain'].includes(option))
    return `unknown option '${option}': evidence takes the chain from the block (or the node), and counts only for the built-in chains`;
  if (option === '--rules' && command === 'audit')
    return `unknown option '--rules': a chain outside the registry is added with --add-chain ID:RULES (and named with --chain ID)`;
  return `unknown option '${option}'`;
}

/**
 * Node's parseArgs messages in the CLI's words, naming the flag or argument: the first sentence, without its advice
 * about `--`.
 */
function parseArgsMessage(error: Error & { code?: string }, command: string, argv: readonly string[]): string {
  const option = /Option '(-[^' ]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    if (/does not take an argument/.test(error.message)) return `${option} takes no value`;
    // "ambiguous": the next argument starts with - (a negative number, a flag): say which, and how to give it.
    const next = /ambiguous/.test(error.message) ? argv[argv.indexOf(option) + 1] : undefined;
    return next === undefined
      ? `${option} needs a value`
      : `${option} needs a value, and "${next}" reads as a flag (to give it as the value: ${option}=${next})`;
  }
  const unknown = /^Unknown option '(-[^']+)'/.exec(error.message)?.[1];
  if (unknown !== undefined) return unknownOptionMessage(unknown, command);
  const positional = /^Unexpected argument '(.*)'\. This command does not take positional arguments/s.exec(
    error.message,
  );
  if (positional !== null) return `unexpected argument "${positional[1]}": ${command} takes only flags`;
  return error.message.split(/\. To specify a positional|\n/)[0]!;
}

/**
 * Runs the CLI with `argv` (without node and script); returns the exit status.
 * @example await main(['verify', 'receipt-root', 'body.json']) // 0 when every claim holds
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V' || first === 'version') {
    io.stdout(`evm-integrity ${version()}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    // `help --help` and `help help` ask for help on help: the overview, as `help` alone gives it.
    const topic = first === 'help' && !['--help', '-h', 'help'].includes(rest[0]!) ? rest[0] : undefined;
    if (topic === undefined) {
      io.stdout(`${OVERVIEW}\n`);
      return 0;
    }
    const command = Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
    if (command === undefined) {
      io.stderr(
        `evm-integrity: no command "${printable(topic)}"; expected one of ${Object.keys(COMMANDS).join(', ')}\ntry 'evm-integrity --help'\n`,
      );
      return 2;
    }
    io.stdout(`${await command.usage()}\n`);
    return 0;
  }
  if (first === undefined) {
    io.stderr(`${OVERVIEW}\n`);
    return 2;
  }
  const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first]! : undefined;
  if (command === undefined) {
    io.stderr(
      `evm-integrity: unknown command "${printable(first)}"; expected one of ${Object.keys(COMMANDS).join(', ')}\ntry 'evm-integrity --help'\n`,
    );
    return 2;
  }
  const isAdmin = first === 'accounts' || first === 'keys';
  if (!isAdmin && wantsHelp(rest)) {
    io.stdout(`${await command.usage()}\n`);
    return 0;
  }
  try {
    return await command.run(isAdmin ? argv : rest, io);
  } catch (error) {
    const err = error as Error & { code?: string };
    // Evidence given that does not verify (an anchor proof): a false verdict, in one line.
    if (error instanceof RefusedError) {
      io.stderr(`evm-integrity: ${printable(err.message)}\n`);
      return VERDICT_EXIT.different;
    }
    // A file that cannot be read or is not JSON: the command line was right, so no usage text.
    if (error instanceof InputError) {
      io.stderr(`evm-integrity: ${printable(err.message)}\n`);
      return 2;
    }
    if (error instanceof UsageError || err.code?.startsWith('ERR_PARSE_ARGS')) {
      const message = error instanceof UsageError ? err.message : parseArgsMessage(err, first, rest);
      // One line and where the usage is: a whole usage text would bury the line that says what is wrong.
      io.stderr(`evm-integrity: ${printable(message)}\ntry 'evm-integrity ${first} --help'\n`);
      return 2;
    }
    // Every error of the library is the operator's to fix: one line, exit 2.
    if (error instanceof EvmIntegrityError) {
      io.stderr(`evm-integrity: ${printable(err.message)}\n`);
      return 2;
    }
    io.stderr(
      `evm-integrity: ${first} failed unexpectedly: ${printable(String(err.message).split('\n')[0]!)} (this is a bug; please report it)\n`,
    );
    return EXIT_FAULT;
  }
}
