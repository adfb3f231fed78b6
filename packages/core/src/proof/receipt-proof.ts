import { checkBytes, checkBytesList, HASH_BYTES } from '../bytes/check-bytes.js';
import { bytesEqual } from '../bytes/hex.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { EvmIntegrityError } from '../errors.js';
import { checkHeaderLayout, type HeaderLayout } from '../header/layouts.js';
import { kindOf, show } from '../json/show.js';
import { decodeReceipt } from '../receipts/receipt-decoding.js';
import type { EncodeReceiptOptions } from '../receipts/receipt-encoding.js';
import type { Receipt } from '../receipts/receipt.js';
import { checkRuleSet } from '../receipts/rules.js';
import { receiptsCommitment } from '../receipts/root.js';
import { err, ok, type Result } from '../result.js';
import { indexKey, orderedTrieProofs } from '../trie/ordered-trie.js';
import { trieProofKey, walkTrieProof } from '../trie/trie-proof.js';
import type { ProofRefusal } from './refusal.js';

/** A receipt's place in its block's receipts trie: the root, the position and the nodes from the root to the leaf. */
export interface ReceiptProof {
  receiptsRoot: Uint8Array;
  /** The transaction's position in the block. */
  index: number;
  /** RLP of each trie node from the root to the leaf, as `eth_getProof` and `@ethereumjs/mpt` give them. */
  proof: Uint8Array[];
}

/** A receipt a proof holds: its consensus encoding (the trie's leaf value) and its fields. */
export interface ProvenReceipt {
  encoded: Uint8Array;
  receipt: Receipt;
}

/**
 * A position argument (`index`, `logIndex`) held to its contract: a non-negative safe integer (a number), else a
 * RangeError naming it and what was given: another type by its type (`got the string "4"`, a string and a number
 * print alike), an integer beyond 2^53 - 1 as not safe.
 */
export const checkPosition = (name: string, value: number): void => {
  if (Number.isSafeInteger(value) && value >= 0) return;
  const given: unknown = value;
  if (typeof given !== 'number')
    throw new RangeError(
      `${name} must be a non-negative integer (a number), got ${typeof given === 'string' || typeof given === 'bigint' ? `the ${typeof given} ${show(given, 60)}` : kindOf(given)}.`,
    );
  if (Number.isInteger(given) && given > 0)
    throw new RangeError(`${name} must be a non-negative safe integer (at most 2^53 - 1), got ${given}.`);
  throw new RangeError(`${name} must be a non-negative integer, got ${given}.`);
};

const checkIndex = (index: number) => checkPosition('index', index);

/**
 * Holds a proof function's options to their contract: `rules`, where given, a rule set object; `layout` (of the proofs
 * bound to a block), where given, a header layout object.
 */
export const checkProofOptions = (options: EncodeReceiptOptions & { layout?: HeaderLayout }): void => {
  if (options.rules !== undefined) checkRuleSet(options.rules, 'options.rules');
  if (options.layout !== undefined) checkHeaderLayout(options.layout, 'options.layout');
};

/**
 * Holds a receipt proof argument (`name`) to its contract: an object, a 32-byte `receiptsRoot` and a list of nodes, each bytes
 * (its `index` is checked where it is walked, once its header holds).
 */
export const checkReceiptProof = (proof: ReceiptProof, name: string): void => {
  const given: unknown = proof;
  if (typeof given !== 'object' || given === null)
    throw new TypeError(`${name} must be a receipt proof {index, receiptsRoot, proof}, got ${kindOf(given)}`);
  checkBytes(proof.receiptsRoot, `${name}.receiptsRoot`, HASH_BYTES);
  checkBytesList(proof.proof, `${name}.proof`);
};

/**
 * The proof that receipt `index` is in the receipts trie of a block's complete receipt list, from
 * the same encoding and trie that compute the block's receipts root.
 *
 * @throws RangeError when `index` is not a position of `receipts`; TypeError when `options.rules` is not a rule set object; UnknownReceiptTypeError, InvalidReceiptError as {@link receiptsCommitment}.
 * @example
 * const { receiptsRoot, proof } = receiptProof(receipts, 3, { rules: RULE_SETS.optimism })
 * verifyReceiptProof(receiptsRoot, 3, proof, { rules: RULE_SETS.optimism }).ok // true
 */
