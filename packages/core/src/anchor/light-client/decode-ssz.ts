/**
 * Light-client data from its SSZ serialization (the Beacon API's `application/octet-stream` answers and the
 * Portal network's content, once their framing is removed: framing.ts). The layout depends on the fork of the
 * data: Deneb's execution payload header has two more fields than Capella's, and Electra's branches into the
 * state are one node longer (Fulu keeps Electra's). {@link sszDataFork} reads the fork from the data itself.
 */
import { err, ok, type Result } from '../../result.js';
import { forkAtSlot, isAtLeast, type BeaconNetwork } from '../networks.js';
import type { BeaconBlockHeader } from '../ssz.js';
import {
  isEmptyCommittee,
  isEmptyHeader,
  isLightClientFork,
  PUBKEY_BYTES,
  SIGNATURE_BYTES,
  SYNC_COMMITTEE_SIZE,
  type ExecutionPayloadHeader,
  type LightClientBootstrap,
  type LightClientDecodeProblem,
  type LightClientFork,
  type LightClientHeader,
  type LightClientUpdate,
  type SyncAggregate,
  type SyncCommittee,
} from './containers.js';
import { branchLength, EXECUTION_PAYLOAD_GINDEX, isZeroBranch, stateGindices } from './gindices.js';
import { containerParts, readNodes, readUint256, readUint64 } from './ssz-reader.js';

/** The shapes an update comes in: a whole `LightClientUpdate`, a `LightClientFinalityUpdate`, a `LightClientOptimisticUpdate`. */
export type UpdateShape = 'update' | 'finality-update' | 'optimistic-update';

/** What a decoder returns: the object, or the field it refuses. */
export type Decoded<T> = Result<T, LightClientDecodeProblem>;

const BEACON_HEADER_BYTES = 112;
const SYNC_COMMITTEE_BYTES = SYNC_COMMITTEE_SIZE * PUBKEY_BYTES + PUBKEY_BYTES;
const SYNC_AGGREGATE_BYTES = SYNC_COMMITTEE_SIZE / 8 + SIGNATURE_BYTES;
/** `MAX_EXTRA_DATA_BYTES`. */
const MAX_EXTRA_DATA_BYTES = 32;

/** The lengths of the branches in data of `fork`. */
function branchLengths(fork: LightClientFork): { finality: number; current: number; next: number; execution: number } {
  const gindices = stateGindices(fork);
  return {
    finality: branchLength(gindices.finalizedRoot),
    current: branchLength(gindices.currentSyncCommittee),
    next: branchLength(gindices.nextSyncCommittee),
    execution: branchLength(EXECUTION_PAYLOAD_GINDEX),
  };
}

function beaconHeader(bytes: Uint8Array): BeaconBlockHeader {
  return {
    slot: readUint64(bytes.subarray(0, 8)),
    proposerIndex: readUint64(bytes.subarray(8, 16)),
    parentRoot: bytes.slice(16, 48),
    stateRoot: bytes.slice(48, 80),
    bodyRoot: bytes.slice(80, 112),
  };
}

function executionHeader(fork: LightClientFork, bytes: Uint8Array, where: string): Decoded<ExecutionPayloadHeader> {
  const blobFields = isAtLeast(fork, 'deneb');
  const sizes = [
    32,
    20,
    32,
    32,
    256,
    32,
    8,
    8,
    8,
    8,
    'variable',
    32,
    32,
    32,
    32,
    ...(blobFields ? [8, 8] : []),
  ] as const;
  const parts = containerParts(bytes, sizes, where);
  if (!parts.ok) return parts;
  const p = parts.value;
  if (p[10]!.length > MAX_EXTRA_DATA_BYTES)
    return err({
      field: `${where}.extra_data`,
      expected: `at most ${MAX_EXTRA_DATA_BYTES} bytes, got ${p[10]!.length}`,
    });
  return ok({
    parentHash: p[0]!.slice(),
    feeRecipient: p[1]!.slice(),
    stateRoot: p[2]!.slice(),
    receiptsRoot: p[3]!.slice(),
    logsBloom: p[4]!.slice(),
    prevRandao: p[5]!.slice(),
    blockNumber: readUint64(p[6]!),
    gasLimit: readUint64(p[7]!),
    gasUsed: readUint64(p[8]!),
    timestamp: readUint64(p[9]!),
    extraData: p[10]!.slice(),
    baseFeePerGas: readUint256(p[11]!),
    blockHash: p[12]!.slice(),
    transactionsRoot: p[13]!.slice(),
    withdrawalsRoot: p[14]!.slice(),
    blobGasUsed: blobFields ? readUint64(p[15]!) : 0n,
    excessBlobGas: blobFields ? readUint64(p[16]!) : 0n,
  });
}

function lightClientHeader(fork: LightClientFork, bytes: Uint8Array, where: string): Decoded<LightClientHeader> {
  const executionNodes = branchLengths(fork).execution;
  const parts = containerParts(bytes, [BEACON_HEADER_BYTES, 'variable', 32 * executionNodes], where);
  if (!parts.ok) return parts;
  const execution = executionHeader(fork, parts.value[1]!, `${where}.execution`);
  if (!execution.ok) return execution;
  return ok({
    beacon: beaconHeader(parts.value[0]!),
    execution: execution.value,
    executionBranch: readNodes(parts.value[2]!, executionNodes),
  });
}

