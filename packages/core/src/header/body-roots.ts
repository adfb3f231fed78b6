/**
 * What a header commits to of its block's body beside the transactions: the withdrawals (EIP-4895, its
 * `withdrawalsRoot`) and the uncles (its `sha3Uncles`). One rule for the anchor's header rebuilt from a beacon block
 * and for a JSON-RPC block's lists, checked against the header they came with.
 */
import { encode } from '@ethereumjs/rlp';
import { quantityBytes } from '../bytes/rlp-writer.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { orderedTrieRoot } from '../trie/ordered-trie.js';

/** One withdrawal from the beacon chain (EIP-4895): `amount` in Gwei. */
export interface Withdrawal {
  index: bigint;
  validatorIndex: bigint;
  /** 20 bytes. */
  address: Uint8Array;
  amount: bigint;
}

/** keccak256(rlp([])): the `sha3Uncles` of a header whose block has no uncles (every block since the merge, EIP-3675). */
export const NO_UNCLES_HASH = defaultKeccak256(Uint8Array.of(0xc0));

/**
 * The withdrawals root (EIP-4895): the ordered trie that maps rlp(i) to the RLP of withdrawal `i`,
 * `[index, validatorIndex, address, amount]`.
 * @example
 * withdrawalsRoot([]) // the empty trie's root, 0x56e81f…b421
 */
export function withdrawalsRoot(withdrawals: readonly Withdrawal[], options: HashOptions = {}): Uint8Array {
  const values = withdrawals.map((w) =>
    encode([quantityBytes(w.index), quantityBytes(w.validatorIndex), w.address, quantityBytes(w.amount)]),
  );
  return orderedTrieRoot(values, options);
}
