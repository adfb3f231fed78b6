/**
 * The operator's "dashboard" of a self-hosted server: accounts and API keys, over the same store
 * the server uses. `runAdmin(['keys', 'create', 'acme'], io, store)` → exit status.
 */
import { parseArgs } from 'node:util';
import { EvmIntegrityError } from 'evm-integrity';
import type { Store } from '../../store/store.js';
import {
  addCu,
  createAccount,
  createKey,
  deleteAccount,
  disableAccount,
  listAccounts,
  listKeys,
  revokeKey,
  updateAccount,
  integerKind,
  type CommandInput,
} from './admin-commands.js';
import { InputError, UsageError } from '../io/usage-error.js';
import { printable, printableLines } from '../io/printable.js';
import { EXIT_FAULT } from '../exit.js';

export const ADMIN_USAGE = `Accounts and API keys, on the server's store: each command takes the flags
that name it, as serve does: [--config FILE] [--store sqlite|postgres]
[--data-dir DIR] (a PostgreSQL store's URL from database_url or DATABASE_URL).
  evm-integrity accounts create --name N [--id ID] [--plan P] [--cu-limit N]
                                [--rps N] [--endpoints a,b] [--chains 1,10]
      defaults: plan self-hosted, 1000000 CU per month, 25 requests per second,
      every endpoint (names such as verify/receipt-root) and every chain
  evm-integrity accounts list
  evm-integrity accounts add-cu ID CU
      add a CU package to the current period
  evm-integrity accounts update ID [--name N] [--plan P] [--cu-limit N]
                                [--rps N] [--endpoints a,b|all]
                                [--chains 1,10|all]
      changes only what is given; the server applies it from the next request
  evm-integrity accounts disable ID
      revoke every key of the account (401 from the next request); keys create
      enables it
  evm-integrity accounts delete ID --yes
      the account, its keys and usage, for good
  evm-integrity keys create ACCOUNT_ID [--label L]
      prints the new key once (--account ID may name the account, here and in
      keys list); a key standard output does not take is revoked, said on
      standard error, exit 141 or 2
  evm-integrity keys list [ACCOUNT_ID]
  evm-integrity keys revoke ID_OR_HINT
  --json   print JSON instead of text
Each command works on an existing store: a --data-dir (or configuration) that
holds none is refused, naming the directory; the server creates the store at its
first start.
Exit status: 0 done, 2 bad input or refused (the reason on standard error), 3 a
fault of the program, 141 stdout closed early (… | head).`;

export interface AdminIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The store's flags as given (`--data-dir DIR`, `--config FILE`), which a hint's command repeats. */
  storeFlags?: readonly string[];
  /** Standard output for a key shown once, telling whether it was written (CliIo's); absent, `stdout`, taken as written. */
  tryStdout?: (text: string) => Promise<NodeJS.ErrnoException | undefined>;
  /** Whether standard output is the null device (CliIo's); absent, it is not. */
  stdoutIsNull?: () => boolean;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

const COMMON: OptionSpec = { json: { type: 'boolean' } };

/** A command: its synopsis, its options, and what it does (an exit status other than 0 when it says so). */
interface CommandSpec {
  synopsis: string;
  options: OptionSpec;
  run(input: CommandInput): Promise<number | void>;
}

const COMMANDS: Record<string, Record<string, CommandSpec>> = {
  accounts: {
    create: {
      synopsis:
        'accounts create --name N [--id ID] [--plan P] [--cu-limit N] [--rps N] [--endpoints a,b] [--chains 1,10]',
      options: {
        name: { type: 'string' },
        id: { type: 'string' },
        plan: { type: 'string' },
        'cu-limit': { type: 'string' },
        rps: { type: 'string' },
        endpoints: { type: 'string' },
        chains: { type: 'string' },
      },
      run: createAccount,
    },
    list: { synopsis: 'accounts list', options: {}, run: listAccounts },
    'add-cu': { synopsis: 'accounts add-cu ID CU', options: {}, run: addCu },
    update: {
      synopsis:
        'accounts update ID [--name N] [--plan P] [--cu-limit N] [--rps N] [--endpoints a,b|all] [--chains 1,10|all]',
      options: {
        name: { type: 'string' },
        plan: { type: 'string' },
        'cu-limit': { type: 'string' },
        rps: { type: 'string' },
        endpoints: { type: 'string' },
        chains: { type: 'string' },
      },
      run: updateAccount,
    },
    disable: { synopsis: 'accounts disable ID', options: {}, run: disableAccount },
    delete: { synopsis: 'accounts delete ID --yes', options: { yes: { type: 'boolean' } }, run: deleteAccount },
  },
  keys: {
    create: {
      synopsis: 'keys create ACCOUNT_ID [--label L]',
      options: { label: { type: 'string' }, account: { type: 'string' } },
      run: createKey,
    },
    list: { synopsis: 'keys list [ACCOUNT_ID]', options: { account: { type: 'string' } }, run: listKeys },
    revoke: { synopsis: 'keys revoke ID_OR_HINT', options: {}, run: revokeKey },
  },
};

