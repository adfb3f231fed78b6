import type { ChainInfo, ChainRegistry } from '../chains/registry.js';
import { describeTypes, type RuleSet } from '../receipts/rules.js';
import type { Log, Receipt } from '../receipts/types.js';
import {
  checkMisspelledMembers,
  isObject,
  join,
  MAX_SAFE,
  readArray,
  readHex,
  readInteger,
  readObject,
  readQuantity,
  type JsonObject,
} from './fields.js';
import { bodyNotAnObject, Problems, type Parsed } from './problems.js';

/** A validated `POST /v1/evm/verify/receipt-root` body. */
export interface ReceiptRootRequest {
  chainId: number;
  chain: ChainInfo;
  receiptRoot: Uint8Array;
  blockNumber?: number;
  blockHash?: Uint8Array;
  headerRlp?: Uint8Array;
  /** Receipts ordered by `index`. */
  receipts: Receipt[];
}

/** Why a body names a chain that cannot be verified (422, not 400). */
export interface UnsupportedChain {
  chainId: number;
  chain?: ChainInfo;
}

const BODY_MEMBERS = ['chain_id', 'receipt_root', 'transactions', 'block_number', 'block_hash', 'header_rlp', 'limit', 'cursor'];
const RECEIPT_MEMBERS = ['index', 'status', 'root', 'cumulative_gas_used', 'logs', 'type', 'deposit_nonce', 'deposit_receipt_version'];
const LOG_MEMBERS = ['contract_address', 'topics', 'data'];

/** The deposit type of the OP stack. */
const OP_DEPOSIT = 0x7e;

/**
 * Parses a verify log object (`contract_address`, `topics`, and `data` unless `withData` is false).
 * Shared by the receipt-root and logs-bloom bodies.
 */
export function readVerifyLog(value: unknown, path: string, problems: Problems, withData: boolean): Log | undefined {
  const log = readObject(value, path, problems, 'a log object with contract_address, topics and data');
  if (log === undefined) return undefined;
  checkMisspelledMembers(log, path, LOG_MEMBERS, problems);
  const address = readHex(log.contract_address, join(path, 'contract_address'), problems, 20);
  const topics = readTopics(log.topics, join(path, 'topics'), problems);
  const data = withData ? readHex(log.data, join(path, 'data'), problems, undefined, 'even-length hex data, 0x when empty') : new Uint8Array(0);
  if (address === undefined || topics === undefined || data === undefined) return undefined;
  return { address, topics, data };
}

function readTopics(value: unknown, path: string, problems: Problems): Uint8Array[] | undefined {
  const list = readArray(value, path, problems, 'an array of 0 to 4 topics (32-byte hex each)');
  if (list === undefined) return undefined;
  if (list.length > 4) {
    problems.add(path, 'out_of_range', `0 to 4 topics, got ${list.length}`);
    return undefined;
  }
  const topics = list.map((topic, i) => readHex(topic, `${path}[${i}]`, problems, 32));
  return topics.every((t) => t !== undefined) ? (topics as Uint8Array[]) : undefined;
}

interface IndexedReceipt {
  index: number;
  receipt: Receipt;
}

function readReceipt(value: unknown, path: string, problems: Problems, rules: RuleSet | undefined): Partial<IndexedReceipt> {
  const tx = readObject(value, path, problems, 'a receipt object');
  if (tx === undefined) return {};
  checkMisspelledMembers(tx, path, RECEIPT_MEMBERS, problems);
  const before = problems.count;
  const index = readInteger(tx.index, join(path, 'index'), problems, 0, MAX_SAFE, 'zero-based transaction index (JSON integer)');
  const type = tx.type === undefined ? 0 : readInteger(tx.type, join(path, 'type'), problems, 0, 255, 'EIP-2718 transaction type as a JSON integer 0-255 (126 for 0x7e)');
  if (type !== undefined && rules !== undefined && !rules.layouts.has(type)) {
    problems.add(join(path, 'type'), 'unknown_type', `a receipt type of the ${rules.name} rule set: ${describeTypes(rules)}; got ${type}`);
  }
  const outcome = readOutcome(tx, path, problems, type);
  const cumulativeGasUsed = readQuantity(tx.cumulative_gas_used, join(path, 'cumulative_gas_used'), problems);
  const deposit = readDepositFields(tx, path, problems, type, rules);
  const logsValue = tx.logs ?? [];
  const logList = readArray(logsValue, join(path, 'logs'), problems, 'an array of logs');
  const logs = (logList ?? []).map((log, i) => readVerifyLog(log, `${path}.logs[${i}]`, problems, true));
  if (problems.count !== before || type === undefined || cumulativeGasUsed === undefined) return { index };
  const receipt: Receipt = { type, ...outcome, cumulativeGasUsed, logs: logs as Log[], ...deposit };
  return { index, receipt };
}

function readOutcome(tx: JsonObject, path: string, problems: Problems, type: number | undefined): Pick<Receipt, 'status' | 'root'> {
  const hasStatus = tx.status !== undefined && tx.status !== null;
  const hasRoot = tx.root !== undefined && tx.root !== null;
  if (hasStatus && hasRoot) {
    problems.add(join(path, 'root'), 'conflict', 'exactly one of status and root; both were given');
    return {};
  }
  if (hasRoot) {
    if (type !== undefined && type !== 0) {
      problems.add(join(path, 'root'), 'conflict', `status; a post-state root exists only on pre-Byzantium legacy receipts, this one has type ${type}`);
      return {};
    }
    const root = readHex(tx.root, join(path, 'root'), problems, 32);
    return root === undefined ? {} : { root };
  }
  if (!hasStatus) {
    problems.add(join(path, 'status'), 'missing', 'status (0 or 1), or root (32-byte hex) for a pre-Byzantium receipt');
    return {};
  }
  const status = readInteger(tx.status, join(path, 'status'), problems, 0, 1, '1 for success or 0 for revert');
  return status === undefined ? {} : { status: status as 0 | 1 };
}

