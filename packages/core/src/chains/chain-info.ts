import type { RuleSetName } from '../receipts/rules.js';

/** How a Polygon PoS era brings Bor's state sync into a block. */
export type StateSyncRule =
  /** Nodes return an extra receipt for it, which is in neither the receipts root nor the logs bloom. */
  | 'receipt-outside-root'
  /** A 0x7f transaction whose receipt is in the root. */
  | 'transaction';

/** A block range of a chain with rules of its own; it runs from `from` to the block before the next era. */
export interface Era {
  name: string;
  /** First block of the era. */
  from: number;
  /** Why its blocks cannot be verified; absent when they can. */
  notVerifiable?: string;
  /** Polygon PoS: how state sync enters the block. */
  stateSync?: StateSyncRule;
}

/** A chain the verifier knows. */
export interface ChainInfo {
  chainId: number;
  name: string;
  /** Receipt rule set its receipts follow. */
  rules: RuleSetName;
  /** Whether any of its receipts roots is a Patricia root of its receipts (see `eras` for which). */
  verifiable: boolean;
  /** Why not, when it is not verifiable. */
  reason?: string;
  /** Its eras in block order, the first from block 0; absent when all its blocks follow the same rules. */
  eras?: readonly Era[];
}