/**
 * parseArgs' refusal in the CLI's words. A value that starts with '-' reads as a flag: say what the option needs and how
 * to give such a value, as the other commands do.
 */
function parseOptionError(error: unknown, args: readonly string[]): UsageError {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^' ]*)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined)
    return new UsageError(`unknown option '${option}'`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    if (!/argument missing|ambiguous/.test(message)) return new UsageError(`${option} takes no value`);
    const needs = `${option} needs ${integerKind(option) ?? 'a value'}`;
    const next = /ambiguous/.test(message) ? args[args.indexOf(option) + 1] : undefined;
    return new UsageError(
      next === undefined
        ? needs
        : `${needs}, and "${next}" reads as a flag (to give it as the value: ${option}=${next})`,
    );
  }
  return new UsageError(message.split('\n')[0]!);
}

/**
 * `args` parsed by `options`. A negative number where an argument goes (`add-cu acme -5`; no flag is a digit) is kept
 * among the positionals, in its place, rather than read as an unknown flag: the command judges it as any other value,
 * naming the argument. One right after a flag that takes a value is left to parseArgs (parseOptionError says how to
 * give it).
 */
function parseCommandArgs(args: readonly string[], options: OptionSpec) {
  const takesValue = (arg: string | undefined) =>
    arg !== undefined && /^--[^=]+$/.test(arg) && options[arg.slice(2)]?.type === 'string';
  const end = args.indexOf('--');
  const isNegative = (arg: string, i: number) =>
    (end === -1 || i < end) && /^-\d/.test(arg) && !takesValue(args[i - 1]);
  const kept = args.flatMap((arg, i) => (isNegative(arg, i) ? [] : [i]));
  const parsed = parseArgs({
    args: kept.map((i) => args[i]!),
    options,
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  const placed = [
    ...parsed.tokens.flatMap((token) =>
      token.kind === 'positional' ? [[kept[token.index]!, token.value] as const] : [],
    ),
    ...args.flatMap((arg, i) => (isNegative(arg, i) ? [[i, arg] as const] : [])),
  ];
  return { values: parsed.values, positionals: placed.sort(([a], [b]) => a - b).map(([, value]) => value) };
}

const HELP = ['help', '--help', '-h'];

/** The flag that gives each field the store validates. */
const FLAG_OF_FIELD: Record<string, string> = { id: '--id', name: '--name', plan: '--plan', label: '--label' };

/**
 * A refusal's message; a store's refusal of a field the command line gave is told as the flag's (`--id: must be …`).
 */
function refusalMessage(error: EvmIntegrityError<object, string>): string {
  const field = (error.details as { field?: unknown }).field;
  const flag = typeof field === 'string' ? FLAG_OF_FIELD[field] : undefined;
  return flag === undefined || !error.message.startsWith(`${field as string} `)
    ? error.message
    : `${flag}: ${error.message.slice((field as string).length + 1)}`;
}

/** A command's spec; own keys only, so `keys constructor` is an unknown command, not Object's. */
function commandSpec(group: string, command: string): CommandSpec | undefined {
  const commands = Object.hasOwn(COMMANDS, group) ? COMMANDS[group]! : {};
  return Object.hasOwn(commands, command) ? commands[command] : undefined;
}

/**
 * The help that `argv` (starting with the group) asks for, or null: the overview for
 * `accounts --help` or `keys help`, a command's synopsis for `keys create --help`. Needs no store.
 */
export function adminHelp(argv: readonly string[]): string | null {
  const [group, command, ...rest] = argv;
  if (group === undefined) return null;
  if (HELP.includes(group) || (command !== undefined && HELP.includes(command))) return ADMIN_USAGE;
  const spec = command === undefined ? undefined : commandSpec(group, command);
  if (spec !== undefined && rest.some((arg) => arg === '--help' || arg === '-h'))
    return `${usageLine(spec.synopsis)}\n\n${ADMIN_USAGE}`;
  return null;
}

/**
 * `usage: evm-integrity SYNOPSIS`, wrapped to 80 columns between its words and bracketed options, each further line
 * indented under the command's first option, as the help pages are.
 */
function usageLine(synopsis: string): string {
  const words = synopsis.match(/\[[^\]]*\]|\S+/g)!;
  const head = `usage: evm-integrity ${words.slice(0, 2).join(' ')}`;
  const lines = [head];
  for (const word of words.slice(2)) {
    const last = lines.length - 1;
    if (lines[last]!.length + 1 + word.length <= 80) lines[last] += ` ${word}`;
    else lines.push(`${' '.repeat(head.length)} ${word}`);
  }
  return lines.join('\n');
}

/** The line with no group: what to do. */
const NO_GROUP =
  'evm-integrity: say what to do: accounts create|list|add-cu|update|disable|delete or keys create|list|revoke (evm-integrity accounts --help)\n';

/** The command line read and checked (the command known, its flags parsed); a UsageError for a mistake in it. */
function commandLineOf(group: string, command: string | undefined, rest: string[]) {
  const commands = Object.hasOwn(COMMANDS, group) ? COMMANDS[group] : undefined;
  if (commands === undefined)
    throw new UsageError(`unknown command ${JSON.stringify(group)}; expected accounts or keys`);
  const names = Object.keys(commands).join(', ');
  if (command === undefined || command.startsWith('-')) throw new UsageError(`${group} needs a command: ${names}`);
  const spec = commandSpec(group, command);
  if (spec === undefined) throw new UsageError(`unknown command "${group} ${command}"; expected one of ${names}`);
  try {
    return { command, spec, parsed: parseCommandArgs(rest, { ...COMMON, ...spec.options }) };
  } catch (error) {
    throw parseOptionError(error, rest);
  }
}

/**
 * A mistake in the command line: one line and where the help is, as on every command; exit 2. An InputError (the command
 * line was right, what it names was not) is the line alone, as `main` tells it.
 */
function usageFailure(error: UsageError, group: string, command: string | undefined, io: AdminIo): number {
  const topic =
    error instanceof InputError
      ? undefined
      : command !== undefined && commandSpec(group, command) !== undefined
        ? `${group} ${command}`
        : Object.hasOwn(COMMANDS, group)
          ? group
          : undefined;
  io.stderr(
    `evm-integrity: ${printable(error.message)}\n${topic === undefined ? '' : `try 'evm-integrity ${topic} --help'\n`}`,
  );
  return 2;
}

/**
 * The exit status of a mistake in the command line `argv` (starting with the group), told on stderr; null when it is
 * right. Checked before the store is opened, so that a mistake is told as one whatever the store.
 */
export function adminCommandLineError(argv: readonly string[], io: AdminIo): number | null {
  const [group, command, ...rest] = argv;
  if (group === undefined) {
    io.stderr(NO_GROUP);
    return 2;
  }
  try {
    commandLineOf(group, command, rest);
    return null;
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error, group, command, io);
    throw error;
  }
}