function readDepositFields(
  tx: JsonObject,
  path: string,
  problems: Problems,
  type: number | undefined,
  rules: RuleSet | undefined,
): Pick<Receipt, 'depositNonce' | 'depositReceiptVersion'> {
  if (tx.deposit_nonce === undefined && tx.deposit_receipt_version === undefined) return {};
  const isDeposit = type === OP_DEPOSIT && (rules === undefined || rules.layouts.get(OP_DEPOSIT) === 'op-deposit');
  if (!isDeposit) {
    const member = tx.deposit_nonce !== undefined ? 'deposit_nonce' : 'deposit_receipt_version';
    problems.add(join(path, member), 'conflict', 'absent: deposit fields belong only to OP-stack deposit receipts (type 126 = 0x7e)');
    return {};
  }
  const depositNonce = tx.deposit_nonce === undefined ? undefined : readQuantity(tx.deposit_nonce, join(path, 'deposit_nonce'), problems);
  if (tx.deposit_receipt_version === undefined) return depositNonce === undefined ? {} : { depositNonce };
  const depositReceiptVersion = readQuantity(tx.deposit_receipt_version, join(path, 'deposit_receipt_version'), problems);
  if (tx.deposit_nonce === undefined) {
    problems.add(join(path, 'deposit_nonce'), 'missing', 'the deposit nonce, which is hashed together with deposit_receipt_version (Canyon)');
  }
  if (depositNonce === undefined || depositReceiptVersion === undefined) return {};
  return { depositNonce, depositReceiptVersion };
}

/** Checks that the indexes are exactly 0..n-1, each once; returns receipts in index order. */
function orderByIndex(entries: Array<Partial<IndexedReceipt>>, problems: Problems): Receipt[] {
  const n = entries.length;
  const byIndex = new Array<Receipt | undefined>(n);
  const seenAt = new Map<number, number>();
  entries.forEach(({ index, receipt }, position) => {
    if (index === undefined) return;
    const path = `transactions[${position}].index`;
    if (index >= n) {
      problems.add(path, 'out_of_range', `an index in 0..${n - 1} (the body has ${n} transactions), got ${index}`);
      return;
    }
    const first = seenAt.get(index);
    if (first !== undefined) {
      problems.add(path, 'duplicate', `each index once; ${index} is also the index of transactions[${first}]`);
      return;
    }
    seenAt.set(index, position);
    byIndex[index] = receipt;
  });
  const unreadable = entries.some((e) => e.index === undefined);
  if (!unreadable) {
    for (let i = 0; i < n; i++) {
      if (!seenAt.has(i)) problems.add('transactions', 'missing', `a transaction with index ${i}: indexes must be exactly 0..${n - 1}`);
    }
  }
  return byIndex as Receipt[];
}

/**
 * Validates a receipt-root body against DECISIONS.md. Returns the request, or every
 * problem (400), or the unsupported chain (422) when the body is otherwise valid.
 */
export function parseReceiptRootRequest(
  body: unknown,
  registry: ChainRegistry,
): Parsed<ReceiptRootRequest> | { ok: false; unsupported: UnsupportedChain } {
  if (!isObject(body)) return bodyNotAnObject(body);
  const obj = body;
  const problems = new Problems();
  checkMisspelledMembers(obj, '', BODY_MEMBERS, problems);
  const chainId = readInteger(obj.chain_id, 'chain_id', problems, 0, MAX_SAFE, 'chain id as a JSON integer');
  const chain = chainId === undefined ? undefined : registry.get(chainId);
  const rules = chain?.verifiable ? registry.rulesOf(chain) : undefined;
  const receiptRoot = readHex(obj.receipt_root, 'receipt_root', problems, 32);
  const blockNumber = obj.block_number === undefined || obj.block_number === null ? undefined : readInteger(obj.block_number, 'block_number', problems, 0, MAX_SAFE, 'block number as a JSON integer');
  const blockHash = obj.block_hash === undefined || obj.block_hash === null ? undefined : readHex(obj.block_hash, 'block_hash', problems, 32);
  const headerRlp = obj.header_rlp === undefined || obj.header_rlp === null ? undefined : readHex(obj.header_rlp, 'header_rlp', problems, undefined, 'the block header RLP as hex');
  const list = readArray(obj.transactions, 'transactions', problems, 'the complete receipt list of the block (may be empty)');
  const entries = (list ?? []).map((tx, i) => readReceipt(tx, `transactions[${i}]`, problems, rules));
  const receipts = orderByIndex(entries, problems);

  if (!problems.empty) return { ok: false, problems: problems.list, count: problems.count };
  if (chain === undefined || !chain.verifiable) return { ok: false, unsupported: chain === undefined ? { chainId: chainId! } : { chainId: chainId!, chain } };
  return {
    ok: true,
    value: {
      chainId: chainId!,
      chain,
      receiptRoot: receiptRoot!,
      receipts,
      ...(blockNumber !== undefined && { blockNumber }),
      ...(blockHash !== undefined && { blockHash }),
      ...(headerRlp !== undefined && { headerRlp }),
    },
  };
}
