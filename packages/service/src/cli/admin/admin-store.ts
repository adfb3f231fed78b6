/** `accounts …` and `keys …` on the store the server uses: the store opened as `serve` would open it, then the command. */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { variableOf } from '../../server/config/config-env.js';
import { openStore, storeFile } from '../../server/start-server.js';
import type { Store } from '../../store/store.js';
import { InputError, UsageError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';
import { CONFIG_OPTIONS, loadConfig, shellWord } from '../serve-config.js';
import { adminCommandLineError, runAdmin } from './admin.js';

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
export async function runAdminCommand(argv: string[], io: CliIo): Promise<number> {
  const storeArgs: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.replace(/^--/, '').split('=')[0]!;
    if (arg.startsWith('--') && name in CONFIG_OPTIONS) {
      storeArgs.push(arg);
      if (!arg.includes('=')) storeArgs.push(argv[++i] ?? '');
    } else rest.push(arg);
  }
  // The command line is checked before the store is opened: a mistake in it is told as such, whatever the store.
  const mistake = adminCommandLineError(rest, io);
  if (mistake !== null) return mistake;
  const { values } = parseArgs({ args: storeArgs, options: CONFIG_OPTIONS, allowPositionals: false });
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
    return await runAdmin(rest, { ...io, storeFlags: storeArgs }, store);
  } finally {
    await store?.close();
  }
}
