/**
 * `evm-integrity/api`: the verify endpoints as operations, request body in, status and body out
 * (the spec's error envelope included), the same for the HTTP service and the CLI. Pure. Each such operation is
 * named `verify…Operation`, apart from the core's function of the same check (`verifyBlock`, `verifyReceiptProof`).
 */
export {
  badRequest,
  DEFAULT_DOCS_URL,
  errorEnvelope,
  type ApiError,
  type ErrorEnvelope,
  type InvalidParameter,
  type OperationContext,
  type OperationResult,
} from './envelope.js';
export { chainNotSupported } from './chain-not-supported.js';
export { decodeJsonBody, NOT_UTF8, parseJsonBody, TWO_BOMS, unreadableBodyReason } from './json-body.js';
export {
  verifyReceiptRootOperation,
  type ReceiptRootContext,
  type ReceiptRootResult,
} from './receipt-root-operation.js';
export { verifyLogsBloomOperation, type LogsBloomResult } from './logs-bloom-operation.js';
export {
  LOGS_PROOF_MISMATCHES,
  verifyLogsProofOperation,
  type LogsProofMismatch,
  type LogsProofResult,
} from './logs-proof-operation.js';
export {
  LOGS_PROOF_BODY,
  parseLogsProofRequest,
  type LogsProofRequest,
  type LogsProofRequestRefusal,
} from '../input/requests/logs-proof-request.js';
export { blockAnswer, verifyBlockBytes, verifyBlockOperation, verifyBlockText } from './block-operation.js';
export { auditBundle, LINEAGE_BODY, verifyLineageOperation, type BundleAudit } from './lineage-operation.js';
export { logsBloomBody, receiptRootBody, type ExcludedReceiptInput, type ReceiptRootBody } from './request-builders.js';
export {
  parseReceiptRootRequest,
  RECEIPT_ROOT_BODY,
  type ReceiptRootRefusal,
  type ReceiptRootRequest,
  type UnsupportedChain,
} from '../input/requests/receipt-root-request.js';
export { LOGS_BLOOM_BODY, parseLogsBloomRequest, type LogsBloomRequest } from '../input/requests/logs-bloom-request.js';
export type { JsonSchema } from '../input/values/schema.js';
export { isObject, type JsonObject } from '../input/values/json-values.js';
export {
  RECEIPT_PROOF_FAULTS,
  verifyReceiptProofOperation,
  type ReceiptProofReason,
  type ReceiptProofResult,
  type RpcReceiptJson,
} from './receipt-proof-operation.js';
export { proveReceipt, type ProveRefusal, type ReceiptProofDocument } from './prove-receipt.js';
export {
  parseReceiptProofRequest,
  RECEIPT_PROOF_BODY,
  RECEIPT_PROOF_FORMAT,
  RECEIPT_PROOF_VERSION,
  receiptProofGives,
  type ReceiptProofRefusal,
  type ReceiptProofRequest,
} from '../input/requests/receipt-proof-request.js';
export { anchorChainOf, verifyAnchorOperation, type AnchorResult } from './anchor-operation.js';
export {
  ANCHOR_MISMATCHES,
  anchoringJson,
  anchorRefusalVerdict,
  type AnchoringJson,
  type AnchorMismatch,
  type ProvenBlockJson,
} from './anchor-proof.js';
export {
  ANCHOR_BODY,
  ANCHOR_MEMBER,
  parseAnchorRequest,
  type AnchorBodyRequest,
  type AnchorRequest,
} from '../input/requests/anchor-request.js';
