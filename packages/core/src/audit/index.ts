/**
 * `evm-integrity/audit`: range audits. `auditRange` audits every block of a range from a block
 * source (a JSON-RPC node, a recorded bundle) and yields one line per block, a line per reorg,
 * and a summary; a `CrossCheck` checks another copy of the data (the hosted service's datasets)
 * chunk by chunk. Pure; the network sources are in `evm-integrity/node`.
 */
export {
  auditRange,
  auditReorgBack,
  DEFAULT_MAX_REORG_DEPTH,
  RangeAudit,
  type AuditRangeOptions,
  type EarlierRun,
  type ReorgBackOptions,
} from './engine.js';
// A block's claimed hash and parent hash as the engine reads them, and its parent link: a job queue joins chunks by them.
export { hashOf, linkParent, parentHashOf, vouchedHash, type ExpectedParent } from './block-checks.js';
export type { Anchoring, AnchoringSummary, Assurance } from './anchors.js';
// What an audit is run with, from the rooms that hold it: the block sources' contract and errors, the offline
// source, the block verifier (also exported by `evm-integrity/lineage`, which shares them).
export { inlineBlockVerifier, type BlockVerifier } from '../verify/block-verifier.js';
export type { BlockJson, BlockSource } from '../sources/block-source.js';
export { ChainMismatchError, SourceError } from '../errors.js';
export { BundleSource } from '../bundle/bundle-source.js';
export {
  AuditTally,
  FAILED_LINES_LISTED,
  isReorg,
  type AuditEvent,
  type FailedLine,
  type UncountedFailures,
  type AuditReorg,
  type AuditSummary,
  type AuditTimings,
  type BlockAudit,
  type ReplacedBlock,
} from './audit-report.js';
export type {
  AuditCheckName,
  AuditFailure,
  AuditVerdict,
  BlockTruth,
  CrossCheck,
  CrossCheckFindings,
} from './vocabulary.js';
export { isCrossCheck } from './vocabulary.js';
// The hosted service's raw-dataset checks of one block (pure); `serviceCrossCheck` in `evm-integrity/node` fetches
// their records.
export { checkServiceBlock, SERVICE_BLOCK_CHECKS } from './service-block.js';
export { checkServiceLogs, SERVICE_LOGS_CHECKS } from './service-logs.js';
