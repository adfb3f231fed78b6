/**
 * How far an era's evidence reaches for one block. A receipts root is claimed only for a block
 * whose kinds of receipts an evidence block of its era holds too: a block without receipts shows
 * nothing of how receipts are encoded, and a chain's own types (an OP deposit, an Arbitrum
 * internal transaction) or Bor's state-sync receipt are shown only by a real block holding one.
 * Receipts of Ethereum's types are shown once the era shows any: mainnet's blocks show how each
 * is encoded, the era's that its chain encodes them so. A logs bloom is claimed for a block with
 * logs only where an evidence block has logs.
 */
import type { Receipt } from '../receipts/receipt.js';
import type { CheckName, EvidenceBlock, ReceiptKind } from './chain-info.js';
import type { CheckClaim } from './registry.js';

/** Ethereum's receipt types, whose encoding mainnet's blocks show. */
const ETHEREUM_TYPES = new Set([0, 1, 2, 3, 4]);

/** The kind of one receipt: Ethereum's, or a type of its chain's own, or an untyped one that used no gas. */
function kindOf(receipt: Pick<Receipt, 'type' | 'cumulativeGasUsed'>): ReceiptKind {
  if (receipt.type === 0 && receipt.cumulativeGasUsed === 0n) return 'untyped-without-gas';
  return ETHEREUM_TYPES.has(receipt.type) ? 'ethereum' : receipt.type;
}

/** The kinds of a block's receipts, and Bor's state-sync receipt when one was left out. */
export function receiptKinds(
  receipts: ReadonlyArray<Pick<Receipt, 'type' | 'cumulativeGasUsed'>>,
  excludedStateSync: boolean,
): ReceiptKind[] {
  const kinds = new Set<ReceiptKind>(receipts.map(kindOf));
  if (excludedStateSync) kinds.add('state-sync-outside-root');
  return [...kinds];
}

const KIND_NAMES: Record<string, string> = {
  ethereum: "receipts of Ethereum's types",
  'state-sync-outside-root': "Bor's state-sync receipt",
  'untyped-without-gas': 'an untyped receipt that used no gas (a system transaction)',
};
const describeKind = (kind: ReceiptKind) =>
  typeof kind === 'number' ? `receipts of type 0x${kind.toString(16)}` : KIND_NAMES[kind]!;

/** What a block holds, as far as claims go. */
export interface BlockShape {
  kinds: readonly ReceiptKind[];
  hasLogs: boolean;
}

/** A claim of the era narrowed to one block: not claimed when the block holds what no evidence block holds. */
export function claimFor(check: CheckName, claim: CheckClaim, block: BlockShape): CheckClaim {
  if (!claim.verified || claim.evidence === 'configured' || check === 'block_hash') return claim;
  const evidence: readonly EvidenceBlock[] = claim.evidence;
  if (check === 'logs_bloom') {
    if (!block.hasLogs || evidence.some((e) => e.logs === true)) return claim;
    return {
      verified: false,
      reason: "no real block of this era in the project's fixtures with logs has shown its bloom yet",
    };
  }
  const shown = new Set(evidence.flatMap((e) => e.receipts ?? []));
  const unshown = block.kinds.find((kind) => !shown.has(kind));
  if (unshown === undefined) return claim;
  return {
    verified: false,
    reason: `no real block of this era in the project's fixtures has shown ${describeKind(unshown)} yet`,
  };
}
