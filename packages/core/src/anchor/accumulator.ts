/**
 * Pre-merge blocks proven against the historical hashes accumulator (EIP-7643; the Portal Network's
 * legacy history spec, `legacy/history/history-network.md` in ethereum/portal-network-specs):
 *
 *   HeaderRecord = Container[block_hash: Bytes32, total_difficulty: uint256]
 *   EpochRecord = List[HeaderRecord, limit=8192]
 *   HistoricalHashesAccumulator = Container[historical_epochs: List[Bytes32, limit=2048], current_epoch: EpochRecord]
 *
 * A block's proof (`BlockProofHistoricalHashesAccumulator`, 15 nodes) climbs from its block hash to
 * its epoch record's root and stops there, so the verifier holds the epoch record roots themselves
 * (the frozen accumulator), checked once against the root EIP-7643 fixes.
 */
import { checkBytes } from '../bytes/check-bytes.js';
import { bytesEqual, hexToBytes } from '../bytes/hex.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { headerNumberIfAny } from '../header/header-decoding.js';
import { err, ok, type Result } from '../result.js';
import { branchRoot, parentOf, type Node } from './merkle-branch.js';
import { merkleize, mixInLength } from './ssz.js';
import { SszShapeError } from '../errors.js';
import { branchOf, listEntryBranch } from './ssz-schema.js';

/** Blocks an epoch record holds. */
export const EPOCH_SIZE = 8192;
/** The limit of `historical_epochs`: 2048 epochs, a tree 11 levels deep. */
export const MAX_HISTORICAL_EPOCHS = 2048;
/** The first block after the merge (Paris): the accumulator holds every block before it and none from it. */
export const MERGE_BLOCK = 15_537_394;
/** Nodes in a pre-merge block's proof: 13 levels of records, 1 into the record, 1 for the list's length. */
export const PRE_MERGE_PROOF_NODES = 15;

/**
 * The `hash_tree_root` of the frozen `HistoricalHashesAccumulator`, as EIP-7643 ("History accumulator
 * for pre-PoS data") commits to it, and the Portal spec refers to it.
 */
export const HISTORICAL_HASHES_ACCUMULATOR_ROOT: Node = hexToBytes(
  'ec8e040fd6c557b41ca8ddd38f7e9d58a9281918dc92bdb72342a38fb085e701',
);

/** Marks roots that {@link readAccumulator} checked: a type of its own, so that no other list passes for them. */
declare const CHECKED: unique symbol;

/** The epoch record roots of an accumulator that hashes to `root`: only {@link readAccumulator} makes one. */
export interface TrustedEpochRoots {
  readonly root: Node;
  readonly epochs: readonly Node[];
  readonly [CHECKED]: true;
}

/** The epoch that holds block `blockNumber`, 8192 blocks an epoch. */
export function epochOf(blockNumber: number): number {
  return Math.floor(blockNumber / EPOCH_SIZE);
}

/** The `hash_tree_root` of a frozen accumulator (empty `current_epoch`) whose `historical_epochs` are `epochs`. */
export function accumulatorRoot(epochs: readonly Node[]): Node {
  const historical = mixInLength(merkleize(epochs, Math.log2(MAX_HISTORICAL_EPOCHS)), epochs.length);
  const current = mixInLength(merkleize([], Math.log2(EPOCH_SIZE)), 0);
  return parentOf(historical, current);
}

/**
 * The epoch record roots of a frozen accumulator's SSZ (two 4-byte offsets, the roots, an empty
 * `current_epoch`), when it hashes to `root`: the Portal vectors' `historical_hashes_accumulator.ssz`.
 * @throws TypeError naming `ssz` or `root` when it is not a Uint8Array (`root` of 32 bytes, else a RangeError).
 */
export function readAccumulator(
  ssz: Uint8Array,
  root: Node = HISTORICAL_HASHES_ACCUMULATOR_ROOT,
): Result<TrustedEpochRoots, string> {
  checkBytes(ssz, 'ssz');
  checkBytes(root, 'root', 32);
  if (ssz.length < 8) return err('an accumulator is at least its two offsets');
  const view = new DataView(ssz.buffer, ssz.byteOffset, ssz.byteLength);
  const epochsAt = view.getUint32(0, true);
  const currentAt = view.getUint32(4, true);
  if (epochsAt !== 8 || currentAt !== ssz.length || (currentAt - epochsAt) % 32 !== 0)
    return err('not a frozen accumulator: its current epoch must be empty');
  const epochs: Node[] = [];
  // Copies: a Node.js Buffer's `slice` is a view, and the trusted roots must not change with the caller's bytes.
  for (let at = epochsAt; at < currentAt; at += 32) epochs.push(Uint8Array.from(ssz.subarray(at, at + 32)));
  if (epochs.length > MAX_HISTORICAL_EPOCHS) return err(`more than ${MAX_HISTORICAL_EPOCHS} epochs`);
  if (!bytesEqual(accumulatorRoot(epochs), root)) return err('the accumulator does not hash to the trusted root');
  return ok({ root, epochs } as unknown as TrustedEpochRoots);
}

