/**
 * The chain flags every command reads the same way: `--chain` names a chain by its id or its name (`1`, `mainnet`,
 * `base`, `arbitrum-one`), and `--add-chain ID:RULES` adds a devnet to the registry for the run.
 */
import { defaultRegistry, RULE_SET_NAMES, type ChainInfo } from 'evm-integrity';
import { decodeJsonBody } from 'evm-integrity/api';
import { chainIdValue, refuseLeadingZero, ruleSetName } from './flags.js';
import { InputError, UsageError } from './io/usage-error.js';
import { inputName } from './io/read-input.js';

/**
 * Short names as `cast` and most tools spell them, for the chains whose registry name is longer. Every other name is
 * the registry's, as a slug (`Arbitrum One` → `arbitrum-one`).
 */
const SHORT_NAMES: Readonly<Record<string, number>> = {
  mainnet: 1,
  ethereum: 1,
  optimism: 10,
  op: 10,
  bsc: 56,
  polygon: 137,
  arbitrum: 42161,
  avalanche: 43114,
  zksync: 324,
};

/** A registry name as `--chain` takes it: lower case, each run of other characters one `-`. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Every chain of the registry with the names `--chain` takes for it, by chain id. */
export function chainNames(): Array<{ chain: ChainInfo; names: string[] }> {
  const short = Object.entries(SHORT_NAMES);
  return defaultRegistry.list().map((chain) => ({
    chain,
    names: [slugOf(chain.name), ...short.filter(([, id]) => id === chain.chainId).map(([name]) => name)],
  }));
}

let byName: Map<string, number> | undefined;

/** The chain id `name` names, in any case; undefined for a name no chain has. */
function chainIdByName(name: string): number | undefined {
  byName ??= new Map(chainNames().flatMap(({ chain, names }) => names.map((n) => [n, chain.chainId] as const)));
  return byName.get(slugOf(name));
}

/**
 * A chain given to `flag`: its id (decimal or 0x hex) or its name, in any case (`mainnet`, `Base`, `arbitrum-one`); a
 * UsageError naming the flag and the value otherwise.
 */
export function chainValue(flag: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`${flag} is required: a chain id or name (1 or mainnet, 8453 or base)`);
  // The form --chain had on verify, request, prove receipt and evidence before --add-chain.
  if (/^\d+:/.test(value))
    throw new UsageError(`${flag}: "${value}" adds a chain: give it as --add-chain ${value} (and ${flag} its id)`);
  if (/^(0[xX])?[0-9a-fA-F_]+$/.test(value) && /^(0[xX]|\d)/.test(value)) return chainIdValue(flag, value);
  const id = chainIdByName(value);
  if (id === undefined)
    throw new UsageError(
      `${flag}: "${value}" is not a chain id or a chain's name; evm-integrity chains lists the names`,
    );
  return id;
}

/** The flags of a command that takes a chain: `--chain C` and `--add-chain ID:RULES` (repeatable), as parseArgs reads them. */
export const CHAIN_OPTIONS = {
  chain: { type: 'string' },
  'add-chain': { type: 'string', multiple: true },
} as const;

/** `--add-chain 31337:ethereum` → a verifiable chain for this run (a devnet added to the registry). */
function addedChain(value: string): ChainInfo {
  const match = /^(\d+):(.+)$/.exec(value);
  const chainId = match === null ? NaN : Number(match[1]);
  if (match === null || !Number.isSafeInteger(chainId) || chainId < 1)
    throw new UsageError(
      `--add-chain: "${value}" is not ID:RULES; use a chain id and a rule set, such as 31337:ethereum`,
    );
  refuseLeadingZero('--add-chain', match[1]!, chainId, false);
  const rules = ruleSetName(match[2]!, '--add-chain', value);
  const builtIn = defaultRegistry.get(chainId);
  if (builtIn !== undefined)
    throw new UsageError(
      `--add-chain: "${value}" is chain ${chainId}, built in (${builtIn.name}); an added chain needs an id of its own`,
    );
  return { chainId, name: `chain ${chainId}`, rules, verifiable: true };
}

