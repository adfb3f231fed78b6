/**
 * The execution block header rebuilt from a beacon block's execution payload, so that a block after the
 * merge is proven with no execution node: the payload holds every header field or what it is computed
 * from (consensus-specs `ExecutionPayload`; the Engine API's `ExecutionPayloadV1`-`V4`, which execution
 * clients turn into the header they hash). What a proof-of-stake header fixes is filled in (EIP-3675:
 * no ommers, difficulty 0, nonce 0); the roots of lists are computed (the transactions' and, from
 * Capella, the withdrawals' ordered tries; from Electra, the EIP-7685 hash of the requests). The
 * header counts only when its keccak hash is the payload's own `block_hash`: anything else is refused.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { encodeHeader } from '../header/header-encoding.js';
import { kindOf } from '../json/show.js';
import type { BlockHeader } from '../header/header-fields.js';
import { NO_UNCLES_HASH, withdrawalsRoot as rootOfWithdrawals } from '../header/body-roots.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { err, ok, type Result } from '../result.js';
import { orderedTrieRoot } from '../trie/ordered-trie.js';
import {
  executionPayloadType,
  executionRequestsType,
  beaconBlockBodyType,
  type BeaconBlockParts,
} from './beacon-block.js';
import type { Node } from './merkle-branch.js';
import { isAtLeast } from './networks.js';
import { containerParts, fieldIndex, listParts, type SszType } from './ssz-schema.js';

/** A proof-of-stake header's nonce: eight zero bytes (EIP-3675). */
const ZERO_NONCE = new Uint8Array(8);

/** An execution header rebuilt from a payload, its hash checked against the payload's `block_hash`. */
export interface ExecutionHeader {
  /** The header's RLP, as an anchor proof's `block` record carries it. */
  readonly rlp: Uint8Array;
  /** keccak256 of `rlp`: the payload's `block_hash`. */
  readonly hash: Node;
  readonly number: bigint;
  readonly timestamp: bigint;
  /** The fields, for callers that go on to check receipts or transactions under the header. */
  readonly fields: BlockHeader;
}