/** What is proven: a pre-merge block hash and its number. */
export interface PreMergeBlock {
  readonly blockHash: Node;
  readonly blockNumber: number;
}

/** Why a pre-merge proof is refused: which input or which step of the branch fails. */
export interface PreMergeRefusal {
  readonly reason: 'not-pre-merge' | 'bad-header' | 'bad-proof' | 'branch';
  readonly message: string;
}

/** A block to prove: its header's RLP (the hash and number come from it), or its hash and number. */
export type PreMergeClaim =
  { readonly header: Uint8Array } | { readonly blockHash: Node; readonly blockNumber: number };

/**
 * Proves a pre-merge block: its hash is the `block_hash` of record `blockNumber % 8192` of epoch
 * record `epochOf(blockNumber)`, whose root the trusted accumulator holds. `proof` is the
 * `BlockProofHistoricalHashesAccumulator`: 15 nodes, or their 480 SSZ bytes.
 */
export function verifyPreMergeHeader(
  claim: PreMergeClaim,
  proof: Uint8Array | readonly Node[],
  accumulator: TrustedEpochRoots,
): Result<PreMergeBlock, PreMergeRefusal> {
  let blockHash: Node;
  let blockNumber: number;
  if ('header' in claim) {
    const number = headerNumberIfAny(claim.header);
    if (number === undefined) return err({ reason: 'bad-header', message: 'the header is not a block header RLP' });
    blockHash = defaultKeccak256(claim.header);
    blockNumber = Number(number);
  } else {
    ({ blockHash, blockNumber } = claim);
    if (blockHash.length !== 32) return err({ reason: 'bad-header', message: 'a block hash is 32 bytes' });
  }
  if (blockNumber >= MERGE_BLOCK)
    return err({
      reason: 'not-pre-merge',
      message: `block ${blockNumber} is at or after the merge (${MERGE_BLOCK}): the accumulator holds only earlier blocks`,
    });
  if (!Number.isSafeInteger(blockNumber) || blockNumber < 0)
    return err({ reason: 'bad-header', message: `${blockNumber} is not a block number` });
  const nodes = proof instanceof Uint8Array ? splitProof(proof) : proof;
  if (nodes === undefined || nodes.length !== PRE_MERGE_PROOF_NODES || nodes.some((node) => node.length !== 32))
    return err({ reason: 'bad-proof', message: `a pre-merge proof is ${PRE_MERGE_PROOF_NODES} nodes of 32 bytes` });
  const epoch = epochOf(blockNumber);
  const epochRoot = accumulator.epochs[epoch];
  if (epochRoot === undefined) return err({ reason: 'bad-proof', message: `the accumulator has no epoch ${epoch}` });
  // Under the epoch record's root: the data tree (2, beside the length at 3), 13 levels of records, block_hash first.
  const gindex = 2 * (2 * EPOCH_SIZE + (blockNumber % EPOCH_SIZE));
  const computed = branchRoot(blockHash, nodes, gindex);
  if (computed === undefined || !bytesEqual(computed, epochRoot))
    return err({
      reason: 'branch',
      message: `block ${blockNumber}'s hash does not reach epoch record ${epoch}'s root through the proof (record ${blockNumber % EPOCH_SIZE})`,
    });
  return ok({ blockHash, blockNumber });
}

/** A proof's 480 SSZ bytes as its 15 nodes, or `undefined` when it is another size. */
function splitProof(bytes: Uint8Array): Node[] | undefined {
  if (bytes.length !== PRE_MERGE_PROOF_NODES * 32) return undefined;
  return Array.from({ length: PRE_MERGE_PROOF_NODES }, (_, i) => bytes.subarray(i * 32, i * 32 + 32));
}

/** Levels from an epoch record's root up to the accumulator root: 11 in `historical_epochs`, its length, then `current_epoch`. */
export const EPOCH_ROOT_BRANCH_NODES = 13;

/** Generalized index of epoch record `epoch`'s root under the accumulator root: `historical_epochs` (2), its data (4), 2048 leaves. */
function epochRootGindex(epoch: number): number {
  return 4 * MAX_HISTORICAL_EPOCHS + epoch;
}

/**
 * One epoch record's root, trusted because its 13-node branch reaches the accumulator root: what an
 * anchor proof ships instead of the whole 60 KB accumulator.
 */
