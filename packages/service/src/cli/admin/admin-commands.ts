/**
 * The operator's commands, one function each: what `accounts …` and `keys …` do once their
 * arguments are parsed (src/cli/admin/admin.ts parses and dispatches).
 */
import { ENDPOINT_NAMES } from '../../endpoints/endpoints.js';
import { cuAllowance, cuRemaining } from '../../store/periods.js';
import { accountNotFound } from '../../store/store-error.js';
import { type Entitlements, type Store } from '../../store/store.js';
import { accountJson, describeAccount, entitlementText, hintText, keyJson, table, usageJson } from './admin-format.js';
import { InputError, UsageError } from '../io/usage-error.js';
import { sameStoreCommand } from '../serve-config.js';
import { chainValue } from '../chain-flag.js';
import { outputFailedExit, outputFailure } from '../io/streams.js';
import { printable } from '../io/printable.js';

const DEFAULTS = { plan: 'self-hosted', cuLimit: 1_000_000, rps: 25, label: 'default' } as const;

/** A parsed command line, and what a command needs to answer it. */
export interface CommandInput {
  store: Store;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Writes to standard output, resolving with why it could not (see CliIo's), where `stdout` would end the process. */
  tryStdout: (text: string) => Promise<NodeJS.ErrnoException | undefined>;
  /** Whether standard output is the null device, where a key shown once is seen by nobody. */
  stdoutIsNull: () => boolean;
  /** The store's flags as given (`--data-dir DIR`, `--config FILE`), which a hint's command repeats. */
  storeFlags: readonly string[];
  now: () => Date;
  json: boolean;
  positionals: readonly string[];
  /** The value of a string option, if given. */
  text: (name: string) => string | undefined;
  /** Whether a boolean option was given. */
  flag: (name: string) => boolean;
  /** The positional argument at `index`; a usage error naming `name` when missing. */
  argument: (index: number, name: string) => string;
  /** A usage error when more than `n` positional arguments were given. */
  maxArguments: (n: number) => void;
  /** Prints `value` as indented JSON. */
  print: (value: unknown) => void;
}

/** The least value of each whole-number argument: a CU limit may be 0 (nothing metered is allowed). */
const INTEGER_MINIMUM = { CU: 1, '--cu-limit': 0, '--rps': 1 } as const;
type IntegerArgument = keyof typeof INTEGER_MINIMUM;

/** What `what` takes, in words (`a positive integer`), when it is a whole-number argument; else undefined. */
export function integerKind(what: string): string | undefined {
  if (!Object.hasOwn(INTEGER_MINIMUM, what)) return undefined;
  return INTEGER_MINIMUM[what as IntegerArgument] === 0 ? 'a non-negative integer' : 'a positive integer';
}

/** A whole number written in decimal (underscores allowed as separators), at least `what`'s least. */
function parseInteger(what: IntegerArgument, text: string): number {
  const digits = text.replace(/_/g, '');
  const value = /^\d+$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(value) || value < INTEGER_MINIMUM[what])
    throw new UsageError(`${what} must be ${integerKind(what)!}, got ${JSON.stringify(text)}`);
  return value;
}

function parseList(option: string, text: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`${option} needs at least one value (leave it out to allow all)`);
  return items;
}

