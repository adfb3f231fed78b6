/**
 * Light-client data from the Beacon API's JSON (`/eth/v1/beacon/light_client/bootstrap/{root}`, `.../updates`,
 * `.../finality_update`, `.../optimistic_update`): `{ "version": fork, "data": … }`, members in snake case,
 * integers as decimal strings, bytes as 0x-hex of their exact size. The version names the fork of the data's
 * layout, which fixes the branches' lengths. Members the spec does not define are ignored.
 */
import { LightClientDecodeError } from '../../errors.js';
import { parseHex } from '../../bytes/hex.js';
import { err, ok, type Result } from '../../result.js';
import type { Node } from '../merkle-branch.js';
import { isAtLeast } from '../networks.js';
import type { BeaconBlockHeader } from '../ssz.js';
import {
  isEmptyCommittee,
  isEmptyHeader,
  isLightClientFork,
  LIGHT_CLIENT_FORKS,
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

/** What a read of one member fails with: thrown inside this module only, and returned as the decoder's problem. */
const refuse = (field: string, expected: string): never => {
  throw new LightClientDecodeError(`${field}: expected ${expected}`, { field, expected });
};

type Json = Record<string, unknown>;

function object(value: unknown, field: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse(field, 'an object');
  return value as Json;
}

function bytes(value: unknown, size: number | { max: number }, field: string): Uint8Array {
  const parsed = typeof value === 'string' && value.startsWith('0x') ? parseHex(value) : null;
  const wanted = typeof size === 'number' ? `${size} bytes` : `at most ${size.max} bytes`;
  if (parsed === null) return refuse(field, `0x-hex of ${wanted}`);
  if (typeof size === 'number' ? parsed.length !== size : parsed.length > size.max)
    return refuse(field, `${wanted}, got ${parsed.length}`);
  return parsed;
}

function uint(value: unknown, bits: 64 | 256, field: string): bigint {
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]*)$/.test(value)) return refuse(field, 'a decimal string');
  const parsed = BigInt(value);
  if (parsed >= 1n << BigInt(bits)) return refuse(field, `a uint${bits}`);
  return parsed;
}

function nodes(value: unknown, count: number, field: string): Node[] {
  if (!Array.isArray(value) || value.length !== count) return refuse(field, `an array of ${count} nodes`);
  return value.map((node, i) => bytes(node, 32, `${field}[${i}]`));
}

function beaconHeader(value: unknown, field: string): BeaconBlockHeader {
  const o = object(value, field);
  return {
    slot: uint(o.slot, 64, `${field}.slot`),
    proposerIndex: uint(o.proposer_index, 64, `${field}.proposer_index`),
    parentRoot: bytes(o.parent_root, 32, `${field}.parent_root`),
    stateRoot: bytes(o.state_root, 32, `${field}.state_root`),
    bodyRoot: bytes(o.body_root, 32, `${field}.body_root`),
  };
}

function executionHeader(fork: LightClientFork, value: unknown, field: string): ExecutionPayloadHeader {
  const o = object(value, field);
  const blobFields = isAtLeast(fork, 'deneb');
  return {
    parentHash: bytes(o.parent_hash, 32, `${field}.parent_hash`),
    feeRecipient: bytes(o.fee_recipient, 20, `${field}.fee_recipient`),
    stateRoot: bytes(o.state_root, 32, `${field}.state_root`),
    receiptsRoot: bytes(o.receipts_root, 32, `${field}.receipts_root`),
    logsBloom: bytes(o.logs_bloom, 256, `${field}.logs_bloom`),
    prevRandao: bytes(o.prev_randao, 32, `${field}.prev_randao`),
    blockNumber: uint(o.block_number, 64, `${field}.block_number`),
    gasLimit: uint(o.gas_limit, 64, `${field}.gas_limit`),
    gasUsed: uint(o.gas_used, 64, `${field}.gas_used`),
    timestamp: uint(o.timestamp, 64, `${field}.timestamp`),
    extraData: bytes(o.extra_data, { max: 32 }, `${field}.extra_data`),
    baseFeePerGas: uint(o.base_fee_per_gas, 256, `${field}.base_fee_per_gas`),
    blockHash: bytes(o.block_hash, 32, `${field}.block_hash`),
    transactionsRoot: bytes(o.transactions_root, 32, `${field}.transactions_root`),
    withdrawalsRoot: bytes(o.withdrawals_root, 32, `${field}.withdrawals_root`),
    blobGasUsed: blobFields ? uint(o.blob_gas_used, 64, `${field}.blob_gas_used`) : 0n,
    excessBlobGas: blobFields ? uint(o.excess_blob_gas, 64, `${field}.excess_blob_gas`) : 0n,
  };
}

