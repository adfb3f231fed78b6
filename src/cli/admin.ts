/**
 * The operator's "dashboard" of a self-hosted server: accounts and API keys, over the same store
 * the server uses. `runAdmin(['keys', 'create', 'acme'], io, store)` → exit status.
 */
import { parseArgs } from 'node:util';
import { cuAllowance, cuRemaining } from '../server/store/periods.js';
import { EvmIntegrityError } from '../errors.js';
import { type Account, type KeyRecord, type Usage, type Store } from '../server/store/types.js';
import { UsageError } from './io.js';

export const ADMIN_USAGE = `Accounts and API keys (the store of the server: same --config / --data-dir):
  evm-integrity accounts create --name N [--id ID] [--plan P] [--cu-limit N] [--rps N]
                                [--endpoints a,b] [--chains 1,10]
      defaults: plan self-hosted, 1000000 CU per month, 25 requests per second,
      every endpoint (names such as verify/receipt-root) and every chain
  evm-integrity accounts list
  evm-integrity accounts add-cu ID CU        add a CU package to the current period
  evm-integrity keys create ACCOUNT_ID [--label L]   prints the new key once
  evm-integrity keys list [ACCOUNT_ID]
  evm-integrity keys revoke ID_OR_HINT
  --json   print JSON instead of text
Exit status: 0 done, 2 bad input or refused (the reason on standard error).`;

export interface AdminIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const DEFAULTS = { plan: 'self-hosted', cuLimit: 1_000_000, rps: 25, label: 'default' } as const;

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

const COMMON: OptionSpec = { json: { type: 'boolean' } };

const COMMANDS: Record<string, Record<string, { options: OptionSpec; synopsis: string }>> = {
  accounts: {
    create: {
      synopsis: 'accounts create --name N [--id ID] [--plan P] [--cu-limit N] [--rps N] [--endpoints a,b] [--chains 1,10]',
      options: { name: { type: 'string' }, id: { type: 'string' }, plan: { type: 'string' }, 'cu-limit': { type: 'string' }, rps: { type: 'string' }, endpoints: { type: 'string' }, chains: { type: 'string' } },
    },
    list: { synopsis: 'accounts list', options: {} },
    'add-cu': { synopsis: 'accounts add-cu ID CU', options: {} },
  },
  keys: {
    create: { synopsis: 'keys create ACCOUNT_ID [--label L]', options: { label: { type: 'string' } } },
    list: { synopsis: 'keys list [ACCOUNT_ID]', options: {} },
    revoke: { synopsis: 'keys revoke ID_OR_HINT', options: {} },
  },
};

