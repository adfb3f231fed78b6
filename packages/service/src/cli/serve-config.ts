/**
 * The server's configuration as `serve` and the admin commands (`accounts`, `keys`) read it: both name the store by
 * the same flags, file and environment.
 */
import { readFileSync } from 'node:fs';
import { checkConfig, ConfigError, DEFAULT_CONFIG, parseMembers, type ServerConfig } from '../server/config/config.js';
import { environmentLayer } from '../server/config/config-env.js';
import { InputError, UsageError } from './io/usage-error.js';
import { readFailure } from '../files/file-failures.js';
import { parseInputJson } from './io/json-input.js';

/**
 * The configuration: defaults, then the file (--config or EVM_INTEGRITY_CONFIG), then the environment (EVM_INTEGRITY_*
 * and the aliases PORT, HOST), then flags; each overrides only the members it names. Members are checked against one
 * another once, merged: a layer may move the bound of a member another set.
 */
export function loadConfig(
  values: { config?: string; host?: string; port?: string; store?: string; 'data-dir'?: string; evidence?: string },
  env: NodeJS.ProcessEnv,
): ServerConfig {
  const file = values.config ?? env.EVM_INTEGRITY_CONFIG;
  let config = DEFAULT_CONFIG;
  if (file !== undefined && file !== '') {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new InputError(`cannot read the configuration ${file}: ${readFailure(error)}`);
    }
    config = parseMembers(parseInputJson(bytes, file, `the configuration ${file}`));
  }
  const environment = environmentLayer(config, env);
  config = environment.config;
  const flags: Record<string, unknown> = {};
  if (values.host !== undefined) flags.host = values.host;
  if (values.port !== undefined) flags.port = /^\d+$/.test(values.port) ? Number(values.port) : values.port;
  if (values.store !== undefined) flags.store = values.store;
  if (values['data-dir'] !== undefined) flags.data_dir = values['data-dir'];
  if (values.evidence !== undefined) flags.evidence_dir = values.evidence;
  if (Object.keys(flags).length > 0) {
    try {
      config = parseMembers(flags, config);
    } catch (error) {
      throw flagError(error);
    }
  }
  // A member out of bounds is named as the variable that set it, if one did (no flag sets a bounded member).
  return checkConfig(config, (member) => environment.variableOfMember.get(member) ?? member);
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

/** The flags that set the configuration, as parseArgs reads them. */
export const CONFIG_OPTIONS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  store: { type: 'string' },
  'data-dir': { type: 'string' },
  evidence: { type: 'string' },
} as const;

/** A word of a shell command, quoted when the shell would split or expand it. */
export function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command of evm-integrity on the same store as the one that tells it (`serve`'s hints, `accounts`' and `keys`'):
 * `words`, then the store's flags as given (`--data-dir DIR`, `--config FILE`), as the shell reads them.
 */
export function sameStoreCommand(words: readonly string[], storeFlags: readonly string[]): string {
  return ['evm-integrity', ...words, ...storeFlags].map(shellWord).join(' ');
}
