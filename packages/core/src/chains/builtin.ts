import type {
  ChainInfo,
  Era,
  EraEvidence,
  EvidenceBlock,
  ForkActivation,
  ReceiptKind,
  RegistryEntry,
} from './chain-info.js';
import { HEADER_FIELD_EVIDENCE } from './header-field-evidence.js';

/**
 * The chains the verifier knows, their eras, and for each era what shows each check: the real
 * blocks of fixtures/ that reproduce it (a test holds every claim to its blocks), or why it is
 * not claimed. docs/chains.md cites the sources of the eras' bounds, the layouts and the blocks.
 *
 * Sources for the eras:
 * - Arbitrum: only Arbitrum One produced classic (pre-Nitro) blocks; every other Arbitrum chain
 *   (Nova, Goerli, Sepolia) started as a Nitro chain (docs.arbitrum.io/migration/state-migration).
 *   Nitro genesis of Arbitrum One: 22,207,817.
 * - OP stack: the L2 genesis of each chain in ethereum-optimism/superchain-registry
 *   (superchain/configs/<network>/<chain>.toml, genesis.l2.number): OP Mainnet 105,235,063 and
 *   OP Goerli 4,061,224 (their Bedrock blocks; before them, the legacy l2geth chain), Bedrock
 *   from genesis on the others. Celo became an OP-stack L2 at block 31,056,500
 *   (celo-org/celo-blockchain params/config.go, superchain-registry celo.toml).
 * - Polygon PoS: bor's chain configuration (params/config.go): Madhugiri at 80,084,800 on
 *   mainnet and 28,899,616 on Amoy (0xPolygon/bor PR #1851). From Madhugiri on, state sync is a
 *   0x7f transaction (PIP-74); before, bor returns it as an extra receipt outside the root
 *   (core/types/bor_receipt.go).
 * - Gnosis and Chiado: their first proof-of-stake blocks, 25,349,537 and 680,930
 *   (gnosischain/reth_gnosis src/spec/gnosis_spec.rs); before, AuRa headers.
 */

/**
 * Fork schedules (a header has exactly the fork fields of the forks active at its number and timestamp):
 * - Ethereum Mainnet, Sepolia, Holesky, Hoodi: go-ethereum params/config.go (MainnetChainConfig, SepoliaChainConfig,
 *   HoleskyChainConfig, HoodiChainConfig), blocks up to the Merge, timestamps from Shanghai on. Mainnet's Merge (Paris)
 *   was by total difficulty: its first proof-of-stake block is 15,537,394; Sepolia's is its MergeNetsplitBlock.
 * - OP-stack chains: ethereum-optimism/superchain-registry superchain/configs/<network>/<chain>.toml ([hardforks];
 *   Base's as last listed there, before commit 0d9aefc4). Bedrock brings London's header, Canyon Shanghai's, Ecotone
 *   Cancun's, Isthmus Prague's (op-geth params/config.go: ShanghaiTime = CanyonTime, CancunTime = EcotoneTime,
 *   PragueTime = IsthmusTime). On OP Mainnet, Bedrock (and London) start at its Bedrock block: legacy blocks have no
 *   baseFeePerGas; on Celo, at its first L2 block (its L1 era cannot be verified).
 * Other chains have no schedule here: their real blocks alone tell (header-field-evidence.ts).
 */

/** Ethereum's forks at blocks, then at timestamps, by name. */
const forks = (blocks: Record<string, number>, timestamps: Record<string, number>): readonly ForkActivation[] => [
  ...Object.entries(blocks).map(([fork, block]) => ({ fork, block })),
  ...Object.entries(timestamps).map(([fork, timestamp]) => ({ fork, timestamp })),
];

const MAINNET_FORKS = forks(
  {
    Frontier: 0,
    Homestead: 1_150_000,
    'DAO fork': 1_920_000,
    'Tangerine Whistle': 2_463_000,
    'Spurious Dragon': 2_675_000,
    Byzantium: 4_370_000,
    Petersburg: 7_280_000,
    Istanbul: 9_069_000,
    'Muir Glacier': 9_200_000,
    Berlin: 12_244_000,
    London: 12_965_000,
    'Arrow Glacier': 13_773_000,
    'Gray Glacier': 15_050_000,
    Paris: 15_537_394,
  },
  {
    Shanghai: 1_681_338_455,
    Cancun: 1_710_338_135,
    Prague: 1_746_612_311,
    Osaka: 1_764_798_551,
    BPO1: 1_765_290_071,
    BPO2: 1_767_747_671,
  },
);

