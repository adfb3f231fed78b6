import { bytesToHex } from '../bytes/hex.js';
import { defaultRegistry } from '../chains/registry.js';
import { parseLogsProofRequest } from '../input/requests/logs-proof-request.js';
import type { EthLog } from '../proof/eth-log.js';
import type { LogsProofFault, LogsProofRefusal, LogsProofSummary } from '../proof/logs-range-check.js';
import { verifyLogsProofBytes, type HeadCheck } from '../proof/logs-proof-verifier.js';
import {
  anchoringJson,
  anchorRefusedMessage,
  readAnchor,
  unprovenMessage,
  type AnchoringJson,
} from './anchor-proof.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, errorEnvelope, type OperationContext, type OperationResult } from './envelope.js';
import type { ReceiptRootContext } from './receipt-root-operation.js';

/**
 * The faults of a proof that does not hold: a 200 with `is_valid` false (the others are 400 and 422); and the anchor
 * proof sent in place of the head hash, refused.
 */
export type LogsProofMismatch = Exclude<LogsProofFault, 'malformed' | 'not-verifiable'> | 'anchor-refused';

/**
 * Every reason a logs proof can fail to hold for, in a few words (a record, so that a new fault of
 * the library cannot be left out of the answer's documented values).
 */
export const LOGS_PROOF_MISMATCHES: Readonly<Record<LogsProofMismatch, string>> = {
  'chain-mismatch': 'the proof is of another chain than chain_id',
  'range-mismatch': 'the proof is of another range than from_block and to_block ask for',
  'bad-record': 'a record is no record (not RLP, not a header and receipts) or over the size limit',
  'block-number': 'a record is not the block that comes next: a block missing, repeated or out of order',
  'header-invalid': "a header does not decode in its era's layout",
  'parent-mismatch': "a header's parentHash is not the hash of the block before it",
  'head-mismatch': 'the last block does not hash to head_hash, or is not among the blocks the anchor proof proves',
  'anchor-refused': 'the anchor proof does not verify from its checkpoint (the message names the line and why)',
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
  /** As sent; with `anchor`, the hash of `to_block` the anchor proof proves, or null when the proof does not hold. */
  head_hash: string | null;
  /** What the proof proves, when it holds; null when it does not. */
  from_block: number | null;
  to_block: number | null;
  filter: { address: string[]; topics: string[][] } | null;
  blocks: number | null;
  candidate_blocks: number | null;
  receipts: number | null;
  /** Every log of the range that matches the filter, in the form of `eth_getLogs`; null when the proof does not hold. */
  logs: EthLog[] | null;
  /** With `anchor`, when the proof holds: the checkpoint that proves the head's hash. Else null. */
  anchoring: AnchoringJson | null;
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

/** A block of the range of chain `chainId` that no proof can rest on: 422, with the registry's account of it. */
function unprovable(refusal: LogsProofRefusal, chainId: number, context: OperationContext): OperationResult {
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
        details: { chain_id: chainId, block_number: block ?? null, reason: refusal.message },
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
 * With `anchor` (an anchor proof and its checkpoint) in place of `head_hash`, the range's last block
 * must be one the anchor proof proves from the checkpoint (`anchoring` then names it); an anchor
 * proof that does not verify is `anchor-refused`.
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
  const request = parsed.value;
  const { chainId, proof } = request;
  const anchor = 'anchor' in request ? readAnchor(request.anchor, 'anchor.proof', chainId, context) : undefined;
  if (anchor?.kind === 'answer') return anchor.result;
  if (anchor?.kind === 'refused')
    return answer(chainId, null, { reason: 'anchor-refused', message: anchorRefusedMessage(anchor.refusal) });
  const anchored = anchor?.kind === 'proven' ? anchor.hashes : undefined;
  // With an anchor, the head the proof ends at must be one of the blocks it proves.
  const headHash: Uint8Array | HeadCheck =
    'headHash' in request ? request.headHash : (block, hash, chain) => unprovenMessage(anchored!, block, hash, chain);
  const verified = verifyLogsProofBytes(proof, {
    headHash,
    chainId,
    registry,
    keccak: context.keccak,
    ...(request.expected && { expected: request.expected }),
  });
  if (verified.ok) {
    const head = anchored?.proving(verified.value.summary.headHash);
    return answer(chainId, verified.value, head === undefined ? undefined : anchoringJson(anchored!, head));
  }
  const refusal = verified.error;
  if (refusal.reason === 'malformed') return notAProof(refusal, context);
  if (refusal.reason === 'not-verifiable') return unprovable(refusal, chainId, context);
  const sent = 'headHash' in request ? request.headHash : null;
  const { reason, block, message } = refusal;
  return answer(chainId, null, { reason, message, ...(block !== undefined && { block }) }, sent);
}

/** The 200 answer: what a proof that holds proves (and what anchors its head), or why it does not hold. */
function answer(
  chainId: number,
  proven: { summary: LogsProofSummary; logs: EthLog[] } | null,
  why: { reason: LogsProofMismatch; block?: number; message: string } | AnchoringJson | undefined,
  sentHead: Uint8Array | null = null,
): OperationResult {
  const summary = proven?.summary ?? null;
  const refusal = why !== undefined && 'reason' in why ? why : null;
  const anchoring = why !== undefined && 'assurance' in why ? why : null;
  const head = summary?.headHash ?? sentHead;
  const result: LogsProofResult = {
    is_valid: proven !== null,
    reason: refusal?.reason ?? null,
    block: refusal?.block ?? null,
    message: refusal?.message ?? null,
    head_hash: head === null ? null : bytesToHex(head),
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
    logs: proven?.logs ?? null,
    anchoring,
  };
  return {
    status: 200,
    verdict: proven !== null ? 'identical' : 'different',
    body: { chain_id: chainId, data: [result], cursor: null, count: 1 },
  };
}