/** `/v1/evm/verify/receipt-root`, `evm/verify/receipt-root` → `verify/receipt-root`, the server's endpoint name. */
function endpointName(text: string): string {
  return text
    .replace(/^\/+/, '')
    .replace(/^v1\//, '')
    .replace(/^evm\//, '');
}

/** `--endpoints a,b`: endpoint names; `all` (absent from the entitlements) as undefined. */
function endpointsOption(text: string): string[] | undefined {
  if (text.trim() === 'all') return undefined;
  const names = [...new Set(parseList('--endpoints', text).map(endpointName))];
  const unknown = names.find((name) => !ENDPOINT_NAMES.includes(name));
  if (unknown !== undefined)
    throw new UsageError(`--endpoints: "${unknown}" is not an endpoint; one of ${ENDPOINT_NAMES.join(', ')}, or all`);
  return names;
}

/** `--chains 1,mainnet`: chains by id or name, as `--chain` takes them; `all` (absent from the entitlements) as undefined. */
function chainsOption(text: string): number[] | undefined {
  return text.trim() === 'all'
    ? undefined
    : [...new Set(parseList('--chains', text).map((c) => chainValue('--chains', c)))];
}

/** Entitlements from their two lists; null when both allow all. */
function entitlementsOf(endpoints: string[] | undefined, chains: number[] | undefined): Entitlements | null {
  return endpoints === undefined && chains === undefined
    ? null
    : { ...(endpoints && { endpoints }), ...(chains && { chains }) };
}

/** `accounts create`: a new account, with its first billing period from now. */
export async function createAccount({
  store,
  stdout,
  storeFlags,
  now,
  json,
  text,
  maxArguments,
  print,
}: CommandInput): Promise<void> {
  maxArguments(0);
  const name = text('name');
  if (name === undefined || name.trim() === '') throw new UsageError('accounts create needs --name');
  const cuLimit = text('cu-limit') === undefined ? DEFAULTS.cuLimit : parseInteger('--cu-limit', text('cu-limit')!);
  const rps = text('rps') === undefined ? DEFAULTS.rps : parseInteger('--rps', text('rps')!);
  const endpoints = text('endpoints') === undefined ? undefined : endpointsOption(text('endpoints')!);
  const chains = text('chains') === undefined ? undefined : chainsOption(text('chains')!);
  const entitlements = entitlementsOf(endpoints, chains);
  const at = now();
  const account = await store.createAccount(
    {
      ...(text('id') !== undefined && { id: text('id')! }),
      name,
      plan: text('plan') ?? DEFAULTS.plan,
      cuLimit,
      rateLimitRps: rps,
      entitlements,
    },
    at,
  );
  const usage = await store.usage(account.id, at);
  if (json) print({ ...accountJson(account), usage: usageJson(usage) });
  else
    stdout(
      `Created account ${account.id} (${account.name})\n${describeAccount(account, usage)}\nNext: ${sameStoreCommand(['keys', 'create', account.id], storeFlags)}\n`,
    );
}

/** The options `accounts update` changes, each only when given. */
const UPDATABLE = ['name', 'plan', 'cu-limit', 'rps', 'endpoints', 'chains'] as const;

/**
 * `accounts update ID --name N --plan P --cu-limit N --rps N --endpoints a,b|all --chains 1,10|all`: changes only what
 * is given.
 */
export async function updateAccount({
  store,
  stdout,
  now,
  json,
  text,
  argument,
  maxArguments,
  print,
}: CommandInput): Promise<void> {
  const id = argument(0, 'an account ID');
  maxArguments(1);
  if (UPDATABLE.every((option) => text(option) === undefined))
    throw new UsageError(`accounts update needs something to change: ${UPDATABLE.map((o) => `--${o}`).join(', ')}`);
  const account = await store.getAccount(id);
  if (account === undefined) throw accountNotFound(id);
  const given = (option: (typeof UPDATABLE)[number]) => text(option);
  const endpoints =
    given('endpoints') === undefined ? account.entitlements?.endpoints : endpointsOption(given('endpoints')!);
  const chains = given('chains') === undefined ? account.entitlements?.chains : chainsOption(given('chains')!);
  const updated = await store.upsertAccount(
    {
      id: account.id,
      name: given('name') ?? account.name,
      plan: given('plan') ?? account.plan,
      cuLimit: given('cu-limit') === undefined ? account.cuLimit : parseInteger('--cu-limit', given('cu-limit')!),
      rateLimitRps: given('rps') === undefined ? account.rateLimitRps : parseInteger('--rps', given('rps')!),
      entitlements: entitlementsOf(endpoints, chains),
    },
    now(),
  );
  const usage = await store.usage(updated.id, now());
  if (json) print({ ...accountJson(updated), usage: usageJson(usage) });
  else
    stdout(
      `Updated account ${updated.id} (${updated.name}); the server applies it from the next request\n${describeAccount(updated, usage)}\n`,
    );
}

/**
 * `accounts disable ID`: revokes every active key of the account, so its requests get 401; settings and usage are kept.
 */
export async function disableAccount({
  store,
  stdout,
  storeFlags,
  now,
  json,
  argument,
  maxArguments,
  print,
}: CommandInput): Promise<void> {
  const id = argument(0, 'an account ID');
  maxArguments(1);
  const revoked = await store.revokeAccountKeys(id, now());
  if (json) print({ account_id: id, revoked_keys: revoked.map(keyJson) });
  else {
    const which =
      revoked.length === 0
        ? 'it had no active key'
        : `revoked ${revoked.length} key${revoked.length === 1 ? '' : 's'} (${revoked.map((k) => k.id).join(', ')})`;
    stdout(
      `Disabled account ${id}: ${which}; requests with its keys now get 401.\nIts settings and usage are kept. To enable it again: ${sameStoreCommand(['keys', 'create', id], storeFlags)}\n`,
    );
  }
}

/**
 * `accounts delete ID --yes`: the account, its keys, usage and request log, for good; without --yes, says what would
 * go.
 */
export async function deleteAccount({
  store,
  stdout,
  json,
  flag,
  argument,
  maxArguments,
  print,
}: CommandInput): Promise<void> {
  const id = argument(0, 'an account ID');
  maxArguments(1);
  if (!flag('yes')) {
    const keys = (await store.listKeys(id)).length; // STORE_NOT_FOUND for an unknown account, before asking
    throw new UsageError(
      `accounts delete removes account ${id}, its ${keys} key${keys === 1 ? '' : 's'}, its usage and its request log for good; add --yes to confirm`,
    );
  }
  const gone = await store.deleteAccount(id);
  if (json) print({ account_id: id, deleted: true, keys: gone.keys, requests: gone.requests });
  else
    stdout(
      `Deleted account ${id} with its ${gone.keys} key${gone.keys === 1 ? '' : 's'} and ${gone.requests} logged request${gone.requests === 1 ? '' : 's'}\n`,
    );
}

/** `accounts list`: every account with its usage this period and its active keys. */
export async function listAccounts({ store, stdout, now, json, maxArguments, print }: CommandInput): Promise<void> {
  maxArguments(0);
  const at = now();
  const accounts = [];
  for (const account of await store.listAccounts()) {
    accounts.push({
      account,
      usage: await store.usage(account.id, at),
      activeKeys: (await store.listKeys(account.id)).filter((k) => k.revokedAt === null).length,
    });
  }
  if (json) {
    print(
      accounts.map(({ account, usage, activeKeys }) => ({
        ...accountJson(account),
        active_keys: activeKeys,
        usage: usageJson(usage),
      })),
    );
  } else if (accounts.length === 0) {
    stdout('No accounts yet. Create one: evm-integrity accounts create --name NAME\n');
  } else {
    stdout(
      table(
        ['ID', 'NAME', 'PLAN', 'CU USED', 'CU ALLOWANCE', 'RPS', 'KEYS', 'ENDPOINTS', 'CHAINS', 'PERIOD ENDS'],
        accounts.map(({ account: a, usage: u, activeKeys }) => [
          a.id,
          a.name,
          a.plan,
          String(u.cuUsed),
          u.cuExtra > 0 ? `${cuAllowance(u)} (${u.cuLimit} + ${u.cuExtra})` : String(cuAllowance(u)),
          String(a.rateLimitRps),
          String(activeKeys),
          entitlementText(a.entitlements?.endpoints),
          entitlementText(a.entitlements?.chains),
          u.periodEnd,
        ]),
      ),
    );
  }
}

/** `accounts add-cu ID CU`: a CU package that raises this period's allowance. */
export async function addCu({ store, stdout, now, json, argument, maxArguments, print }: CommandInput): Promise<void> {
  const id = argument(0, 'an account ID');
  const cu = parseInteger('CU', argument(1, 'the number of CU to add'));
  maxArguments(2);
  const usage = await store.addCu(id, cu, now());
  if (json) print({ account_id: id, added_cu: cu, usage: usageJson(usage) });
  else {
    stdout(
      `Added ${cu} CU to ${id} until ${usage.periodEnd}: allowance ${cuAllowance(usage)} CU (limit ${usage.cuLimit} + packages ${usage.cuExtra}), used ${usage.cuUsed}, remaining ${cuRemaining(usage)}\n`,
    );
  }
}

/** The account a `keys` command names: ACCOUNT_ID, or `--account ID` (one of them; both must agree). */
function accountArgument(
  { text, positionals, argument, maxArguments }: CommandInput,
  required: boolean,
): string | undefined {
  const flag = text('account');
  maxArguments(1);
  if (flag !== undefined && positionals[0] !== undefined && positionals[0] !== flag)
    throw new UsageError(`ACCOUNT_ID "${positionals[0]}" and --account "${flag}" name different accounts; give one`);
  if (flag !== undefined) return flag;
  return required ? argument(0, 'an ACCOUNT_ID (or --account ID)') : positionals[0];
}

/**
 * `keys create ACCOUNT_ID` (or `--account ID`): a new key, shown once; only its SHA-256 is stored. A key standard output
 * did not take is revoked, said on standard error, with the status of an output that cannot be written: nobody saw it,
 * and active it would only hold one of the account's slots.
 */
export async function createKey(input: CommandInput): Promise<number | void> {
  const { store, tryStdout, stderr, storeFlags, now, json, text } = input;
  const accountId = accountArgument(input, true)!;
  // Written there, the key would be taken whole and seen by nobody: no write fails to tell it.
  if (input.stdoutIsNull())
    throw new InputError(
      'keys create: standard output is /dev/null, where a key shown once is seen by nobody: run it where standard output is a terminal, a file or a pipe; no key was made',
    );
  const { key, record } = await store.createKey(accountId, text('label') ?? DEFAULTS.label, now());
  const warning = 'This key will not be shown again: store it now (an environment variable or a secret manager).';
  const failure = await tryStdout(
    json
      ? `${JSON.stringify({ ...keyJson(record), key }, null, 2)}\n`
      : `Created key ${record.id} for account ${record.accountId} (label ${JSON.stringify(record.label)}):\n\n  ${key}\n\n${warning}\nUse it as: Authorization: Bearer <key>\n`,
  );
  if (failure === undefined) {
    if (json) stderr(`${warning}\n`);
    return;
  }
  const unshown = `the new key ${record.id} of account ${record.accountId} could not be shown (${outputFailure('standard output', failure)})`;
  try {
    await store.revokeKey(record.id, now());
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    stderr(
      `evm-integrity: ${unshown}, and revoking it failed (${printable(why)}); revoke it: ${sameStoreCommand(['keys', 'revoke', record.id], storeFlags)}\n`,
    );
    return outputFailedExit(failure);
  }
  stderr(
    `evm-integrity: ${unshown}, so it was revoked: nobody has it; create another where standard output can be written\n`,
  );
  return outputFailedExit(failure);
}

/** `keys list [ACCOUNT_ID]` (or `--account ID`): keys by hint and label, never the key or its hash. */
export async function listKeys(input: CommandInput): Promise<void> {
  const { store, stdout, json, print, storeFlags } = input;
  const accountId = accountArgument(input, false);
  const keys = await store.listKeys(accountId);
  if (json) print(keys.map(keyJson));
  else if (keys.length === 0) {
    stdout(
      accountId === undefined
        ? `No keys yet. Create one: ${sameStoreCommand(['keys', 'create', 'ACCOUNT_ID'], storeFlags)}\n`
        : `No keys for account ${accountId}. Create one: ${sameStoreCommand(['keys', 'create', accountId], storeFlags)}\n`,
    );
  } else {
    stdout(
      table(
        ['ID', 'ACCOUNT', 'HINT', 'LABEL', 'STATUS', 'CREATED'],
        keys.map((k) => [
          k.id,
          k.accountId,
          hintText(k),
          k.label,
          k.revokedAt === null ? 'active' : `revoked ${k.revokedAt}`,
          k.createdAt,
        ]),
      ),
    );
  }
}

/** `keys revoke ID_OR_HINT`: the key gets 401 from its next request on. */
export async function revokeKey({
  store,
  stdout,
  now,
  json,
  argument,
  maxArguments,
  print,
}: CommandInput): Promise<void> {
  const idOrHint = argument(0, 'a key ID or hint');
  maxArguments(1);
  const revokedBefore = new Map((await store.listKeys()).map((k) => [k.id, k.revokedAt !== null]));
  const key = await store.revokeKey(idOrHint, now());
  const already = revokedBefore.get(key.id) === true;
  if (json) print({ ...keyJson(key), already_revoked: already });
  else if (already)
    stdout(`Key ${key.id} (${hintText(key)}) of account ${key.accountId} was already revoked at ${key.revokedAt}\n`);
  else
    stdout(
      `Revoked key ${key.id} (${hintText(key)}, label ${JSON.stringify(key.label)}) of account ${key.accountId}: requests with it now get 401\n`,
    );
}
