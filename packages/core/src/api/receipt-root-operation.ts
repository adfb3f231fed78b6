import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { excludedReceiptResult, placedReading, type ExcludedReceiptResult } from '../chains/state-sync.js';
import {
  parseReceiptRootRequest,
  type ReceiptRootRefusal,
  type ReceiptRootRequest,
} from '../input/requests/receipt-root-request.js';
import type { HashOptions } from '../keccak/keccak.js';
import type { Receipt } from '../receipts/receipt.js';
import { receiptsRootAndBloom } from '../receipts/root.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';
import { rootDoubt } from './receipt-root-doubt.js';

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
  /**
   * Present only where the verdict holds whatever a receipt is whose kind the era has not shown (one that may be Bor's
   * state-sync receipt, unrecognised): which, and why the verdict does not rest on it.
   */
  unproven_receipt?: { index: number; reason: string };
}

/** A refused body as answered: 400 for invalid input, 422 for a chain, era or block that cannot be verified. */
function refused(refusal: ReceiptRootRefusal, context: OperationContext): OperationResult {
  if (refusal.kind === 'invalid')
    return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
  return chainNotSupported(refusal.verifiability, context, {
    ...(refusal.blockNumber !== undefined && { blockNumber: refusal.blockNumber }),
    excludedReceipts: (refusal.excluded ?? []).map(excludedReceiptResult),
  });
}

/** One way of reading the receipts sent: those hashed, and the root and bloom they give. */
interface Reading {
  receipts: readonly Receipt[];
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
}

/** `receipts` hashed under the request's rules. */
function reading(receipts: readonly Receipt[], request: ReceiptRootRequest, options: HashOptions): Reading {
  return { receipts, ...receiptsRootAndBloom(receipts, { rules: request.rules, keccak: options.keccak }) };
}

/**
 * The one reading to answer with where a receipt may be Bor's state-sync receipt or a system transaction in the root
 * (`request.undecided`), and why the verdict holds whatever it is; null where it does not (the 422 stands). The verdict
 * holds where header_rlp fails its check, which no receipt changes, or where the root differs in both readings (and no
 * member the body left out may explain it).
 */
function decidedReading(
  request: ReceiptRootRequest,
  readings: readonly [Reading, Reading],
  headerVerified: boolean | null,
): { shown: Reading; reason: string } | null {
  const { position } = request.undecided!.suspect;
  const receipt = `transactions[${position}] is an untyped receipt that used no gas, a kind no real block of this era has shown, and may be Bor's state-sync receipt, which nothing names for this block (a tx_hash, where given, is not the one its hash derives)`;
  const leftOut = readings[1];
  const placed = placedReading(readings, request.receiptRoot);
  const differsEitherWay = !placed.matches && rootDoubt(request) === null;
  if (!differsEitherWay && headerVerified !== false) return null;
  const root = differsEitherWay
    ? "in the root or left out as Bor's state-sync receipt, the root differs from receipt_root"
    : !placed.matches
      ? undefined
      : `${placed.reading === leftOut ? "left out as Bor's state-sync receipt" : 'in the root'}, the receipts give receipt_root`;
  const header =
    headerVerified === false
      ? 'header_rlp does not verify (header_verified false), whatever the receipt is'
      : undefined;
  return { shown: placed.reading, reason: [receipt, root, header].filter((part) => part !== undefined).join('; ') };
}

/**
 * `POST /v1/evm/verify/receipt-root`: recomputes the receipts root (and block bloom)
 * of a complete receipt list and compares it with `receipt_root`; with `header_rlp`,
 * also binds that root to the block hash. The verdict is 'identical' only when every
 * claim holds: the root, and with `header_rlp` the header and its bloom. A chain or era
 * that cannot be verified is 422, and so is a root that differs where a member the body
 * left out (a transaction's `type`) may be why; one that may differ for the block's era
 * alone is 400 asking for `block_number`. A body holding Bor's state-sync receipt (named in `excluded_receipts`) is
 * at best 'not_verifiable': no commitment covers that receipt. Pure: body in, status and body out.
 *
 * @example
 * verifyReceiptRootOperation({ chain_id: 1, receipt_root: '56e8…b421', transactions: [] })
 * // { status: 200, verdict: 'identical', body: { chain_id: 1, data: [{ …, is_identical: true }], cursor: null, count: 1 } }
 */
