import { LOGS_PROOF_MISMATCHES, type JsonSchema } from 'evm-integrity/api';
import { nullable } from './result-schemas.js';

const text = (description: string): JsonSchema => ({ type: 'string', description });
const lowerHex = (bytes: number, description: string): JsonSchema => ({
  type: 'string',
  pattern: `^[0-9a-f]{${bytes * 2}}$`,
  description,
});

/** A log as `eth_getLogs` gives it, with the members the proof proves (no transactionHash). */
const ETH_LOG_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'address',
    'topics',
    'data',
    'blockNumber',
    'blockHash',
    'blockTimestamp',
    'transactionIndex',
    'logIndex',
    'removed',
  ],
  properties: {
    address: text('20 bytes, 0x and lowercase.'),
    topics: { type: 'array', items: text('32 bytes, 0x.') },
    data: text('0x when empty.'),
    blockNumber: text('0x quantity.'),
    blockHash: text('32 bytes, 0x.'),
    blockTimestamp: text("The block's timestamp, 0x quantity."),
    transactionIndex: text('0x quantity.'),
    logIndex: text('The position among all the logs of the block, 0x quantity.'),
    removed: { const: false },
  },
};

/** `data[0]` of a logs-proof answer: whether the proof holds, why not, and what it proves. */
export const LOGS_PROOF_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'is_valid',
    'reason',
    'block',
    'message',
    'head_hash',
    'from_block',
    'to_block',
    'filter',
    'blocks',
    'candidate_blocks',
    'receipts',
    'logs',
  ],
  properties: {
    is_valid: {
      type: 'boolean',
      description:
        'Every block of the range is there, each the child of the one before, the last hashes to head_hash (with anchor: is one the anchor proof proves from its checkpoint), and each block whose bloom may match the filter comes with the receipts that make its receiptsRoot and logsBloom.',
    },
    reason: nullable({
      enum: Object.keys(LOGS_PROOF_MISMATCHES),
      description: `Why the proof does not hold; null when it does. ${Object.entries(LOGS_PROOF_MISMATCHES)
        .map(([fault, why]) => `${fault}: ${why}`)
        .join('; ')}.`,
    }),
    block: nullable({ type: 'integer', description: 'The block at fault, when the fault is at one.' }),
    message: nullable(text('The reason in words, naming the block; null when the proof holds.')),
    head_hash: nullable(
      lowerHex(
        32,
        'As sent; with anchor, the hash of to_block the anchor proof proves, or null when the proof does not hold.',
      ),
    ),
    from_block: nullable({
      type: 'integer',
      description: "The range's first block; null when the proof does not hold.",
    }),
    to_block: nullable({ type: 'integer', description: "The range's last block, the one head_hash is of." }),
    filter: nullable({
      type: 'object',
      description:
        "The proof's filter, as eth_getLogs reads it: a log matches when its address is one of address (any when empty) and, at each position of topics, its topic is one of the alternatives (any when empty).",
      required: ['address', 'topics'],
      properties: {
        address: { type: 'array', items: lowerHex(20, 'An address.') },
        topics: {
          type: 'array',
          maxItems: 4,
          items: { type: 'array', items: lowerHex(32, 'A topic.') },
        },
      },
    }),
    blocks: nullable({ type: 'integer', description: 'Blocks in the range.' }),
    candidate_blocks: nullable({
      type: 'integer',
      description: 'Blocks whose bloom may match the filter: their receipts were checked against their receiptsRoot.',
    }),
    receipts: nullable({ type: 'integer', description: 'Receipts checked, over the candidate blocks.' }),
    logs: nullable({
      type: 'array',
      description:
        'Every log of the range that matches the filter, in block and log order, in the form of eth_getLogs; null when the proof does not hold.',
      items: ETH_LOG_SCHEMA,
    }),
  },
};
