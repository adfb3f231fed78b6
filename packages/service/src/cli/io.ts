import { readFileSync } from 'node:fs';
import { EvmIntegrityError, RULE_SET_NAMES, type RuleSetName } from 'evm-integrity';

/** Thrown for a mistake in the command line or its files: exit 2 with the message (`main` adds the command's usage). */
export class UsageError extends EvmIntegrityError<Record<string, never>> {
  override name = 'UsageError';
  override readonly code = 'CLI_USAGE';

  constructor(message: string) {
    super(message, {});
  }
}

/** Streams the CLI writes to, so tests can run it in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads the bytes of FILE or standard input. */
  read?: (file: string | undefined) => Uint8Array;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * Where the CLI's error envelopes point (`docs_url`): the error reference shipped in the
 * package, which exists wherever the CLI runs, unlike a server that may not be running.
 */
export const LOCAL_DOCS_URL = new URL('../../docs/errors.md', import.meta.url).href;

/** Bytes of FILE, or of standard input for `-` or no file: decoded as the server decodes a body (`decodeJsonBody`). */
export function readInput(file: string | undefined): Uint8Array {
  const source = file === undefined || file === '-' ? 0 : file;
  try {
    return readFileSync(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new UsageError(`cannot read ${source === 0 ? 'standard input' : file}: ${why}`);
  }
}

/** `--workers N`: a count of worker threads (0 for none); null when the flag is not given. */
export function workersOption(value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^\d{1,3}$/.test(value)) throw new UsageError(`--workers expects a number of worker threads (0 or more), got "${value}"`);
  return Number(value);
}

/** A rule set named on the command line (`--rules`, `--chain ID:RULES`). */
export function ruleSetName(value: string, option: string): RuleSetName {
  if (!RULE_SET_NAMES.includes(value as RuleSetName)) {
    throw new UsageError(`${option} names rule set "${value}"; expected one of ${RULE_SET_NAMES.join(', ')}`);
  }
  return value as RuleSetName;
}

/** The hosted service's API key, from EVM_DATA_SERVICE_API_KEY: a command with `--service` needs it. */
export function serviceApiKey(env: NodeJS.ProcessEnv): string {
  const apiKey = env.EVM_DATA_SERVICE_API_KEY;
  if (apiKey === undefined || apiKey === '') throw new UsageError('--service needs the API key in EVM_DATA_SERVICE_API_KEY');
  return apiKey;
}
