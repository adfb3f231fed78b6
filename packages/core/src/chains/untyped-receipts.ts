/**
 * Receipts none of which gives its `type`: each is read as legacy (0), which may be wrong for a block that may hold
 * typed transactions. A receipts root computed so that differs is then no mismatch: the difference may be the types
 * left out. One rule, for the receipt-root operation and for `verify block`.
 */
import type { ForkActivation } from './chain-info.js';
import { describeActivation, mayHoldTypedTransactions, typedTransactionsFrom } from './fork-schedule.js';

/** What the rule reads of a block whose receipts' root differs from the one claimed. */
export interface UntypedReceipts {
  /** The chain's name, and its fork schedule where it has one. */
  chain: { name: string; forks?: readonly ForkActivation[] };
  /** The block's number, where known. */
  number: bigint | undefined;
  /** How many receipts the root is computed from: of none, no type was left out, and the root computed is certain. */
  count: number;
  /** Whether any receipt the source sent (one left out of the root too) gives its type. */
  typesGiven: boolean;
  /** Whether any receipt gives a post-state root: that dates the block before Byzantium, so before typed transactions. */
  rootGiven: boolean;
}

/** Why the types left out may explain a root that differs, for a reason and a hint to name. */
export interface UntypedDoubt {
  /** Where the block may hold typed transactions: "the block is from Berlin (block 12,244,000) on, …". */
  where: string;
  /** The fork that starts typed transactions, where the block may come before it (its number would settle it). */
  before?: ForkActivation;
}

/**
 * Why a receipts root computed from receipts read as legacy may differ for their types alone: there are some, none gives
 * its type, and the block may hold typed transactions (its chain's schedule starts them at or before it, or nothing
 * tells). Undefined where the types read are right: there is no receipt, a receipt gives a type (so each that does not
 * is legacy), the block comes before typed transactions by its number, or a receipt gives a post-state root (before
 * Byzantium, which every chain's typed transactions follow: EIP-2718 came at Berlin).
 *
 * @example
 * untypedDoubt({ chain: mainnet, number: 17034870n, count: 3, typesGiven: false, rootGiven: false })
 * // { where: 'the block is from Berlin (block 12,244,000) on, where transactions may be typed' }
 */
export function untypedDoubt(receipts: UntypedReceipts): UntypedDoubt | undefined {
  const { chain, number } = receipts;
  if (
    receipts.count === 0 ||
    receipts.typesGiven ||
    receipts.rootGiven ||
    !mayHoldTypedTransactions(chain.forks, number)
  )
    return undefined;
  const typed = typedTransactionsFrom(chain.forks);
  if (typed === undefined) return { where: `${chain.name}'s blocks may hold typed transactions` };
  const maybeBefore = number === undefined && typed.block! > 0;
  return {
    where: `the block ${maybeBefore ? 'may be' : 'is'} from ${typed.fork} (${describeActivation(typed)}) on, where transactions may be typed`,
    ...(maybeBefore && { before: typed }),
  };
}

/**
 * The reason a root computed from untyped receipts is not asserted to differ from the root `claimed`, `doubt` saying
 * where; `entry` names what the body lists (a transaction, a receipt).
 */
export const untypedRootReason = (doubt: UntypedDoubt, entry: string, claimed: string): string =>
  `no ${entry} gives its type, so each was read as 0 (legacy), and the root computed so differs from ${claimed}; ${doubt.where}, and a typed transaction's receipt hashes its type, so the difference may be the types left out, not the receipts`;
