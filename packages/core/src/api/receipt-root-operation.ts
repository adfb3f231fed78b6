import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { excludedReceiptResult, type ExcludedReceiptResult } from '../chains/state-sync.js';
import { parseReceiptRootRequest } from '../input/requests/receipt-root-request.js';
import type { HashOptions } from '../keccak/keccak.js';
import { receiptsCommitment } from '../receipts/root.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';

export interface ReceiptRootContext extends OperationContext, HashOptions {
  /** Chains the caller may verify; the built-in registry when absent. */
  registry?: ChainRegistry;
}

/** `data[0]` of a receipt-root answer (spec "Verification results" plus the extensions of docs/api.md). */
export interface ReceiptRootResult {
  block_number: number | null;
  block_hash: string | null;
  parent_block_hash: string | null;
  receipt_root: string;
  computed_receipt_root: string;
  is_identical: boolean;
  header_verified: boolean | null;
  computed_logs_bloom: string;
  logs_bloom_matches_header: boolean | null;
  /** Receipts hashed into the root; `excluded_receipts` are not counted. */
  transaction_count: number;
  excluded_receipts: ExcludedReceiptResult[];
}

/**
 * `POST /v1/evm/verify/receipt-root`: recomputes the receipts root (and block bloom)
 * of a complete receipt list and compares it with `receipt_root`; with `header_rlp`,
 * also binds that root to the block hash. The verdict is 'identical' only when every
 * claim holds: the root, and with `header_rlp` the header and its bloom. A chain or era
 * that cannot be verified is 422. Pure: body in, status and body out.
 *
 * @example
 * verifyReceiptRootOperation({ chain_id: 1, receipt_root: '56e8…b421', transactions: [] })
 * // { status: 200, verdict: 'identical', body: { chain_id: 1, data: [{ …, is_identical: true }], cursor: null, count: 1 } }
 */
export function verifyReceiptRootOperation(body: unknown, context: ReceiptRootContext = {}): OperationResult {
  const registry = context.registry ?? defaultRegistry;
  const parsed = parseReceiptRootRequest(body, registry, context);
  if (!parsed.ok) {
    const refusal = parsed.error;
    if (refusal.kind === 'invalid')
      return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
    return chainNotSupported(refusal.verifiability, context, {
      ...(refusal.blockNumber !== undefined && { blockNumber: refusal.blockNumber }),
      excludedReceipts: (refusal.excluded ?? []).map(excludedReceiptResult),
    });
  }
  const request = parsed.value;
  const { receiptsRoot, logsBloom } = receiptsCommitment(request.receipts, {
    rules: request.rules,
    keccak: context.keccak,
  });
  const isIdentical = bytesEqual(receiptsRoot, request.receiptRoot);

  const header = request.header;
  const headerVerified =
    header === undefined
      ? null
      : (request.blockHash === undefined || bytesEqual(header.hash, request.blockHash)) &&
        (request.blockNumber === undefined || header.fields.number === BigInt(request.blockNumber)) &&
        bytesEqual(header.fields.receiptsRoot, request.receiptRoot);
  const bloomMatches = header === undefined ? null : bytesEqual(header.fields.logsBloom, logsBloom);

  const blockHash = request.blockHash ?? header?.hash;
  const result: ReceiptRootResult = {
    block_number: request.blockNumber ?? (header === undefined ? null : Number(header.fields.number)),
    block_hash: blockHash === undefined ? null : bytesToHex(blockHash),
    parent_block_hash: header === undefined ? null : bytesToHex(header.fields.parentHash),
    receipt_root: bytesToHex(request.receiptRoot),
    computed_receipt_root: bytesToHex(receiptsRoot),
    is_identical: isIdentical,
    header_verified: headerVerified,
    computed_logs_bloom: bytesToHex(logsBloom),
    logs_bloom_matches_header: bloomMatches,
    transaction_count: request.receipts.length,
    excluded_receipts: request.excluded.map(excludedReceiptResult),
  };
  // is_identical compares the root only (the spec); the verdict covers every claim the body made.
  const everyClaimHolds = isIdentical && headerVerified !== false && bloomMatches !== false;
  return {
    status: 200,
    verdict: everyClaimHolds ? 'identical' : 'different',
    body: { chain_id: request.chainId, data: [result], cursor: null, count: 1 },
  };
}
