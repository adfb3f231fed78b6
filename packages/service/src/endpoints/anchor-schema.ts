import { ANCHOR_MISMATCHES, type JsonSchema } from 'evm-integrity/api';
import { nullable } from './result-schemas.js';

/**
 * JSON Schemas of what an anchor proof answers, for the OpenAPI document: `data[0]` of `POST /v1/evm/verify/anchor`,
 * and the `anchoring` member the receipt-proof and logs-proof results carry.
 */

const lowerHex = (bytes: number, description: string): JsonSchema => ({
  type: 'string',
  pattern: `^[0-9a-f]{${bytes * 2}}$`,
  description,
});

/** How a block's hash reached the checkpoint (docs/anchor.md, the three eras). */
const VIA: JsonSchema = {
  enum: ['pre-merge', 'beacon-block', 'historical-summaries', 'historical-roots'],
  description:
    "How the block's hash is proven: pre-merge (its epoch record in the historical hashes accumulator, EIP-7643), beacon-block (the execution branch of a trusted beacon block), historical-summaries (Capella on) or historical-roots (Bellatrix to Capella), each under the checkpoint's state.",
};

const SLOT: JsonSchema = nullable({
  type: 'integer',
  description: 'The beacon slot of the block; null before the merge.',
});

/** A block an anchor proof proves. */
const PROVEN_BLOCK_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['block_number', 'block_hash', 'via', 'slot', 'line'],
  properties: {
    block_number: { type: 'integer' },
    block_hash: lowerHex(32, "The execution block's hash, proven from the checkpoint."),
    via: VIA,
    slot: SLOT,
    line: { type: 'integer', description: 'The line of the file that proves it (1 is the first).' },
  },
};

/** `anchoring` of a receipt-proof or logs-proof result: what roots the block when `anchor` was sent. */
const ANCHORING_SCHEMA: JsonSchema = nullable({
  type: 'object',
  description:
    "Extension: with anchor, when the proof holds: what the anchor proof proves the block's hash from, the checkpoint or (before the merge) the pre-merge accumulator (the block is authentic, not only consistent). null without anchor, or when the proof does not hold.",
  required: ['assurance', 'checkpoint', 'network', 'block_number', 'via', 'slot'],
  properties: {
    assurance: { const: 'authentic' },
    checkpoint: nullable(
      lowerHex(
        32,
        'The checkpoint root, as sent; null for a block before the merge (via pre-merge), which rests on the pre-merge accumulator (EIP-7643), not on the checkpoint.',
      ),
    ),
    network: { type: 'string', description: "The anchor proof's beacon network (mainnet)." },
    block_number: { type: 'integer', description: 'The block anchored.' },
    via: VIA,
    slot: SLOT,
  },
});

/**
 * A proof endpoint's result schema with its `anchoring` member (always present): the receipt-proof and logs-proof
 * results, whose body may carry `anchor` in place of a trusted hash.
 */
export function withAnchoring(result: JsonSchema): JsonSchema {
  const { required, properties } = result as { required: string[]; properties: Record<string, JsonSchema> };
  return {
    ...result,
    required: [...required, 'anchoring'],
    properties: { ...properties, anchoring: ANCHORING_SCHEMA },
  };
}

/** `data[0]` of an anchor answer: whether the file verifies from the checkpoint, why not, and what it proves. */
export const ANCHOR_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['is_valid', 'reason', 'line', 'message', 'checkpoint', 'network', 'blocks'],
  properties: {
    is_valid: {
      type: 'boolean',
      description:
        'Every record of the file hashes its way up to the checkpoint, or to something an earlier record proved.',
    },
    reason: nullable({
      enum: Object.keys(ANCHOR_MISMATCHES),
      description: `Why the file does not verify; null when it does. ${Object.entries(ANCHOR_MISMATCHES)
        .map(([reason, why]) => `${reason}: ${why}`)
        .join('; ')}.`,
    }),
    line: nullable({
      type: 'integer',
      description: 'The line at fault (1 is the first); null when the file verifies.',
    }),
    message: nullable({ type: 'string', description: 'The reason in words; null when the file verifies.' }),
    checkpoint: lowerHex(32, 'As sent.'),
    network: nullable({ type: 'string', description: "The file's beacon network; null when it does not verify." }),
    blocks: nullable({
      type: 'array',
      description: 'Every execution block the file proves, in its order; null when it does not verify.',
      items: PROVEN_BLOCK_SCHEMA,
    }),
  },
};
