import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { logsBloom } from '../bloom/bloom.js';
import { claimFor, receiptKinds } from '../chains/claims.js';
import { defaultRegistry, uncheckable } from '../chains/registry.js';
import { parseReceiptProofRequest, type ReceiptProofRequest } from '../input/requests/receipt-proof-request.js';
import type { HashOptions } from '../keccak/keccak.js';
import { verifyBlockReceiptProof, type ProvenBlockReceipt } from '../proof/block-receipt-proof.js';
import type { ProofFault, ProofRefusal } from '../proof/refusal.js';
import type { Receipt } from '../receipts/receipt.js';
import { err, type Result } from '../result.js';
import {
  anchoringJson,
  anchorRefusedMessage,
  readAnchor,
  unprovenMessage,
  type AnchoringJson,
} from './anchor-proof.js';
import type { AnchoredHashes } from '../anchor/index.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, type OperationResult } from './envelope.js';
import type { ReceiptRootContext } from './receipt-root-operation.js';

/** A proven receipt as a JSON-RPC node gives it (`eth_getTransactionReceipt`), with what the proof binds it to. */
export interface RpcReceiptJson {
  blockHash: string;
  blockNumber: string;
  transactionIndex: string;
  type: string;
  status?: string;
  root?: string;
  cumulativeGasUsed: string;
  logsBloom: string;
  logs: Array<{ address: string; topics: string[]; data: string }>;
  depositNonce?: string;
  depositReceiptVersion?: string;
}

/** Why a receipt proof answer is not valid: a fault of the proof, or the anchor proof sent with it refused. */
export type ReceiptProofReason = ProofFault | 'anchor-refused';

/** `data[0]` of a receipt-proof answer: whether the proof holds, why not, and the receipt it proves. */
export interface ReceiptProofResult {
  is_valid: boolean;
  /** Why the proof does not hold; null when it does. */
  reason: ReceiptProofReason | null;
  /** The proof node that fails (the proof's length when one is missing); null when none does. */
  node: number | null;
  message: string | null;
  block_number: number;
  block_hash: string;
  transaction_index: number;
  receipt: RpcReceiptJson | null;
  /** With `anchor`, when the proof holds: the checkpoint that proves the block's hash. Else null. */
  anchoring: AnchoringJson | null;
  /**
   * What `block_hash` was held to: the `expected_block_hash` sent, or the `anchor`'s proven hashes; null where the body
   * sent neither (a trust member misnamed among them), so that the block hash is the document's own word: a proof that
   * holds then shows the receipt is in that block, not that the block is the chain's.
   */
  block_hash_held_to: 'expected_block_hash' | 'anchor' | null;
}

/**
 * Every reason a receipt proof can fail for, in a few words (a record, so that a new fault of the
 * library cannot be left out of the answer's documented values).
 */
export const RECEIPT_PROOF_FAULTS: Readonly<Record<Exclude<ReceiptProofReason, 'log-absent'>, string>> = {
  'block-hash-mismatch':
    'header_rlp does not hash to block_hash, or block_hash is not expected_block_hash, or not among the blocks the anchor proof proves',
  'anchor-refused': 'the anchor proof does not verify from its checkpoint (the message names the line and why)',
  'header-invalid': "header_rlp is no header of its era's layout",
  'root-mismatch': "receipt_root is not the header's receiptsRoot",
  'hash-mismatch': "a node's hash is not the root (node 0) or the one its parent names",
  'bad-rlp': 'a node is not RLP',
  'bad-node': 'a node is no trie node',
  'path-mismatch': "a node leads away from the index's key",
  'missing-node': 'the proof ends before the leaf',
  'extra-node': 'the proof goes on after the leaf',
  'receipt-invalid': "the leaf is no receipt of the era's rules",
};

const data = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;
const quantity = (n: number | bigint) => `0x${n.toString(16)}`;

/** A receipt in JSON-RPC's conventions: 0x quantities and data, camelCase. */
function rpcReceipt(receipt: Receipt, at: ReceiptProofRequest, options: HashOptions): RpcReceiptJson {
  return {
    blockHash: data(at.blockHash),
    blockNumber: quantity(at.blockNumber),
    transactionIndex: quantity(at.index),
    type: quantity(receipt.type),
    ...(receipt.root === undefined ? { status: quantity(receipt.status ?? 0) } : { root: data(receipt.root) }),
    cumulativeGasUsed: quantity(receipt.cumulativeGasUsed),
    logsBloom: data(logsBloom(receipt.logs, options)),
    logs: receipt.logs.map((log) => ({
      address: data(log.address),
      topics: log.topics.map(data),
      data: data(log.data),
    })),
    ...(receipt.depositNonce !== undefined && { depositNonce: quantity(receipt.depositNonce) }),
    ...(receipt.depositReceiptVersion !== undefined && {
      depositReceiptVersion: quantity(receipt.depositReceiptVersion),
    }),
  };
}

/**
 * The proof checked by the library, then bound to the block hash the caller trusts, when it named one, or to the
 * blocks the anchor proof proves.
 */
