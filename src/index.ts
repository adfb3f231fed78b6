/**
 * evm-integrity: offline proofs that EVM chain data is what it claims to be.
 * Pure, synchronous and free of I/O: usable in Node and in browsers.
 */
export { bytesEqual, bytesToHex, hexToBytes, parseHex } from './bytes/hex.js';
export { defaultKeccak256, nobleKeccak256, type HashOptions, type Keccak256 } from './keccak/keccak.js';
export { fastKeccak256 } from './keccak/fast-keccak.js';
export { wasmKeccak256 } from './keccak/wasm-keccak.js';

export { EvmIntegrityError, InvalidHeaderError, InvalidReceiptError, UnknownReceiptTypeError } from './errors.js';

export type { Log, Receipt } from './receipts/types.js';
export { RULE_SETS, RULE_SET_NAMES, type ReceiptLayout, type RuleSet, type RuleSetName } from './receipts/rules.js';
export { encodeReceipt, type EncodeReceiptOptions } from './receipts/encode.js';
export { receiptsCommitment, receiptsRoot, type ReceiptsCommitment } from './receipts/root.js';
export { EMPTY_TRIE_ROOT, orderedTrieRoot } from './trie/ordered-trie.js';
export { BLOOM_BYTES, blockBloom, bloomContains, logsBloom } from './bloom/bloom.js';

export type { BlockHeader } from './header/fields.js';
export { encodeHeader, headerHash } from './header/encode.js';
export { decodeHeader } from './header/decode.js';

export {
  BUILTIN_CHAINS,
  ChainRegistry,
  defaultRegistry,
  describeChain,
  type ChainInfo,
  type Era,
  type EraSpan,
  type NotVerifiable,
  type StateSyncRule,
  type Verifiability,
} from './chains/registry.js';
export { borStateSyncTxHash, type ExcludedReceipt } from './chains/state-sync.js';

export { Problems, type Problem, type ProblemReason } from './input/problems.js';
export { readRpcBlock, readRpcHeader, readRpcReceipt, readRpcReceipts, type RpcBlock, type RpcHeader } from './input/json-rpc.js';
export { parseReceiptRootRequest, type ReceiptRootRequest } from './input/receipt-root-request.js';
export { parseLogsBloomRequest, type LogsBloomRequest } from './input/logs-bloom-request.js';

export { badRequest, DEFAULT_DOCS_URL, errorEnvelope, type ApiError, type ErrorEnvelope, type OperationContext, type OperationResult } from './api/envelope.js';
export { parseJsonBody } from './api/json-body.js';
export { verifyReceiptRoot, type ReceiptRootContext, type ReceiptRootResult } from './api/receipt-root.js';
export { verifyLogsBloom, type LogsBloomResult } from './api/logs-bloom.js';
export { logsBloomBody, receiptRootBody, type ReceiptRootBody } from './api/request-body.js';
export { verifyBlock, type BlockReport, type BlockVerifyContext, type Comparison } from './verify/block.js';

export { walkLineage, type WalkOptions } from './lineage/walker.js';
export type { Check, CheckStatus, LineageReport, RecordReport } from './lineage/report.js';
export { BundleSource, parseBundle, type Bundle } from './lineage/bundle-source.js';
export { SourceError, type BlockJson, type BlockSource, type Exchange, type GenesisAnswer, type InputProblem, type LineageSource, type RecordAnswer } from './lineage/source.js';
export { checkFunctionResult, decodeFunctionOutput, encodeFunctionOutput, KNOWN_FUNCTIONS } from './lineage/abi.js';
export { datasetId, DATASETS } from './lineage/datasets.js';
export { auditBundle, verifyLineage, type BundleAudit } from './api/lineage.js';
export { LINEAGE_LIMITS, type LineageLimit } from './lineage/limits.js';
