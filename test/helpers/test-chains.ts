/**
 * Chains of each rule set as an operator adds a devnet: every check is taken on the
 * configuration's word, so that tests of the rules themselves (which types a rule set knows, how
 * state sync is told apart) do not depend on which built-in eras real blocks have shown yet.
 */
import { ChainRegistry, type ChainInfo } from '../../packages/core/src/index.js';

export const TEST_CHAINS = {
  ethereum: 990_001,
  optimism: 990_010,
  arbitrum: 990_042,
  scroll: 990_534,
  polygon: 990_137,
} as const;

/** Madhugiri of the test Polygon chain: Polygon PoS's own block. */
export const TEST_MADHUGIRI = 80_084_800;

const CHAINS: ChainInfo[] = [
  { chainId: TEST_CHAINS.ethereum, name: 'test ethereum', rules: 'ethereum', verifiable: true },
  { chainId: TEST_CHAINS.optimism, name: 'test optimism', rules: 'optimism', verifiable: true },
  { chainId: TEST_CHAINS.arbitrum, name: 'test arbitrum', rules: 'arbitrum', verifiable: true },
  { chainId: TEST_CHAINS.scroll, name: 'test scroll', rules: 'scroll', verifiable: true },
  {
    chainId: TEST_CHAINS.polygon,
    name: 'test polygon',
    rules: 'polygon',
    verifiable: true,
    eras: [
      { name: 'Bor before Madhugiri', from: 0, stateSync: 'receipt-outside-root' },
      { name: 'Madhugiri', from: TEST_MADHUGIRI, stateSync: 'transaction' },
    ],
  },
];

export const testRegistry = new ChainRegistry(CHAINS);