/** An OP-stack chain's forks: Bedrock at `bedrock`, then its hardforks at their timestamps. */
function opStackForks(bedrock: number, hardforks: Record<string, number>, legacy?: string): readonly ForkActivation[] {
  const names: Record<string, string> = { Canyon: 'Shanghai', Ecotone: 'Cancun', Isthmus: 'Prague' };
  return [
    ...(legacy === undefined ? [] : [{ fork: legacy, block: 0 }]),
    { fork: 'Bedrock', appends: 'London', block: bedrock },
    ...Object.entries(hardforks).map(([fork, timestamp]) => ({
      fork,
      timestamp,
      ...(names[fork] !== undefined && { appends: names[fork] }),
    })),
  ];
}

/** The hardforks of the chains that took every superchain upgrade at its time from Canyon on (OP Mainnet, Base, Zora, Mode). */
const SUPERCHAIN_MAINNET = {
  Canyon: 1_704_992_401,
  Delta: 1_708_560_000,
  Ecotone: 1_710_374_401,
  Fjord: 1_720_627_201,
  Granite: 1_726_070_401,
  Holocene: 1_736_445_601,
  Isthmus: 1_746_806_401,
  Jovian: 1_764_691_201,
};

/** The same on Sepolia (OP Sepolia, Base Sepolia). */
const SUPERCHAIN_SEPOLIA = {
  Canyon: 1_699_981_200,
  Delta: 1_703_203_200,
  Ecotone: 1_708_534_800,
  Fjord: 1_716_998_400,
  Granite: 1_723_478_400,
  Holocene: 1_732_633_200,
  Isthmus: 1_744_905_600,
  Jovian: 1_763_568_001,
};

/** Chains launched with Canyon to Ecotone active at genesis. */
const FROM_ECOTONE = { Canyon: 0, Delta: 0, Ecotone: 0 };

/** Chains launched with Canyon to Granite active at genesis. */
const FROM_GRANITE = { ...FROM_ECOTONE, Fjord: 0, Granite: 0 };

/**
 * The registries that declare chains standard members of a rule set's family (docs/chains.md, "Evidence"):
 * - ethereum-optimism/superchain-registry: `superchain_level` 1 (Standard Candidate) or 2 (Standard), "chains who
 *   conform to the standard blockchain charter" (docs/glossary.md), as it stood at 738212ef, the last commit before
 *   the field was removed (3d974558); Base and Base Sepolia at 5b055be4, the last before they left the registry
 *   (0d9aefc4). Chains that deviate (Celo's fee currency, Mantle, Blast) are not in that set.
 * - OffchainLabs/nitro cmd/chaininfo/arbitrum_chain_info.json: the chains Nitro ships with its standard chain
 *   configuration (EnableArbOS true, AllowDebugPrecompiles false).
 * - ethereum/go-ethereum params/config.go: SepoliaChainConfig, Ethereum's rules with Sepolia's fork schedule.
 */
const SUPERCHAIN_REGISTRY = 'ethereum-optimism/superchain-registry';
const SUPERCHAIN_LEVELS = '738212ef2932d26f9274e3317699471534d2b3ac';
const SUPERCHAIN_WITH_BASE = '5b055be4d294ce43814a44c8839d89b2436dc8aa';
const LEVEL_NAMES: Record<1 | 2, string> = { 1: 'Standard Candidate', 2: 'Standard' };

/** A chain's superchain-registry entry, at the commit that states its level. */
const superchainEntry = (config: string, level: 1 | 2, commit = SUPERCHAIN_LEVELS): RegistryEntry => ({
  repository: SUPERCHAIN_REGISTRY,
  path: `superchain/configs/${config}.toml`,
  commit,
  declares: `superchain_level = ${level} (${LEVEL_NAMES[level]}: conforms to the Standard Rollup Charter), with its [hardforks]`,
});

/** A chain Nitro ships with its standard configuration. */
const nitroEntry = (name: string): RegistryEntry => ({
  repository: 'OffchainLabs/nitro',
  path: 'cmd/chaininfo/arbitrum_chain_info.json',
  commit: '6dce8d13902649a1acdfd3f2504129f1f5612358',
  declares: `"${name}": Nitro's standard chain configuration (arbitrum.EnableArbOS true, AllowDebugPrecompiles false)`,
});

const SEPOLIA_ENTRY: RegistryEntry = {
  repository: 'ethereum/go-ethereum',
  path: 'params/config.go',
  commit: '02b73d4ea7181464175e0a6cbecc0a3a2655a562',
  declares: "SepoliaChainConfig: Ethereum's rules, with Sepolia's fork schedule",
};

