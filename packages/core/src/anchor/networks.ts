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

/** A beacon-chain network: its name and the epoch each fork began at (phase0 at 0). */
export interface BeaconNetwork {
  readonly name: string;
  readonly forkEpochs: Readonly<Record<Fork, number>>;
}

/** Ethereum mainnet. */
export const MAINNET: BeaconNetwork = {
  name: 'mainnet',
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

/** Whether `fork` is `since` or a later fork. */
export function isAtLeast(fork: Fork, since: Fork): boolean {
  return FORKS.indexOf(fork) >= FORKS.indexOf(since);
}
