/**
 * The values of the command line's flags, read as users of `cast` and `curl` write them: block
 * numbers in decimal or 0x hex or as a tag (`latest`, `finalized`, `safe`), hashes with or without
 * 0x. Each bad value is refused with a message naming the flag, the value and what was expected.
 */
import { RULE_SET_NAMES, type RuleSetName } from 'evm-integrity';
import { UsageError } from './io/usage-error.js';

/** The block tags a node resolves: `eth_getBlockByNumber(tag, false)`. */
const BLOCK_TAGS = ['latest', 'finalized', 'safe'] as const;

/** A block tag of {@link BLOCK_TAGS}. */
export type BlockTag = (typeof BLOCK_TAGS)[number];

/** A block as the command line names it: its number, or a tag the node resolves. */
export type BlockRef = number | BlockTag;

const BLOCK_EXPECTED = 'use a block number (decimal or 0x hex) or latest, finalized, safe';

/**
 * A whole number in decimal or 0x hex (underscores allowed between digits); undefined when `text` is not one, and
 * Infinity when it is one past 2^53-1, which a number cannot hold exactly (a bounded count says its bound; see
 * {@link exactNumber}).
 */
function wholeNumber(text: string): number | undefined {
  const digits = text.replace(/(?<=[0-9a-fA-F])_(?=[0-9a-fA-F])/g, '');
  if (!/^(0[xX][0-9a-fA-F]+|\d+)$/.test(digits)) return undefined;
  const n = Number(digits.toLowerCase());
  return Number.isSafeInteger(n) ? n : Number.POSITIVE_INFINITY;
}

/** {@link wholeNumber} of a flag with no bound of its own: past 2^53-1 is a UsageError saying so. */
function exactNumber(flag: string, text: string): number | undefined {
  const n = wholeNumber(text);
  if (n === Number.POSITIVE_INFINITY)
    throw new UsageError(`${flag}: "${text}" is more than 2^53-1, the largest it can be`);
  return n;
}

/** Whether `text` is a block tag. */
function isBlockTag(text: string): text is BlockTag {
  return (BLOCK_TAGS as readonly string[]).includes(text);
}

/**
 * A block given to `flag`: a number (decimal or 0x hex) or a tag; a UsageError naming the flag and the value otherwise.
 */
export function blockRef(flag: string, value: string): BlockRef {
  const tag = value.toLowerCase();
  if (isBlockTag(tag)) return tag;
  const n = exactNumber(flag, value);
  if (n === undefined) throw new UsageError(`${flag}: "${value}" is not a block; ${BLOCK_EXPECTED}`);
  return n;
}

/** A block flag the command cannot do without: missing is a UsageError saying what to give. */
export function requiredBlockRef(flag: string, value: string | undefined): BlockRef {
  if (value === undefined) throw new UsageError(`${flag} is required: ${BLOCK_EXPECTED}`);
  return blockRef(flag, value);
}

/**
 * A 32-byte hash given to `flag`, with or without 0x, in either case (as `verify` prints it, as a
 * node answers it): returned as the node writes it, 0x and lower case. `what` names it in the refusal (a block hash,
 * a beacon block root).
 */
export function hashValue(flag: string, value: string, what = 'a block hash'): string {
  const hex = value.replace(/^0[xX]/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    const why = /^[0-9a-fA-F]*$/.test(hex) ? `${hex.length} hex digits` : 'not hex';
    throw new UsageError(`${flag}: "${value}" is not ${what} (${why}); use 64 hex digits, with or without 0x`);
  }
  return `0x${hex.toLowerCase()}`;
}

/**
 * Refuses chain id `id` (`n`, as read) given to `flag` in decimal with a leading zero (`010`): tools differ on what it
 * is (10, or octal 8), so it is never read as either. In 0x hex a leading zero is no doubt (`0x0a`), and the message
 * offers hex where `flag` takes it (`--chain`, not `--add-chain`'s ID).
 */
export function refuseLeadingZero(flag: string, id: string, n: number, takesHex = true): void {
  if (/^0[0-9_]/.test(id))
    throw new UsageError(
      `${flag}: "${id}" is not a chain id: it has a leading zero; write it without one (${n})${takesHex ? ', or in 0x hex' : ''}`,
    );
}

/**
 * A chain id given to `flag`: a positive whole number, decimal (no leading zero) or 0x hex (a chain's name: chainValue,
 * chain-flag.ts).
 */
export function chainIdValue(flag: string, value: string): number {
  const n = exactNumber(flag, value);
  if (n === undefined || n < 1)
    throw new UsageError(`${flag}: "${value}" is not a chain id; use a positive number, or a chain's name (mainnet)`);
  refuseLeadingZero(flag, value, n);
  return n;
}

/**
 * `--concurrency K` at most, wherever it is read (audit, prove logs, audit-logs, audit-worker): each of the K holds a
 * connection, a request or a chunk in flight, and an audit fetches `K × B/2` blocks ahead. 64 keeps that window within
 * memory (64 answers of at most `--max-answer-mb` each) and within a node's, or PostgreSQL's, connections.
 */
export const MAX_CONCURRENCY = 64;