/** A block that shows the block hash. */
const header = (fixture: string): EvidenceBlock => ({
  fixture,
  block: Number(fixture.slice(fixture.lastIndexOf('-') + 1)),
});
/** A block that shows the receipts root, holding receipts of these kinds ([] for none). */
const receipts = (fixture: string, ...kinds: ReceiptKind[]): EvidenceBlock => ({ ...header(fixture), receipts: kinds });
/** A block that shows the logs bloom, with logs or without. */
const bloom = (fixture: string, logs: boolean): EvidenceBlock => ({ ...header(fixture), logs });

/** Every check of an era unclaimed, for one reason. */
const unshown = (reason: string): EraEvidence => ({ block_hash: reason, receipts_root: reason, logs_bloom: reason });

/** The receipts root and bloom unclaimed, for one reason. */
const noReceipts = (reason: string) => ({ receipts_root: reason, logs_bloom: reason });

/** The checks of an empty block: its hash, the empty receipts root and the zero bloom. */
const emptyBlock = (fixture: string): EraEvidence => ({
  block_hash: [header(fixture)],
  receipts_root: [receipts(fixture)],
  logs_bloom: [bloom(fixture, false)],
});

const NO_REAL_BLOCK = "no real block of this chain in the project's fixtures has shown its rules yet";
const NO_RECEIPTS = "no real block of this chain with its receipts is in the project's fixtures yet";

/** One era from genesis, for a chain whose blocks all follow the same rules. */
const allBlocks = (evidence: EraEvidence, more: Partial<Era> = {}): readonly Era[] => [
  { name: 'all blocks', from: 0, evidence, ...more },
];

const ARBITRUM_CLASSIC =
  'Arbitrum classic blocks carry receipts roots that no encoding of their JSON-RPC receipts reproduces; the classic chain committed to its receipts in its own way.';

const OP_GOERLI_LEGACY =
  "Legacy (pre-Bedrock) blocks were produced by l2geth and migrated into the Bedrock chain; no real block of OP Goerli's legacy era is in the project's fixtures.";

const CELO_L1 =
  'Celo before it became an L2 was an Istanbul BFT chain: its header has 10 fields (no uncles, difficulty, gas limit, mixHash or nonce before Gingerbread) and its hash is of a header whose extraData has the aggregated seal removed, and its blocks add a receipt for block-level logs; these rules are not implemented here.';

const HELICON =
  "from Avalanche's Helicon upgrade (ACP-194) on, a header commits to the receipts of the blocks it settles, not to its own (shown by Fuji block 58,119,344: one transaction, the empty receipts root); before it, no real block with its receipts is in the project's fixtures";

const CELO_FEE_CURRENCY =
  "Celo's fee-currency transactions (CIP-64, type 0x7b) have receipts of their own, with the base fee in them; no real Celo block with its receipts is in the project's fixtures";

const MANTLE =
  "Mantle's OP-stack fork hashes deposit receipts without the deposit nonce and version, and adds fee fields of its own; no real Mantle block is in the project's fixtures";

const MAINNET: EraEvidence = {
  block_hash: [
    'mainnet-1',
    'mainnet-7000000',
    'mainnet-14764013',
    'mainnet-17034870',
    'mainnet-19426587',
    'mainnet-22431084',
  ].map(header),
  receipts_root: [
    receipts('mainnet-1000023', 'ethereum'),
    receipts('mainnet-7000000', 'ethereum'),
    receipts('mainnet-15537394', 'ethereum'),
    receipts('mainnet-19433903', 'ethereum'),
    receipts('mainnet-22869878', 'ethereum'),
  ],
  logs_bloom: [bloom('mainnet-1000023', true), bloom('mainnet-15537394', true), bloom('mainnet-22869878', true)],
};

const POLYGON_BOR: EraEvidence = {
  block_hash: ['polygon-pos-0', 'polygon-pos-9013760', 'polygon-pos-10000000', 'polygon-pos-23887160'].map(header),
  receipts_root: [
    receipts('polygon-pos-2233682', 'ethereum'),
    receipts('polygon-pos-10000000', 'ethereum', 'state-sync-outside-root'),
    receipts('polygon-pos-23887160', 'ethereum'),
  ],
  logs_bloom: [
    bloom('polygon-pos-2233682', true),
    bloom('polygon-pos-10000000', true),
    bloom('polygon-pos-23887160', true),
  ],
};

