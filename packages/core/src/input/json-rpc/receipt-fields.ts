import type { Receipt } from '../../receipts/receipt.js';
import type { Slab } from '../../bytes/slab.js';
import { isObject, quantityValue } from '../values/json-values.js';
import { hasNoRoot, outcomeProblem } from '../values/receipt-rules.js';

const isAbsent = (value: unknown) => value === undefined || value === null;

/** A JSON-RPC receipt's type, 0 (legacy) when it has none; undefined when it is not a type. */
export const receiptType = (value: Record<string, unknown>) =>
  isAbsent(value.type) ? 0n : quantityValue(value.type, 255n);

/**
 * Every field of the JSON-RPC receipt `value` but its logs, when each is plainly valid (a root's bytes a view into
 * `slab`); else undefined. What the block's fast readers (json-rpc.ts's and receipt-encoder.ts's) share: the reader
 * that names each problem is json-rpc.ts's readReceipt.
 */
export function plainReceiptFields(value: unknown, slab: Slab): Omit<Receipt, 'logs'> | undefined {
  if (!isObject(value)) return undefined;
  const type = receiptType(value);
  const hasStatus = !isAbsent(value.status);
  const hasRoot = !hasNoRoot(value.root);
  if (
    type === undefined ||
    outcomeProblem({ type: Number(type), hasStatus, hasRoot, rootBesideStatus: true }) !== undefined
  )
    return undefined;
  let outcome: Pick<Receipt, 'status' | 'root'>;
  // A status beside a root must still be one (outcomeProblem: the root is what is hashed).
  if (hasStatus && quantityValue(value.status, 1n) === undefined) return undefined;
  if (hasRoot) {
    const root = slab.hex(value.root, 32);
    if (root === undefined) return undefined;
    outcome = { root };
  } else {
    outcome = { status: Number(quantityValue(value.status, 1n)) as 0 | 1 };
  }
  const cumulativeGasUsed = quantityValue(value.cumulativeGasUsed);
  if (cumulativeGasUsed === undefined) return undefined;
  const depositNonce = isAbsent(value.depositNonce) ? undefined : quantityValue(value.depositNonce);
  const depositReceiptVersion = isAbsent(value.depositReceiptVersion)
    ? undefined
    : quantityValue(value.depositReceiptVersion);
  if (
    (depositNonce === undefined && !isAbsent(value.depositNonce)) ||
    (depositReceiptVersion === undefined && !isAbsent(value.depositReceiptVersion))
  )
    return undefined;
  return {
    type: Number(type),
    ...outcome,
    cumulativeGasUsed,
    ...(depositNonce !== undefined && { depositNonce }),
    ...(depositReceiptVersion !== undefined && { depositReceiptVersion }),
  };
}
