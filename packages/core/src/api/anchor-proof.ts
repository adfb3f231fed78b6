/**
 * An anchor proof as the endpoints read it, the one place that decides what each refusal of a file is: bytes that
 * are no anchor proof (400 naming the member), a network the anchor does not know (422), or a file that does not
 * verify (a false verdict, answered 200 as every mismatch is). `POST /v1/evm/verify/anchor` answers with it, and the
 * receipt-proof and logs-proof endpoints read their `anchor` member through it.
 */
import {
  anchoredHashes,
  BEACON_NETWORKS,
  describeAnchorRefusal,
  type AnchoredHashes,
  type AnchorRefusal,
  type AnchorRefusalReason,
  type ProvenBlock,
  type ProvenVia,
} from '../anchor/index.js';
import { bytesToHex } from '../bytes/hex.js';
import type { AnchorRequest } from '../input/requests/anchor-request.js';
import { badRequest, errorEnvelope, type OperationContext, type OperationResult } from './envelope.js';

/** The refusals that are a false verdict (200, `is_valid` false): a file that reads, but does not verify. */
export type AnchorMismatch = Exclude<AnchorRefusalReason, 'format' | 'empty' | 'network'>;

/**
 * Every refusal of a file that reads but does not verify, in a few words (a record, so that a new reason of the
 * library cannot be left out of the answer's documented values).
 */
export const ANCHOR_MISMATCHES: Readonly<Record<AnchorMismatch, string>> = {
  checkpoint: 'the file hangs from another checkpoint than the one sent',
  'untrusted-header': 'a beacon-header record whose root is neither the checkpoint nor a header proven earlier',
  'state-branch': "a state field that does not reach its header's state root",
  'no-state': 'a block that needs a list no earlier record proved',
  header: "a block's header that is not a header RLP",
  'block-branch': "a block's proof that fails: a branch, or its slot and timestamp",
  'light-client': 'a light-client step that does not verify',
};

/** What a request's verdict is, for a refusal of each reason: no anchor proof (400), unknown network (422), or false. */
export function anchorRefusalVerdict(reason: AnchorRefusalReason): OperationResult['verdict'] {
  if (reason === 'format' || reason === 'empty') return 'invalid';
  return reason === 'network' ? 'not_verifiable' : 'different';
}

/** What reading an anchor proof gives: what it proves, why it does not verify, or the 400 or 422 to answer. */
export type AnchorOutcome =
  | { kind: 'proven'; hashes: AnchoredHashes }
  | { kind: 'refused'; refusal: AnchorRefusal; reason: AnchorMismatch }
  | { kind: 'answer'; result: OperationResult };

/**
 * Verifies the anchor proof of a request for blocks of chain `chainId` (null: the file's own, to list what it proves);
 * `member` is how the body names the file (`proof`, `anchor.proof`), for a 400's invalid parameter.
 */
export function readAnchor(
  anchor: AnchorRequest,
  member: string,
  chainId: number | null,
  context: OperationContext,
): AnchorOutcome {
  const verified = anchoredHashes(anchor.proof, anchor.checkpoint, chainId);
  if (verified.ok) return { kind: 'proven', hashes: verified.value };
  const refusal = verified.error;
  const verdict = anchorRefusalVerdict(refusal.reason);
  if (verdict === 'different') return { kind: 'refused', refusal, reason: refusal.reason as AnchorMismatch };
  if (verdict === 'invalid') {
    const expected = `an anchor proof file (line ${refusal.line}: ${refusal.message})`;
    return {
      kind: 'answer',
      result: {
        status: 400,
        verdict,
        body: badRequest([{ name: member, location: 'body', reason: 'invalid_format', expected }], 1, context),
      },
    };
  }
  return {
    kind: 'answer',
    result: {
      status: 422,
      verdict,
      body: errorEnvelope(
        {
          code: 'CHAIN_NOT_SUPPORTED',
          http_status: 422,
          message: `The anchor proof's ${refusal.message}.`,
          hint: `Send an anchor proof of the request's chain, of a network the anchor knows: ${[...BEACON_NETWORKS.values()].map((network) => `${network.name} (chain ${network.executionChainId})`).join(', ')}.`,
          details: { chain_id: chainId, reason: refusal.message },
        },
        context,
      ),
    },
  };
}

/** A proven block in an answer: number, hash (hex, no 0x), how it was proven, its slot (null before the merge), its line. */
export interface ProvenBlockJson {
  block_number: number;
  block_hash: string;
  via: ProvenVia;
  slot: number | null;
  line: number;
}

/** A proven block as an answer gives it. */
export function provenBlockJson(block: ProvenBlock): ProvenBlockJson {
  return {
    block_number: Number(block.number),
    block_hash: bytesToHex(block.hash),
    via: block.via,
    slot: block.slot ?? null,
    line: block.line,
  };
}

/**
 * What roots a proof's block when an anchor proof proves it: `assurance` authentic, the checkpoint (none before the
 * merge), and how the block's hash reached it. The receipt-proof and logs-proof results carry it as `anchoring`.
 */
export interface AnchoringJson {
  assurance: 'authentic';
  /**
   * The checkpoint root (hex, no 0x); null for a block before the merge (`via` pre-merge), which rests on the
   * accumulator EIP-7643 fixes and not on the checkpoint.
   */
  checkpoint: string | null;
  network: string;
  block_number: number;
  via: ProvenVia;
  slot: number | null;
}

/** The `anchoring` of a block the anchor proof proves. */
export function anchoringJson(hashes: AnchoredHashes, block: ProvenBlock): AnchoringJson {
  return {
    assurance: 'authentic',
    checkpoint: hashes.checkpointOf(block)?.slice(2) ?? null,
    network: hashes.verdict.network,
    block_number: Number(block.number),
    via: block.via,
    slot: block.slot ?? null,
  };
}

/** The sentence of a result whose anchor proof is refused: which line, why. */
export const anchorRefusedMessage = (refusal: AnchorRefusal): string =>
  `The anchor proof is refused at ${describeAnchorRefusal(refusal)}.`;

/**
 * Why block `number` with hash `hash` is not anchored, as an answer's message (a sentence), or null when the anchor
 * proof proves it.
 */
export function unprovenMessage(
  hashes: AnchoredHashes,
  number: number,
  hash: Uint8Array,
  chainId: number,
): string | null {
  const why = hashes.unproven(number, hash, chainId);
  return why === null ? null : `${why[0]!.toUpperCase()}${why.slice(1)}.`;
}