/**
 * Runs `accounts …` or `keys …` (argv starts with the group) against `store`.
 * Returns 0 on success, 2 for bad input or a refusal (one line on stderr), 3 for an unexpected
 * fault, as every command of the CLI.
 */
export async function runAdmin(
  argv: string[],
  io: AdminIo,
  store: Store,
  now: () => Date = () => new Date(),
): Promise<number> {
  const help = adminHelp(argv);
  if (help !== null) {
    io.stdout(`${help}\n`);
    return 0;
  }
  const [group, command, ...rest] = argv;
  if (group === undefined) {
    io.stderr(NO_GROUP);
    return 2;
  }
  try {
    const { spec, parsed } = commandLineOf(group, command, rest);
    const values = parsed.values as Record<string, string | boolean | undefined>;
    const json = values.json === true;
    const positionals = parsed.positionals;
    const text = (name: string) => values[name] as string | undefined;
    const argument = (index: number, name: string): string => {
      const value = positionals[index];
      if (value === undefined || value === '') throw new UsageError(`${group} ${command} needs ${name}`);
      return value;
    };
    const maxArguments = (n: number) => {
      if (positionals.length > n) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[n])}`);
    };
    const print = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

    const status = await spec.run({
      store,
      // Names, plans and labels are the user's text: shown, never sent to the terminal as they are.
      stdout: (t) => io.stdout(printableLines(t)),
      stderr: (t) => io.stderr(printableLines(t)),
      tryStdout:
        io.tryStdout ??
        ((t) => {
          io.stdout(t);
          return Promise.resolve(undefined);
        }),
      stdoutIsNull: io.stdoutIsNull ?? (() => false),
      storeFlags: io.storeFlags ?? [],
      now,
      json,
      positionals,
      text,
      flag: (name) => values[name] === true,
      argument,
      maxArguments,
      print,
    });
    return status ?? 0;
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error, group, command, io);
    if (error instanceof EvmIntegrityError) {
      io.stderr(`evm-integrity: ${printable(refusalMessage(error as EvmIntegrityError<object, string>))}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`evm-integrity: ${group} ${command ?? ''} failed: ${printable(message.split('\n')[0]!)}\n`);
    return EXIT_FAULT;
  }
}
