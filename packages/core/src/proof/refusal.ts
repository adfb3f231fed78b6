import type { TrieProofFault } from '../trie/trie-proof.js';

/** Why a receipt or log proof is refused. */
export type ProofFault =
  | TrieProofFault
  /** The proven leaf is not a receipt of the rule set (or not in its canonical encoding). */
  | 'receipt-invalid'
  /** The header's RLP does not hash to the block hash. */
  | 'block-hash-mismatch'
  /** The header's RLP is no header of the layout. */
  | 'header-invalid'
  /** The receipt proof's root is not the header's receiptsRoot. */
  | 'root-mismatch'
  /** The proven receipt has no log at the position. */
  | 'log-absent';

/** A refused proof: why, in words and as a {@link ProofFault}, and which node of the receipt proof fails when one does. */
export interface ProofRefusal {
  reason: ProofFault;
  /** Index in the receipt proof of the node that fails (the proof's length when a node is missing). */
  node?: number;
  message: string;
}