/** A little-endian unsigned integer of SSZ (`uint64`, `uint256`) as a bigint. */
function leUint(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/** A beacon block body's execution payload: its fields' serialized parts by name, and the fork's payload type. */
function payloadParts(block: BeaconBlockParts): Map<string, Uint8Array> {
  const bodyType = beaconBlockBodyType(block.fork);
  const payload = containerParts(bodyType, block.body)[fieldIndex(bodyType, 'execution_payload')]!;
  const payloadType = executionPayloadType(block.fork);
  const parts = containerParts(payloadType, payload);
  return new Map(payloadType.fields.map(([name], i) => [name, parts[i]!]));
}

/** A part that the fork's payload type has: every name asked for below is one of its fields. */
function part(parts: Map<string, Uint8Array>, name: string): Uint8Array {
  const value = parts.get(name);
  if (value === undefined) throw new RangeError(`the payload has no field ${name}`);
  return value;
}

/** The execution block number a beacon block's payload carries: what a search for a block's slot compares. */
export function executionBlockNumber(block: BeaconBlockParts): bigint {
  return leUint(part(payloadParts(block), 'block_number'));
}

/** The list type of a container's field, for reading the field's elements. */
function listField(type: SszType & { kind: 'container' }, name: string): SszType & { kind: 'list' } {
  const field = type.fields[fieldIndex(type, name)]![1];
  if (field.kind !== 'list') throw new RangeError(`${name} is not a list`);
  return field;
}

/** The withdrawals root (EIP-4895) of a payload's SSZ `withdrawals`. */
function withdrawalsRoot(block: BeaconBlockParts, withdrawals: Uint8Array): Node {
  const list = listParts(listField(executionPayloadType(block.fork), 'withdrawals'), withdrawals).map((entry) => ({
    // Withdrawal { index: uint64, validator_index: uint64, address: Bytes20, amount: uint64 (Gwei) }: 44 bytes.
    index: leUint(entry.subarray(0, 8)),
    validatorIndex: leUint(entry.subarray(8, 16)),
    address: entry.subarray(16, 36),
    amount: leUint(entry.subarray(36, 44)),
  }));
  return rootOfWithdrawals(list);
}

/**
 * The requests hash (EIP-7685) of an Electra body's `execution_requests`: SHA-256 over the SHA-256 of each
 * non-empty type's `type_byte ‖ data`, in type order (deposits 0, withdrawals 1, consolidations 2). A type's
 * data is its requests' SSZ back to back, which is how the execution layer encodes them too (EIP-6110,
 * EIP-7002, EIP-7251); consensus-specs `get_execution_requests_list` makes the same list.
 */
function requestsHash(block: BeaconBlockParts): Node {
  const bodyType = beaconBlockBodyType(block.fork);
  const requests = containerParts(bodyType, block.body)[fieldIndex(bodyType, 'execution_requests')]!;
  const digests: Uint8Array[] = [];
  containerParts(executionRequestsType, requests).forEach((data, type) => {
    if (data.length === 0) return;
    const typed = new Uint8Array(1 + data.length);
    typed[0] = type;
    typed.set(data, 1);
    digests.push(sha256(typed));
  });
  const all = new Uint8Array(32 * digests.length);
  digests.forEach((digest, i) => all.set(digest, 32 * i));
  return sha256(all);
}

/**
 * The execution header of a beacon block (Bellatrix or later), rebuilt from its payload and encoded as
 * execution clients hash it, or why not: a header that does not hash to the payload's `block_hash` is
 * refused, so a header returned here is the block's own.
 * @throws SszShapeError when the body is not the SSZ of its fork's `BeaconBlockBody`.
 */
export function executionHeaderOf(block: BeaconBlockParts): Result<ExecutionHeader, string> {
  const given: unknown = block;
  if (typeof given !== 'object' || given === null || !('fork' in given) || !('body' in given))
    throw new TypeError(`block must be a beacon block as readSignedBeaconBlock reads it, got ${kindOf(given)}`);
  const parts = payloadParts(block);
  const field = (name: string) => part(parts, name);
  const payloadType = executionPayloadType(block.fork);
  const transactions = listParts(listField(payloadType, 'transactions'), field('transactions'));
  const fields: BlockHeader = {
    parentHash: field('parent_hash'),
    sha3Uncles: NO_UNCLES_HASH,
    miner: field('fee_recipient'),
    stateRoot: field('state_root'),
    transactionsRoot: orderedTrieRoot(transactions),
    receiptsRoot: field('receipts_root'),
    logsBloom: field('logs_bloom'),
    difficulty: 0n,
    number: leUint(field('block_number')),
    gasLimit: leUint(field('gas_limit')),
    gasUsed: leUint(field('gas_used')),
    timestamp: leUint(field('timestamp')),
    extraData: field('extra_data'),
    mixHash: field('prev_randao'),
    nonce: ZERO_NONCE,
    baseFeePerGas: leUint(field('base_fee_per_gas')),
  };
  if (isAtLeast(block.fork, 'capella')) fields.withdrawalsRoot = withdrawalsRoot(block, field('withdrawals'));
  if (isAtLeast(block.fork, 'deneb')) {
    fields.blobGasUsed = leUint(field('blob_gas_used'));
    fields.excessBlobGas = leUint(field('excess_blob_gas'));
    // EIP-4788: the header commits to the root of the beacon block before this one.
    fields.parentBeaconBlockRoot = block.header.parentRoot;
  }
  if (isAtLeast(block.fork, 'electra')) fields.requestsHash = requestsHash(block);
  const rlp = encodeHeader(fields);
  const hash = defaultKeccak256(rlp);
  const blockHash = field('block_hash');
  if (!bytesEqual(hash, blockHash))
    return err(
      `the header rebuilt from the execution payload of slot ${block.header.slot} (${block.fork}, block ${fields.number}) hashes to 0x${bytesToHex(hash)}, not its block_hash 0x${bytesToHex(blockHash)}`,
    );
  return ok({ rlp, hash, number: fields.number, timestamp: fields.timestamp, fields });
}
