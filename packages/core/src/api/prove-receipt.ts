import { bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, type NotVerifiable } from '../chains/registry.js';
import { encodeHeader } from '../header/header-encoding.js';
import { readRpcBlock } from '../input/json-rpc/json-rpc.js';
import { Problems, type InvalidInput } from '../input/values/problems.js';
import { RECEIPT_PROOF_FORMAT, RECEIPT_PROOF_VERSION } from '../input/requests/receipt-proof-request.js';
import { checkPosition, receiptProof } from '../proof/receipt-proof.js';
import { err, ok, type Result } from '../result.js';
import { verifyRpcBlock, type BlockVerifyContext } from '../verify/verify-block.js';

/** A receipt proof document: what `evm-integrity prove receipt` writes and the receipt-proof endpoint reads. */
export interface ReceiptProofDocument {
  format: typeof RECEIPT_PROOF_FORMAT;
  version: typeof RECEIPT_PROOF_VERSION;
  chain_id: number;
  block_number: number;
  block_hash: string;
  header_rlp: string;
  index: number;
  receipt_root: string;
  proof: string[];
}

/**
 * Why a block gives no proof: its input is invalid; its chain or era cannot be verified (no chain
 * id, outside the registry, or its receipts root or block hash unclaimed: `subject` when the
 * registry says why); its receipts or header do not match their commitments (`different`); or no
 * receipt is at the index.
 */
export type ProveRefusal =
  | InvalidInput
  | { kind: 'chain_not_supported'; subject: NotVerifiable | null; message?: string }
  | { kind: 'different'; message: string }
  | { kind: 'index_out_of_range'; message: string };

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;

/** Why no receipt of the block is at `index`. */
function outOfRange(index: number, count: number, excluded: number): string {
  const positions =
    count === 0
      ? 'the block has no receipts'
      : `the block has ${count} receipt${count === 1 ? '' : 's'} (indexes 0 to ${count - 1})`;
  const left = excluded > 0 ? `; its chain leaves ${excluded} more out of the receipts root, which no proof holds` : '';
  return `no receipt at index ${index}: ${positions}${left}`;
}

/**
 * The proof document of receipt `index` of a block in the fixtures' format (`readRpcBlock`), for
 * its chain's era in the registry. The block is verified first (`verifyRpcBlock`): its receipts
 * must give the header's receiptsRoot and its header its hash, each a check the era claims, and nothing it gives may
 * differ from its commitments (the report's verdict not `different`), so a proof is never made of data that is not
 * the block's.
 *
 * @throws RangeError naming `index` where it is not a non-negative integer given as a number (`'3'`, -1, 1.5): an
 * integer past the block's receipts is the refusal `index_out_of_range`.
 * @example
 * const proof = proveReceipt(JSON.parse(blockText), 3)
 * if (proof.ok) JSON.stringify(proof.value) // the document the receipt-proof endpoint checks
 */
export function proveReceipt(
  input: unknown,
  index: number,
  context: Omit<BlockVerifyContext, 'rules'> = {},
): Result<ReceiptProofDocument, ProveRefusal> {
  checkPosition('index', index);
  const problems = new Problems();
  const registry = context.registry ?? defaultRegistry;
  const block = readRpcBlock(input, problems, { registry, keccak: context.keccak });
  if (block === undefined) return err(problems.invalidInput());
  const { chainId } = block;
  if (chainId === null)
    return err({
      kind: 'chain_not_supported',
      subject: null,
      message: "The block names no chain_id: a proof is checked under its chain's rules, so it needs one.",
    });
  const report = verifyRpcBlock(block, { registry, keccak: context.keccak });
  if (!report.ok)
    return err(
      report.error.kind === 'invalid' ? report.error : { kind: 'chain_not_supported', subject: report.error.subject },
    );
  const verifiability = registry.verifiability(chainId, block.header.fields.number);
  if (verifiability.status === 'not_verifiable') return err({ kind: 'chain_not_supported', subject: verifiability });
  for (const check of ['receipts_root', 'block_hash'] as const) {
    const comparison = report.value[check];
    if (comparison.matches === null)
      return err({
        kind: 'chain_not_supported',
        subject: null,
        message: `The block's ${check} cannot be checked, so no proof is made: ${comparison.reason}`,
      });
    if (!comparison.matches)
      return err({
        kind: 'different',
        message: `The block's ${check} does not match: it claims 0x${comparison.expected}, its data give 0x${comparison.computed}; no proof is made of data that is not the block's.`,
      });
  }
  // The block's other data against their commitments too (its logs bloom, a receipt's own bloom, its raw receipts, its
  // withdrawals): the receipts' fields make the proof, but a block that differs anywhere is not the block's data (a user
  // check had a proof of a block whose receipt gave another bloom, which verify block calls different).
  if (report.value.verdict === 'different')
    return err({
      kind: 'different',
      message: `The block ${report.value.reason} (verify block names the mismatch); no proof is made of data that is not the block's.`,
    });
  // The report's checks ran, so the era is verifiable.
  if (verifiability.status !== 'verifiable') throw new Error('a block checked in an era that is not verifiable');
  if (index >= block.receipts.length)
    return err({
      kind: 'index_out_of_range',
      message: outOfRange(index, block.receipts.length, block.excludedReceipts.length),
    });
  const proof = receiptProof(block.receipts, index, { rules: verifiability.rules, keccak: context.keccak });
  const header = block.header.complete!;
  return ok({
    format: RECEIPT_PROOF_FORMAT,
    version: RECEIPT_PROOF_VERSION,
    chain_id: chainId,
    block_number: Number(header.number),
    block_hash: hex(block.header.hash!),
    header_rlp: hex(encodeHeader(header, verifiability.header)),
    index,
    receipt_root: hex(proof.receiptsRoot),
    proof: proof.proof.map(hex),
  });
}
