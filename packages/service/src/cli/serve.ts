import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ConfigError, DEFAULT_CONFIG, parseConfig, type ServerConfig } from '../server/config.js';
import { applyEnvironment, variableOf } from '../server/config-env.js';
import { ANONYMOUS_ACCOUNT } from '../server/env.js';
import { openStore, startServer, storeFile } from '../server/start-server.js';
import type { Store } from '../store/store.js';
import { runAdmin } from './admin/admin.js';
import { InputError, UsageError } from './io/usage-error.js';
import { readFailure } from '../files/file-failures.js';

/**
 * The configuration: defaults, then the file (--config or EVM_INTEGRITY_CONFIG), then the environment (EVM_INTEGRITY_*
 * and the aliases PORT, HOST), then flags; each overrides only the members it names.
 */
export function loadConfig(
  values: { config?: string; host?: string; port?: string; store?: string; 'data-dir'?: string; evidence?: string },
  env: NodeJS.ProcessEnv,
): ServerConfig {
  const file = values.config ?? env.EVM_INTEGRITY_CONFIG;
  let config = DEFAULT_CONFIG;
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new InputError(`cannot read the configuration ${file}: ${readFailure(error)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new InputError(`the configuration ${file} is not JSON: ${(error as Error).message}`);
    }
    config = parseConfig(json);
  }
  config = applyEnvironment(config, env);
  const flags: Record<string, unknown> = {};
  if (values.host !== undefined) flags.host = values.host;
  if (values.port !== undefined) flags.port = /^\d+$/.test(values.port) ? Number(values.port) : values.port;
  if (values.store !== undefined) flags.store = values.store;
  if (values['data-dir'] !== undefined) flags.data_dir = values['data-dir'];
  if (values.evidence !== undefined) flags.evidence_dir = values.evidence;
  if (Object.keys(flags).length === 0) return config;
  try {
    return parseConfig(flags, config);
  } catch (error) {
    throw flagError(error);
  }
}

/** The configuration member each flag sets. */
const FLAG_OF: Record<string, string> = {
  host: '--host',
  port: '--port',
  store: '--store',
  data_dir: '--data-dir',
  evidence_dir: '--evidence',
};

/**
 * A configuration error about a member a flag set, told as the flag's: `--port: expected a port number 0-65535, got
 * "eighty"`.
 */
function flagError(error: unknown): unknown {
  if (!(error instanceof ConfigError)) return error;
  const member = /^(\w+): (.*)$/s.exec(error.message);
  const flag = member === null ? undefined : FLAG_OF[member[1]!];
  return flag === undefined ? error : new UsageError(`${flag}: ${member![2]}`);
}

const OPTIONS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  store: { type: 'string' },
  'data-dir': { type: 'string' },
  evidence: { type: 'string' },
} as const;

/** A word of a shell command, quoted when the shell would split or expand it. */
function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * What `serve` says once when it starts on a store that already has accounts: no key is printed
 * then (a key is shown only when it is made), so it tells how to make another for a lost one,
 * with the command for this very store.
 */
function lostKeyHint(accountIds: readonly string[], dataDir: string): string {
  const account = accountIds.length === 1 ? accountIds[0]! : 'ACCOUNT_ID';
  const where = `--data-dir ${shellWord(dataDir)}`;
  return (
    `This store already has ${accountIds.length === 1 ? `account "${accountIds[0]}"` : `accounts (${accountIds.join(', ')})`}; its API keys were shown once, when made. ` +
    `Lost one? Make another: evm-integrity keys create ${shellWord(account)} ${where} (keys list and keys revoke take the same ${where})\n`
  );
}

/** The accounts of a store a key can belong to (not the anonymous account of auth off). */
async function keyedAccounts(store: Store): Promise<string[]> {
  return (await store.listAccounts()).map((a) => a.id).filter((id) => id !== ANONYMOUS_ACCOUNT);
}

/** The first SIGINT or SIGTERM, as a promise; `remove` stops listening. */
function stopSignal(): { signal: Promise<string>; remove: () => void } {
  let remove = () => {};
  const signal = new Promise<string>((resolve) => {
    const on = (name: string) => resolve(name);
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
    remove = () => {
      process.removeListener('SIGINT', on);
      process.removeListener('SIGTERM', on);
    };
  });
  return { signal, remove };
}

/**
 * `serve`: runs until SIGINT or SIGTERM, then shuts down, waiting at most shutdown_timeout_ms for requests in progress.
 */
export async function runServe(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const config = loadConfig(values, process.env);
  const logger = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime });
  // Listened for from the start: a signal that comes while the server starts (as soon as the key
  // is printed) stops it once it is up, gracefully, instead of killing the process.
  const stop = stopSignal();
  try {
    const store = openStore(config);
    // Accounts before this start: then no key is printed, and a lost one needs the hint.
    const before = config.store === 'sqlite' && config.auth ? await keyedAccounts(store) : [];
    const server = await startServer(config, { logger, store });
    if (before.length > 0) process.stderr.write(lostKeyHint(await keyedAccounts(store), config.dataDir));
    const signal = await stop.signal;
    logger.info(
      { signal, shutdown_timeout_ms: config.shutdownTimeoutMs },
      'shutting down: finishing requests in progress',
    );
    await server.close().catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'));
  } finally {
    stop.remove();
  }
  logger.info('stopped');
  return 0;
}

/**
 * An admin command works on a store that exists: a data directory without one is a mistake (a
 * typo, another directory), told in one line naming it, never a new empty store.
 */
function requireStore(dataDir: string, from: 'flag' | 'environment' | 'config' | 'default'): void {
  if (existsSync(storeFile(dataDir))) return;
  const named =
    from === 'flag'
      ? `--data-dir ${dataDir}`
      : from === 'environment'
        ? `EVM_INTEGRITY_DATA_DIR ${dataDir}`
        : from === 'config'
          ? `data_dir ${dataDir} (of the configuration)`
          : `${dataDir} (the default data directory)`;
  throw new InputError(
    `${named} holds no store (no ${storeFile('').replace(/^[\\/]/, '')} in it); the server makes one at its first start: evm-integrity serve --data-dir ${shellWord(dataDir)}`,
  );
}

/** `accounts …` and `keys …` on the store the server uses (same --config / --data-dir). */
export async function runAdminCommand(
  argv: string[],
  io: { stdout(t: string): void; stderr(t: string): void },
): Promise<number> {
  const storeArgs: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.replace(/^--/, '').split('=')[0]!;
    if (arg.startsWith('--') && name in OPTIONS) {
      storeArgs.push(arg);
      if (!arg.includes('=')) storeArgs.push(argv[++i] ?? '');
    } else rest.push(arg);
  }
  const { values } = parseArgs({ args: storeArgs, options: OPTIONS, allowPositionals: false });
  const config = loadConfig(values, process.env);
  if (config.store === 'memory')
    throw new UsageError(
      'accounts and keys need a persistent store: the memory store lives only inside a running server',
    );
  if (config.store === 'sqlite')
    requireStore(
      config.dataDir,
      values['data-dir'] !== undefined
        ? 'flag'
        : (process.env[variableOf('data_dir')] ?? '') !== ''
          ? 'environment'
          : (values.config ?? process.env.EVM_INTEGRITY_CONFIG ?? '') !== ''
            ? 'config'
            : 'default',
    );
  let store: Store | undefined;
  try {
    store = openStore(config);
    return await runAdmin(rest, io, store);
  } finally {
    await store?.close();
  }
}

export { ConfigError };
