import { beaconNetwork, readAnchorFileHead } from '../anchor/index.js';
import { bytesToHex } from '../bytes/hex.js';
import { parseAnchorRequest } from '../input/requests/anchor-request.js';
import { isObject } from '../input/values/json-values.js';
import { provenBlockJson, readAnchor, type AnchorMismatch, type ProvenBlockJson } from './anchor-proof.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';

/** `data[0]` of an anchor answer: whether the file verifies from the checkpoint, why not, and what it proves. */
export interface AnchorResult {
  is_valid: boolean;
  /** Why the file does not verify; null when it does. */
  reason: AnchorMismatch | null;
  /** The line of the file at fault (1 is the first); null when it verifies. */
  line: number | null;
  message: string | null;
  /** As sent (hex, no 0x). */
  checkpoint: string;
  /** The file's network; null when it does not verify. */
  network: string | null;
  /** Every execution block the file proves, in its order; null when it does not verify. */
  blocks: ProvenBlockJson[] | null;
}

/**
 * `POST /v1/evm/verify/anchor` (extension): verifies an anchor proof file against the checkpoint the caller trusts,
 * with the library's `anchoredHashes`, and answers every execution block it proves from the checkpoint alone. A file
 * that does not verify is a 200 with `is_valid` false, the reason and the line, as the verify endpoints answer a
 * mismatch; text that is no anchor proof (a line that is not one, no record) is 400 naming `proof`; a network the
 * anchor does not know, or a `chain_id` sent that is not its network's chain, is 422.
 *
 * @example
 * verifyAnchorOperation({ checkpoint: '0x5ab5…8e82', proof: fileText }).body
 * // { chain_id: 1, data: [{ is_valid: true, …, blocks: [{ block_number: 19426587, via: 'historical-summaries', … }] }], cursor: null, count: 1 }
 */
export function verifyAnchorOperation(body: unknown, context: OperationContext = {}): OperationResult {
  const parsed = parseAnchorRequest(body);
  if (!parsed.ok)
    return { status: 400, verdict: 'invalid', body: badRequest(parsed.error.problems, parsed.error.count, context) };
  const request = parsed.value;
  // A chain the caller names is held to the file's network, as a proof's chain_id is: never answered for another.
  const read = readAnchor(request, 'proof', request.chainId ?? null, context);
  if (read.kind === 'answer') return read.result;
  const proven = read.kind === 'proven' ? read.hashes : null;
  const refused = read.kind === 'refused' ? read : null;
  const result: AnchorResult = {
    is_valid: proven !== null,
    reason: refused?.reason ?? null,
    line: refused?.refusal.line ?? null,
    message: refused?.refusal.message ?? null,
    checkpoint: bytesToHex(request.checkpoint),
    network: proven?.verdict.network ?? null,
    blocks: proven?.blocks.map(provenBlockJson) ?? null,
  };
  return {
    status: 200,
    verdict: proven !== null ? 'identical' : 'different',
    body: {
      chain_id: proven === null ? null : proven.verdict.chainId,
      data: [result],
      cursor: null,
      count: 1,
    },
  };
}

/**
 * The execution chain a `POST /v1/evm/verify/anchor` body is about, known before the file is verified: the chain of
 * the network its proof's first line names (mainnet: 1), the only chain whose blocks the file can prove. Undefined
 * when the body or that line names no network the anchor knows, which the operation answers (400 or 422). A server
 * checks an account's chain entitlements with it, as it checks the other endpoints' `chain_id`.
 *
 * @example
 * anchorChainOf({ checkpoint: '0x5ab5…8e82', proof: fileText }) // 1
 */
export function anchorChainOf(body: unknown): number | undefined {
  const proof = isObject(body) ? body['proof'] : undefined;
  if (typeof proof !== 'string') return undefined;
  // The head line alone, found as the verifier finds it (after a byte order mark, after blank lines): the rest of the
  // file may be megabytes, and a head found otherwise would let a file the verifier reads go unchecked here.
  const { head } = readAnchorFileHead(proof);
  return head.ok ? beaconNetwork(head.value.network)?.executionChainId : undefined;
}
