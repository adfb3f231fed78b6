/**
 * What a sync committee signs (consensus-specs phase0 `compute_fork_data_root`, `compute_domain`,
 * `compute_signing_root`; Altair `DOMAIN_SYNC_COMMITTEE`): the attested header's root bound to a
 * domain made of the fork version and the network's genesis validators root. The fork version is
 * the one in force at `signature_slot - 1` (Altair light-client `validate_light_client_update`: the
 * committee signs the block of the slot before, so at a fork's first slot it still signs with the
 * old version; clients that used the signature slot's broke at every fork, consensus-specs PR 3284).
 */
import { parentOf, type Node } from '../merkle-branch.js';
import { forkAtSlot, type BeaconNetwork, type Fork } from '../networks.js';

/** `DOMAIN_SYNC_COMMITTEE`: the domain type of sync-committee signatures. */
export const DOMAIN_SYNC_COMMITTEE = Uint8Array.of(0x07, 0x00, 0x00, 0x00);

/** 4 bytes (a version or a domain type) as an SSZ leaf: padded to 32 bytes. */
function bytes4Leaf(bytes: Uint8Array): Node {
  const leaf = new Uint8Array(32);
  leaf.set(bytes.subarray(0, 4));
  return leaf;
}

/** `compute_fork_data_root`: the hash_tree_root of `ForkData { current_version, genesis_validators_root }`. */
export function forkDataRoot(version: Uint8Array, genesisValidatorsRoot: Node): Node {
  if (version.length !== 4 || genesisValidatorsRoot.length !== 32)
    throw new RangeError('a fork version is 4 bytes and a genesis validators root 32');
  return parentOf(bytes4Leaf(version), genesisValidatorsRoot);
}

/** `compute_domain`: the domain type, then the first 28 bytes of the fork data root. */
export function computeDomain(domainType: Uint8Array, version: Uint8Array, genesisValidatorsRoot: Node): Node {
  const domain = new Uint8Array(32);
  domain.set(domainType.subarray(0, 4));
  domain.set(forkDataRoot(version, genesisValidatorsRoot).subarray(0, 28), 4);
  return domain;
}

/** `compute_signing_root`: the hash_tree_root of `SigningData { object_root, domain }`. */
export function signingRoot(objectRoot: Node, domain: Node): Node {
  return parentOf(objectRoot, domain);
}

/**
 * `compute_fork_digest` before Fulu: the first 4 bytes of the fork data root. The Beacon API and the Portal
 * network prefix light-client data with it. From Fulu the digest also mixes in the blob schedule's entry
 * for the epoch (EIP-7892), which a network here does not carry, so Fulu and later give `undefined`.
 */
export function forkDigest(network: BeaconNetwork, fork: Fork): Uint8Array | undefined {
  if (fork === 'fulu') return undefined;
  return forkDataRoot(network.forkVersions[fork], network.genesisValidatorsRoot).slice(0, 4);
}

/** The fork whose version a sync-committee signature made at `signatureSlot` uses: that of `max(signatureSlot, 1) - 1`. */
export function signatureFork(network: BeaconNetwork, signatureSlot: number): Fork {
  return forkAtSlot(network, Math.max(signatureSlot, 1) - 1);
}

/** The domain of a sync-committee signature made at `signatureSlot` on `network`. */
export function syncCommitteeDomain(network: BeaconNetwork, signatureSlot: number): Node {
  const version = network.forkVersions[signatureFork(network, signatureSlot)];
  return computeDomain(DOMAIN_SYNC_COMMITTEE, version, network.genesisValidatorsRoot);
}
