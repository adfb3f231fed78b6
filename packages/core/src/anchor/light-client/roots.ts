/**
 * The hash_tree_roots the light-client checks need beyond a `BeaconBlockHeader`'s (ssz.ts): an
 * `ExecutionPayloadHeader`'s, whose field count depends on the fork, and a `SyncCommittee`'s.
 */
import { parentOf, type Node } from '../merkle-branch.js';
import { merkleize, mixInLength } from '../ssz.js';
import type { ExecutionPayloadHeader, SyncCommittee } from './containers.js';

/** Bytes as SSZ chunks: 32 bytes each, the last padded with zeros (an empty input is no chunk). */
function chunks(bytes: Uint8Array): Node[] {
  return Array.from({ length: Math.ceil(bytes.length / 32) }, (_, i) => {
    const chunk = new Uint8Array(32);
    chunk.set(bytes.subarray(32 * i, 32 * i + 32));
    return chunk;
  });
}

/** The root of a `ByteVector[N]`: its chunks merkleized (N fixed, so no length mixed in). */
function byteVectorRoot(bytes: Uint8Array): Node {
  const leaves = chunks(bytes);
  return merkleize(leaves, Math.ceil(Math.log2(Math.max(leaves.length, 1))));
}

/** A uint64 or uint256 as its SSZ leaf: little-endian, padded to 32 bytes. */
function uintLeaf(value: bigint): Node {
  const leaf = new Uint8Array(32);
  for (let i = 0, rest = value; i < 32 && rest > 0n; i++, rest >>= 8n) leaf[i] = Number(rest & 0xffn);
  return leaf;
}

/** The limit of `extra_data` (`MAX_EXTRA_DATA_BYTES`, 32): one chunk, so its data tree has depth 0. */
const EXTRA_DATA_DEPTH = 0;

/**
 * The hash_tree_root of `header` as an `ExecutionPayloadHeader` of Capella (15 fields, under 16 leaves) or, with
 * `withBlobFields`, of Deneb and later (17 fields, under 32 leaves: Electra and Fulu kept Deneb's).
 */
export function executionPayloadHeaderRoot(header: ExecutionPayloadHeader, withBlobFields: boolean): Node {
  const fields: Node[] = [
    header.parentHash,
    byteVectorRoot(header.feeRecipient),
    header.stateRoot,
    header.receiptsRoot,
    byteVectorRoot(header.logsBloom),
    header.prevRandao,
    uintLeaf(header.blockNumber),
    uintLeaf(header.gasLimit),
    uintLeaf(header.gasUsed),
    uintLeaf(header.timestamp),
    mixInLength(merkleize(chunks(header.extraData), EXTRA_DATA_DEPTH), header.extraData.length),
    uintLeaf(header.baseFeePerGas),
    header.blockHash,
    header.transactionsRoot,
    header.withdrawalsRoot,
  ];
  if (withBlobFields) fields.push(uintLeaf(header.blobGasUsed), uintLeaf(header.excessBlobGas));
  return merkleize(fields, withBlobFields ? 5 : 4);
}

/** The depth of `Vector[BLSPubkey, 512]`'s tree: 512 leaves, each the root of one key. */
const PUBKEYS_DEPTH = 9;

/** The hash_tree_root of a `SyncCommittee { pubkeys: Vector[BLSPubkey, 512], aggregate_pubkey: BLSPubkey }`. */
export function syncCommitteeRoot(committee: SyncCommittee): Node {
  const pubkeys = merkleize(committee.pubkeys.map(byteVectorRoot), PUBKEYS_DEPTH);
  return parentOf(pubkeys, byteVectorRoot(committee.aggregatePubkey));
}
