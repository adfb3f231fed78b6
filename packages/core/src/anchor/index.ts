/**
 * `evm-integrity/anchor`: proofs that execution block hashes are the chain's, from one trusted beacon-chain
 * checkpoint, offline. Pure, like the core: SHA-256 branches from the checkpoint's state down to old
 * blocks, the pre-merge accumulator of EIP-7643, and the anchor proof file that carries them.
 */
export {
  AnchorProofVerifier,
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
export { FORKS, MAINNET, forkAtSlot, forkSlot, slotTimestamp, type BeaconNetwork, type Fork } from './networks.js';
export {
  beaconBlockHeaderRoot,
  historicalSummariesRoot,
  type BeaconBlockHeader,
  type HistoricalSummary,
} from './ssz.js';
export { branchRoot, isValidBranch, parentOf, placeOf, type BranchPlace, type Node } from './merkle-branch.js';
export { branchOf } from './ssz-schema.js';
export {
  bodyInBlockBranch,
  executionHashInBody,
  readSignedBeaconBlock,
  type BeaconBlockParts,
  type ExecutionHashInBody,
} from './beacon-block.js';
export {
  epochRootBranch,
  HISTORICAL_HASHES_ACCUMULATOR_ROOT,
  readAccumulator,
  trustEpochRoot,
  type TrustedEpochRoots,
} from './accumulator.js';
export { historicalEntryOf, type HistoricalList } from './beacon-block-proof.js';
export { historicalRootsGindex, historicalSummariesGindex } from './state-proof.js';
export { AnchorFormatError, SszShapeError } from '../errors.js';
