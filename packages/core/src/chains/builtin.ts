import type { ChainInfo } from './chain-info.js';

/**
 * The chains the verifier knows, with their receipt rule sets and eras.
 *
 * Sources for the eras:
 * - Arbitrum: only Arbitrum One produced classic (pre-Nitro) blocks; every other
 *   Arbitrum chain (Nova, Goerli, Sepolia) started as a Nitro chain
 *   (docs.arbitrum.io/migration/state-migration). Nitro genesis of Arbitrum One: 22,207,817.
 * - OP stack: the L2 genesis of each chain in ethereum-optimism/superchain-registry
 *   (superchain/configs/<network>/<chain>.yaml, genesis.l2.number): OP Mainnet
 *   105,235,063 and OP Goerli 4,061,224 (their Bedrock blocks; before them, the legacy
 *   l2geth chain), Base Goerli 0 (Bedrock from genesis), likewise Base, Zora and the
 *   Sepolia chains.
 * - Polygon PoS: bor's chain configuration (params/config.go): Madhugiri at
 *   80,084,800 on mainnet and 28,899,616 on Amoy (0xPolygon/bor PR #1851, "update
 *   madhugiri block number for amoy"). From Madhugiri on, state sync is a 0x7f
 *   transaction (PIP-74); before, bor returns it as an extra receipt outside the root
 *   (core/types/bor_receipt.go).
 */

const ARBITRUM_CLASSIC =
  'Arbitrum classic blocks carry receipts roots that no encoding of their JSON-RPC receipts reproduces; the classic chain committed to its receipts in its own way.';

/** Why a legacy (pre-Bedrock) OP-stack era is not verified. */
const OP_LEGACY =
  'Legacy (pre-Bedrock) blocks were produced by l2geth and migrated into the Bedrock chain; that their JSON-RPC receipts reproduce these receipts roots is not established, so they are not verified.';

function polygonEras(madhugiri: number): ChainInfo['eras'] {
  return [
    { name: 'Bor before Madhugiri', from: 0, stateSync: 'receipt-outside-root' },
    { name: 'Madhugiri', from: madhugiri, stateSync: 'transaction' },
  ];
}

export const BUILTIN_CHAINS: readonly ChainInfo[] = [
  { chainId: 1, name: 'Ethereum Mainnet', rules: 'ethereum', verifiable: true },
  { chainId: 11155111, name: 'Sepolia', rules: 'ethereum', verifiable: true },
  { chainId: 17000, name: 'Holesky', rules: 'ethereum', verifiable: true },
  { chainId: 560048, name: 'Hoodi', rules: 'ethereum', verifiable: true },
  { chainId: 100, name: 'Gnosis', rules: 'ethereum', verifiable: true },
  { chainId: 10200, name: 'Gnosis Chiado', rules: 'ethereum', verifiable: true },
  { chainId: 56, name: 'BNB Smart Chain', rules: 'ethereum', verifiable: true },
  { chainId: 97, name: 'BNB Smart Chain Testnet', rules: 'ethereum', verifiable: true },
  { chainId: 137, name: 'Polygon PoS', rules: 'polygon', verifiable: true, eras: polygonEras(80_084_800) },
  { chainId: 80002, name: 'Polygon Amoy', rules: 'polygon', verifiable: true, eras: polygonEras(28_899_616) },
  { chainId: 43114, name: 'Avalanche C-Chain', rules: 'ethereum', verifiable: true },
  { chainId: 43113, name: 'Avalanche Fuji C-Chain', rules: 'ethereum', verifiable: true },
  { chainId: 59144, name: 'Linea', rules: 'ethereum', verifiable: true },
  { chainId: 59141, name: 'Linea Sepolia', rules: 'ethereum', verifiable: true },
  {
    chainId: 10,
    name: 'OP Mainnet',
    rules: 'optimism',
    verifiable: true,
    eras: [
      { name: 'legacy (pre-Bedrock)', from: 0, notVerifiable: OP_LEGACY },
      { name: 'Bedrock', from: 105_235_063 },
    ],
  },
  { chainId: 8453, name: 'Base', rules: 'optimism', verifiable: true },
  { chainId: 84531, name: 'Base Goerli', rules: 'optimism', verifiable: true },
  { chainId: 7777777, name: 'Zora', rules: 'optimism', verifiable: true },
  { chainId: 11155420, name: 'OP Sepolia', rules: 'optimism', verifiable: true },
  { chainId: 84532, name: 'Base Sepolia', rules: 'optimism', verifiable: true },
  {
    chainId: 420,
    name: 'OP Goerli',
    rules: 'optimism',
    verifiable: true,
    eras: [
      { name: 'legacy (pre-Bedrock)', from: 0, notVerifiable: OP_LEGACY },
      { name: 'Bedrock', from: 4_061_224 },
    ],
  },
  {
    chainId: 42161,
    name: 'Arbitrum One',
    rules: 'arbitrum',
    verifiable: true,
    eras: [
      { name: 'Arbitrum classic', from: 0, notVerifiable: ARBITRUM_CLASSIC },
      { name: 'Nitro', from: 22_207_817 },
    ],
  },
  // Nitro from genesis: one era each.
  { chainId: 42170, name: 'Arbitrum Nova', rules: 'arbitrum', verifiable: true },
  { chainId: 421613, name: 'Arbitrum Goerli', rules: 'arbitrum', verifiable: true },
  { chainId: 421614, name: 'Arbitrum Sepolia', rules: 'arbitrum', verifiable: true },
  { chainId: 534352, name: 'Scroll', rules: 'scroll', verifiable: true },
  { chainId: 534351, name: 'Scroll Sepolia', rules: 'scroll', verifiable: true },
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