function lightClientHeader(fork: LightClientFork, value: unknown, field: string): LightClientHeader {
  const o = object(value, field);
  return {
    beacon: beaconHeader(o.beacon, `${field}.beacon`),
    execution: executionHeader(fork, o.execution, `${field}.execution`),
    executionBranch: nodes(o.execution_branch, branchLength(EXECUTION_PAYLOAD_GINDEX), `${field}.execution_branch`),
  };
}

function syncCommittee(value: unknown, field: string): SyncCommittee {
  const o = object(value, field);
  if (!Array.isArray(o.pubkeys) || o.pubkeys.length !== SYNC_COMMITTEE_SIZE)
    return refuse(`${field}.pubkeys`, `an array of ${SYNC_COMMITTEE_SIZE} public keys`);
  return {
    pubkeys: o.pubkeys.map((key, i) => bytes(key, PUBKEY_BYTES, `${field}.pubkeys[${i}]`)),
    aggregatePubkey: bytes(o.aggregate_pubkey, PUBKEY_BYTES, `${field}.aggregate_pubkey`),
  };
}

function syncAggregate(value: unknown, field: string): SyncAggregate {
  const o = object(value, field);
  return {
    bits: bytes(o.sync_committee_bits, SYNC_COMMITTEE_SIZE / 8, `${field}.sync_committee_bits`),
    signature: bytes(o.sync_committee_signature, SIGNATURE_BYTES, `${field}.sync_committee_signature`),
  };
}

/** The `version` and `data` of a versioned answer. */
function versioned(json: unknown): { fork: LightClientFork; data: Json } {
  const o = object(json, 'answer');
  if (typeof o.version !== 'string' || !isLightClientFork(o.version))
    return refuse('version', `one of ${LIGHT_CLIENT_FORKS.join(', ')}`);
  return { fork: o.version, data: object(o.data, 'data') };
}

/** Runs a decoder that throws {@link LightClientDecodeError}, as a Result. */
function decoded<T>(read: () => T): Result<T, LightClientDecodeProblem> {
  try {
    return ok(read());
  } catch (error) {
    if (error instanceof LightClientDecodeError) return err(error.details);
    throw error;
  }
}

/** The `LightClientBootstrap` of a Beacon API bootstrap answer (`{ version, data }`). */
export function decodeBootstrapJson(json: unknown): Result<LightClientBootstrap, LightClientDecodeProblem> {
  return decoded(() => {
    const { fork, data } = versioned(json);
    return {
      header: lightClientHeader(fork, data.header, 'data.header'),
      currentSyncCommittee: syncCommittee(data.current_sync_committee, 'data.current_sync_committee'),
      currentSyncCommitteeBranch: nodes(
        data.current_sync_committee_branch,
        branchLength(stateGindices(fork).currentSyncCommittee),
        'data.current_sync_committee_branch',
      ),
    };
  });
}

/**
 * The update of a Beacon API answer (`{ version, data }`; an updates answer is an array of them): a whole
 * `LightClientUpdate`, or a finality or optimistic update, by the members `data` has. As from SSZ, a part
 * whose branch is all zero hashes is absent (decode-ssz.ts).
 */
export function decodeUpdateJson(json: unknown): Result<LightClientUpdate, LightClientDecodeProblem> {
  return decoded(() => {
    const { fork, data } = versioned(json);
    const gindices = stateGindices(fork);
    let nextSyncCommittee: LightClientUpdate['nextSyncCommittee'];
    if (data.next_sync_committee !== undefined || data.next_sync_committee_branch !== undefined) {
      const committee = syncCommittee(data.next_sync_committee, 'data.next_sync_committee');
      const branch = nodes(
        data.next_sync_committee_branch,
        branchLength(gindices.nextSyncCommittee),
        'data.next_sync_committee_branch',
      );
      if (!isZeroBranch(branch)) nextSyncCommittee = { committee, branch };
      else if (!isEmptyCommittee(committee))
        refuse('data.next_sync_committee', 'empty, as its branch is all zero hashes');
    }
    let finality: LightClientUpdate['finality'];
    if (data.finalized_header !== undefined || data.finality_branch !== undefined) {
      const header = lightClientHeader(fork, data.finalized_header, 'data.finalized_header');
      const branch = nodes(data.finality_branch, branchLength(gindices.finalizedRoot), 'data.finality_branch');
      if (!isZeroBranch(branch)) finality = { header, branch };
      else if (!isEmptyHeader(header))
        refuse('data.finalized_header', 'empty, as its finality branch is all zero hashes');
    }
    return {
      attestedHeader: lightClientHeader(fork, data.attested_header, 'data.attested_header'),
      ...(nextSyncCommittee === undefined ? {} : { nextSyncCommittee }),
      ...(finality === undefined ? {} : { finality }),
      syncAggregate: syncAggregate(data.sync_aggregate, 'data.sync_aggregate'),
      signatureSlot: uint(data.signature_slot, 64, 'data.signature_slot'),
    };
  });
}
