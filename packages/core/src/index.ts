/**
 * evm-integrity: offline proofs that EVM chain data is what it claims to be.
 * The EVM core: pure, synchronous and free of I/O, usable in Node and in browsers. The
 * endpoint operations are `evm-integrity/api`, the lineage walker `evm-integrity/lineage`,
 * the Node pieces (network sources, the service) `evm-integrity/node`.
 */
export { bytesEqual, bytesToHex, hexToBytes, parseHex, prefixedHex } from './bytes/hex.js';
export { collectBytes } from './bytes/collect.js';
export { parseJson } from './json/parse-json.js';
export { defaultKeccak256, nobleKeccak256, type HashOptions, type Keccak256 } from './keccak/keccak.js';
export { fastKeccak256 } from './keccak/fast-keccak.js';
export { wasmKeccak256 } from './keccak/wasm-keccak.js';

export {
  ChainConflictError,
  DuplicateMemberError,
  EvidenceError,
  EvmIntegrityError,
  InvalidHeaderError,
  InvalidReceiptError,
  UnknownReceiptTypeError,
  type EvmIntegrityErrorCode,
  type ProblemReason,
} from './errors.js';

export type { Log, Receipt } from './receipts/receipt.js';
export { RULE_SETS, RULE_SET_NAMES, type ReceiptLayout, type RuleSet, type RuleSetName } from './receipts/rules.js';
export { encodeReceipt, type EncodeReceiptOptions } from './receipts/receipt-encoding.js';
export { receiptsCommitment, receiptsRoot, type CommitmentOptions, type ReceiptsCommitment } from './receipts/root.js';
export { EMPTY_TRIE_ROOT, orderedTrieRoot } from './trie/ordered-trie.js';
export { BLOOM_BYTES, blockBloom, bloomContains, logsBloom } from './bloom/bloom.js';

export type { BlockHeader, HeaderFieldKind, HeaderFieldSpec } from './header/header-fields.js';
export {
  AURA_HEADER,
  AVALANCHE_HEADER,
  ETHEREUM_HEADER,
  HEADER_LAYOUTS,
  headerShape,
  type HeaderLayout,
  type HeaderLayoutName,
  type HeaderShape,
  type UnhashedField,
} from './header/layouts.js';
export { encodeHeader, headerHash } from './header/header-encoding.js';
export { decodeHeader } from './header/header-decoding.js';

export { BUILTIN_CHAINS } from './chains/builtin-list.js';
export {
  ChainRegistry,
  defaultRegistry,
  describeChain,
  describeEvidenceUsed,
  evidenceKindOf,
  uncheckable,
  CHECK_NAMES,
  type ChainDescription,
  type ChainInfo,
  type CheckClaim,
  type CheckName,
  type ClaimDescription,
  type EraDescription,
  type EraEvidence,
  type EvidenceBlock,
  type EvidenceBlockDescription,
  type EvidenceKind,
  type EvidenceUsed,
  type OperatorEvidence,
  type RegistryDescription,
  type RegistryEntry,
  type Vouch,
  type ForkActivation,
  type ForkFieldEvidence,
  type Era,
  type EraSpan,
  type NotVerifiable,
  type StateSyncRule,
  type Verifiability,
} from './chains/registry.js';
export { borStateSyncTxHash, type ExcludedReceipt, type ExcludedReceiptResult } from './chains/state-sync.js';

export { Problems, type InvalidInput, type Problem } from './input/values/problems.js';
export {
  readRpcBlock,
  readRpcHeader,
  readRpcReceipt,
  readRpcReceipts,
  type ExcludedRpcReceipt,
  type ReadRpcBlockOptions,
  type RpcBlock,
  type RpcHeader,
} from './input/json-rpc/json-rpc.js';

export {
  verifyBlock,
  commitmentsHold,
  verifyRpcBlock,
  verifyRpcBlockReceipts,
  type BlockRefusal,
  type BlockReport,
  type BlockVerifyContext,
  type Comparison,
} from './verify/verify-block.js';
export { admitEvidence, type EvidenceRefusal } from './verify/admit-evidence.js';
export {
  EVIDENCE_FORMAT,
  evidenceFileName,
  evidenceRecord,
  readEvidenceRecord,
  type EvidenceRecord,
} from './verify/evidence-record.js';
export { err, ok, type Result } from './result.js';
