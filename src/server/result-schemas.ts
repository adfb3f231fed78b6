import type { JsonSchema } from '../input/schema.js';

/** JSON Schemas of `data[0]` of each verify answer, for the OpenAPI document. */

const hex = (bytes: number, description: string): JsonSchema => ({ type: 'string', pattern: `^[0-9a-f]{${bytes * 2}}$`, description });
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/** `data[0]` of a receipt-root answer. */
export const RECEIPT_ROOT_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['block_number', 'block_hash', 'parent_block_hash', 'receipt_root', 'computed_receipt_root', 'is_identical', 'header_verified', 'computed_logs_bloom', 'logs_bloom_matches_header', 'transaction_count', 'excluded_receipts'],
  properties: {
    block_number: nullable({ type: 'integer' }),
    block_hash: nullable(hex(32, 'From the request, else the hash of header_rlp.')),
    parent_block_hash: nullable(hex(32, 'From header_rlp.')),
    receipt_root: hex(32, 'As sent.'),
    computed_receipt_root: hex(32, 'Recomputed from the receipts.'),
    is_identical: { type: 'boolean', description: 'computed_receipt_root equals receipt_root.' },
    header_verified: nullable({ type: 'boolean', description: 'With header_rlp: its hash is block_hash, its number block_number, its receipts root receipt_root.' }),
    computed_logs_bloom: hex(256, 'Block bloom of all the receipts.'),
    logs_bloom_matches_header: nullable({ type: 'boolean' }),
    transaction_count: { type: 'integer', description: 'Receipts hashed into the root; excluded_receipts are not counted.' },
    excluded_receipts: {
      type: 'array',
      description: "Receipts sent that the chain's rules leave out of the root and the bloom (Polygon PoS before Madhugiri: Bor's state-sync receipt, recognised by its tx_hash); empty when none.",
      items: {
        type: 'object',
        required: ['index', 'tx_hash', 'reason'],
        properties: { index: { type: 'integer' }, tx_hash: hex(32, 'Its transaction hash.'), reason: { type: 'string' } },
      },
    },
  },
};

/** `data[0]` of a logs-bloom answer. */
export const LOGS_BLOOM_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['expected_bloom', 'computed_bloom', 'is_identical'],
  properties: { expected_bloom: hex(256, 'As sent.'), computed_bloom: hex(256, 'Folded from the logs.'), is_identical: { type: 'boolean' } },
};

/** `data[0]` of a lineage answer: the walker's report. */
export const LINEAGE_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['chain_id', 'tracing_id', 'verdict', 'summary', 'warnings', 'records'],
  properties: {
    chain_id: { type: 'integer' },
    tracing_id: { type: 'string' },
    verdict: { enum: ['pass', 'fail'], description: 'fail when any check failed; skipped checks neither fail nor pass.' },
    summary: { type: 'object', properties: { pass: { type: 'integer' }, fail: { type: 'integer' }, skipped: { type: 'integer' } } },
    warnings: { type: 'array', items: { type: 'string' } },
    records: {
      type: 'array',
      description: 'The record asked for, then its parents, each with its checks.',
      items: {
        type: 'object',
        properties: {
          tracing_id: { type: 'string' },
          dataset: { type: ['string', 'null'] },
          checks: { type: 'array', items: { type: 'object', properties: { check: { type: 'string' }, status: { enum: ['pass', 'fail', 'skipped'] }, subject: { type: 'string' }, reason: { type: 'string' } } } },
        },
      },
    },
  },
};
