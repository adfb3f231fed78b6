import { err, ok, type Result } from '../../result.js';
import { isObject } from '../values/json-values.js';
import { bodyNotAnObject, Problems, type InvalidInput } from '../values/problems.js';
import { hex, integer, object, text } from '../values/schema.js';
import { refuseUntakenMembers } from './untaken-members.js';

/** An anchor proof as a request carries it: the checkpoint the caller trusts, and the file's text. */
export interface AnchorRequest {
  /** The root of a finalized beacon block, 32 bytes. */
  checkpoint: Uint8Array;
  /** The anchor proof file, whole (JSON Lines). */
  proof: string;
}

/** The members of an anchor proof, the same in `POST /v1/evm/verify/anchor`'s body and in the proof endpoints' `anchor`. */
const ANCHOR_MEMBERS = {
  checkpoint: {
    spec: hex({
      bytes: 32,
      description:
        'The root of a finalized beacon block, from sources you trust (your beacon node: GET /eth/v1/beacon/headers/finalized): every block is proven from it.',
      expected: 'the checkpoint: a beacon block root (32-byte hex)',
    }),
    required: true,
  },
  proof: {
    spec: text({
      description:
        'The anchor proof file, whole: JSON Lines, its first line naming the network and the checkpoint, then one record a line (docs/anchor.md).',
      expected: 'the anchor proof file as one JSON string',
    }),
    required: true,
  },
} as const;

/** The body of `POST /v1/evm/verify/anchor`. */
export const ANCHOR_BODY = object(
  {
    ...ANCHOR_MEMBERS,
    chain_id: {
      spec: integer({
        min: 0,
        description:
          "Optional: the chain you mean. A file whose network proves blocks of another chain is refused (422 naming both); without it, the file's own chain is answered.",
        expected: 'chain id as a JSON integer',
      }),
      nullable: true,
    },
  },
  { description: 'POST /v1/evm/verify/anchor', expected: 'a JSON object' },
);

/** A `POST /v1/evm/verify/anchor` body: the anchor proof, and the chain the caller means when it names one. */
export interface AnchorBodyRequest extends AnchorRequest {
  chainId?: number;
}

/**
 * The `anchor` member of the receipt-proof and logs-proof bodies: an anchor proof in place of the hash the caller
 * would otherwise have to trust.
 */
export const ANCHOR_MEMBER = object(ANCHOR_MEMBERS, {
  description:
    'Extension: an anchor proof and the checkpoint it hangs from, in place of a trusted hash: the block must be one the proof proves from the checkpoint.',
  expected: 'an object {checkpoint, proof}: the checkpoint root and the anchor proof file',
});

/** The member values `ANCHOR_MEMBER` read, as a request; undefined when either is missing or invalid. */
export function anchorRequestOf(
  values: { checkpoint?: Uint8Array; proof?: string } | undefined,
): AnchorRequest | undefined {
  return values?.checkpoint !== undefined && values.proof !== undefined
    ? { checkpoint: values.checkpoint, proof: values.proof }
    : undefined;
}

/**
 * Validates a `POST /v1/evm/verify/anchor` body: each member's problem named (400). The file itself is the
 * verifier's to read, line by line; whether its network's chain is `chain_id` too.
 */
export function parseAnchorRequest(body: unknown): Result<AnchorBodyRequest, InvalidInput> {
  if (!isObject(body)) return err(bodyNotAnObject(body));
  const problems = new Problems();
  const values = ANCHOR_BODY.read(body, '', problems)!;
  refuseUntakenMembers(body, 'anchor', problems);
  if (!problems.empty) return err(problems.invalidInput());
  return ok({ ...anchorRequestOf(values)!, ...(values.chain_id !== undefined && { chainId: values.chain_id }) });
}
