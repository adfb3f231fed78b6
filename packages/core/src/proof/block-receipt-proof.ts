import { checkBytes, HASH_BYTES } from '../bytes/check-bytes.js';
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { InvalidHeaderError } from '../errors.js';
import { decodeHeader } from '../header/header-decoding.js';
import type { BlockHeader } from '../header/header-fields.js';
import { ETHEREUM_HEADER, type HeaderLayout } from '../header/layouts.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import type { EncodeReceiptOptions } from '../receipts/receipt-encoding.js';
import { err, ok, type Result } from '../result.js';
import {
  checkProofOptions,
  checkReceiptProof,
  receiptUnderRoot,
  type ProvenReceipt,
  type ReceiptProof,
} from './receipt-proof.js';
import type { ProofRefusal } from './refusal.js';

/** Options of the proofs bound to a block: the receipts' rule set and the header's layout (Ethereum's when absent). */
export interface BlockProofOptions extends EncodeReceiptOptions {
  layout?: HeaderLayout;
}

/** A receipt a proof holds in a block: the receipt, its position and the header that holds its root. */
export interface ProvenBlockReceipt extends ProvenReceipt {
  transactionIndex: number;
  header: BlockHeader;
}

/**
 * Checks that `receiptProof` proves a receipt of the block whose hash is `blockHash`: `headerRlp`
 * hashes to it, the proof's root is the header's receiptsRoot, and the proof holds under it.
 * Returns the receipt with its header, or a refusal that says which part fails.
 *
 * @throws TypeError when `blockHash`, `headerRlp`, `proof.receiptsRoot` or a node of `proof.proof` is not a Uint8Array
 * (hex text among others), `options.rules` not a rule set object, or `options.layout` not a header layout object;
 * RangeError when a hash or root is not 32 bytes,
 * and, once the header holds, for `proof.index` as {@link verifyReceiptProof}.
 * @example
 * const proven = verifyBlockReceiptProof(blockHash, headerRlp, receiptProof(receipts, 3), { rules })
 * if (proven.ok) proven.value.receipt.status
 * else proven.error.reason // 'root-mismatch'
 */
export function verifyBlockReceiptProof(
  blockHash: Uint8Array,
  headerRlp: Uint8Array,
  proof: ReceiptProof,
  options: BlockProofOptions = {},
): Result<ProvenBlockReceipt, ProofRefusal> {
  checkBytes(blockHash, 'blockHash', HASH_BYTES);
  checkBytes(headerRlp, 'headerRlp');
  checkReceiptProof(proof, 'proof');
  checkProofOptions(options);
  return receiptInBlock(blockHash, headerRlp, proof, options);
}

/** {@link verifyBlockReceiptProof} of arguments already held to their contract. */
export function receiptInBlock(
  blockHash: Uint8Array,
  headerRlp: Uint8Array,
  proof: ReceiptProof,
  options: BlockProofOptions,
): Result<ProvenBlockReceipt, ProofRefusal> {
  const keccak = options.keccak ?? defaultKeccak256;
  if (!bytesEqual(keccak(headerRlp), blockHash))
    return err({
      reason: 'block-hash-mismatch',
      message: `The header does not hash to the block hash 0x${bytesToHex(blockHash)}.`,
    });
  let header: BlockHeader;
  try {
    header = decodeHeader(headerRlp, options.layout ?? ETHEREUM_HEADER);
  } catch (error) {
    if (!(error instanceof InvalidHeaderError)) throw error;
    return err({ reason: 'header-invalid', message: `The header: ${error.message}` });
  }
  if (!bytesEqual(proof.receiptsRoot, header.receiptsRoot))
    return err({
      reason: 'root-mismatch',
      message: `The receipt proof's root is not the header's receiptsRoot 0x${bytesToHex(header.receiptsRoot)}.`,
    });
  const proven = receiptUnderRoot(header.receiptsRoot, proof.index, proof.proof, options);
  if (!proven.ok) return proven;
  return ok({ ...proven.value, transactionIndex: proof.index, header });
}
