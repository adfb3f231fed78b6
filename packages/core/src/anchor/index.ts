/**
 * `evm-integrity/anchor`: proofs that execution block hashes are the chain's, from one trusted beacon-chain
 * checkpoint, offline. Pure, like the core: SHA-256 branches from the checkpoint's state down to old
 * blocks, the pre-merge accumulator of EIP-7643, and the anchor proof file that carries them.
 */
export {
  AnchorProofVerifier,
  readAnchorFileHead,
  verifyAnchorProof,
  type AnchorRefusal,
  type AnchorRefusalReason,
  type AnchorVerdict,
  type ProvenBlock,
  type ProvenVia,
} from './proof-file/verify.js';
export { AnchoredHashes, anchoredHashes, describeAnchorRefusal } from './proof-file/anchored.js';
export {
  ANCHOR_PROOF_VERSION,
  readAnchorHead,
  readAnchorRecord,
  type AnchorFormatProblem,
  type AnchorProofHead,
  type AnchorRecord,
  type BeaconHeaderRecord,
  type BlockProof,
  type BlockRecord,
  type LightClientRecord,
  type ListEntry,
  type StateField,
} from './proof-file/records.js';
export { formatAnchorHead, formatAnchorRecord } from './proof-file/write.js';
export {
  BEACON_NETWORKS,
  beaconNetwork,
  FORKS,
  HOLESKY,
  HOODI,
  MAINNET,
  SEPOLIA,
  forkAtSlot,
  forkSlot,
  slotTimestamp,
  type BeaconNetwork,
  type Fork,
} from './networks.js';
export { verifyBootstrap } from './light-client/bootstrap.js';
export { applyUpdate, verifyUpdate, MIN_FINALITY_PARTICIPANTS, type VerifiedUpdate } from './light-client/update.js';
export type { LightClientState, TrustedSyncCommittee } from './light-client/state.js';
export type { HeaderRole, LightClientBranch, LightClientRefusal } from './light-client/refusal.js';
export {
  executionBlockOf,
  LIGHT_CLIENT_FORKS,
  type ExecutionBlockRef,
  type ExecutionPayloadHeader,
  type LightClientBootstrap,
  type LightClientDecodeProblem,
  type LightClientFork,
  type LightClientHeader,
  type LightClientUpdate,
  type SyncAggregate,
  type SyncCommittee,
} from './light-client/containers.js';
export {
  decodeBootstrap,
  decodeUpdate,
  sszDataFork,
  type Decoded,
  type UpdateShape,
} from './light-client/decode-ssz.js';
export { decodeBootstrapJson, decodeUpdateJson } from './light-client/decode-json.js';
export { splitBeaconApiList, splitForkDigest, type ForkDigestedData } from './light-client/framing.js';
export {
  checkpointBlockRecord,
  checkpointRecord,
  preMergeBlockRecord,
  summariesBlockRecord,
} from './proof-file/build.js';
export { executionBlockNumber, executionHeaderOf, type ExecutionHeader } from './execution-header.js';
export {
  beaconBlockHeaderRoot,
  historicalSummariesRoot,
  SLOTS_PER_HISTORICAL_ROOT,
  type BeaconBlockHeader,
  type HistoricalSummary,
} from './ssz.js';
export { branchRoot, isValidBranch, parentOf, placeOf, type BranchPlace, type Node } from './merkle-branch.js';
export { branchOf, listEntryBranch } from './ssz-schema.js';
export {
  bodyInBlockBranch,
  executionHashInBody,
  readSignedBeaconBlock,
  type BeaconBlockParts,
  type ExecutionHashInBody,
} from './beacon-block.js';
export {
  EPOCH_SIZE,
  epochOf,
  epochRecordBranch,
  epochRootBranch,
  HISTORICAL_HASHES_ACCUMULATOR_ROOT,
  MERGE_BLOCK,
  readAccumulator,
  readEpochRecord,
  type EpochRecord,
  trustEpochRoot,
  type TrustedEpochRoots,
} from './accumulator.js';
export { historicalEntryOf, type HistoricalList } from './beacon-block-proof.js';
export { historicalRootsGindex, historicalSummariesGindex } from './state-proof.js';
export { AnchorFormatError, LightClientDecodeError, SszShapeError } from '../errors.js';
