/**
 * Beacon-chain networks: their fork epochs (which fork a slot is in decides the shape of its proofs),
 * each fork's 4-byte version and the genesis validators root (which a sync committee's signing domain
 * mixes in, so that a signature on one network means nothing on another), and the genesis time.
 *
 * Sources, read at these commits:
 * - mainnet: consensus-specs `configs/mainnet.yaml` (ethereum/consensus-specs a08d8a6e2) and eth-clients/mainnet
 *   `metadata/config.yaml` and `README.md` (9df5a5b, genesis time and genesis_validators_root);
 * - Sepolia, Holesky, Hoodi: each network's eth-clients repository, `metadata/config.yaml` (sepolia 129de38,
 *   holesky 8aec65f, hoodi 7f71638), and a16z/helios `ethereum/src/config/networks.rs` (1fbb909), which agree on
 *   every value both give; Fulu on Sepolia and Hoodi was scheduled after those config commits, so its epoch is
 *   helios' alone.
 */
import { hexToBytes } from '../bytes/hex.js';

/** Slots in an epoch (consensus-specs preset `SLOTS_PER_EPOCH`, the same on every public network). */
export const SLOTS_PER_EPOCH = 32;

/** The beacon-chain forks, oldest first. */
export const FORKS = ['phase0', 'altair', 'bellatrix', 'capella', 'deneb', 'electra', 'fulu'] as const;

/** A beacon-chain fork. */
export type Fork = (typeof FORKS)[number];

/** Seconds a slot (consensus-specs config `SECONDS_PER_SLOT`, 12 on every public network so far). */
export const SECONDS_PER_SLOT = 12;

/**
 * A beacon-chain network: its name, its genesis time (Unix seconds), the epoch each fork began at (phase0
 * at 0; `Infinity` for a fork not scheduled), each fork's version (4 bytes) and the genesis validators root.
 */
export interface BeaconNetwork {
  readonly name: string;
  /**
   * The chain id of the execution chain whose blocks this beacon chain carries: an anchor proof of this network
   * proves blocks of that chain and of no other (EIP-155 ids: mainnet 1, Sepolia 11155111, Holesky 17000, Hoodi 560048).
   */
  readonly executionChainId: number;
  readonly genesisTime: number;
  readonly forkEpochs: Readonly<Record<Fork, number>>;
  readonly forkVersions: Readonly<Record<Fork, Uint8Array>>;
  readonly genesisValidatorsRoot: Uint8Array;
}

/** Fork versions from their hex, in FORKS order. */
function versions(...hex: readonly string[]): Record<Fork, Uint8Array> {
  return Object.fromEntries(FORKS.map((fork, i) => [fork, hexToBytes(hex[i]!, `${fork} fork version`)])) as Record<
    Fork,
    Uint8Array
  >;
}

/** Ethereum mainnet. */
export const MAINNET: BeaconNetwork = {
  name: 'mainnet',
  executionChainId: 1,
  // eth-clients/mainnet README (genesis_time); the Beacon API's /eth/v1/beacon/genesis gives the same, and the
  // real post-merge headers in the tests agree.
  genesisTime: 1606824023,
  // configs/mainnet.yaml, *_FORK_EPOCH.
  forkEpochs: {
    phase0: 0,
    altair: 74240,
    bellatrix: 144896,
    capella: 194048,
    deneb: 269568,
    electra: 364032,
    fulu: 411392,
  },
  // configs/mainnet.yaml, GENESIS_FORK_VERSION and *_FORK_VERSION.
  forkVersions: versions('00000000', '01000000', '02000000', '03000000', '04000000', '05000000', '06000000'),
  // eth-clients/mainnet README; helios networks.rs `genesis_root`.
  genesisValidatorsRoot: hexToBytes('4b363db94e286120d76eb905340fdd4e54bfe9f06bf33ff6cf5ad27f511bfe95'),
};

