import { bytesToHex } from '../bytes/hex.js';
import { defaultRegistry } from '../chains/registry.js';
import { parseLogsProofRequest } from '../input/requests/logs-proof-request.js';
import type { EthLog } from '../proof/eth-log.js';
import type { LogsProofFault, LogsProofRefusal } from '../proof/logs-range-check.js';
import { verifyLogsProofBytes } from '../proof/logs-proof-verifier.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, errorEnvelope, type OperationContext, type OperationResult } from './envelope.js';
import type { ReceiptRootContext } from './receipt-root-operation.js';

/** The faults of a proof that does not hold: a 200 with `is_valid` false (the others are 400 and 422). */
export type LogsProofMismatch = Exclude<LogsProofFault, 'malformed' | 'not-verifiable'>;

/**
 * Every reason a logs proof can fail to hold for, in a few words (a record, so that a new fault of
 * the library cannot be left out of the answer's documented values).
 */
export const LOGS_PROOF_MISMATCHES: Readonly<Record<LogsProofMismatch, string>> = {
  'chain-mismatch': 'the proof is of another chain than chain_id',
  'bad-record': 'a record is no record (not RLP, not a header and receipts) or over the size limit',
  'block-number': 'a record is not the block that comes next: a block missing, repeated or out of order',
  'header-invalid': "a header does not decode in its era's layout",
  'parent-mismatch': "a header's parentHash is not the hash of the block before it",
  'head-mismatch': 'the last block does not hash to head_hash',
  'receipts-missing': 'a block whose bloom may match the filter comes without its receipts',
  'receipts-unexpected': 'a block whose bloom rules the filter out comes with receipts',
  'receipt-invalid': "a receipt is no receipt of the era's rules, or not in its canonical encoding",
  'root-mismatch': "a block's receipts do not make its receiptsRoot: one dropped, added or altered",
  'bloom-mismatch': "a block's receipts do not make its logsBloom",
  'blocks-missing': 'the proof ends before its last block, or a record is cut short',
  'trailing-data': 'bytes follow the last block',
};

/** `data[0]` of a logs-proof answer: whether the proof holds, why not, and what it proves. */
export interface LogsProofResult {
  is_valid: boolean;
  /** Why the proof does not hold; null when it does. */
  reason: LogsProofMismatch | null;
  /** The block at fault, when the fault is at one; else null. */
  block: number | null;
  message: string | null;
  /** As sent. */
  head_hash: string;
  /** What the proof proves, when it holds; null when it does not. */
  from_block: number | null;
  to_block: number | null;
  filter: { address: string[]; topics: string[][] } | null;
  blocks: number | null;
  candidate_blocks: number | null;
  receipts: number | null;
  /** Every log of the range that matches the filter, in the form of `eth_getLogs`; null when the proof does not hold. */
  logs: EthLog[] | null;
}

/** A proof that the verifier cannot read as one: 400 naming `proof`. */
function notAProof(refusal: LogsProofRefusal, context: OperationContext): OperationResult {
  const expected = `a logs proof artifact (${refusal.message.replace(/\.$/, '')})`;
  return {
    status: 400,
    verdict: 'invalid',
    body: badRequest([{ name: 'proof', location: 'body', reason: 'invalid_format', expected }], 1, context),
  };
}

/** A block of the range that no proof can rest on: 422, with the registry's account of it. */
function unprovable(refusal: LogsProofRefusal, context: OperationContext): OperationResult {
  const { notVerifiable, block } = refusal;
  if (notVerifiable !== undefined)
    return chainNotSupported(notVerifiable, context, block === undefined ? {} : { blockNumber: BigInt(block) });
  return {
    status: 422,
    verdict: 'not_verifiable',
    body: errorEnvelope(
      {
        code: 'CHAIN_NOT_SUPPORTED',
        http_status: 422,
        message: refusal.message,
        hint: 'GET /v1/chains tells which eras of the chain can be verified.',
        details: null,
      },
      context,
    ),
  };
}

/**
 * `POST /v1/evm/verify/logs-proof`: checks a complete-log proof over a range of blocks with the
 * library's {@link verifyLogsProofBytes}, from the head hash the caller trusts and on the rules of
 * the chain it names: every block is the child of the one before, the last hashes to `head_hash`,
 * and every block whose bloom may match the filter comes with the receipts that make its root and
 * bloom. A proof that holds answers the logs that match, as `eth_getLogs` would; one that does not
 * is a 200 with `is_valid` false, the reason and the block, as the verify endpoints answer a
 * mismatch. Bytes that are no logs proof are 400 naming `proof`; a block no proof can rest on is 422.
 *
 * @example
 * verifyLogsProofOperation({ chain_id: 1, head_hash: '0x…', proof: '0x89454c50…' }).body
 * // { chain_id: 1, data: [{ is_valid: true, …, logs: [{ address: '0x276c…', logIndex: '0x3', … }] }], cursor: null, count: 1 }
 */
export function verifyLogsProofOperation(body: unknown, context: ReceiptRootContext = {}): OperationResult {
  const registry = context.registry ?? defaultRegistry;
  const parsed = parseLogsProofRequest(body, registry);
  if (!parsed.ok) {
    const refusal = parsed.error;
    if (refusal.kind === 'invalid')
      return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
    return chainNotSupported(refusal.verifiability, context);
  }
  const { chainId, headHash, proof } = parsed.value;
  const verified = verifyLogsProofBytes(proof, { headHash, chainId, registry, keccak: context.keccak });
  if (!verified.ok && verified.error.reason === 'malformed') return notAProof(verified.error, context);
  if (!verified.ok && verified.error.reason === 'not-verifiable') return unprovable(verified.error, context);
  const summary = verified.ok ? verified.value.summary : null;
  const refusal = verified.ok ? null : verified.error;
  const result: LogsProofResult = {
    is_valid: verified.ok,
    reason: (refusal?.reason as LogsProofMismatch | undefined) ?? null,
    block: refusal?.block ?? null,
    message: refusal?.message ?? null,
    head_hash: bytesToHex(headHash),
    from_block: summary?.fromBlock ?? null,
    to_block: summary?.toBlock ?? null,
    filter:
      summary === null
        ? null
        : {
            address: summary.filter.addresses.map(bytesToHex),
            topics: summary.filter.topics.map((alternatives) => alternatives.map(bytesToHex)),
          },
    blocks: summary?.blocks ?? null,
    candidate_blocks: summary?.candidateBlocks ?? null,
    receipts: summary?.receipts ?? null,
    logs: verified.ok ? verified.value.logs : null,
  };
  return {
    status: 200,
    verdict: verified.ok ? 'identical' : 'different',
    body: { chain_id: chainId, data: [result], cursor: null, count: 1 },
  };
}
