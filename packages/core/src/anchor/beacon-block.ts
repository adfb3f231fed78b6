/**
 * Beacon blocks from Bellatrix on, as SSZ types (consensus-specs `beacon-chain.md` of each fork, mainnet
 * preset), and the two things the anchor takes from one: its `BeaconBlockHeader` (the body reduced to
 * its root) and the branch from the block root down to `body.execution_payload.block_hash`.
 */
import { checkBytes } from '../bytes/check-bytes.js';
import { SszShapeError } from '../errors.js';
import { kindOf } from '../json/show.js';
import type { Node } from './merkle-branch.js';
import { forkAtSlot, isAtLeast, type BeaconNetwork, type Fork } from './networks.js';
import type { BeaconBlockHeader } from './ssz.js';
import {
  bitList,
  bitVector,
  branchOf,
  byteList,
  bytes,
  container,
  containerDepth,
  containerParts,
  fieldIndex,
  fieldRoots,
  list,
  rootOf,
  uint,
  vector,
  type SszType,
} from './ssz-schema.js';

const u64 = uint(8);
const root = bytes(32);
const signature = bytes(96);
const pubkey = bytes(48);
const address = bytes(20);

const checkpoint = container(['epoch', u64], ['root', root]);
const attestationData = container(
  ['slot', u64],
  ['index', u64],
  ['beacon_block_root', root],
  ['source', checkpoint],
  ['target', checkpoint],
);
const headerType = container(
  ['slot', u64],
  ['proposer_index', u64],
  ['parent_root', root],
  ['state_root', root],
  ['body_root', root],
);
const proposerSlashing = container(
  ['signed_header_1', container(['message', headerType], ['signature', signature])],
  ['signed_header_2', container(['message', headerType], ['signature', signature])],
);
const eth1Data = container(['deposit_root', root], ['deposit_count', u64], ['block_hash', root]);
const deposit = container(
  ['proof', vector(root, 33)],
  ['data', container(['pubkey', pubkey], ['withdrawal_credentials', root], ['amount', u64], ['signature', signature])],
);
const signedVoluntaryExit = container(
  ['message', container(['epoch', u64], ['validator_index', u64])],
  ['signature', signature],
);
const syncAggregate = container(['sync_committee_bits', bitVector(512)], ['sync_committee_signature', signature]);
const withdrawal = container(['index', u64], ['validator_index', u64], ['address', address], ['amount', u64]);
const signedBlsChange = container(
  ['message', container(['validator_index', u64], ['from_bls_pubkey', pubkey], ['to_execution_address', address])],
  ['signature', signature],
);

/** The execution payload's fields through Bellatrix; later forks append to them. */
const payloadFields = [
  ['parent_hash', root],
  ['fee_recipient', address],
  ['state_root', root],
  ['receipts_root', root],
  ['logs_bloom', bytes(256)],
  ['prev_randao', root],
  ['block_number', u64],
  ['gas_limit', u64],
  ['gas_used', u64],
  ['timestamp', u64],
  ['extra_data', byteList(32)],
  ['base_fee_per_gas', uint(32)],
  ['block_hash', root],
  ['transactions', list(byteList(2 ** 30), 2 ** 20)],
] as const;

/** The `ExecutionPayload` of `fork` (Bellatrix or later): Capella appends `withdrawals`, Deneb the blob gas. */
export function executionPayloadType(fork: Fork): SszType & { kind: 'container' } {
  const fields: (readonly [string, SszType])[] = [...payloadFields];
  if (isAtLeast(fork, 'capella')) fields.push(['withdrawals', list(withdrawal, 16)]);
  if (isAtLeast(fork, 'deneb')) fields.push(['blob_gas_used', u64], ['excess_blob_gas', u64]);
  return container(...fields) as SszType & { kind: 'container' };
}

/** Electra widened attestations to every committee of a slot (EIP-7549) and cut their counts. */
function attestationTypes(fork: Fork): { attesterSlashing: SszType; attestation: SszType; counts: [number, number] } {
  const electra = isAtLeast(fork, 'electra');
  const bits = electra ? 2048 * 64 : 2048;
  const indexed = container(
    ['attesting_indices', list(u64, bits)],
    ['data', attestationData],
    ['signature', signature],
  );
  const attestationFields: (readonly [string, SszType])[] = [
    ['aggregation_bits', bitList(bits)],
    ['data', attestationData],
    ['signature', signature],
  ];
  if (electra) attestationFields.push(['committee_bits', bitVector(64)]);
  return {
    attesterSlashing: container(['attestation_1', indexed], ['attestation_2', indexed]),
    attestation: container(...attestationFields),
    counts: electra ? [1, 8] : [2, 128],
  };
}

/** Electra's `ExecutionRequests` (EIP-7685 through EIP-6110, EIP-7002 and EIP-7251): deposits, withdrawals, consolidations. */
export const executionRequestsType = container(
  [
    'deposits',
    list(
      container(
        ['pubkey', pubkey],
        ['withdrawal_credentials', root],
        ['amount', u64],
        ['signature', signature],
        ['index', u64],
      ),
      8192,
    ),
  ],
  ['withdrawals', list(container(['source_address', address], ['validator_pubkey', pubkey], ['amount', u64]), 16)],
  [
    'consolidations',
    list(container(['source_address', address], ['source_pubkey', pubkey], ['target_pubkey', pubkey]), 2),
  ],
) as SszType & { kind: 'container' };

