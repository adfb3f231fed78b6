import { describeNotVerifiable, formatBlock, type NotVerifiable } from '../chains/registry.js';
import type { ExcludedReceiptResult } from '../chains/state-sync.js';
import { errorEnvelope, type OperationContext, type OperationResult } from './envelope.js';

const REGISTRY_HINT =
  'GET /v1/chains lists the supported chains; an operator can add a chain, with its rule set, in the configuration.';
const OWN_PROOFS = "use the proofs the chain's own protocol provides";
const VOUCH = "an operator can vouch for a real block of it (evm-integrity evidence add; the server's evidence_dir)";

/** Whether the era of `subject` has rules to verify under, so that operator evidence can bring its blocks in. */
function evidenceCanHelp({ chain, era }: NotVerifiable): boolean {
  if (chain === undefined || !chain.verifiable || chain.eras === undefined) return false;
  return era === null || chain.eras.find((e) => e.from === era.firstBlock)?.notVerifiable === undefined;
}

/**
 * The details every 422 of a chain carries: the chain (its id, and its name when the registry knows it), the block when
 * the body named it, and why it cannot be verified. Null members where the input named no chain.
 */
function chainDetails(
  subject: NotVerifiable | null,
  options: { blockNumber?: bigint },
): { chain_id: number | null; chain: string | null; block_number: number | null; reason: string } {
  return {
    chain_id: subject?.chainId ?? null,
    chain: subject?.chain?.name ?? null,
    block_number: options.blockNumber === undefined ? null : Number(options.blockNumber),
    reason: subject?.reason ?? 'the input names no chain_id',
  };
}

/** The 422's details for a block of a chain's era: the chain, the era and its blocks, why, and what is verified. */
function eraDetails(
  subject: NotVerifiable,
  options: { blockNumber?: bigint; excludedReceipts?: ExcludedReceiptResult[] },
): Record<string, unknown> {
  const { era, firstVerifiableBlock } = subject;
  const excluded = options.excludedReceipts ?? [];
  const { reason, ...chain } = chainDetails(subject, options);
  return {
    ...chain,
    era: era!.name,
    era_first_block: era!.firstBlock,
    era_last_block: era!.lastBlock,
    first_verifiable_block: firstVerifiableBlock,
    reason,
    ...(excluded.length > 0 && { excluded_receipts: excluded }),
  };
}

/**
 * The 422 CHAIN_NOT_SUPPORTED answer, for every way a block cannot be verified: its
 * input names no chain (`null`), a chain outside the registry, a chain none of whose
 * blocks can be verified, or a block in an era that cannot be. `details` always names the
 * chain (`chain_id`, and `chain` when the registry knows it), the block and why; for an era, also the era and its blocks, and the first block that can be verified, and the receipts
 * sent that the era's rule leaves out of the root (`excluded_receipts`, when there are any).
 *
 * @example
 * chainNotSupported(defaultRegistry.verifiability(42161, 1000) as NotVerifiable, {}, { blockNumber: 1000n }).body
 * // { error: { code: 'CHAIN_NOT_SUPPORTED', details: { era: 'Arbitrum classic', first_verifiable_block: 22207817, … } } }
 */
export function chainNotSupported(
  subject: NotVerifiable | null,
  context: OperationContext = {},
  options: { blockNumber?: bigint; unknownChainHint?: string; excludedReceipts?: ExcludedReceiptResult[] } = {},
): OperationResult {
  let message: string;
  let hint: string;
  let details: Record<string, unknown> = chainDetails(subject, options);
  if (subject === null || subject.chain === undefined) {
    message =
      subject === null
        ? 'The input names no chain_id, so its receipt rules are unknown.'
        : describeNotVerifiable(subject);
    hint = options.unknownChainHint ?? REGISTRY_HINT;
  } else if (subject.check !== undefined) {
    message = describeNotVerifiable(subject, options.blockNumber);
    hint =
      subject.hint ??
      `${subject.chain.name} is verified where a block's receipts are of kinds its real blocks have shown; check that these are as the node gave them (a changed member can make a receipt look like another kind); else ${VOUCH.replace('of it', 'of it that holds them')}, or ${OWN_PROOFS}.`;
    if (subject.era !== null) details = eraDetails(subject, options);
  } else if (subject.era === null || (subject.era.firstBlock === 0 && subject.era.lastBlock === null)) {
    message = describeNotVerifiable(subject);
    hint = evidenceCanHelp(subject)
      ? `${VOUCH[0]!.toUpperCase()}${VOUCH.slice(1)}; else verify this chain with the proofs its own protocol provides.`
      : 'Verify this chain with the proofs its own protocol provides.';
  } else {
    const { chain, firstVerifiableBlock } = subject;
    message = describeNotVerifiable(subject, options.blockNumber);
    const forThisEra = evidenceCanHelp(subject) ? `${VOUCH}, or ${OWN_PROOFS}` : OWN_PROOFS;
    hint =
      firstVerifiableBlock === null
        ? `No later block of ${chain.name} can be verified either; for this era, ${forThisEra}.`
        : `${chain.name} blocks from ${formatBlock(firstVerifiableBlock)} on can be verified; for this era, ${forThisEra}.`;
    details = eraDetails(subject, options);
  }
  return {
    status: 422,
    verdict: 'not_verifiable',
    body: errorEnvelope({ code: 'CHAIN_NOT_SUPPORTED', http_status: 422, message, hint, details }, context),
  };
}
