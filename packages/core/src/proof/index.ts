/**
 * `evm-integrity/proof`: inclusion proofs of one receipt or one log, checkable by anyone who holds
 * the block's receipts root or its hash. Pure, like the core.
 */
export {
  receiptProof,
  receiptProofs,
  verifyReceiptProof,
  type ProvenReceipt,
  type ReceiptProof,
} from './receipt-proof.js';
export { verifyBlockReceiptProof, type BlockProofOptions, type ProvenBlockReceipt } from './block-receipt-proof.js';
export { logProof, verifyLogProof, type LogProof, type LogProofOptions, type ProvenLog } from './log-proof.js';
export type { ProofFault, ProofRefusal } from './refusal.js';
export type { TrieProofFault } from '../trie/trie-proof.js';
export { decodeReceipt } from '../receipts/receipt-decoding.js';
export {
  compileLogsFilter,
  logsFilterProblem,
  MAX_FILTER_TOPICS,
  type CompiledLogsFilter,
  type LogsFilter,
} from './logs-filter.js';
export { ethLog, type EthLog, type LogPlace } from './eth-log.js';
export {
  decodePreamble,
  decodeRecord,
  encodePreamble,
  encodeRecord,
  ItemReader,
  LOGS_PROOF_SIGNATURE,
  LOGS_PROOF_VERSION,
  MAX_RECORD_BYTES,
  type LogsProofRecord,
  type LogsRange,
} from './logs-proof-format.js';
export {
  LogsRangeCheck,
  type LogsProofFault,
  type LogsProofRefusal,
  type LogsProofSummary,
  type LogsRangeOptions,
  type ProvableEra,
  type UnprovableEra,
} from './logs-range-check.js';
export { LogsProofBuilder, type LogsProofBlock } from './logs-proof-builder.js';
export {
  LogsProofVerifier,
  verifyLogsProof,
  verifyLogsProofBytes,
  type HeadCheck,
  type LogsProofVerifyOptions,
} from './logs-proof-verifier.js';
export { compareLogs, type LogsDiscrepancy } from './logs-completeness.js';
