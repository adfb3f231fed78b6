/**
 * Admitting a block an operator vouches for as evidence of its chain's rules. The vouched hash binds the header, and the
 * header binds the receipts root and the bloom: only the real block can hash to the vouched hash and reproduce both.
 * So a block that does shows how its chain, in its era, encodes the kinds of receipts it holds.
 */
import { receiptKinds } from '../chains/claims.js';
import { builtinChain } from '../chains/builtin.js';
import { CHECK_NAMES, defaultRegistry, describeNotVerifiable, type OperatorEvidence } from '../chains/registry.js';
import type { Vouch } from '../chains/chain-info.js';
import { readRpcBlock } from '../input/json-rpc/json-rpc.js';
import { describeProblems, Problems } from '../input/values/problems.js';
import { err, ok, type Result } from '../result.js';
import { commitmentsHold, verifyRpcBlockOnTrial, type BlockVerifyContext } from './verify-block.js';

/**
 * Why a block was not admitted as evidence, in one sentence, and of which kind: `invalid`, input that is no block;
 * `cannot_try`, a block whose chain or era has no rules to try it under (not built in, or not implemented);
 * `not_reproduced`, a block that does not hash to the vouched hash or does not reproduce its commitments.
 */
export interface EvidenceRefusal {
  kind: 'invalid' | 'cannot_try' | 'not_reproduced';
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
  const refuse = (kind: EvidenceRefusal['kind'], reason: string) => err({ kind, reason });
  if (!HASH.test(vouch.blockHash))
    return refuse('invalid', `the vouched hash ${JSON.stringify(vouch.blockHash)} is not a 32-byte hex string with 0x`);
  const registry = context.registry ?? defaultRegistry;
  const problems = new Problems();
  const read = readRpcBlock(input, problems, { registry, keccak: context.keccak });
  if (read === undefined)
    return refuse('invalid', `the block is not valid input: ${describeProblems(problems.invalidInput())}`);
  const tried = verifyRpcBlockOnTrial(read, { ...context, registry });
  if (!tried.ok) {
    const refusal = tried.error;
    if (refusal.kind === 'invalid')
      return refuse('invalid', `the block is not valid input: ${describeProblems(refusal)}`);
    const why = refusal.subject === null ? refusal.hint : describeNotVerifiable(refusal.subject);
    return refuse('cannot_try', `the block cannot be tried: ${why}`);
  }
  const report = tried.value;
  const chainId = report.chain_id;
  if (chainId === null) return refuse('invalid', 'the block names no chain (chain_id)');
  if (builtinChain(chainId) === undefined)
    return refuse(
      'cannot_try',
      `chain ${chainId} is not built in: evidence counts only for built-in chains (an added chain's checks are on its configuration's word)`,
    );
  // Nothing ran: the era has no rules to try the block under.
  if (CHECK_NAMES.every((check) => report[check].matches === null))
    return refuse('cannot_try', `the block cannot be tried: ${report.reason}`);
  const vouched = vouch.blockHash.toLowerCase();
  const { computed, reason } = report.block_hash;
  // A header that does not hash to its own hash, on a chain no real block shows the fork fields of at its height, is told
  // as a header that may have lost one: either way it is not the block vouched for.
  if (computed === null)
    return refuse(
      'not_reproduced',
      `its header does not hash to ${report.block_hash.expected === null ? 'its hash' : `0x${report.block_hash.expected}`} (${reason?.replace(/^not verifiable: /, '')})`,
    );
  if (`0x${computed}` !== vouched)
    return refuse('not_reproduced', `its header hashes to 0x${computed}, not to the vouched hash ${vouched}`);
  if (report.verdict === 'different')
    return refuse(
      'not_reproduced',
      `it does not reproduce under the ${report.rules} rules of its era (${report.era}): ${report.reason}`,
    );
  // A block holding Bor's state-sync receipt is not proven for that receipt, but reproduces: its commitments hold.
  if (!commitmentsHold(report)) return refuse('cannot_try', `the block cannot be tried: ${report.reason}`);
  const { layout, fields } = read.header;
  const forkFields = layout.fields.slice(layout.required).map(({ name }) => name);
  return ok({
    chainId,
    block: Number(report.block_number),
    receipts: receiptKinds(read.receipts, read.excludedReceipts.length > 0),
    logs: read.receipts.some((r) => r.logs.length > 0),
    forkFields: {
      present: forkFields.filter((name) => fields[name] !== undefined),
      absent: forkFields.filter((name) => fields[name] === undefined),
    },
    vouch: { ...vouch, blockHash: vouched },
  });
}
