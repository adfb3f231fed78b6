/**
 * `evm-integrity/lineage`: the walker that audits a derived record of the hosted data service
 * against its genesis artifacts and the blocks they came from, the bundle format it reads offline,
 * and the ABI checks of published function results. Pure; the network sources are in
 * `evm-integrity/node`.
 */
export { walkLineage, type WalkOptions } from './walker.js';
export { inlineBlockVerifier, type BlockVerifier } from '../verify/block-verifier.js';
export type { Check, CheckStatus, LineageAssurance, LineageReport, RecordReport } from './lineage-report.js';
export type { BlockAnchors } from './onchain.js';
export { BundleSource, parseBundle, type Bundle } from '../bundle/bundle-source.js';
export { ChainMismatchError, SourceError, type InputProblem } from '../errors.js';
export { type BlockJson, type BlockSource } from '../sources/block-source.js';
export { type Exchange } from '../sources/exchange.js';
export { type GenesisAnswer, type LineageSource, type RecordAnswer } from './sources/lineage-source.js';
export {
  checkFunctionResult,
  decodeFunctionOutput,
  KNOWN_FUNCTIONS,
  type DecodedOutput,
  type DecodeResult,
  type FunctionResultCheck,
  type KnownFunction,
} from './abi.js';
export { datasetId, DATASETS } from './sources/datasets.js';
export { LINEAGE_LIMITS, type LineageLimit } from './sources/input-limits.js';