export function receiptProof(
  receipts: readonly Receipt[],
  index: number,
  options: EncodeReceiptOptions = {},
): ReceiptProof {
  return receiptProofs(receipts, [index], options)[0]!;
}

/**
 * The proofs of receipts `indexes` (every receipt when absent) of a block's complete receipt list,
 * from one encoding and one trie build: proving all the receipts of a block costs about what one
 * proof does.
 *
 * @throws RangeError when an index is not a position of `receipts`; TypeError when `options.rules` is not a rule set object; UnknownReceiptTypeError, InvalidReceiptError as {@link receiptsCommitment}.
 * @example
 * const proofs = receiptProofs(receipts) // proofs[i].index === i
 */
export function receiptProofs(
  receipts: readonly Receipt[],
  indexes: readonly number[] = receipts.map((_, i) => i),
  options: EncodeReceiptOptions = {},
): ReceiptProof[] {
  indexes.forEach(checkIndex);
  checkProofOptions(options);
  const { encodedReceipts } = receiptsCommitment(receipts, options);
  const { root, proofs } = orderedTrieProofs(encodedReceipts, indexes, options);
  return indexes.map((index, i) => ({ receiptsRoot: root, index, proof: proofs[i]! }));
}

/**
 * Checks that `proof` holds receipt `index` of the receipts trie whose root is `root`, and returns
 * the receipt, or a refusal naming the node that fails and why. The receipt is read under
 * `options.rules` (Ethereum's when absent), which must know its type.
 *
 * @throws TypeError when `root` or a node of `proof` is not a Uint8Array (hex text among others), or `options.rules`
 * not a rule set object; RangeError when `root` is not 32 bytes or `index` not a non-negative integer.
 * @example
 * const proven = verifyReceiptProof(header.receiptsRoot, 3, proof)
 * if (proven.ok) proven.value.receipt.logs
 * else proven.error.message // 'Proof node 2: its hash is not the one node 1 names.'
 */
export function verifyReceiptProof(
  root: Uint8Array,
  index: number,
  proof: readonly Uint8Array[],
  options: EncodeReceiptOptions = {},
): Result<ProvenReceipt, ProofRefusal> {
  checkBytes(root, 'root', HASH_BYTES);
  checkBytesList(proof, 'proof');
  checkProofOptions(options);
  return receiptUnderRoot(root, index, proof, options);
}

/**
 * Where a proof that fails for `index` is, node by node from `root`, the proof of another index (an `index` given
 * wrong, or the proof of another receipt of the block): a sentence saying which, for the refusal; else nothing. Nodes
 * under another root are no proof of any index of this one: nothing is said of them.
 */
function ofAnotherIndex(
  root: Uint8Array,
  proof: readonly Uint8Array[],
  index: number,
  options: EncodeReceiptOptions,
): string {
  const first = proof[0];
  if (first === undefined || !bytesEqual((options.keccak ?? defaultKeccak256)(first), root)) return '';
  const key = trieProofKey(proof, options);
  if (key === undefined) return '';
  // The key rlp(n): one byte under 0x80 for n itself, else 0x80 + its length and n's bytes (none for 0), big-endian;
  // a key that is no canonical rlp(n) is none of a receipt.
  const single = key.length === 1 && key[0]! < 0x80;
  let proven = single ? key[0]! : 0;
  if (!single) for (const byte of key.subarray(1)) proven = proven * 256 + byte;
  if (!Number.isSafeInteger(proven) || proven === index || !bytesEqual(indexKey(proven), key)) return '';
  return ` Its nodes link as the proof of index ${proven}, not of index ${index} (index).`;
}

/** {@link verifyReceiptProof} of a root, proof and options already held to their contract (its `index` is held here). */
export function receiptUnderRoot(
  root: Uint8Array,
  index: number,
  proof: readonly Uint8Array[],
  options: EncodeReceiptOptions,
): Result<ProvenReceipt, ProofRefusal> {
  checkIndex(index);
  const walked = walkTrieProof(root, indexKey(index), proof, options);
  if (!walked.ok)
    return err({ ...walked.error, message: walked.error.message + ofAnotherIndex(root, proof, index, options) });
  try {
    return ok({ encoded: walked.value, receipt: decodeReceipt(walked.value, options) });
  } catch (error) {
    if (!(error instanceof EvmIntegrityError)) throw error;
    return err({ reason: 'receipt-invalid', node: proof.length - 1, message: `The proven receipt: ${error.message}` });
  }
}
