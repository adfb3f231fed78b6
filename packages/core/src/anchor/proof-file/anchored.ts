/**
 * What a verified anchor proof gives everything downstream: the execution block hashes proven from the checkpoint,
 * looked up by hash (a receipt proof's header, a logs proof's head) or by number (an audited block), and the one
 * sentence that refuses a hash the file does not prove. The command line and the service read an anchor proof
 * through this alone, so a block is anchored, or refused, in the same words everywhere.
 */
import { checkBytes, HASH_BYTES } from '../../bytes/check-bytes.js';
import { bytesToHex, prefixedHex } from '../../bytes/hex.js';
import { checkBlockNumber, checkChainId } from '../../chains/chain-arguments.js';
import { err, ok, type Result } from '../../result.js';
import type { Node } from '../merkle-branch.js';
import { beaconNetwork, type BeaconNetwork } from '../networks.js';
import {
  checkAnchorText,
  readAnchorFileHead,
  verifyAnchorProof,
  type AnchorRefusal,
  type AnchorVerdict,
  type ProvenBlock,
} from './verify.js';

/** The execution block hashes an anchor proof proves from its checkpoint. */
export class AnchoredHashes {
  /** The proven blocks by hash (hex, no 0x). */
  readonly #byHash = new Map<string, ProvenBlock>();
  /** The proven blocks by number (a file may prove a number once: its hash is the chain's). */
  readonly #byNumber = new Map<bigint, ProvenBlock>();
  /** Each block proven, once: at the first line that proves it. */
  readonly #distinct: ProvenBlock[] = [];