function check(
  request: ReceiptProofRequest,
  options: HashOptions,
  anchored: AnchoredHashes | undefined,
): Result<ProvenBlockReceipt, ProofRefusal> {
  const { verifiability, blockHash, headerRlp, index, receiptRoot, proof, expectedBlockHash } = request;
  const proven = verifyBlockReceiptProof(
    blockHash,
    headerRlp,
    { receiptsRoot: receiptRoot, index, proof },
    { rules: verifiability.rules, layout: verifiability.header, keccak: options.keccak },
  );
  if (proven.ok && expectedBlockHash !== undefined && !bytesEqual(expectedBlockHash, blockHash))
    return err({
      reason: 'block-hash-mismatch',
      message: `The proof is of block 0x${bytesToHex(blockHash)}, not of the expected block 0x${bytesToHex(expectedBlockHash)}.`,
    });
  const unanchored =
    proven.ok && anchored ? unprovenMessage(anchored, request.blockNumber, blockHash, request.chainId) : null;
  if (unanchored !== null) return err({ reason: 'block-hash-mismatch', message: unanchored });
  return proven;
}

/**
 * `POST /v1/evm/verify/receipt-proof`: checks a receipt proof document (what `evm-integrity prove
 * receipt` writes) with the library's {@link verifyBlockReceiptProof}: the header hashes to
 * block_hash (and to expected_block_hash when given), its receiptsRoot is the proof's root, and the
 * proof holds the receipt under it. A proof that does not hold is a 200 with is_valid false and
 * the reason, as the other verify endpoints answer a mismatch. The era (chain_id and the header's
 * number) gives the rules; one that cannot be verified is 422. With `anchor` (an anchor proof and
 * its checkpoint) in place of expected_block_hash, block_hash must be one the anchor proof proves
 * from the checkpoint (`anchoring` then names it); an anchor proof that does not verify is
 * `anchor-refused`.
 *
 * @example
 * verifyReceiptProofOperation(JSON.parse(proofText)).body
 * // { chain_id: 1, data: [{ is_valid: true, …, receipt: { status: '0x1', … } }], cursor: null, count: 1 }
 */
export function verifyReceiptProofOperation(body: unknown, context: ReceiptRootContext = {}): OperationResult {
  const parsed = parseReceiptProofRequest(body, context.registry ?? defaultRegistry);
  if (!parsed.ok) {
    const refusal = parsed.error;
    if (refusal.kind === 'invalid')
      return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
    return chainNotSupported(refusal.verifiability, context, { blockNumber: refusal.blockNumber! });
  }
  const request = parsed.value;
  const anchor =
    request.anchor === undefined ? undefined : readAnchor(request.anchor, 'anchor.proof', request.chainId, context);
  if (anchor?.kind === 'answer') return anchor.result;
  if (anchor?.kind === 'refused')
    return answer(request, {
      ok: false,
      error: { reason: 'anchor-refused', message: anchorRefusedMessage(anchor.refusal) },
    });
  const anchored = anchor?.kind === 'proven' ? anchor.hashes : undefined;
  const proven = check(request, context, anchored);
  if (proven.ok) {
    // The era claims receipts like this one only where a real block has shown them: never a guess.
    const { receipt } = proven.value;
    const claim = claimFor('receipts_root', request.verifiability.checks.receipts_root, {
      kinds: receiptKinds([receipt], false),
      hasLogs: receipt.logs.length > 0,
    });
    const unclaimed = uncheckable(request.verifiability, 'receipts_root', claim);
    if (unclaimed !== null) return chainNotSupported(unclaimed, context, { blockNumber: BigInt(request.blockNumber) });
  }
  if (!proven.ok) return answer(request, proven);
  const anchoredBlock = anchored?.proving(request.blockHash);
  return answer(
    request,
    { ok: true, receipt: rpcReceipt(proven.value.receipt, request, context) },
    anchoredBlock === undefined ? undefined : anchoringJson(anchored!, anchoredBlock),
  );
}

/** The 200 answer: the receipt the proof holds (and what anchors its block), or why the proof does not hold. */
function answer(
  request: ReceiptProofRequest,
  outcome:
    | { ok: true; receipt: RpcReceiptJson }
    | { ok: false; error: { reason: ReceiptProofReason; node?: number; message: string } },
  anchoring?: AnchoringJson,
): OperationResult {
  const proven = outcome.ok ? outcome : null;
  const refused = outcome.ok ? null : outcome.error;
  const result: ReceiptProofResult = {
    is_valid: outcome.ok,
    reason: refused?.reason ?? null,
    node: refused?.node ?? null,
    message: refused?.message ?? null,
    block_number: request.blockNumber,
    block_hash: bytesToHex(request.blockHash),
    transaction_index: request.index,
    receipt: proven?.receipt ?? null,
    anchoring: anchoring ?? null,
    block_hash_held_to:
      request.anchor !== undefined ? 'anchor' : request.expectedBlockHash !== undefined ? 'expected_block_hash' : null,
  };
  return {
    status: 200,
    verdict: outcome.ok ? 'identical' : 'different',
    body: { chain_id: request.chainId, data: [result], cursor: null, count: 1 },
  };
}