/** Sepolia. */
export const SEPOLIA: BeaconNetwork = {
  name: 'sepolia',
  executionChainId: 11155111,
  // MIN_GENESIS_TIME 1655647200 + GENESIS_DELAY 86400 (config.yaml); the README's genesis time; helios.
  genesisTime: 1655733600,
  // config.yaml; Fulu from helios.
  forkEpochs: { phase0: 0, altair: 50, bellatrix: 100, capella: 56832, deneb: 132608, electra: 222464, fulu: 272640 },
  // config.yaml; Fulu's from helios.
  forkVersions: versions('90000069', '90000070', '90000071', '90000072', '90000073', '90000074', '90000075'),
  // Bytes 8-40 of eth-clients/sepolia metadata/genesis.ssz (the genesis BeaconState's second field); helios.
  genesisValidatorsRoot: hexToBytes('d8ea171f3c94aea21ebc42a1ed61052acf3f9209c00e4efbaaddac09ed9b8078'),
};

/** Holesky. */
export const HOLESKY: BeaconNetwork = {
  name: 'holesky',
  executionChainId: 17000,
  // MIN_GENESIS_TIME 1695902100 + GENESIS_DELAY 300 (config.yaml); helios.
  genesisTime: 1695902400,
  // config.yaml (Fulu included); helios.
  forkEpochs: { phase0: 0, altair: 0, bellatrix: 0, capella: 256, deneb: 29696, electra: 115968, fulu: 165120 },
  forkVersions: versions('01017000', '02017000', '03017000', '04017000', '05017000', '06017000', '07017000'),
  // The README's "Genesis validator root"; helios.
  genesisValidatorsRoot: hexToBytes('9143aa7c615a7f7115e2b6aac319c03529df8242ae705fba9df39b79c59fa8b1'),
};

/** Hoodi. */
export const HOODI: BeaconNetwork = {
  name: 'hoodi',
  executionChainId: 560048,
  // MIN_GENESIS_TIME 1742212800 + GENESIS_DELAY 600 (config.yaml); helios.
  genesisTime: 1742213400,
  // config.yaml; Fulu (far future in that commit's config) from helios.
  forkEpochs: { phase0: 0, altair: 0, bellatrix: 0, capella: 0, deneb: 0, electra: 2048, fulu: 50688 },
  forkVersions: versions('10000910', '20000910', '30000910', '40000910', '50000910', '60000910', '70000910'),
  // metadata/genesis_validators_root.txt and the README; helios.
  genesisValidatorsRoot: hexToBytes('212f13fc4df078b6cb7db228f1c8307566dcecf900867401a92023d7ba99cb5f'),
};

/** Every built-in network, by its name. */
export const BEACON_NETWORKS: ReadonlyMap<string, BeaconNetwork> = new Map(
  [MAINNET, SEPOLIA, HOLESKY, HOODI].map((network) => [network.name, network]),
);

/** The built-in network named `name` (`mainnet`, `sepolia`, `holesky`, `hoodi`), or `undefined`. */
export function beaconNetwork(name: string): BeaconNetwork | undefined {
  return BEACON_NETWORKS.get(name.toLowerCase());
}

/** The first slot of `fork` on `network` (`Infinity` when it is not scheduled). */
export function forkSlot(network: BeaconNetwork, fork: Fork): number {
  return network.forkEpochs[fork] * SLOTS_PER_EPOCH;
}

/** The fork `slot` is in on `network`: the latest fork whose first slot is not after it. */
export function forkAtSlot(network: BeaconNetwork, slot: number): Fork {
  if (!Number.isSafeInteger(slot) || slot < 0) throw new RangeError(`slot ${slot} is not a non-negative integer`);
  let at: Fork = 'phase0';
  for (const fork of FORKS) if (forkSlot(network, fork) <= slot) at = fork;
  return at;
}

/**
 * The timestamp of an execution payload at `slot`: the beacon chain requires it
 * (consensus-specs `process_execution_payload`, `compute_timestamp_at_slot`), so a header's timestamp names its slot.
 */
export function slotTimestamp(network: BeaconNetwork, slot: number): number {
  return network.genesisTime + slot * SECONDS_PER_SLOT;
}

/** Whether `fork` is `since` or a later fork. */
export function isAtLeast(fork: Fork, since: Fork): boolean {
  return FORKS.indexOf(fork) >= FORKS.indexOf(since);
}
