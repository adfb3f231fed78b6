import { bytesToHex } from '../bytes/hex.js';
import type { ExcludedRpcReceipt } from '../input/json-rpc/json-rpc.js';
import type { Log, Receipt } from '../receipts/receipt.js';

/** One `transactions[]` entry of a receipt-root body. */
interface ReceiptRootTransaction {
  index: number;
  type?: number;
  status?: number;
  root?: string;
  cumulative_gas_used: number | string;
  logs: Array<{ contract_address: string; topics: string[]; data: string }>;
  deposit_nonce?: string;
  deposit_receipt_version?: string;
  tx_hash?: string;
}

/** A `POST /v1/evm/verify/receipt-root` body as the spec and docs/api.md define it. */
export interface ReceiptRootBody {
  chain_id: number;
  receipt_root: string;
  block_number?: number;
  block_hash?: string;
  header_rlp?: string;
  transactions: ReceiptRootTransaction[];
}

/** A receipt the block's chain leaves out of the root (Bor's state-sync receipt), at its transaction index. */
export type ExcludedReceiptInput = Pick<ExcludedRpcReceipt, 'index' | 'txHash' | 'receipt'>;

function quantityJson(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : `0x${value.toString(16)}`;
}

function logJson(log: Log): { contract_address: string; topics: string[]; data: string } {
  return {
    contract_address: bytesToHex(log.address),
    topics: log.topics.map(bytesToHex),
    data: `0x${bytesToHex(log.data)}`,
  };
}

function transactionJson(
  receipt: Receipt,
  index: number,
  txHash: Uint8Array | undefined,
  typesGiven: boolean,
): ReceiptRootTransaction {
  return {
    index,
    // Type 0 too: a body that gives no type is read as one that left the types out (docs/api.md). None where the
    // source gave none: a 0 written for it would claim what the source did not, and the server's rule for untyped
    // receipts would not apply.
    ...(typesGiven && { type: receipt.type }),
    ...(receipt.root !== undefined ? { root: bytesToHex(receipt.root) } : { status: receipt.status ?? 0 }),
    cumulative_gas_used: quantityJson(receipt.cumulativeGasUsed),
    logs: receipt.logs.map(logJson),
    ...(receipt.depositNonce !== undefined && { deposit_nonce: `0x${receipt.depositNonce.toString(16)}` }),
    ...(receipt.depositReceiptVersion !== undefined && {
      deposit_receipt_version: `0x${receipt.depositReceiptVersion.toString(16)}`,
    }),
    ...(txHash !== undefined && { tx_hash: bytesToHex(txHash) }),
  };
}

/**
 * Every receipt the block sent, in transaction order: those in the root, and each excluded one back at its index with
 * the transaction hash by which the server's rule recognises it again.
 */
function everyReceipt(
  inRoot: readonly Receipt[],
  excluded: readonly ExcludedReceiptInput[],
): Array<{ receipt: Receipt; txHash?: Uint8Array }> {
  const entries: Array<{ receipt: Receipt; txHash?: Uint8Array }> = inRoot.map((receipt) => ({ receipt }));
  for (const { index, txHash, receipt } of [...excluded].sort((a, b) => a.index - b.index))
    entries.splice(index, 0, { receipt, txHash });
  return entries;
}

/**
 * The receipt-root request body for a block's receipts: what a client sends to
 * have a server recompute the root. A receipt the chain leaves out of the root is
 * sent too, with its `tx_hash`: the server then leaves it out and lists it in
 * `excluded_receipts` (or refuses the block, where its era does not claim that rule),
 * as `verify block` does; dropped here, the answer would say nothing was left out.
 *
 * @example
 * receiptRootBody({ chainId: 1, receiptRoot, receipts }) // { chain_id: 1, receipt_root: '…', transactions: [ … ] }
 */
export function receiptRootBody(input: {
  chainId: number;
  receiptRoot: Uint8Array;
  /** The receipts in the root, in transaction order. */
  receipts: readonly Receipt[];
  excludedReceipts?: readonly ExcludedReceiptInput[];
  blockNumber?: number;
  blockHash?: Uint8Array;
  headerRlp?: Uint8Array;
  /**
   * Whether the source gave the receipts' types (RpcBlock.typesGiven): each receipt's `type` is written where it did
   * (true when absent), none where it gave none.
   */
  typesGiven?: boolean;
}): ReceiptRootBody {
  return {
    chain_id: input.chainId,
    receipt_root: bytesToHex(input.receiptRoot),
    ...(input.blockNumber !== undefined && { block_number: input.blockNumber }),
    ...(input.blockHash !== undefined && { block_hash: bytesToHex(input.blockHash) }),
    ...(input.headerRlp !== undefined && { header_rlp: bytesToHex(input.headerRlp) }),
    transactions: everyReceipt(input.receipts, input.excludedReceipts ?? []).map(({ receipt, txHash }, index) =>
      transactionJson(receipt, index, txHash, input.typesGiven ?? true),
    ),
  };
}

/** The logs-bloom request body for a list of logs. */
export function logsBloomBody(input: {
  expectedBloom: Uint8Array;
  logs: readonly Log[];
  chainId?: number;
  blockNumber?: number;
}) {
  return {
    ...(input.chainId !== undefined && { chain_id: input.chainId }),
    ...(input.blockNumber !== undefined && { block_number: input.blockNumber }),
    expected_bloom: bytesToHex(input.expectedBloom),
    logs: input.logs.map(logJson),
  };
}