/** Every `--add-chain` given, each checked, and each id given once (a UsageError naming the one given twice). */
export function addedChains(values: readonly string[] | undefined): ChainInfo[] {
  const chains = (values ?? []).map(addedChain);
  const twice = chains.find((chain, i) => chains.findIndex((c) => c.chainId === chain.chainId) !== i);
  if (twice !== undefined)
    throw new UsageError(`--add-chain: chain ${twice.chainId} is given twice; give each added chain once`);
  return chains;
}

/**
 * A refusal's message as the command line tells it: an input that names no chain is followed by the flags that name
 * it, a chain outside the registry by the flag that adds it.
 */
export function withAddChainHint(message: string): string {
  if (/names no chain_id/.test(message))
    return `${message.replace(/\.$/, '')}: add "chain_id" to it, or give --chain C (an id or a name: evm-integrity chains); a devnet: --add-chain ID:RULES with --chain ID (verify block also takes --rules R)`;
  const chainId = /chain (\d+) is not in the chain registry/i.exec(message)?.[1];
  if (chainId === undefined) return message;
  return `${message.replace(/\.$/, '')}; a devnet is added with --add-chain ${chainId}:RULES (RULES one of ${RULE_SET_NAMES.join(', ')})`;
}

/** A block or body that names another chain than `--chain`: the one line that names both. */
const otherChain = (file: string | undefined, named: unknown, chainId: number, what = 'block') =>
  new InputError(
    `${inputName(file)}: the ${what} names chain_id ${JSON.stringify(named)}, not the --chain ${chainId} given`,
  );

/**
 * The `chain_id` an input names; undefined where it names none: no member, or null (as the verifier reads it, and as
 * t8n's blocks give it).
 */
function namedChainId(json: object): unknown {
  const named = (json as { chain_id?: unknown }).chain_id;
  return named === null ? undefined : named;
}

/**
 * A block's (or a body's) JSON with the chain `--chain` names: added when it names none; one that names another chain
 * is an InputError naming both, never overridden.
 */
export function withChainId(
  json: unknown,
  chainId: number | undefined,
  file: string | undefined,
  what: 'block' | 'body' | 'proof' = 'block',
): unknown {
  if (chainId === undefined || typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const named = namedChainId(json);
  if (named === undefined) return { ...json, chain_id: chainId };
  if (Number(named) !== chainId) throw otherChain(file, named, chainId, what);
  return json;
}

/**
 * {@link withChainId} on a block's bytes, as `verify block` reads them: the member is written in before the others,
 * so that the rest of the bytes is verified as given. Bytes that are not a JSON object are left to the verifier.
 */
export function bytesWithChainId(bytes: Uint8Array, chainId: number | undefined, file: string): Uint8Array {
  if (chainId === undefined) return bytes;
  // Read as the verifier reads it (one byte order mark dropped); bytes it refuses are left for it to refuse.
  const read = decodeJsonBody(bytes);
  if (!read.ok) return bytes;
  const json = read.value;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return bytes;
  const named = namedChainId(json);
  if (named !== undefined) {
    if (Number(named) !== chainId) throw otherChain(file, named, chainId);
    return bytes;
  }
  // A null chain_id: the object written again with the chain.
  if ('chain_id' in json) return new TextEncoder().encode(JSON.stringify({ ...json, chain_id: chainId }));
  const brace = bytes.indexOf(0x7b);
  const member = new TextEncoder().encode(`"chain_id":${chainId}${Object.keys(json).length > 0 ? ',' : ''}`);
  const out = new Uint8Array(bytes.length + member.length);
  out.set(bytes.subarray(0, brace + 1));
  out.set(member, brace + 1);
  out.set(bytes.subarray(brace + 1), brace + 1 + member.length);
  return out;
}
