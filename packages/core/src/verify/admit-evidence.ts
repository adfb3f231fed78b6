/**
 * Admitting a block an operator vouches for as evidence of its chain's rules. The vouched hash binds the header, and the
 * header binds the receipts root and the bloom: only the real block can hash to the vouched hash and reproduce both.
 * So a block that does shows how its chain, in its era, encodes the kinds of receipts it holds.
 */
import { receiptKinds } from '../chains/claims.js';
import { defaultRegistry, describeNotVerifiable, type OperatorEvidence } from '../chains/registry.js';
import type { Vouch } from '../chains/chain-info.js';
import { readRpcBlock } from '../input/json-rpc.js';
import { describeProblems, Problems } from '../input/problems.js';
import { err, ok, type Result } from '../result.js';
import { verifyBlockOnTrial, type BlockVerifyContext } from './verify-block.js';

/** Why a block was not admitted as evidence, in one sentence. */
export interface EvidenceRefusal {
  reason: string;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * The evidence a block gives, when its header hashes to the vouched hash and its receipts reproduce the header's
 * receipts root and logs bloom under its chain's rules (every check of its era run, whatever evidence the era has); or
 * why not. Only a built-in chain's block in an era whose rules are implemented can be admitted: an added chain is
 * verified on its configuration's word already.
 *
 * @example
 * const admitted = admitEvidence(block, { blockHash, vouchedBy: 'ops', vouchedAt: new Date().toISOString(), file })
 * if (admitted.ok) new ChainRegistry([], { evidence: [admitted.value] })
 */
export function admitEvidence(
  input: unknown,
  vouch: Vouch,
  context: Pick<BlockVerifyContext, 'registry' | 'keccak'> = {},
): Result<OperatorEvidence, EvidenceRefusal> {
  const refuse = (reason: string) => err({ reason });
  if (!HASH.test(vouch.blockHash))
    return refuse(`the vouched hash ${JSON.stringify(vouch.blockHash)} is not a 32-byte hex string with 0x`);
  const registry = context.registry ?? defaultRegistry;
  const tried = verifyBlockOnTrial(input, { ...context, registry });
  if (!tried.ok) {
    const refusal = tried.error;
    if (refusal.kind === 'invalid') return refuse(`the block is not valid input: ${describeProblems(refusal)}`);
    const why = refusal.subject === null ? refusal.hint : describeNotVerifiable(refusal.subject);
    return refuse(`the block cannot be tried: ${why}`);
  }
  const report = tried.value;
  const chainId = report.chain_id;
  const chain = chainId === null ? undefined : registry.get(chainId);
  if (chainId === null || chain === undefined) return refuse('the block names no chain of the registry (chain_id)');
  if (chain.eras === undefined)
    return refuse(
      `chain ${chainId} (${chain.name}) was added on the configuration's word: its checks need no evidence, and evidence counts only for built-in chains`,
    );
  if (report.verdict === 'not_verifiable') return refuse(`the block cannot be tried: ${report.reason}`);
  const vouched = vouch.blockHash.toLowerCase();
  const computed = report.block_hash.computed === null ? null : `0x${report.block_hash.computed}`;
  if (computed !== vouched) return refuse(`its header hashes to ${computed}, not to the vouched hash ${vouched}`);
  if (report.verdict !== 'identical')
    return refuse(`it does not reproduce under the ${report.rules} rules of its era (${report.era}): ${report.reason}`);
  const read = readRpcBlock(input, new Problems(), { registry });
  if (read === undefined) return refuse('the block is not valid input');
  return ok({
    chainId,
    block: Number(report.block_number),
    receipts: receiptKinds(read.receipts, read.excludedReceipts.length > 0),
    logs: read.receipts.some((r) => r.logs.length > 0),
    vouch: { ...vouch, blockHash: vouched },
  });
}