function polygonEras(madhugiri: number, bor: EraEvidence): readonly Era[] {
  return [
    { name: 'Bor before Madhugiri', from: 0, stateSync: 'receipt-outside-root', evidence: bor },
    { name: 'Madhugiri', from: madhugiri, stateSync: 'transaction', evidence: unshown(NO_REAL_BLOCK) },
  ];
}

/** Gnosis and Chiado: AuRa headers until their merge, Ethereum's after. */
function gnosisEras(merge: number, aura: EraEvidence, merged: EraEvidence): readonly Era[] {
  return [
    { name: 'AuRa', from: 0, header: 'aura', evidence: aura },
    { name: 'proof of stake', from: merge, evidence: merged },
  ];
}

/** An OP-stack chain whose blocks follow Bedrock's rules from genesis, with what shows them. */
const opStack = (
  name: string,
  evidence: EraEvidence,
  forks?: readonly ForkActivation[],
  registry?: RegistryEntry,
): ChainBody => ({
  name,
  rules: 'optimism',
  verifiable: true,
  eras: allBlocks(evidence, registry && { registry }),
  ...(forks && { forks }),
});

/** A standard OP-stack chain from genesis with no real block of its own: its registry entry and fork schedule. */
const standardOpStack = (name: string, config: string, level: 1 | 2, hardforks: Record<string, number>): ChainBody =>
  opStack(name, unshown(NO_REAL_BLOCK), opStackForks(0, hardforks), superchainEntry(config, level));

/** A chain whose blocks cannot be verified, and why. */
const notVerifiable = (name: string, reason: string): ChainBody => ({
  name,
  rules: 'ethereum',
  verifiable: false,
  reason,
});

/** A chain's entry but for its id, which its row of {@link CHAINS} gives. */
type ChainBody = Omit<ChainInfo, 'chainId'>;

/** A row of {@link CHAINS}: a chain's id, and how its entry is made at its first lookup. */
const chain = (chainId: number, make: () => ChainBody) => [chainId, make] as const;

/**
 * The built-in chains, each made at its first lookup ({@link builtinChain}): a process that verifies a block asks for
 * one chain. Made all at load, with the header-field evidence and the registry's families, they took about 3.5 ms of
 * a `verify block` process and some 100 KB of V8's young generation (docs/speed.md, "The command line").
 */
