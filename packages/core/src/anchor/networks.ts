/**
 * Beacon-chain networks by their fork epochs: which fork a slot is in decides the shape of its proofs.
 * Mainnet only for now (epochs from the consensus-specs mainnet config, `configs/mainnet.yaml`).
 */

/** Slots in an epoch (consensus-specs preset `SLOTS_PER_EPOCH`, the same on every public network). */
export const SLOTS_PER_EPOCH = 32;

/** The beacon-chain forks, oldest first. */
export const FORKS = ['phase0', 'altair', 'bellatrix', 'capella', 'deneb', 'electra', 'fulu'] as const;

/** A beacon-chain fork. */
export type Fork = (typeof FORKS)[number];

/** Seconds a slot (consensus-specs config `SECONDS_PER_SLOT`, 12 on every public network so far). */
export const SECONDS_PER_SLOT = 12;

/** A beacon-chain network: its name, its genesis time (Unix seconds), and the epoch each fork began at (phase0 at 0). */
export interface BeaconNetwork {
  readonly name: string;
  readonly genesisTime: number;
  readonly forkEpochs: Readonly<Record<Fork, number>>;
}

/** Ethereum mainnet. */
export const MAINNET: BeaconNetwork = {
  name: 'mainnet',
  // The Beacon API's /eth/v1/beacon/genesis; the real post-merge headers in the tests agree.
  genesisTime: 1606824023,
  forkEpochs: {
    phase0: 0,
    altair: 74240,
    bellatrix: 144896,
    capella: 194048,
    deneb: 269568,
    electra: 364032,
    fulu: 411392,
  },
};

/** The first slot of `fork` on `network`. */
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
