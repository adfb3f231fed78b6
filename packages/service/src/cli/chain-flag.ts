/**
 * The chain flags every command reads the same way: `--chain` names a chain by its id or its name (`1`, `mainnet`,
 * `base`, `arbitrum-one`), and `--add-chain ID:RULES` adds a devnet to the registry for the run.
 */
import { defaultRegistry, type ChainInfo } from 'evm-integrity';
import { chainIdValue, ruleSetName } from './flags.js';
import { UsageError } from './io/usage-error.js';

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

/** `--add-chain 31337:ethereum` → a verifiable chain for this run (a devnet added to the registry). */
export function addedChain(value: string): ChainInfo {
  const match = /^(\d+):(.+)$/.exec(value);
  const chainId = match === null ? NaN : Number(match[1]);
  if (match === null || !Number.isSafeInteger(chainId) || chainId < 1)
    throw new UsageError(
      `--add-chain: "${value}" is not ID:RULES; use a chain id and a rule set, such as 31337:ethereum`,
    );
  return { chainId, name: `chain ${chainId}`, rules: ruleSetName(match[2]!, '--add-chain'), verifiable: true };
}
