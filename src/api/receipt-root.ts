import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { InvalidHeaderError } from '../errors.js';
import { decodeHeader } from '../header/decode.js';
import type { BlockHeader } from '../header/fields.js';
import { parseReceiptRootRequest, type UnsupportedChain } from '../input/receipt-root-request.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { receiptsCommitment } from '../receipts/root.js';
import { badRequest, errorEnvelope, type OperationContext, type OperationResult } from './envelope.js';

export interface ReceiptRootContext extends OperationContext, HashOptions {
  /** Chains the caller may verify; the built-in registry when absent. */
  registry?: ChainRegistry;
}

/** `data[0]` of a receipt-root answer (spec "Verification results" plus DECISIONS.md extensions). */
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
  transaction_count: number;
}

function unsupportedChain({ chainId, chain }: UnsupportedChain, context: OperationContext): OperationResult {
  const message =
    chain === undefined
      ? `Chain ${chainId} is not in this server's chain registry.`
      : `Chain ${chainId} (${chain.name}) cannot be verified: ${chain.reason ?? 'its receipts root is not a Patricia root of its receipts.'}`;
  const hint =
    chain === undefined
      ? 'GET /v1/chains lists the supported chains; an operator can add a chain, with its rule set, in the configuration.'
      : 'Verify this chain with the proofs its own protocol provides.';
  return {
    status: 422,
    verdict: 'invalid',
    body: errorEnvelope({ code: 'CHAIN_NOT_SUPPORTED', http_status: 422, message, hint, details: null }, context),
  };
}

/**
 * `POST /v1/evm/verify/receipt-root`: recomputes the receipts root (and block bloom)
 * of a complete receipt list and compares it with `receipt_root`; with `header_rlp`,
 * also binds that root to the block hash. Pure: body in, status and body out.
 *
 * @example
 * verifyReceiptRoot({ chain_id: 1, receipt_root: '56e8…b421', transactions: [] })
 * // { status: 200, verdict: 'identical', body: { chain_id: 1, data: [{ …, is_identical: true }], cursor: null, count: 1 } }
 */
export function verifyReceiptRoot(body: unknown, context: ReceiptRootContext = {}): OperationResult {
  const registry = context.registry ?? defaultRegistry;
  const parsed = parseReceiptRootRequest(body, registry);
  if (!parsed.ok) {
    if ('unsupported' in parsed) return unsupportedChain(parsed.unsupported, context);
    return { status: 400, verdict: 'invalid', body: badRequest(parsed.problems, parsed.count, context) };
  }
  const request = parsed.value;
  const keccak = context.keccak ?? defaultKeccak256;

  let header: BlockHeader | undefined;
  if (request.headerRlp !== undefined) {
    try {
      header = decodeHeader(request.headerRlp);
    } catch (error) {
      if (!(error instanceof InvalidHeaderError)) throw error;
      const problem = { name: 'header_rlp', location: 'body' as const, reason: 'invalid_format' as const, expected: `an RLP block header: ${error.message}` };
      return { status: 400, verdict: 'invalid', body: badRequest([problem], 1, context) };
    }
  }

  const { receiptsRoot, logsBloom } = receiptsCommitment(request.receipts, { rules: registry.rulesOf(request.chain), keccak });
  const isIdentical = bytesEqual(receiptsRoot, request.receiptRoot);

  let headerVerified: boolean | null = null;
  let bloomMatches: boolean | null = null;
  let headerHash: Uint8Array | undefined;
  if (header !== undefined) {
    headerHash = keccak(request.headerRlp!);
    headerVerified =
      (request.blockHash === undefined || bytesEqual(headerHash, request.blockHash)) &&
      (request.blockNumber === undefined || header.number === BigInt(request.blockNumber)) &&
      bytesEqual(header.receiptsRoot, request.receiptRoot);
    bloomMatches = bytesEqual(header.logsBloom, logsBloom);
  }

  const blockHash = request.blockHash ?? headerHash;
  const result: ReceiptRootResult = {
    block_number: request.blockNumber ?? (header === undefined ? null : Number(header.number)),
    block_hash: blockHash === undefined ? null : bytesToHex(blockHash),
    parent_block_hash: header === undefined ? null : bytesToHex(header.parentHash),
    receipt_root: bytesToHex(request.receiptRoot),
    computed_receipt_root: bytesToHex(receiptsRoot),
    is_identical: isIdentical,
    header_verified: headerVerified,
    computed_logs_bloom: bytesToHex(logsBloom),
    logs_bloom_matches_header: bloomMatches,
    transaction_count: request.receipts.length,
  };
  return {
    status: 200,
    verdict: isIdentical ? 'identical' : 'different',
    body: { chain_id: request.chainId, data: [result], cursor: null, count: 1 },
  };
}
