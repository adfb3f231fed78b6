import { bytesToHex } from '../bytes/hex.js';
import type { Log, Receipt } from '../receipts/receipt.js';

/** A `POST /v1/evm/verify/receipt-root` body as the spec and docs/api.md define it. */
export interface ReceiptRootBody {
  chain_id: number;
  receipt_root: string;
  block_number?: number;
  block_hash?: string;
  header_rlp?: string;
  transactions: Array<{
    index: number;
    type?: number;
    status?: number;
    root?: string;
    cumulative_gas_used: number | string;
    logs: Array<{ contract_address: string; topics: string[]; data: string }>;
    deposit_nonce?: string;
    deposit_receipt_version?: string;
  }>;
}

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

/**
 * The receipt-root request body for a block's receipts: what a client sends to
 * have a server recompute the root.
 *
 * @example
 * receiptRootBody({ chainId: 1, receiptRoot, receipts }) // { chain_id: 1, receipt_root: '…', transactions: [ … ] }
 */
export function receiptRootBody(input: {
  chainId: number;
  receiptRoot: Uint8Array;
  receipts: readonly Receipt[];
  blockNumber?: number;
  blockHash?: Uint8Array;
  headerRlp?: Uint8Array;
}): ReceiptRootBody {
  return {
    chain_id: input.chainId,
    receipt_root: bytesToHex(input.receiptRoot),
    ...(input.blockNumber !== undefined && { block_number: input.blockNumber }),
    ...(input.blockHash !== undefined && { block_hash: bytesToHex(input.blockHash) }),
    ...(input.headerRlp !== undefined && { header_rlp: bytesToHex(input.headerRlp) }),
    transactions: input.receipts.map((r, index) => ({
      index,
      ...(r.type !== 0 && { type: r.type }),
      ...(r.root !== undefined ? { root: bytesToHex(r.root) } : { status: r.status ?? 0 }),
      cumulative_gas_used: quantityJson(r.cumulativeGasUsed),
      logs: r.logs.map(logJson),
      ...(r.depositNonce !== undefined && { deposit_nonce: `0x${r.depositNonce.toString(16)}` }),
      ...(r.depositReceiptVersion !== undefined && {
        deposit_receipt_version: `0x${r.depositReceiptVersion.toString(16)}`,
      }),
    })),
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
