import type { HeaderLayoutName } from '../header/layouts.js';
import type { RuleSetName } from '../receipts/rules.js';

/** How a Polygon PoS era brings Bor's state sync into a block. */
export type StateSyncRule =
  /** Nodes return an extra receipt for it, which is in neither the receipts root nor the logs bloom. */
  | 'receipt-outside-root'
  /** A 0x7f transaction whose receipt is in the root. */
  | 'transaction';

/** The three commitments a block is checked against. */
export type CheckName = 'block_hash' | 'receipts_root' | 'logs_bloom';

export const CHECK_NAMES: readonly CheckName[] = ['block_hash', 'receipts_root', 'logs_bloom'];

/** A real block, kept in the repository's fixtures/blocks/ with its source, that reproduces a check. */
export interface EvidenceBlock {
  /** Its fixture, `fixtures/blocks/<fixture>.json`. */
  fixture: string;
  block: number;
}

/**
 * What shows each check of an era: the real blocks that reproduce it, or, for a check no real
 * block has shown, why it is not verified. A check is claimed only on evidence.
 */
export type EraEvidence = Readonly<Record<CheckName, readonly EvidenceBlock[] | string>>;

/** A block range of a chain with rules of its own; it runs from `from` to the block before the next era. */
export interface Era {
  name: string;
  /** First block of the era. */
  from: number;
  /** Why none of its blocks can be verified; absent when they can. */
  notVerifiable?: string;
  /** Polygon PoS: how state sync enters the block. */
  stateSync?: StateSyncRule;
  /** The era's receipt rule set, when it is not the chain's (OP Mainnet before Bedrock: Ethereum's). */
  rules?: RuleSetName;
  /** The era's header layout; Ethereum's when absent. */
  header?: HeaderLayoutName;
  /** What shows each check; required of the built-in chains (a test holds every claim to its fixtures). */
  evidence?: EraEvidence;
}

/** A chain the verifier knows. */
export interface ChainInfo {
  chainId: number;
  name: string;
  /** Receipt rule set its receipts follow. */
  rules: RuleSetName;
  /** Whether any of its blocks can be verified (see `eras` for which, and which checks). */
  verifiable: boolean;
  /** Why not, when it is not verifiable. */
  reason?: string;
  /**
   * Its eras in block order, the first from block 0. Absent for a chain an operator adds (a
   * devnet): one era with Ethereum's header, every check taken on the configuration's word.
   */
  eras?: readonly Era[];
}
