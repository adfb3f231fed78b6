/**
 * `evm-integrity/proof`: inclusion proofs of one receipt or one log, checkable by anyone who holds
 * the block's receipts root or its hash. Pure, like the core.
 */
export { receiptProof, verifyReceiptProof, type ProvenReceipt, type ReceiptProof } from './receipt-proof.js';
export { verifyBlockReceiptProof, type BlockProofOptions, type ProvenBlockReceipt } from './block-receipt-proof.js';
export { logProof, verifyLogProof, type LogProof, type LogProofOptions, type ProvenLog } from './log-proof.js';
export type { ProofFault, ProofRefusal } from './refusal.js';
export type { TrieProofFault } from '../trie/trie-proof.js';
export { decodeReceipt } from '../receipts/receipt-decoding.js';
