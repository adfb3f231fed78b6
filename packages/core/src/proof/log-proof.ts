import { checkBytes, HASH_BYTES } from '../bytes/check-bytes.js';
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { InvalidReceiptError } from '../errors.js';
import { kindOf } from '../json/show.js';
import { encodeHeader } from '../header/header-encoding.js';
import type { BlockHeader } from '../header/header-fields.js';
import type { Log, Receipt } from '../receipts/receipt.js';
import { err, ok, type Result } from '../result.js';
import { receiptInBlock, type BlockProofOptions } from './block-receipt-proof.js';
import {
  checkPosition,
  checkProofOptions,
  checkReceiptProof,
  receiptProof,
  type ReceiptProof,
} from './receipt-proof.js';
import type { ProofRefusal } from './refusal.js';

/** A log's place in a block: the block's header, the proof of its receipt, and its position in the receipt. */
export interface LogProof {
  /** RLP of the block's header: its keccak is the block hash. */
  headerRlp: Uint8Array;
  /** The proof of the receipt; its `index` is the transaction's position. */
  receiptProof: ReceiptProof;
  /** The log's position among its receipt's logs. */
  logIndex: number;
}

/** Options of the log proofs: the receipts' rule set and the header's layout (Ethereum's when absent). */
export type LogProofOptions = BlockProofOptions;

/** A log a proof holds, with the receipt and the header that hold it. */
export interface ProvenLog {
  log: Log;
  transactionIndex: number;
  /** Position among the receipt's logs. */
  logIndex: number;
  receipt: Receipt;
  header: BlockHeader;
}

/**
 * The proof that log `logIndex` of transaction `txIndex` is in the block whose header is `header`.
 *
 * @throws RangeError naming `txIndex` or `logIndex` when it is not a non-negative integer (a number) or not there;
 * TypeError or RangeError naming `header.receiptsRoot` when it is not 32 bytes (hex text), TypeError naming
 * `options.rules` or `options.layout` when it is not a rule set or header layout object; InvalidReceiptError when
 * the receipts are not the header's (their root is not its receiptsRoot).
 * @example
 * const proof = logProof(header, receipts, 12, 0, { rules: RULE_SETS.ethereum })
 * verifyLogProof(blockHash, proof).ok // true
 */
export function logProof(
  header: BlockHeader,
  receipts: readonly Receipt[],
  txIndex: number,
  logIndex: number,
  options: LogProofOptions = {},
): LogProof {
  checkBytes(header.receiptsRoot, 'header.receiptsRoot', HASH_BYTES);
  checkProofOptions(options);
  // Each position by its own name first: a string '1' indexes the receipts as JavaScript reads it, and was blamed on
  // logIndex.
  checkPosition('txIndex', txIndex);
  checkPosition('logIndex', logIndex);
  const logs = receipts[txIndex]?.logs;
  if (logs === undefined)
    throw new RangeError(`txIndex must be a position of the ${receipts.length} receipts, got ${txIndex}.`);
  if (logIndex >= logs.length)
    throw new RangeError(
      `logIndex must be a position of the ${logs.length} logs of receipt ${txIndex}, got ${logIndex}.`,
    );
  const proof = receiptProof(receipts, txIndex, options);
  if (!bytesEqual(proof.receiptsRoot, header.receiptsRoot))
    throw new InvalidReceiptError(
      `The receipts' root is 0x${bytesToHex(proof.receiptsRoot)}, not the header's receiptsRoot 0x${bytesToHex(header.receiptsRoot)}.`,
      { field: 'receipts', expected: `the receipts whose root is 0x${bytesToHex(header.receiptsRoot)}` },
    );
  return { headerRlp: encodeHeader(header, options.layout), receiptProof: proof, logIndex };
}

/**
 * Checks that a log proof proves a log of the block whose hash is `blockHash`: the header hashes
 * to it, the receipt proof holds under the header's receiptsRoot, and the receipt has a log at
 * the position. Returns the log, or a refusal that says which part fails.
 *
 * @throws TypeError when `proof` is not an object; RangeError when `proof.logIndex` is not a non-negative integer (as `verifyReceiptProof` for its index);
 * TypeError or RangeError, as {@link verifyBlockReceiptProof}, naming `blockHash`, `proof.headerRlp` or the part of
 * `proof.receiptProof` that is not bytes of its size, or `options.rules` or `options.layout`.
 * @example
 * const proven = verifyLogProof(blockHash, proof)
 * if (proven.ok) proven.value.log.topics[0]
 * else proven.error.reason // 'block-hash-mismatch'
 */
export function verifyLogProof(
  blockHash: Uint8Array,
  proof: LogProof,
  options: LogProofOptions = {},
): Result<ProvenLog, ProofRefusal> {
  const given: unknown = proof;
  if (typeof given !== 'object' || given === null)
    throw new TypeError(`proof must be a log proof {headerRlp, receiptProof, logIndex}, got ${kindOf(given)}`);
  // A position that is none (-1, 0.5, NaN) is the caller's mistake, not a log the receipt lacks.
  checkPosition('logIndex', proof.logIndex);
  checkBytes(blockHash, 'blockHash', HASH_BYTES);
  checkBytes(proof.headerRlp, 'proof.headerRlp');
  checkReceiptProof(proof.receiptProof, 'proof.receiptProof');
  checkProofOptions(options);
  const proven = receiptInBlock(blockHash, proof.headerRlp, proof.receiptProof, options);
  if (!proven.ok) return proven;
  const { index } = proof.receiptProof;
  const { receipt } = proven.value;
  const log = receipt.logs[proof.logIndex];
  if (log === undefined)
    return err({
      reason: 'log-absent',
      message: `Receipt ${index} has ${receipt.logs.length} logs, none at position ${proof.logIndex}.`,
    });
  return ok({ log, transactionIndex: index, logIndex: proof.logIndex, receipt, header: proven.value.header });
}