  constructor(readonly verdict: AnchorVerdict) {
    for (const block of verdict.blocks) {
      const hash = bytesToHex(block.hash);
      if (this.#byHash.has(hash)) continue;
      this.#byHash.set(hash, block);
      this.#byNumber.set(block.number, block);
      this.#distinct.push(block);
    }
  }

  /** The checkpoint everything is proven from, 0x and lower case. */
  get checkpoint(): string {
    return prefixedHex(this.verdict.checkpoint);
  }

  /**
   * The checkpoint `block` rests on (0x, lower case), or null for a block before the merge: the accumulator EIP-7643
   * fixes proves it, and nothing checks the checkpoint the file's head names (a file of such records alone holds
   * from any checkpoint).
   */
  checkpointOf(block: ProvenBlock): string | null {
    return block.via === 'pre-merge' ? null : this.checkpoint;
  }

  /**
   * The blocks proven, each once (at the first line that proves it), in the file's order; `verdict.blocks` has a
   * block for each line that proves one, repeats included.
   */
  get blocks(): readonly ProvenBlock[] {
    return this.#distinct;
  }

  /**
   * What the file proves, counted the one way every summary counts it: distinct blocks, those resting on the
   * checkpoint and those before the merge (on the accumulator, {@link checkpointOf} null), and the lines that prove a
   * block an earlier line proved.
   * @example hashes.tally() // { blocks: 7, fromCheckpoint: 6, preMerge: 1, repeats: 0 }
   */
  tally(): { blocks: number; fromCheckpoint: number; preMerge: number; repeats: number } {
    const preMerge = this.#distinct.filter((block) => this.checkpointOf(block) === null).length;
    return {
      blocks: this.#distinct.length,
      fromCheckpoint: this.#distinct.length - preMerge,
      preMerge,
      repeats: this.verdict.blocks.length - this.#distinct.length,
    };
  }

  /**
   * The proven block whose hash is `hash`; undefined when the file does not prove it.
   * @throws TypeError when `hash` is not a Uint8Array (hex text among others), RangeError when it is not 32 bytes.
   */
  proving(hash: Uint8Array): ProvenBlock | undefined {
    checkBytes(hash, 'hash', HASH_BYTES);
    return this.#byHash.get(bytesToHex(hash));
  }

  /**
   * The proven block numbered `number`; undefined when the file proves none.
   * @throws TypeError naming `number` when it is neither a number nor a bigint (a string among others), RangeError when
   * it is no block number (-1, 1.5, NaN).
   */
  at(number: number | bigint): ProvenBlock | undefined {
    checkBlockNumber(number, 'number');
    return this.#byNumber.get(BigInt(number));
  }

  /**
   * Why the file proves nothing of chain `chainId` (a `network` refusal naming both chains), or null when `chainId` is
   * its network's chain: the one rule for a proof of another chain, whenever its chain becomes known.
   * @throws TypeError or RangeError naming `chainId` when it is no chain id (a `'1'` would be "chain 1, not of chain 1").
   * @example hashes.chainRefusal(10) // { line: 1, reason: 'network', message: 'network mainnet proves blocks of chain 1, not of chain 10' }
   */
  chainRefusal(chainId: number): AnchorRefusal | null {
    checkChainId(chainId, 'chainId');
    const { network, chainId: own } = this.verdict;
    return otherChain({ name: network, executionChainId: own }, chainId, 1);
  }

  /**
   * Why block `number` of chain `chainId` with hash `hash` is not anchored, or null when the file proves exactly that
   * block, the number with the hash: a proven hash under another number is not (a hash names one block, and the caller
   * takes the number as the block's), nor is a block of another chain than the file's network's.
   * @throws TypeError when `hash` is not a Uint8Array, RangeError when it is not 32 bytes; TypeError or RangeError naming
   * `number` when it is no block number (as {@link at}), or `chainId` when it is no chain id (a `'1'`, or none).
   * @example hashes.unproven(19426587, hash, 1) // null, or "block 19426587's hash 0x… is not among the blocks …"
   */
  unproven(number: number | bigint, hash: Uint8Array, chainId: number): string | null {
    checkBlockNumber(number, 'number');
    checkBytes(hash, 'hash', HASH_BYTES);
    checkChainId(chainId, 'chainId');
    if (chainId !== this.verdict.chainId)
      return `block ${number} is of chain ${chainId}, and the anchor proof proves blocks of ${this.verdict.network} (chain ${this.verdict.chainId})`;
    const proven = this.#byHash.get(bytesToHex(hash));
    if (proven === undefined)
      return `block ${number}'s hash ${prefixedHex(hash)} is not among the blocks the anchor proof proves from checkpoint ${this.checkpoint}`;
    if (proven.number !== BigInt(number))
      return `block ${number}'s hash ${prefixedHex(hash)} is the hash of block ${proven.number}, as the anchor proof proves it, not of block ${number}`;
    return null;
  }
}

/**
 * Verifies an anchor proof file held as text against the trusted checkpoint root, and indexes what it proves, for
 * blocks of chain `chainId`: a file of another network's chain is refused (`network`), as its blocks are not that
 * chain's, by its first line alone, before any record is verified. `null` takes the file's own chain, for a caller
 * that only lists what a file proves or learns the chain later (then {@link AnchoredHashes.chainRefusal} once it does).
 * @example
 * const anchored = anchoredHashes(readFileSync('anchor.jsonl', 'utf8'), hexToBytes(checkpoint), 1);
 * if (anchored.ok) anchored.value.unproven(header.number, blockHash, 1); // null: block hash proven from the checkpoint
 * @throws TypeError or RangeError naming `checkpoint` when it is not 32 bytes, or `text` when it is not a string, as
 * {@link verifyAnchorProof}; TypeError or RangeError naming `chainId` when it is neither null nor a chain id (a `'1'`).
 */
export function anchoredHashes(
  text: string,
  checkpoint: Node,
  chainId: number | null,
): Result<AnchoredHashes, AnchorRefusal> {
  // The trusted root first: a root the caller holds wrong is its mistake, thrown before anything of the file is judged.
  checkBytes(checkpoint, 'checkpoint', HASH_BYTES);
  checkAnchorText(text);
  if (chainId !== null) {
    checkChainId(chainId, 'chainId');
    // The chain first, from the head alone: a file of another chain proves nothing of this one, however its records
    // fare, so no record is verified (and none refused) for it. A head that does not read is the verifier's to refuse.
    const { head, line } = readAnchorFileHead(text);
    const network = head.ok ? beaconNetwork(head.value.network) : undefined;
    const refusal = network === undefined ? null : otherChain(network, chainId, line);
    if (refusal !== null) return err(refusal);
  }
  const verdict = verifyAnchorProof(text, checkpoint);
  return verdict.ok ? ok(new AnchoredHashes(verdict.value)) : err(verdict.error);
}

/**
 * Why a file of `network`, whose head is line `line`, proves nothing of chain `chainId` (naming both chains), or null
 * when `chainId` is its network's chain: the one rule for a proof of another chain, whenever its chain becomes known.
 */
function otherChain(
  network: Pick<BeaconNetwork, 'name' | 'executionChainId'>,
  chainId: number,
  line: number,
): AnchorRefusal | null {
  if (chainId === network.executionChainId) return null;
  return {
    line,
    reason: 'network',
    message: `network ${network.name} proves blocks of chain ${network.executionChainId}, not of chain ${chainId}`,
  };
}

/**
 * A refusal in one line, naming the line of the file and the reason.
 * @example describeAnchorRefusal(refusal) // 'line 1 (checkpoint): the file hangs from checkpoint 0x5ab5…, not the trusted 0x1111…'
 */
export function describeAnchorRefusal(refusal: AnchorRefusal): string {
  return `line ${refusal.line} (${refusal.reason}): ${refusal.message}`;
}
