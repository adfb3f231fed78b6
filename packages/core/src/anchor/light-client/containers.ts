/**
 * The light-client containers of consensus-specs (`specs/altair/light-client/sync-protocol.md`, extended by the
 * Capella, Deneb and Electra light-client documents), as plain values: what the decoders give and the
 * verifier reads. Only Capella and later data: from Capella a light-client header carries its block's
 * execution payload header, which is what the anchor needs.
 */
import type { Node } from '../merkle-branch.js';
import type { BeaconBlockHeader } from '../ssz.js';

/** The forks whose light-client data is read: Capella on (Fulu's containers are Electra's). */
export const LIGHT_CLIENT_FORKS = ['capella', 'deneb', 'electra', 'fulu'] as const;

/** A fork whose light-client data is read. */
export type LightClientFork = (typeof LIGHT_CLIENT_FORKS)[number];

/** Whether `fork` names a fork whose light-client data is read. */
export function isLightClientFork(fork: string): fork is LightClientFork {
  return (LIGHT_CLIENT_FORKS as readonly string[]).includes(fork);
}

/** Members of a sync committee (preset `SYNC_COMMITTEE_SIZE`, 512 on mainnet and the public testnets). */
export const SYNC_COMMITTEE_SIZE = 512;

/** Slots of a sync-committee period: `EPOCHS_PER_SYNC_COMMITTEE_PERIOD` (256) times `SLOTS_PER_EPOCH` (32). */
export const SLOTS_PER_SYNC_COMMITTEE_PERIOD = 8192;

/** Bytes of a compressed BLS12-381 public key (a G1 point). */
export const PUBKEY_BYTES = 48;

/** Bytes of a compressed BLS12-381 signature (a G2 point). */
export const SIGNATURE_BYTES = 96;

/**
 * An `ExecutionPayloadHeader` (Capella's 15 fields; Deneb added `blob_gas_used` and `excess_blob_gas`, which are
 * 0 in data of an earlier format). Integers are bigints; the rest are bytes of the field's fixed size.
 */
export interface ExecutionPayloadHeader {
  readonly parentHash: Node;
  /** 20 bytes. */
  readonly feeRecipient: Uint8Array;
  readonly stateRoot: Node;
  readonly receiptsRoot: Node;
  /** 256 bytes. */
  readonly logsBloom: Uint8Array;
  readonly prevRandao: Node;
  readonly blockNumber: bigint;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly timestamp: bigint;
  /** At most 32 bytes. */
  readonly extraData: Uint8Array;
  /** A uint256. */
  readonly baseFeePerGas: bigint;
  readonly blockHash: Node;
  readonly transactionsRoot: Node;
  readonly withdrawalsRoot: Node;
  readonly blobGasUsed: bigint;
  readonly excessBlobGas: bigint;
}

/** A `LightClientHeader` from Capella: the beacon block header, its execution payload header, and the branch between them. */
export interface LightClientHeader {
  readonly beacon: BeaconBlockHeader;
  readonly execution: ExecutionPayloadHeader;
  /** The execution payload header's root up to `beacon.body_root`: 4 nodes, leaf first. */
  readonly executionBranch: readonly Node[];
}

/** A `SyncCommittee`: 512 compressed public keys and their aggregate. */
export interface SyncCommittee {
  readonly pubkeys: readonly Uint8Array[];
  readonly aggregatePubkey: Uint8Array;
}

/** A `SyncAggregate`: which members signed (a 512-bit vector, bit i of byte i/8 for member i) and their aggregate signature. */
export interface SyncAggregate {
  /** 64 bytes. */
  readonly bits: Uint8Array;
  /** 96 bytes. */
  readonly signature: Uint8Array;
}

/** A `LightClientBootstrap`: a header, the sync committee of its period, and that committee's branch to its state root. */
export interface LightClientBootstrap {
  readonly header: LightClientHeader;
  readonly currentSyncCommittee: SyncCommittee;
  /** 5 nodes in data of a fork before Electra, 6 from it. */
  readonly currentSyncCommitteeBranch: readonly Node[];
}

/**
 * A `LightClientUpdate`, and the shapes that leave parts out: a `LightClientFinalityUpdate` has no next sync
 * committee, a `LightClientOptimisticUpdate` no finality either. A part whose branch is all zero hashes (the
 * spec's `is_sync_committee_update` and `is_finality_update` false) is absent too.
 */
export interface LightClientUpdate {
  /** The header the sync committee signed. */
  readonly attestedHeader: LightClientHeader;
  /** The next sync committee in the attested header's state, and its branch (5 nodes before Electra, 6 from it). */
  readonly nextSyncCommittee?: { readonly committee: SyncCommittee; readonly branch: readonly Node[] };
  /** The finalized header of the attested header's state, and its branch (6 nodes before Electra, 7 from it). */
  readonly finality?: { readonly header: LightClientHeader; readonly branch: readonly Node[] };
  readonly syncAggregate: SyncAggregate;
  /** The slot the signature was made at (untrusted, as the spec says: only ordered against the headers). */
  readonly signatureSlot: bigint;
}

/** What a decoder refuses: the field and what it should have been. */
export interface LightClientDecodeProblem {
  readonly field: string;
  readonly expected: string;
}

/** The execution block a light-client header carries, as the anchor uses it. */
export interface ExecutionBlockRef {
  readonly blockHash: Node;
  readonly blockNumber: bigint;
  readonly timestamp: bigint;
  readonly receiptsRoot: Node;
}

/** The execution block hash, number, timestamp and receipts root of `header`. */
export function executionBlockOf(header: LightClientHeader): ExecutionBlockRef {
  const { blockHash, blockNumber, timestamp, receiptsRoot } = header.execution;
  return { blockHash, blockNumber, timestamp, receiptsRoot };
}

/** The sync-committee period of `slot`. */
export function periodAtSlot(slot: bigint): number {
  // Bigint division: an untrusted slot may be any uint64, and its period must still be exact.
  return Number(slot / BigInt(SLOTS_PER_SYNC_COMMITTEE_PERIOD));
}

/** How many members' bits are set in `bits`. */
export function participantCount(bits: Uint8Array): number {
  let count = 0;
  for (const byte of bits) for (let b = byte; b !== 0; b &= b - 1) count++;
  return count;
}

/** Whether member `index`'s bit is set in `bits` (SSZ bitvectors: bit `index % 8` of byte `index / 8`). */
export function isParticipant(bits: Uint8Array, index: number): boolean {
  return ((bits[index >> 3]! >> (index & 7)) & 1) === 1;
}

const isZero = (bytes: Uint8Array) => bytes.every((byte) => byte === 0);

/** Whether `header` is the spec's empty `LightClientHeader()`, which stands for a part left out: every field zero, no extra data. */
export function isEmptyHeader(header: LightClientHeader): boolean {
  const { beacon, execution } = header;
  return (
    beacon.slot === 0n &&
    beacon.proposerIndex === 0n &&
    [beacon.parentRoot, beacon.stateRoot, beacon.bodyRoot, ...header.executionBranch].every(isZero) &&
    Object.values(execution).every((value) => (typeof value === 'bigint' ? value === 0n : isZero(value as Uint8Array)))
  );
}

/** Whether `committee` is the spec's empty `SyncCommittee()`: every key zero bytes. */
export function isEmptyCommittee(committee: SyncCommittee): boolean {
  return committee.pubkeys.every(isZero) && isZero(committee.aggregatePubkey);
}