function syncCommittee(bytes: Uint8Array): SyncCommittee {
  return {
    pubkeys: Array.from({ length: SYNC_COMMITTEE_SIZE }, (_, i) =>
      bytes.slice(PUBKEY_BYTES * i, PUBKEY_BYTES * (i + 1)),
    ),
    aggregatePubkey: bytes.slice(SYNC_COMMITTEE_SIZE * PUBKEY_BYTES, SYNC_COMMITTEE_BYTES),
  };
}

function syncAggregate(bytes: Uint8Array): SyncAggregate {
  return { bits: bytes.slice(0, SYNC_COMMITTEE_SIZE / 8), signature: bytes.slice(SYNC_COMMITTEE_SIZE / 8) };
}

/** The `LightClientBootstrap` `bytes` serialize in data of `fork`. */
export function decodeBootstrap(fork: LightClientFork, bytes: Uint8Array): Decoded<LightClientBootstrap> {
  const nodes = branchLengths(fork).current;
  const parts = containerParts(bytes, ['variable', SYNC_COMMITTEE_BYTES, 32 * nodes], 'bootstrap');
  if (!parts.ok) return parts;
  const header = lightClientHeader(fork, parts.value[0]!, 'bootstrap.header');
  if (!header.ok) return header;
  return ok({
    header: header.value,
    currentSyncCommittee: syncCommittee(parts.value[1]!),
    currentSyncCommitteeBranch: readNodes(parts.value[2]!, nodes),
  });
}

/**
 * The update `bytes` serialize in data of `fork`, as a `LightClientUpdate` (`shape` `'update'`), a
 * `LightClientFinalityUpdate` or a `LightClientOptimisticUpdate`. A next sync committee or a finalized header
 * whose branch is all zero hashes is absent (the spec's `is_sync_committee_update`, `is_finality_update`), and
 * must then be empty itself, as `validate_light_client_update` requires.
 */
export function decodeUpdate(
  fork: LightClientFork,
  bytes: Uint8Array,
  shape: UpdateShape = 'update',
): Decoded<LightClientUpdate> {
  const lengths = branchLengths(fork);
  const layout =
    shape === 'update'
      ? (['variable', SYNC_COMMITTEE_BYTES, 32 * lengths.next, 'variable', 32 * lengths.finality] as const)
      : shape === 'finality-update'
        ? (['variable', 'variable', 32 * lengths.finality] as const)
        : (['variable'] as const);
  const parts = containerParts(bytes, [...layout, SYNC_AGGREGATE_BYTES, 8], shape);
  if (!parts.ok) return parts;
  const p = parts.value;
  const attested = lightClientHeader(fork, p[0]!, `${shape}.attested_header`);
  if (!attested.ok) return attested;
  let nextSyncCommittee: LightClientUpdate['nextSyncCommittee'];
  let finality: LightClientUpdate['finality'];
  if (shape === 'update') {
    const committee = syncCommittee(p[1]!);
    const branch = readNodes(p[2]!, lengths.next);
    if (!isZeroBranch(branch)) nextSyncCommittee = { committee, branch };
    else if (!isEmptyCommittee(committee))
      return err({ field: `${shape}.next_sync_committee`, expected: 'empty, as its branch is all zero hashes' });
  }
  if (shape !== 'optimistic-update') {
    const [headerAt, branchAt] = shape === 'update' ? [3, 4] : [1, 2];
    const header = lightClientHeader(fork, p[headerAt]!, `${shape}.finalized_header`);
    if (!header.ok) return header;
    const branch = readNodes(p[branchAt]!, lengths.finality);
    if (!isZeroBranch(branch)) finality = { header: header.value, branch };
    else if (!isEmptyHeader(header.value))
      return err({ field: `${shape}.finalized_header`, expected: 'empty, as its finality branch is all zero hashes' });
  }
  return ok({
    attestedHeader: attested.value,
    ...(nextSyncCommittee === undefined ? {} : { nextSyncCommittee }),
    ...(finality === undefined ? {} : { finality }),
    syncAggregate: syncAggregate(p[p.length - 2]!),
    signatureSlot: readUint64(p[p.length - 1]!),
  });
}

/**
 * The fork of SSZ light-client data (a bootstrap or any shape of update) on `network`: the fork of the slot of
 * its first header, whose place the container's first offset gives in every fork's layout. Light-client data
 * takes the format of that header's fork (consensus-specs light-client `p2p-interface.md`).
 */
export function sszDataFork(network: BeaconNetwork, bytes: Uint8Array): Decoded<LightClientFork> {
  if (bytes.length < 4) return err({ field: 'data', expected: 'a container, at least 4 bytes' });
  const at = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (at + 8 > bytes.length) return err({ field: 'data', expected: 'its first offset within its bytes' });
  const slot = readUint64(bytes.subarray(at, at + 8));
  if (slot > BigInt(Number.MAX_SAFE_INTEGER)) return err({ field: 'data', expected: `a plausible slot, not ${slot}` });
  const fork = forkAtSlot(network, Number(slot));
  if (!isLightClientFork(fork))
    return err({ field: 'data', expected: `light-client data of Capella or later, not of ${fork} (slot ${slot})` });
  return ok(fork);
}
