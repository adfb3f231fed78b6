import { RULE_SETS, type RuleSet, type RuleSetName } from '../receipts/rules.js';

/** A chain the verifier knows. */
export interface ChainInfo {
  chainId: number;
  name: string;
  /** Receipt rule set its receipts follow. */
  rules: RuleSetName;
  /** Whether its receipts root is a Patricia root of its receipts. */
  verifiable: boolean;
  /** Why not, when it is not verifiable. */
  reason?: string;
}

/** Chains from DECISIONS.md "Chains". */
export const BUILTIN_CHAINS: readonly ChainInfo[] = [
  { chainId: 1, name: 'Ethereum Mainnet', rules: 'ethereum', verifiable: true },
  { chainId: 11155111, name: 'Sepolia', rules: 'ethereum', verifiable: true },
  { chainId: 17000, name: 'Holesky', rules: 'ethereum', verifiable: true },
  { chainId: 560048, name: 'Hoodi', rules: 'ethereum', verifiable: true },
  { chainId: 100, name: 'Gnosis', rules: 'ethereum', verifiable: true },
  { chainId: 56, name: 'BNB Smart Chain', rules: 'ethereum', verifiable: true },
  { chainId: 137, name: 'Polygon PoS', rules: 'polygon', verifiable: true },
  { chainId: 43114, name: 'Avalanche C-Chain', rules: 'ethereum', verifiable: true },
  { chainId: 59144, name: 'Linea', rules: 'ethereum', verifiable: true },
  { chainId: 10, name: 'OP Mainnet', rules: 'optimism', verifiable: true },
  { chainId: 8453, name: 'Base', rules: 'optimism', verifiable: true },
  { chainId: 7777777, name: 'Zora', rules: 'optimism', verifiable: true },
  { chainId: 11155420, name: 'OP Sepolia', rules: 'optimism', verifiable: true },
  { chainId: 84532, name: 'Base Sepolia', rules: 'optimism', verifiable: true },
  { chainId: 420, name: 'OP Goerli', rules: 'optimism', verifiable: true },
  { chainId: 42161, name: 'Arbitrum One', rules: 'arbitrum', verifiable: true },
  { chainId: 42170, name: 'Arbitrum Nova', rules: 'arbitrum', verifiable: true },
  { chainId: 534352, name: 'Scroll', rules: 'scroll', verifiable: true },
  {
    chainId: 324,
    name: 'zkSync Era',
    rules: 'ethereum',
    verifiable: false,
    reason: 'zkSync Era blocks carry no Patricia receipts root; its receipts are proven through the zk rollup instead.',
  },
  {
    chainId: 295,
    name: 'Hedera',
    rules: 'ethereum',
    verifiable: false,
    reason: "Hedera's JSON-RPC relay synthesises block headers; their receiptsRoot is not a Patricia root of the receipts.",
  },
];

/** Chain id → chain, with the rule set resolved. */
export class ChainRegistry {
  readonly #chains = new Map<number, ChainInfo>();

  /** The built-in chains plus `extra` (an operator's devnets); an extra entry replaces a built-in one. */
  constructor(extra: readonly ChainInfo[] = []) {
    for (const chain of [...BUILTIN_CHAINS, ...extra]) this.#chains.set(chain.chainId, chain);
  }

  get(chainId: number): ChainInfo | undefined {
    return this.#chains.get(chainId);
  }

  /** Rule set of a known chain. */
  rulesOf(chain: ChainInfo): RuleSet {
    return RULE_SETS[chain.rules];
  }

  list(): ChainInfo[] {
    return [...this.#chains.values()].sort((a, b) => a.chainId - b.chainId);
  }
}

/** The registry of built-in chains only. */
export const defaultRegistry = new ChainRegistry();
