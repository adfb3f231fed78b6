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

/** A receipt of no type that used no gas: a system transaction, which no Ethereum transaction can be. */
const SYSTEM = 'untyped-without-gas';

/** Whether a receipt is of the kind {@link SYSTEM}: untyped, and no gas used up to it. */
export const isSystemReceipt = (receipt: Pick<Receipt, 'type' | 'cumulativeGasUsed'>): boolean =>
  receipt.type === 0 && receipt.cumulativeGasUsed === 0n;

/** The OP-stack deposit type, whose receipts hash their nonce and version from Canyon on. */
const DEPOSIT_TYPE = 0x7e;

/**
 * The kind of one receipt: Ethereum's, or a type of its chain's own, or an untyped one that used no gas. A deposit
 * receipt with its Canyon version is a kind apart: it hashes two more fields than one without.
 */
function kindOf(receipt: Pick<Receipt, 'type' | 'cumulativeGasUsed' | 'depositReceiptVersion'>): ReceiptKind {
  if (isSystemReceipt(receipt)) return SYSTEM;
  if (receipt.type === DEPOSIT_TYPE && receipt.depositReceiptVersion !== undefined) return 'deposit-versioned';
  return ETHEREUM_TYPES.has(receipt.type) ? 'ethereum' : receipt.type;
}

/** The kinds of a block's receipts, and Bor's state-sync receipt when one was left out. */
export function receiptKinds(
  receipts: ReadonlyArray<Pick<Receipt, 'type' | 'cumulativeGasUsed' | 'depositReceiptVersion'>>,
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
  'deposit-versioned': 'deposit receipts (type 0x7e) with their Canyon nonce and version',
};
const describeKind = (kind: ReceiptKind) =>
  typeof kind === 'number' ? `receipts of type 0x${kind.toString(16)}` : KIND_NAMES[kind]!;

/** What a block holds, as far as claims go. */
export interface BlockShape {
  kinds: readonly ReceiptKind[];
  hasLogs: boolean;
}

type Claimed = Extract<CheckClaim, { verified: true }>;

/** Whether an evidence block shows what a check of the block needs of it (for the receipts root: one of its kinds). */
type Shows = (evidence: EvidenceBlock) => boolean;

/**
 * The block that shows `shows`, looked for in order of strength: the chain's shipped blocks, the family's under the
 * chain's registry entry, the blocks an operator vouched for.
 */
function strongest(claim: Claimed & { evidence: readonly EvidenceBlock[] }, shows: Shows) {
  const own = claim.evidence.find((e) => e.operator === undefined && shows(e));
  if (own !== undefined) return { own };
  const family = claim.registry?.evidence.find(shows);
  if (family !== undefined) return { family };
  const vouched = claim.evidence.find((e) => e.operator !== undefined && shows(e));
  return vouched === undefined ? undefined : { own: vouched };
}

/** Why a block's check is not claimed: nothing shows what it holds. */
function unshownReason(claim: Claimed, what: string): string {
  const family = claim.registry === undefined ? '' : ", nor any of its rule set's family";
  return `no real block of this era in the project's fixtures${family} has shown ${what} yet, nor has an operator's evidence`;
}

/**
 * A claim of the era narrowed to one block: to the evidence blocks that show what the block holds, the strongest kind
 * of evidence first; not claimed when the block holds what no evidence block holds.
 */
export function claimFor(check: CheckName, claim: CheckClaim, block: BlockShape): CheckClaim {
  if (!claim.verified || claim.evidence === 'configured') return claim;
  const evidence = { ...claim, evidence: claim.evidence };
  const needs: Array<{ what: string; shows: Shows }> = [];
  if (check === 'logs_bloom' && block.hasLogs)
    needs.push({ what: 'its bloom with logs', shows: (e) => e.logs === true });
  // A system transaction's logs may stand outside the bloom (Bor's state-sync receipt, when its hash does not tell it
  // apart), so a bloom over one is claimed only where a real block with one shows how its chain counts them.
  if (check === 'logs_bloom' && block.hasLogs && block.kinds.includes(SYSTEM))
    needs.push({ what: describeKind(SYSTEM), shows: (e) => e.receipts?.includes(SYSTEM) === true });
  if (check === 'receipts_root')
    for (const kind of block.kinds)
      needs.push({ what: describeKind(kind), shows: (e) => e.receipts?.includes(kind) === true });
  if (needs.length === 0) needs.push({ what: 'it', shows: () => true });
  const own: EvidenceBlock[] = [];
  const family: EvidenceBlock[] = [];
  for (const need of needs) {
    const found = strongest(evidence, need.shows);
    if (found === undefined) return { verified: false, reason: unshownReason(claim, need.what) };
    if (found.own !== undefined && !own.includes(found.own)) own.push(found.own);
    if (found.family !== undefined && !family.includes(found.family)) family.push(found.family);
  }
  return {
    verified: true,
    evidence: own,
    ...(family.length > 0 && { registry: { entry: claim.registry!.entry, evidence: family } }),
  };
}