/** `--batch B` at most: geth refuses a batch of more than 1,000 calls by default (`--rpc.batch-request-limit`). */
export const MAX_BATCH = 1000;

/** `--workers N` at most (threads or processes): past the cores of any machine this runs on, a worker only adds memory. */
export const MAX_WORKERS = 256;

/** The counts a flag allows, as its messages say them. */
const allowed = (min: number, max: number) =>
  max === Number.MAX_SAFE_INTEGER ? `use ${min} or more` : `use ${min} to ${max}`;

/** A count given to `flag`, from `min` (0 or 1) to `max`; `fallback` when the flag is not given. */
function countValue(flag: string, value: string | undefined, fallback: number, min: 0 | 1, max: number): number {
  if (value === undefined) return fallback;
  const n = wholeNumber(value);
  const what = min === 1 ? 'a positive whole number' : 'a whole number';
  if (n === undefined || n < min) throw new UsageError(`${flag}: "${value}" is not ${what}; ${allowed(min, max)}`);
  if (n > max) throw new UsageError(`${flag}: "${value}" is more than ${max}; ${allowed(min, max)}`);
  return n;
}

/**
 * A count given to `flag` that must be at least 1, and at most `max` when the count has a bound; `fallback` when the
 * flag is not given.
 */
export function positiveValue(
  flag: string,
  value: string | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
) {
  return countValue(flag, value, fallback, 1, max);
}

/**
 * The JSON-RPC node's URL: `--rpc`, or its alias `--rpc-url` (as `cast` names it), else the
 * `ETH_RPC_URL` environment variable; a flag wins over the environment. Both flags with
 * different URLs is a UsageError.
 */
export function rpcUrlOf(values: { rpc?: string; 'rpc-url'?: string }, env: NodeJS.ProcessEnv): string | undefined {
  const { rpc, 'rpc-url': rpcUrl } = values;
  if (rpc !== undefined && rpcUrl !== undefined && rpc !== rpcUrl)
    throw new UsageError(`--rpc and --rpc-url name different nodes ("${rpc}", "${rpcUrl}"); give one`);
  const url = rpc ?? rpcUrl ?? (env.ETH_RPC_URL === '' ? undefined : env.ETH_RPC_URL);
  if (url !== undefined && !/^https?:\/\/./i.test(url)) {
    const from = rpc !== undefined ? '--rpc' : rpcUrl !== undefined ? '--rpc-url' : 'ETH_RPC_URL';
    throw new UsageError(`${from}: "${url}" is not a node's URL; use http://… or https://…`);
  }
  return url;
}

/** A count given to `flag` that may be 0, and at most `max` when it has a bound; `fallback` when the flag is not given. */
export function wholeValue(flag: string, value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER) {
  return countValue(flag, value, fallback, 0, max);
}

/** `--workers N`: a count of worker threads (0 for none), at most {@link MAX_WORKERS}; null when the flag is not given. */
export function workersOption(value: string | undefined): number | null {
  return value === undefined ? null : wholeValue('--workers', value, 0, MAX_WORKERS);
}

/** The PostgreSQL database of an audit queue, given to `flag`: a postgres:// or postgresql:// URL. */
export function queueUrl(flag: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.hostname === '')
    throw new UsageError(`${flag}: "${value}" is not a PostgreSQL URL; use postgres://USER@HOST:PORT/DATABASE`);
  return value;
}

/** Fixed-size hex given to `flag`, with or without 0x: 0x and lower case, or a UsageError saying what it is not. */
function fixedHex(flag: string, value: string, bytes: number, what: string): string {
  const hex = value.replace(/^0[xX]/, '');
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(hex)) {
    const why = /^[0-9a-fA-F]*$/.test(hex) ? `${hex.length} hex digits` : 'not hex';
    throw new UsageError(
      `${flag}: "${value}" is not ${what} (${why}); use ${bytes * 2} hex digits, with or without 0x`,
    );
  }
  return `0x${hex.toLowerCase()}`;
}

/** A contract address given to `flag`: 20 bytes of hex, with or without 0x. */
export function addressValue(flag: string, value: string): string {
  return fixedHex(flag, value, 20, 'an address');
}

/** A log topic given to `flag`: 32 bytes of hex, with or without 0x. */
export function topicValue(flag: string, value: string): string {
  return fixedHex(flag, value, 32, 'a topic');
}

/**
 * A rule set named on the command line: `verify block --rules R`, and the RULES of `--add-chain ID:RULES` (`given`, the
 * flag's whole value, is what a refusal quotes).
 */
export function ruleSetName(value: string, option: string, given = value): RuleSetName {
  if (!RULE_SET_NAMES.includes(value as RuleSetName))
    throw new UsageError(`${option}: "${given}" names no rule set; use one of ${RULE_SET_NAMES.join(', ')}`);
  return value as RuleSetName;
}

/** The hosted service's API key, from EVM_DATA_SERVICE_API_KEY: a command with `--service` needs it. */
export function serviceApiKey(env: NodeJS.ProcessEnv): string {
  const apiKey = env.EVM_DATA_SERVICE_API_KEY;
  if (apiKey === undefined || apiKey === '')
    throw new UsageError('--service needs the API key in EVM_DATA_SERVICE_API_KEY');
  return apiKey;
}