/** The `BeaconBlockBody` of `fork` (Bellatrix or later: the first with an execution payload). */
export function beaconBlockBodyType(fork: Fork): SszType & { kind: 'container' } {
  if (!isAtLeast(fork, 'bellatrix')) throw new RangeError(`a ${fork} block has no execution payload`);
  const { attesterSlashing, attestation, counts } = attestationTypes(fork);
  const fields: (readonly [string, SszType])[] = [
    ['randao_reveal', signature],
    ['eth1_data', eth1Data],
    ['graffiti', root],
    ['proposer_slashings', list(proposerSlashing, 16)],
    ['attester_slashings', list(attesterSlashing, counts[0])],
    ['attestations', list(attestation, counts[1])],
    ['deposits', list(deposit, 16)],
    ['voluntary_exits', list(signedVoluntaryExit, 16)],
    ['sync_aggregate', syncAggregate],
    ['execution_payload', executionPayloadType(fork)],
  ];
  if (isAtLeast(fork, 'capella')) fields.push(['bls_to_execution_changes', list(signedBlsChange, 16)]);
  if (isAtLeast(fork, 'deneb')) fields.push(['blob_kzg_commitments', list(pubkey, 4096)]);
  if (isAtLeast(fork, 'electra')) fields.push(['execution_requests', executionRequestsType]);
  return container(...fields) as SszType & { kind: 'container' };
}

/** A signed beacon block read from its SSZ: its header, the fork its slot is in, and its body's bytes. */
export interface BeaconBlockParts {
  readonly header: BeaconBlockHeader;
  readonly fork: Fork;
  readonly body: Uint8Array;
}

/** The offset of `message` in a `SignedBeaconBlock`: its own offset, then the 96-byte signature. */
const MESSAGE_AT = 4 + 96;
/** `slot`, `proposer_index`, `parent_root` and `state_root` come before the body's offset. */
const BODY_OFFSET_AT = 8 + 8 + 32 + 32;

function leUint64(data: Uint8Array, at: number): bigint {
  return new DataView(data.buffer, data.byteOffset + at, 8).getBigUint64(0, true);
}

/**
 * A `SignedBeaconBlock` (the Beacon API's `/eth/v2/beacon/blocks/{id}` as SSZ) reduced to its header;
 * the fork is the one `network` schedules at the block's slot.
 */
export function readSignedBeaconBlock(network: BeaconNetwork, signed: Uint8Array): BeaconBlockParts {
  const given: unknown = network;
  if (typeof given !== 'object' || given === null || !('forkEpochs' in given))
    throw new TypeError(`network must be a beacon network (MAINNET, SEPOLIA, HOLESKY, HOODI), got ${kindOf(given)}`);
  checkBytes(signed, 'signed');
  if (signed.length < MESSAGE_AT + BODY_OFFSET_AT + 4) throw new SszShapeError('too short for a signed beacon block');
  const view = new DataView(signed.buffer, signed.byteOffset, signed.length);
  if (view.getUint32(0, true) !== MESSAGE_AT) throw new SszShapeError('not a signed beacon block: its first offset');
  const message = signed.subarray(MESSAGE_AT);
  const slot = leUint64(message, 0);
  const fork = forkAtSlot(network, Number(slot));
  const bodyAt = new DataView(message.buffer, message.byteOffset + BODY_OFFSET_AT, 4).getUint32(0, true);
  if (bodyAt !== BODY_OFFSET_AT + 4 || bodyAt > message.length) throw new SszShapeError('a bad body offset');
  const body = message.subarray(bodyAt);
  return {
    fork,
    body,
    header: {
      slot,
      proposerIndex: leUint64(message, 8),
      parentRoot: message.subarray(16, 48),
      stateRoot: message.subarray(48, 80),
      bodyRoot: rootOf(beaconBlockBodyType(fork), body),
    },
  };
}

/** The execution block hash of a body and its branch up to the body root, for `isValidBranch` at the body's gindex. */
export interface ExecutionHashInBody {
  readonly blockHash: Node;
  /** Siblings from `block_hash` up to the body root: the payload's level, then the body's. */
  readonly branch: Node[];
}

/** The branch from `body.execution_payload.block_hash` to the body root. */
export function executionHashInBody(fork: Fork, body: Uint8Array): ExecutionHashInBody {
  const bodyType = beaconBlockBodyType(fork);
  const payloadType = executionPayloadType(fork);
  const payloadAt = fieldIndex(bodyType, 'execution_payload');
  const hashAt = fieldIndex(payloadType, 'block_hash');
  const payload = containerParts(bodyType, body)[payloadAt]!;
  const payloadLeaves = fieldRoots(payloadType, payload);
  return {
    blockHash: payloadLeaves[hashAt]!,
    branch: [
      ...branchOf(payloadLeaves, hashAt, containerDepth(payloadType)),
      ...branchOf(fieldRoots(bodyType, body), payloadAt, containerDepth(bodyType)),
    ],
  };
}

/** The three levels from a body root up to its `BeaconBlock` root: the siblings of `body` among the header's leaves. */
export function bodyInBlockBranch(header: BeaconBlockHeader): Node[] {
  const leaf = (value: bigint): Node => {
    const node = new Uint8Array(32);
    new DataView(node.buffer).setBigUint64(0, value, true);
    return node;
  };
  return branchOf(
    [leaf(header.slot), leaf(header.proposerIndex), header.parentRoot, header.stateRoot, header.bodyRoot],
    4,
    3,
  );
}