export function trustEpochRoot(
  epoch: number,
  epochRoot: Node,
  branch: readonly Node[],
  root: Node = HISTORICAL_HASHES_ACCUMULATOR_ROOT,
): Result<TrustedEpochRoots, string> {
  if (!Number.isSafeInteger(epoch) || epoch < 0 || epoch >= MAX_HISTORICAL_EPOCHS)
    return err(`epoch ${epoch} is not an accumulator epoch (0 to ${MAX_HISTORICAL_EPOCHS - 1})`);
  if (branch.length !== EPOCH_ROOT_BRANCH_NODES)
    return err(`an epoch root's branch is ${EPOCH_ROOT_BRANCH_NODES} nodes, not ${branch.length}`);
  const computed = branchRoot(epochRoot, branch, epochRootGindex(epoch));
  if (computed === undefined || !bytesEqual(computed, root))
    return err(`epoch record ${epoch}'s root does not reach the accumulator root through its branch`);
  const epochs: Node[] = [];
  epochs[epoch] = Uint8Array.from(epochRoot);
  return ok({ root, epochs } as unknown as TrustedEpochRoots);
}

/** The 13-node branch of epoch `epoch`'s root in a whole trusted accumulator, for {@link trustEpochRoot}. */
export function epochRootBranch(accumulator: TrustedEpochRoots, epoch: number): Node[] {
  const { epochs } = accumulator;
  if (epochs[epoch] === undefined) throw new RangeError(`the accumulator has no epoch ${epoch}`);
  const length = new Uint8Array(32);
  new DataView(length.buffer).setUint32(0, epochs.length, true);
  const current = mixInLength(merkleize([], Math.log2(EPOCH_SIZE)), 0);
  return [...branchOf(epochs, epoch, Math.log2(MAX_HISTORICAL_EPOCHS)), length, current];
}

/** Bytes of a `HeaderRecord`: its `block_hash` and its `total_difficulty` (uint256, little-endian). */
const HEADER_RECORD_BYTES = 64;

/** An epoch record read from its SSZ: each block's hash and total difficulty, each record's root, and the record's own root. */
export interface EpochRecord {
  readonly blockHashes: readonly Node[];
  /** Each block's total difficulty as its SSZ chunk (uint256, little-endian). */
  readonly totalDifficulties: readonly Node[];
  /** Each `HeaderRecord`'s hash_tree_root: its block hash beside its total difficulty. */
  readonly leaves: readonly Node[];
  readonly root: Node;
}

/**
 * An `EpochRecord` from its SSZ (`List[HeaderRecord, 8192]`: 64 bytes a record, back to back), as the
 * Portal Network publishes them (`epoch-record-00122.ssz` in ethereum/portal-spec-tests): 8192 records for
 * every epoch but the last, epoch 1896, which the merge ended after 5,362 (blocks 15,532,032 to 15,537,393; the
 * length its proofs mix in). Its root mixes in the records' count, so a record cut short is not the accumulator's.
 * @throws TypeError naming `ssz` when it is not a Uint8Array; SszShapeError when the bytes are not 1 to 8192 records.
 */
export function readEpochRecord(ssz: Uint8Array): EpochRecord {
  checkBytes(ssz, 'ssz');
  const count = ssz.length / HEADER_RECORD_BYTES;
  if (!Number.isInteger(count) || count < 1 || count > EPOCH_SIZE)
    throw new SszShapeError(
      `an epoch record is 1 to ${EPOCH_SIZE} header records of ${HEADER_RECORD_BYTES} bytes (${EPOCH_SIZE * HEADER_RECORD_BYTES} for a whole epoch), not ${ssz.length} bytes`,
    );
  const blockHashes: Node[] = [];
  const totalDifficulties: Node[] = [];
  const leaves: Node[] = [];
  for (let at = 0; at < ssz.length; at += HEADER_RECORD_BYTES) {
    // Copies: the record's nodes must not change with the caller's buffer.
    const blockHash = Uint8Array.from(ssz.subarray(at, at + 32));
    const totalDifficulty = Uint8Array.from(ssz.subarray(at + 32, at + 64));
    blockHashes.push(blockHash);
    totalDifficulties.push(totalDifficulty);
    leaves.push(parentOf(blockHash, totalDifficulty));
  }
  const root = mixInLength(merkleize(leaves, Math.log2(EPOCH_SIZE)), count);
  return { blockHashes, totalDifficulties, leaves, root };
}

/**
 * The 15-node branch of block `blockNumber`'s hash under its epoch record's root, as
 * {@link verifyPreMergeHeader} takes it: its total difficulty, 13 levels of records, the record's length.
 */
export function epochRecordBranch(record: EpochRecord, blockNumber: number): Node[] {
  const index = blockNumber % EPOCH_SIZE;
  return [record.totalDifficulties[index]!, ...listEntryBranch(record.leaves, index, Math.log2(EPOCH_SIZE))];
}