const CHAINS: readonly ReturnType<typeof chain>[] = [
  chain(1, () => ({
    name: 'Ethereum Mainnet',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(MAINNET),
    forks: MAINNET_FORKS,
  })),
  chain(11155111, () => ({
    name: 'Sepolia',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK), { registry: SEPOLIA_ENTRY }),
    forks: forks(
      { London: 0, Paris: 1_735_371 },
      {
        Shanghai: 1_677_557_088,
        Cancun: 1_706_655_072,
        Prague: 1_741_159_776,
        Osaka: 1_760_427_360,
        BPO1: 1_761_017_184,
        BPO2: 1_761_607_008,
      },
    ),
  })),
  chain(17000, () => ({
    name: 'Holesky',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks({ ...emptyBlock('holesky-1'), block_hash: [header('holesky-1'), header('holesky-2')] }),
    forks: forks(
      { London: 0, Paris: 0 },
      {
        Shanghai: 1_696_000_704,
        Cancun: 1_707_305_664,
        Prague: 1_740_434_112,
        Osaka: 1_759_308_480,
        BPO1: 1_759_800_000,
        BPO2: 1_760_389_824,
      },
    ),
  })),
  chain(560048, () => ({
    name: 'Hoodi',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks({
      block_hash: [header('hoodi-411443')],
      receipts_root: [receipts('hoodi-411443', 'ethereum')],
      logs_bloom: [bloom('hoodi-411443', false)],
    }),
    forks: forks(
      { London: 0, Paris: 0 },
      { Shanghai: 0, Cancun: 0, Prague: 1_742_999_832, Osaka: 1_761_677_592, BPO1: 1_762_365_720, BPO2: 1_762_955_544 },
    ),
  })),
  chain(100, () => ({
    name: 'Gnosis',
    rules: 'ethereum',
    verifiable: true,
    eras: gnosisEras(
      25_349_537,
      {
        block_hash: ['gnosis-0', 'gnosis-10000000', 'gnosis-10226218', 'gnosis-25233552'].map(header),
        receipts_root: [receipts('gnosis-0'), receipts('gnosis-10000000'), receipts('gnosis-10226218')],
        logs_bloom: [bloom('gnosis-10000000', false), bloom('gnosis-10226218', false)],
      },
      { ...emptyBlock('gnosis-30000000'), block_hash: [header('gnosis-25349537'), header('gnosis-30000000')] },
    ),
  })),
  chain(10200, () => ({
    name: 'Gnosis Chiado',
    rules: 'ethereum',
    verifiable: true,
    eras: gnosisEras(680_930, unshown(NO_REAL_BLOCK), unshown(NO_REAL_BLOCK)),
  })),
  chain(56, () => ({
    name: 'BNB Smart Chain',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(emptyBlock('bsc-26803')),
  })),
  chain(97, () => ({
    name: 'BNB Smart Chain Testnet',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks({ block_hash: [header('bsc-testnet-45944645')], ...noReceipts(NO_RECEIPTS) }),
  })),
  chain(137, () => ({
    name: 'Polygon PoS',
    rules: 'polygon',
    verifiable: true,
    eras: polygonEras(80_084_800, POLYGON_BOR),
  })),
  chain(80002, () => ({
    name: 'Polygon Amoy',
    rules: 'polygon',
    verifiable: true,
    eras: polygonEras(28_899_616, unshown(NO_REAL_BLOCK)),
  })),
  chain(43114, () => ({
    name: 'Avalanche C-Chain',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks({ block_hash: NO_REAL_BLOCK, ...noReceipts(HELICON) }, { header: 'avalanche' }),
  })),
  chain(43113, () => ({
    name: 'Avalanche Fuji C-Chain',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(
      { block_hash: [header('avalanche-fuji-58119344')], ...noReceipts(HELICON) },
      { header: 'avalanche' },
    ),
  })),
  chain(59144, () => ({ name: 'Linea', rules: 'ethereum', verifiable: true, eras: allBlocks(unshown(NO_REAL_BLOCK)) })),
  chain(59141, () => ({
    name: 'Linea Sepolia',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK)),
  })),
  chain(10, () => ({
    name: 'OP Mainnet',
    rules: 'optimism',
    verifiable: true,
    eras: [
      {
        name: 'legacy (pre-Bedrock)',
        from: 0,
        rules: 'ethereum',
        evidence: {
          block_hash: [header('op-mainnet-10000'), header('op-mainnet-100000000'), header('op-mainnet-103110422')],
          receipts_root: [receipts('op-mainnet-10000', 'ethereum'), receipts('op-mainnet-100000000', 'ethereum')],
          logs_bloom: [bloom('op-mainnet-10000', true), bloom('op-mainnet-100000000', true)],
        },
      },
      {
        name: 'Bedrock',
        from: 105_235_063,
        registry: superchainEntry('mainnet/op', 2),
        evidence: {
          block_hash: [header('op-mainnet-105235063'), header('op-mainnet-105237730'), header('op-mainnet-154497277')],
          receipts_root: [
            receipts('op-mainnet-105235063'),
            receipts('op-mainnet-105237730', 0x7e, 'ethereum'),
            receipts('op-mainnet-154497277', 'deposit-versioned', 'ethereum'),
          ],
          logs_bloom: [bloom('op-mainnet-105237730', false), bloom('op-mainnet-154497277', true)],
        },
      },
    ],
    forks: opStackForks(105_235_063, { ...SUPERCHAIN_MAINNET, Karst: 1_783_526_401 }, 'legacy (l2geth)'),
  })),
  chain(8453, () =>
    opStack(
      'Base',
      {
        block_hash: [header('base-81636'), header('base-2000000'), header('base-11723284')],
        receipts_root: [receipts('base-81636', 0x7e, 'ethereum'), receipts('base-2000000', 0x7e, 'ethereum')],
        logs_bloom: [bloom('base-81636', false), bloom('base-2000000', true)],
      },
      opStackForks(0, SUPERCHAIN_MAINNET),
      superchainEntry('mainnet/base', 1, SUPERCHAIN_WITH_BASE),
    ),
  ),
  chain(84531, () =>
    opStack('Base Goerli', {
      block_hash: ['base-goerli-100', 'base-goerli-7542', 'base-goerli-1041847', 'base-goerli-12399126'].map(header),
      receipts_root: [
        // Deposits before Regolith (no nonce given), then with Canyon's nonce and version.
        receipts('base-goerli-100', 0x7e),
        receipts('base-goerli-7542', 0x7e, 'ethereum'),
        receipts('base-goerli-1041847', 0x7e, 'ethereum'),
        receipts('base-goerli-12399126', 'deposit-versioned', 'ethereum'),
      ],
      logs_bloom: [bloom('base-goerli-100', false), bloom('base-goerli-1041847', true)],
    }),
  ),
  chain(7777777, () => standardOpStack('Zora', 'mainnet/zora', 1, { ...SUPERCHAIN_MAINNET, Karst: 1_783_526_401 })),
  chain(11155420, () =>
    standardOpStack('OP Sepolia', 'sepolia/op', 1, { ...SUPERCHAIN_SEPOLIA, Karst: 1_781_712_001 }),
  ),
  chain(84532, () =>
    opStack(
      'Base Sepolia',
      { block_hash: [header('base-sepolia-42348318')], ...noReceipts(NO_RECEIPTS) },
      opStackForks(0, SUPERCHAIN_SEPOLIA),
      superchainEntry('sepolia/base', 1, SUPERCHAIN_WITH_BASE),
    ),
  ),
  chain(130, () =>
    standardOpStack('Unichain', 'mainnet/unichain', 1, {
      ...FROM_GRANITE,
      Holocene: 1_736_445_601,
      Isthmus: 1_746_806_401,
      Jovian: 1_764_691_201,
      Karst: 1_783_526_401,
    }),
  ),
  chain(480, () =>
    standardOpStack('World Chain', 'mainnet/worldchain', 1, {
      Canyon: 0,
      Delta: 0,
      Ecotone: 0,
      Fjord: 1_721_826_000,
      Granite: 1_727_780_400,
      Holocene: 1_738_238_400,
      Isthmus: 1_764_072_000,
      Jovian: 1_777_593_600,
    }),
  ),
  chain(57073, () =>
    standardOpStack('Ink', 'mainnet/ink', 1, {
      ...FROM_GRANITE,
      Holocene: 1_742_396_400,
      Isthmus: 1_746_806_401,
      Jovian: 1_764_691_201,
      Karst: 1_783_526_401,
    }),
  ),
  chain(34443, () => standardOpStack('Mode', 'mainnet/mode', 1, { ...SUPERCHAIN_MAINNET, Karst: 1_783_526_401 })),
  chain(1868, () =>
    standardOpStack('Soneium', 'mainnet/soneium', 1, {
      ...FROM_GRANITE,
      Holocene: 1_738_573_200,
      Isthmus: 1_746_806_401,
      Jovian: 1_764_691_201,
      Karst: 1_783_526_401,
    }),
  ),
  chain(183, () =>
    standardOpStack('Ethernity', 'mainnet/ethernity', 1, { ...SUPERCHAIN_MAINNET, Karst: 1_783_526_401 }),
  ),
  chain(1135, () => standardOpStack('Lisk', 'mainnet/lisk', 1, { ...SUPERCHAIN_MAINNET, Karst: 1_783_526_401 })),
  chain(1750, () =>
    standardOpStack('Metal L2', 'mainnet/metal', 1, {
      ...FROM_ECOTONE,
      Fjord: 1_720_627_201,
      Granite: 1_726_070_401,
      Holocene: 1_736_445_601,
      Isthmus: 1_746_806_401,
      Jovian: 1_764_691_201,
      Karst: 1_783_526_401,
    }),
  ),
  chain(8008, () =>
    standardOpStack('Polynomial', 'mainnet/polynomial', 1, {
      ...FROM_ECOTONE,
      Fjord: 1_720_627_201,
      Granite: 1_726_070_401,
      Holocene: 1_736_445_601,
      Isthmus: 1_746_806_401,
    }),
  ),
  chain(360, () => standardOpStack('Shape', 'mainnet/shape', 1, { ...FROM_ECOTONE, Fjord: 0, Granite: 1_727_370_000 })),
  chain(5330, () =>
    standardOpStack('Superseed', 'mainnet/sseed', 1, {
      ...FROM_ECOTONE,
      Fjord: 0,
      Granite: 1_726_185_601,
      Holocene: 1_736_445_601,
      Isthmus: 1_746_806_401,
    }),
  ),
  chain(763373, () =>
    standardOpStack('Ink Sepolia', 'sepolia/ink', 1, { ...SUPERCHAIN_SEPOLIA, Karst: 1_781_712_001 }),
  ),
  chain(4202, () =>
    standardOpStack('Lisk Sepolia', 'sepolia/lisk', 1, {
      ...SUPERCHAIN_SEPOLIA,
      Canyon: 1_705_312_994,
      Delta: 1_705_312_994,
      Karst: 1_781_712_001,
    }),
  ),
  chain(1740, () =>
    standardOpStack('Metal L2 Testnet', 'sepolia/metal', 1, {
      ...SUPERCHAIN_SEPOLIA,
      Canyon: 1_708_129_622,
      Delta: 1_708_385_400,
      Karst: 1_781_712_001,
    }),
  ),
  chain(919, () =>
    standardOpStack('Mode Testnet', 'sepolia/mode', 1, {
      ...SUPERCHAIN_SEPOLIA,
      Canyon: 1_703_203_200,
      Delta: 1_703_203_200,
      Karst: 1_781_712_001,
    }),
  ),
  chain(16481, () => standardOpStack('Pivotal Sepolia', 'sepolia/pivotal', 1, FROM_ECOTONE)),
  chain(11011, () =>
    standardOpStack('Shape Sepolia', 'sepolia/shape', 1, {
      ...FROM_ECOTONE,
      Fjord: 1_721_732_400,
      Granite: 1_727_197_200,
    }),
  ),
  chain(1946, () =>
    standardOpStack('Soneium Minato', 'sepolia/soneium-minato', 1, {
      ...FROM_ECOTONE,
      Fjord: 1_730_106_000,
      Granite: 1_730_106_000,
      Holocene: 1_734_685_200,
      Isthmus: 1_744_905_600,
      Jovian: 1_763_568_001,
      Karst: 1_781_712_001,
    }),
  ),
  chain(1301, () =>
    standardOpStack('Unichain Sepolia', 'sepolia/unichain', 1, {
      ...FROM_GRANITE,
      Holocene: 1_734_559_200,
      Isthmus: 1_744_905_600,
      Jovian: 1_763_568_001,
      Karst: 1_781_712_001,
    }),
  ),
  chain(999999999, () =>
    standardOpStack('Zora Sepolia', 'sepolia/zora', 1, { ...SUPERCHAIN_SEPOLIA, Karst: 1_781_712_001 }),
  ),
  chain(81457, () => opStack('Blast', unshown(NO_REAL_BLOCK))),
  chain(5000, () => opStack('Mantle', { block_hash: NO_REAL_BLOCK, ...noReceipts(MANTLE) })),
  chain(420, () => ({
    name: 'OP Goerli',
    rules: 'optimism',
    verifiable: true,
    eras: [
      { name: 'legacy (pre-Bedrock)', from: 0, notVerifiable: OP_GOERLI_LEGACY },
      { name: 'Bedrock', from: 4_061_224, evidence: emptyBlock('op-goerli-4061224') },
    ],
  })),
  chain(42220, () => ({
    name: 'Celo',
    rules: 'optimism',
    verifiable: true,
    eras: [
      { name: 'L1 (Istanbul BFT)', from: 0, notVerifiable: CELO_L1 },
      {
        name: 'L2 (OP stack)',
        from: 31_056_500,
        evidence: {
          block_hash: [header('celo-31056500')],
          ...noReceipts(CELO_FEE_CURRENCY),
        },
      },
    ],
    forks: opStackForks(
      31_056_500,
      { ...FROM_GRANITE, Holocene: 1_752_073_200, Isthmus: 1_752_073_200 },
      'Celo L1 (Istanbul BFT)',
    ),
  })),
  // superchain_level 2 in the superchain registry, but Celo's fee currency deviates from the family: unclaimed.
  chain(11142220, () => ({
    name: 'Celo Sepolia',
    rules: 'optimism',
    verifiable: true,
    eras: allBlocks({ block_hash: NO_REAL_BLOCK, ...noReceipts(CELO_FEE_CURRENCY) }),
  })),
  chain(42161, () => ({
    name: 'Arbitrum One',
    rules: 'arbitrum',
    verifiable: true,
    eras: [
      { name: 'Arbitrum classic', from: 0, notVerifiable: ARBITRUM_CLASSIC },
      {
        name: 'Nitro',
        from: 22_207_817,
        registry: nitroEntry('arb1'),
        evidence: {
          block_hash: [header('arbitrum-one-150000000')],
          receipts_root: [receipts('arbitrum-one-150000000', 0x6a, 'ethereum')],
          logs_bloom: [bloom('arbitrum-one-150000000', true)],
        },
      },
    ],
  })),
  // Nitro from genesis: one era each.
  chain(42170, () => ({
    name: 'Arbitrum Nova',
    rules: 'arbitrum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK), { registry: nitroEntry('nova') }),
  })),
  chain(421613, () => ({
    name: 'Arbitrum Goerli',
    rules: 'arbitrum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK), { registry: nitroEntry('goerli-rollup') }),
  })),
  chain(421614, () => ({
    name: 'Arbitrum Sepolia',
    rules: 'arbitrum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK), { registry: nitroEntry('sepolia-rollup') }),
  })),
  chain(534352, () => ({
    name: 'Scroll',
    rules: 'scroll',
    verifiable: true,
    eras: allBlocks({
      ...emptyBlock('scroll-0'),
      block_hash: ['scroll-0', 'scroll-5224657', 'scroll-8708232'].map(header),
    }),
  })),
  chain(534351, () => ({
    name: 'Scroll Sepolia',
    rules: 'scroll',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK)),
  })),
  chain(999, () => ({
    name: 'HyperEVM',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK)),
  })),
  chain(80094, () => ({
    name: 'Berachain',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK)),
  })),
  chain(146, () => ({
    name: 'Sonic',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks({ block_hash: [header('sonic-18701401')], ...noReceipts(NO_RECEIPTS) }),
  })),
  chain(57054, () => ({
    name: 'Sonic Blaze Testnet',
    rules: 'ethereum',
    verifiable: true,
    eras: allBlocks(unshown(NO_REAL_BLOCK)),
  })),
  chain(324, () =>
    notVerifiable(
      'zkSync Era',
      'zkSync Era blocks carry no Patricia receipts root; its receipts are proven through the zk rollup instead.',
    ),
  ),
  chain(295, () =>
    notVerifiable(
      'Hedera',
      "Hedera's JSON-RPC relay synthesises block headers; their receiptsRoot is not a Patricia root of the receipts.",
    ),
  ),
  chain(250, () =>
    notVerifiable(
      'Fantom Opera',
      "Opera's block hash is the id of the event (Atropos) that decided the block, not keccak of an RLP header (Fantom-foundation/go-opera evmcore/dummy_block.go).",
    ),
  ),
  chain(25, () =>
    notVerifiable(
      'Cronos',
      "Cronos (Ethermint) answers with the CometBFT block hash, not keccak of an RLP header, and a receiptsRoot that is the empty trie's whatever the block's receipts (crypto-org-chain/ethermint rpc/types/utils.go; real blocks 6,542 and 10,000 in the project's fixtures show both).",
    ),
  ),
  chain(1284, () =>
    notVerifiable(
      'Moonbeam',
      'Moonbeam (Frontier) hashes an Ethereum header its JSON-RPC answer does not give back: the timestamp it answers is the hashed one divided by 1,000, and baseFeePerGas is not hashed (polkadot-evm/frontier client/rpc/src/eth/mod.rs).',
    ),
  ),
  chain(4217, () =>
    notVerifiable(
      'Tempo',
      "Tempo's block hash is keccak of its own header, an RLP list that wraps Ethereum's with fields of its own (tempoxyz/tempo crates/primitives/src/header.rs; real block 20,660,166 in the project's fixtures).",
    ),
  ),
  chain(964, () =>
    notVerifiable(
      'Bittensor EVM',
      "Bittensor's EVM (Frontier, in opentensor/subtensor) answers headers without mixHash (real testnet block 6,646,068 in the project's fixtures), so the hashed header cannot be rebuilt from them.",
    ),
  ),
];

const MAKERS: ReadonlyMap<number, () => ChainBody> = new Map(CHAINS);
const MADE = new Map<number, ChainInfo>();

/** The ids of the built-in chains, in the table's order. */
export const BUILTIN_CHAIN_IDS: readonly number[] = CHAINS.map(([chainId]) => chainId);

/**
 * The built-in chain of this id, with what its real blocks show of its header's fork fields; undefined for an id that
 * is not built in. Made at the first lookup, the same object after.
 *
 * @example
 * builtinChain(8453)?.name // 'Base'
 */
export function builtinChain(chainId: number): ChainInfo | undefined {
  let made = MADE.get(chainId);
  if (made === undefined) {
    const make = MAKERS.get(chainId);
    if (make === undefined) return undefined;
    const headerFields = HEADER_FIELD_EVIDENCE[chainId]?.();
    made = { chainId, ...make(), ...(headerFields && { headerFields }) };
    MADE.set(chainId, made);
  }
  return made;
}

/** Every built-in chain, in the table's order. */
export const builtinChains = (): readonly ChainInfo[] => BUILTIN_CHAIN_IDS.map((chainId) => builtinChain(chainId)!);