/** A whole number written in decimal (underscores allowed as separators), at least `min`. */
function parseInteger(what: string, text: string, min: number): number {
  const digits = text.replace(/_/g, '');
  const value = /^\d+$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${what} must be ${min === 0 ? 'a non-negative' : 'a positive'} integer, got ${JSON.stringify(text)}`);
  }
  return value;
}

function parseList(option: string, text: string): string[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`${option} needs at least one value (leave it out to allow all)`);
  return items;
}

/** `/v1/evm/verify/receipt-root`, `evm/verify/receipt-root` → `verify/receipt-root`, the server's endpoint name. */
function endpointName(text: string): string {
  return text.replace(/^\/+/, '').replace(/^v1\//, '').replace(/^evm\//, '');
}

function parseOptionError(error: unknown, synopsis: string): UsageError {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^' ]*)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
    if (/^-\d/.test(option)) return new UsageError(`numbers must be non-negative integers, got ${option}`);
    return new UsageError(`unknown option ${option} (usage: evm-integrity ${synopsis})`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    return new UsageError(/argument missing|ambiguous/.test(message) ? `${option} needs a value` : `${option} takes no value`);
  }
  return new UsageError(message.split('\n')[0]!);
}

const accountJson = (a: Account) => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  cu_limit: a.cuLimit,
  rate_limit_rps: a.rateLimitRps,
  entitlements: a.entitlements,
  period_anchor: a.periodAnchor,
  created_at: a.createdAt,
});

const usageJson = (u: Usage) => ({
  cu_limit: u.cuLimit,
  cu_extra: u.cuExtra,
  cu_allowance: cuAllowance(u),
  cu_used: u.cuUsed,
  cu_remaining: cuRemaining(u),
  cu_reset_at: u.periodEnd,
  billing_period: { start: u.periodStart, end: u.periodEnd },
  cu_by_endpoint: u.cuByEndpoint,
});

const keyStatus = (k: KeyRecord) => (k.revokedAt === null ? 'active' : 'revoked');

/** What lists show of a key: never the key, never its hash. */
const keyJson = (k: KeyRecord) => ({
  id: k.id,
  account_id: k.accountId,
  label: k.label,
  hint: k.hint === '' ? null : k.hint,
  status: keyStatus(k),
  created_at: k.createdAt,
  revoked_at: k.revokedAt,
});

const hintText = (k: KeyRecord) => (k.hint === '' ? '(imported by hash)' : `${k.hint}…`);

/** Left-aligned columns, two spaces apart. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

const entitlementText = (list: readonly (string | number)[] | undefined) => (list === undefined ? 'all' : list.length === 0 ? 'none' : list.join(', '));

function describeAccount(a: Account, u: Usage): string {
  return [
    `  plan            ${a.plan}`,
    `  CU per period   ${a.cuLimit}`,
    `  requests/s      ${a.rateLimitRps} (shared by all keys of the account)`,
    `  endpoints       ${entitlementText(a.entitlements?.endpoints)}`,
    `  chains          ${entitlementText(a.entitlements?.chains)}`,
    `  billing period  ${u.periodStart} to ${u.periodEnd} (a calendar month)`,
  ].join('\n');
}

const HELP = ['help', '--help', '-h'];

/** A command's spec; own keys only, so `keys constructor` is an unknown command, not Object's. */
function commandSpec(group: string, command: string): { options: OptionSpec; synopsis: string } | undefined {
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
  if (spec !== undefined && rest.some((arg) => arg === '--help' || arg === '-h')) return `usage: evm-integrity ${spec.synopsis}\n\n${ADMIN_USAGE}`;
  return null;
}

/**
 * Runs `accounts …` or `keys …` (argv starts with the group) against `store`.
 * Returns 0 on success, 2 for bad input or a refusal (one line on stderr), 1 for an unexpected fault.
 */
export function runAdmin(argv: string[], io: AdminIo, store: Store, now: () => Date = () => new Date()): number {
  const help = adminHelp(argv);
  if (help !== null) {
    io.stdout(`${help}\n`);
    return 0;
  }
  const [group, command, ...rest] = argv;
  if (group === undefined) {
    io.stderr('evm-integrity: say what to do: accounts create|list|add-cu or keys create|list|revoke (evm-integrity accounts --help)\n');
    return 2;
  }
  const commands = Object.hasOwn(COMMANDS, group) ? COMMANDS[group] : undefined;
  try {
    if (commands === undefined) throw new UsageError(`unknown command ${JSON.stringify(group)}; expected accounts or keys`);
    const names = Object.keys(commands).join(', ');
    if (command === undefined || command.startsWith('-')) throw new UsageError(`${group} needs a command: ${names}`);
    const spec = commandSpec(group, command);
    if (spec === undefined) throw new UsageError(`unknown command "${group} ${command}"; expected one of ${names}`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...COMMON, ...spec.options }, allowPositionals: true, strict: true });
    } catch (error) {
      throw parseOptionError(error, spec.synopsis);
    }
    const values = parsed.values as Record<string, string | boolean | undefined>;
    const json = values.json === true;
    const positionals = parsed.positionals;
    const text = (name: string) => values[name] as string | undefined;
    const argument = (index: number, name: string): string => {
      const value = positionals[index];
      if (value === undefined || value === '') throw new UsageError(`${group} ${command} needs ${name} (usage: evm-integrity ${spec.synopsis})`);
      return value;
    };
    const maxArguments = (n: number) => {
      if (positionals.length > n) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[n])} (usage: evm-integrity ${spec.synopsis})`);
    };
    const print = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

    switch (`${group} ${command}`) {
      case 'accounts create': {
        maxArguments(0);
        const name = text('name');
        if (name === undefined || name.trim() === '') throw new UsageError(`accounts create needs --name (usage: evm-integrity ${spec.synopsis})`);
        const cuLimit = text('cu-limit') === undefined ? DEFAULTS.cuLimit : parseInteger('--cu-limit', text('cu-limit')!, 0);
        const rps = text('rps') === undefined ? DEFAULTS.rps : parseInteger('--rps', text('rps')!, 1);
        const endpoints = text('endpoints') === undefined ? undefined : [...new Set(parseList('--endpoints', text('endpoints')!).map(endpointName))];
        const chains = text('chains') === undefined ? undefined : parseList('--chains', text('chains')!).map((c) => parseInteger('--chains', c, 1));
        const entitlements = endpoints === undefined && chains === undefined ? null : { ...(endpoints && { endpoints }), ...(chains && { chains }) };
        const at = now();
        const account = store.createAccount(
          { ...(text('id') !== undefined && { id: text('id')! }), name, plan: text('plan') ?? DEFAULTS.plan, cuLimit, rateLimitRps: rps, entitlements },
          at,
        );
        const usage = store.usage(account.id, at);
        if (json) print({ ...accountJson(account), usage: usageJson(usage) });
        else io.stdout(`Created account ${account.id} (${account.name})\n${describeAccount(account, usage)}\nNext: evm-integrity keys create ${account.id}\n`);
        return 0;
      }
      case 'accounts list': {
        maxArguments(0);
        const at = now();
        const accounts = store.listAccounts().map((account) => ({
          account,
          usage: store.usage(account.id, at),
          activeKeys: store.listKeys(account.id).filter((k) => k.revokedAt === null).length,
        }));
        if (json) {
          print(accounts.map(({ account, usage, activeKeys }) => ({ ...accountJson(account), active_keys: activeKeys, usage: usageJson(usage) })));
        } else if (accounts.length === 0) {
          io.stdout('No accounts yet. Create one: evm-integrity accounts create --name NAME\n');
        } else {
          io.stdout(
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
        return 0;
      }
      case 'accounts add-cu': {
        const id = argument(0, 'an account ID');
        const cu = parseInteger('CU', argument(1, 'the number of CU to add'), 1);
        maxArguments(2);
        const usage = store.addCu(id, cu, now());
        if (json) print({ account_id: id, added_cu: cu, usage: usageJson(usage) });
        else {
          io.stdout(
            `Added ${cu} CU to ${id} until ${usage.periodEnd}: allowance ${cuAllowance(usage)} CU (limit ${usage.cuLimit} + packages ${usage.cuExtra}), used ${usage.cuUsed}, remaining ${cuRemaining(usage)}\n`,
          );
        }
        return 0;
      }
      case 'keys create': {
        const accountId = argument(0, 'an ACCOUNT_ID');
        maxArguments(1);
        const { key, record } = store.createKey(accountId, text('label') ?? DEFAULTS.label, now());
        const warning = 'This key will not be shown again: store it now (an environment variable or a secret manager).';
        if (json) {
          print({ ...keyJson(record), key });
          io.stderr(`${warning}\n`);
        } else {
          io.stdout(`Created key ${record.id} for account ${record.accountId} (label ${JSON.stringify(record.label)}):\n\n  ${key}\n\n${warning}\nUse it as: Authorization: Bearer <key>\n`);
        }
        return 0;
      }
      case 'keys list': {
        maxArguments(1);
        const accountId = positionals[0];
        const keys = store.listKeys(accountId);
        if (json) print(keys.map(keyJson));
        else if (keys.length === 0) {
          io.stdout(accountId === undefined ? 'No keys yet. Create one: evm-integrity keys create ACCOUNT_ID\n' : `No keys for account ${accountId}. Create one: evm-integrity keys create ${accountId}\n`);
        } else {
          io.stdout(
            table(
              ['ID', 'ACCOUNT', 'HINT', 'LABEL', 'STATUS', 'CREATED'],
              keys.map((k) => [k.id, k.accountId, hintText(k), k.label, k.revokedAt === null ? 'active' : `revoked ${k.revokedAt}`, k.createdAt]),
            ),
          );
        }
        return 0;
      }
      case 'keys revoke': {
        const idOrHint = argument(0, 'a key ID or hint');
        maxArguments(1);
        const revokedBefore = new Map(store.listKeys().map((k) => [k.id, k.revokedAt !== null]));
        const key = store.revokeKey(idOrHint, now());
        const already = revokedBefore.get(key.id) === true;
        if (json) print({ ...keyJson(key), already_revoked: already });
        else if (already) io.stdout(`Key ${key.id} (${hintText(key)}) of account ${key.accountId} was already revoked at ${key.revokedAt}\n`);
        else io.stdout(`Revoked key ${key.id} (${hintText(key)}, label ${JSON.stringify(key.label)}) of account ${key.accountId}: requests with it now get 401\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${group} ${command}"`);
    }
  } catch (error) {
    if (error instanceof EvmIntegrityError) {
      io.stderr(`evm-integrity: ${error.message}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`evm-integrity: ${group} ${command ?? ''} failed: ${message.split('\n')[0]}\n`);
    return 1;
  }
}
