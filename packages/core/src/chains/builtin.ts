import type { ChainInfo, Era, EraEvidence, EvidenceBlock } from './chain-info.js';

/**
 * The chains the verifier knows, their eras, and for each era what shows each check: the real
 * blocks of fixtures/blocks/ that reproduce it (a test holds every claim to its blocks), or why
 * it is not claimed. docs/chains.md cites the sources of the eras' bounds and rules.
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

const block = (fixture: string): EvidenceBlock => ({ fixture, block: Number(fixture.slice(fixture.lastIndexOf('-') + 1)) });
const blocks = (...fixtures: string[]) => fixtures.map(block);

/** Every check of an era unclaimed, for one reason. */
const unshown = (reason: string): EraEvidence => ({ block_hash: reason, receipts_root: reason, logs_bloom: reason });

const NO_REAL_BLOCK = "no real block of this chain in the project's fixtures has shown its rules yet";

/** One era from genesis, for a chain whose blocks all follow the same rules. */
const allBlocks = (evidence: EraEvidence, more: Partial<Era> = {}): readonly Era[] => [{ name: 'all blocks', from: 0, evidence, ...more }];

const ARBITRUM_CLASSIC =
  'Arbitrum classic blocks carry receipts roots that no encoding of their JSON-RPC receipts reproduces; the classic chain committed to its receipts in its own way.';

/** Why a legacy (pre-Bedrock) OP-stack era is not verified. */
const OP_LEGACY =
  'Legacy (pre-Bedrock) blocks were produced by l2geth and migrated into the Bedrock chain; that their JSON-RPC receipts reproduce these receipts roots is not established, so they are not verified.';

const MAINNET: EraEvidence = {
  block_hash: blocks('mainnet-1', 'mainnet-7000000', 'mainnet-14764013', 'mainnet-17034870', 'mainnet-19426587', 'mainnet-22431084'),
  receipts_root: blocks('mainnet-1000023', 'mainnet-7000000', 'mainnet-15537394', 'mainnet-15573637', 'mainnet-19433903', 'mainnet-22869878'),
  logs_bloom: blocks('mainnet-1000023', 'mainnet-7000000', 'mainnet-15537394', 'mainnet-19433903', 'mainnet-22869878'),
};

const POLYGON_BOR: EraEvidence = {
  block_hash: blocks('polygon-pos-0', 'polygon-pos-9013760', 'polygon-pos-23887160'),
  receipts_root: blocks('polygon-pos-2233682', 'polygon-pos-9013760', 'polygon-pos-23887160'),
  logs_bloom: blocks('polygon-pos-2233682', 'polygon-pos-9013760', 'polygon-pos-23887160'),
};

function polygonEras(madhugiri: number, bor: EraEvidence): readonly Era[] {
  return [
    { name: 'Bor before Madhugiri', from: 0, stateSync: 'receipt-outside-root', evidence: bor },
    { name: 'Madhugiri', from: madhugiri, stateSync: 'transaction', evidence: unshown(NO_REAL_BLOCK) },
  ];
}

export const BUILTIN_CHAINS: readonly ChainInfo[] = [
  { chainId: 1, name: 'Ethereum Mainnet', rules: 'ethereum', verifiable: true, eras: allBlocks(MAINNET) },
  { chainId: 11155111, name: 'Sepolia', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 17000, name: 'Holesky', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 560048, name: 'Hoodi', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 100, name: 'Gnosis', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 10200, name: 'Gnosis Chiado', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 56, name: 'BNB Smart Chain', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 97, name: 'BNB Smart Chain Testnet', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 137, name: 'Polygon PoS', rules: 'polygon', verifiable: true, eras: polygonEras(80_084_800, POLYGON_BOR) },
  { chainId: 80002, name: 'Polygon Amoy', rules: 'polygon', verifiable: true, eras: polygonEras(28_899_616, unshown(NO_REAL_BLOCK)) },
  { chainId: 43114, name: 'Avalanche C-Chain', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 43113, name: 'Avalanche Fuji C-Chain', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 59144, name: 'Linea', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 59141, name: 'Linea Sepolia', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  {
    chainId: 10,
    name: 'OP Mainnet',
    rules: 'optimism',
    verifiable: true,
    eras: [
      { name: 'legacy (pre-Bedrock)', from: 0, notVerifiable: OP_LEGACY },
      { name: 'Bedrock', from: 105_235_063, evidence: unshown(NO_REAL_BLOCK) },
    ],
  },
  { chainId: 8453, name: 'Base', rules: 'optimism', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 84531, name: 'Base Goerli', rules: 'optimism', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 7777777, name: 'Zora', rules: 'optimism', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 11155420, name: 'OP Sepolia', rules: 'optimism', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 84532, name: 'Base Sepolia', rules: 'optimism', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  {
    chainId: 420,
    name: 'OP Goerli',
    rules: 'optimism',
    verifiable: true,
    eras: [
      { name: 'legacy (pre-Bedrock)', from: 0, notVerifiable: OP_LEGACY },
      {
        name: 'Bedrock',
        from: 4_061_224,
        evidence: {
          block_hash: blocks('op-goerli-4061224'),
          receipts_root: "the only real block of this era in the project's fixtures is empty, which shows no receipt rule",
          logs_bloom: "the only real block of this era in the project's fixtures is empty, which shows no log",
        },
      },
    ],
  },
  {
    chainId: 42161,
    name: 'Arbitrum One',
    rules: 'arbitrum',
    verifiable: true,
    eras: [
      { name: 'Arbitrum classic', from: 0, notVerifiable: ARBITRUM_CLASSIC },
      { name: 'Nitro', from: 22_207_817, evidence: unshown(NO_REAL_BLOCK) },
    ],
  },
  // Nitro from genesis: one era each.
  { chainId: 42170, name: 'Arbitrum Nova', rules: 'arbitrum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 421613, name: 'Arbitrum Goerli', rules: 'arbitrum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 421614, name: 'Arbitrum Sepolia', rules: 'arbitrum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 534352, name: 'Scroll', rules: 'scroll', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
  { chainId: 534351, name: 'Scroll Sepolia', rules: 'scroll', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) },
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