export function verifyReceiptRootOperation(body: unknown, context: ReceiptRootContext = {}): OperationResult {
  const registry = context.registry ?? defaultRegistry;
  const parsed = parseReceiptRootRequest(body, registry, context);
  if (!parsed.ok) return refused(parsed.error, context);
  const request = parsed.value;
  const header = request.header;
  // Each of these is the header's own: no reading of the receipts changes them.
  const headerVerified =
    header === undefined
      ? null
      : (request.blockHash === undefined || bytesEqual(header.hash, request.blockHash)) &&
        (request.blockNumber === undefined || header.fields.number === BigInt(request.blockNumber)) &&
        bytesEqual(header.fields.receiptsRoot, request.receiptRoot);
  const bloomOf = (r: Reading) => (header === undefined ? null : bytesEqual(header.fields.logsBloom, r.logsBloom));

  const asSent = reading(request.receipts, request, context);
  // A receipt set aside whose placement is unknown (Polygon's rules on an added chain): the root with it left out, and
  // with it in.
  const unplaced = request.excluded.filter((r) => r.placement === 'unknown').map((r) => r.receipt);
  const readings: [Reading, ...Reading[]] =
    unplaced.length === 0 ? [asSent] : [asSent, reading([...request.receipts, ...unplaced], request, context)];
  let shown = placedReading(readings, request.receiptRoot).reading;
  let unproven: ReceiptRootResult['unproven_receipt'];
  let bloomMatches = bloomOf(shown);
  if (request.undecided !== undefined) {
    const leftOut = reading(request.receipts.slice(0, -1), request, context);
    const decided = decidedReading(request, [asSent, leftOut], headerVerified);
    if (decided === null) return refused(request.undecided.refusal, context);
    shown = decided.shown;
    unproven = { index: request.undecided.suspect.index, reason: decided.reason };
    // The bloom is claimed only where both readings agree on it.
    bloomMatches = bloomOf(asSent) === bloomOf(leftOut) ? bloomOf(shown) : null;
  }
  const isIdentical = bytesEqual(shown.receiptsRoot, request.receiptRoot);
  if (!isIdentical && unproven === undefined && headerVerified !== false && bloomMatches !== false) {
    const doubt = rootDoubt(request);
    if (doubt !== null) return refused(doubt, context);
  }

  const blockHash = request.blockHash ?? header?.hash;
  const result: ReceiptRootResult = {
    block_number: request.blockNumber ?? (header === undefined ? null : Number(header.fields.number)),
    block_hash: blockHash === undefined ? null : bytesToHex(blockHash),
    parent_block_hash: header === undefined ? null : bytesToHex(header.fields.parentHash),
    receipt_root: bytesToHex(request.receiptRoot),
    computed_receipt_root: bytesToHex(shown.receiptsRoot),
    is_identical: isIdentical,
    header_verified: headerVerified,
    computed_logs_bloom: bytesToHex(shown.logsBloom),
    logs_bloom_matches_header: bloomMatches,
    transaction_count: shown.receipts.length,
    excluded_receipts: request.excluded.map(excludedReceiptResult),
    ...(unproven !== undefined && { unproven_receipt: unproven }),
  };
  // is_identical compares the root only (the spec); the verdict covers every claim the body made, and no claim covers a
  // receipt set aside (Bor's state-sync receipt): where every claim holds, the block is not proven for it.
  const everyClaimHolds = isIdentical && headerVerified !== false && bloomMatches !== false;
  return {
    status: 200,
    verdict: !everyClaimHolds ? 'different' : request.excluded.length > 0 ? 'not_verifiable' : 'identical',
    body: { chain_id: request.chainId, data: [result], cursor: null, count: 1 },
  };
}
