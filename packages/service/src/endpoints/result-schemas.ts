import { RECEIPT_PROOF_FAULTS, type JsonSchema } from 'evm-integrity/api';

/**
 * JSON Schemas of the answers, for the OpenAPI document: `data[0]` of each verify answer, and the info routes' bodies.
 */

const hex = (bytes: number, description: string): JsonSchema => ({
  type: 'string',
  pattern: `^[0-9a-f]{${bytes * 2}}$`,
  description,
});
/** A schema that also admits null (OpenAPI 3.1: a union with {type: null}). */
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/**
 * The 200 answer of a verify endpoint: `{chain_id, data: [result], count: 1}` with the members an
 * endpoint adds (`cursor`, `block_number`); every member is always present.
 */
export function verifyAnswer(
  result: JsonSchema,
  chainId: JsonSchema,
  more: Record<string, JsonSchema> = {},
): JsonSchema {
  return {
    type: 'object',
    required: ['chain_id', 'data', 'count', ...Object.keys(more)],
    properties: {
      chain_id: chainId,
      data: { type: 'array', items: result, minItems: 1, maxItems: 1 },
      count: { const: 1 },
      ...more,
    },
  };
}

/** A receipt sent that the chain's rules leave out of the root: `{index, tx_hash, reason}`. */
export const EXCLUDED_RECEIPT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['index', 'tx_hash', 'reason'],
  properties: {
    index: { type: 'integer' },
    tx_hash: hex(32, 'Its transaction hash.'),
    reason: { type: 'string' },
  },
};

/** `data[0]` of a receipt-root answer. */
export const RECEIPT_ROOT_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'block_number',
    'block_hash',
    'parent_block_hash',
    'receipt_root',
    'computed_receipt_root',
    'is_identical',
    'header_verified',
    'computed_logs_bloom',
    'logs_bloom_matches_header',
    'transaction_count',
    'excluded_receipts',
  ],
  properties: {
    block_number: nullable({ type: 'integer' }),
    block_hash: nullable(hex(32, 'From the request, else the hash of header_rlp.')),
    parent_block_hash: nullable(hex(32, 'From header_rlp.')),
    receipt_root: hex(32, 'As sent.'),
    computed_receipt_root: hex(32, 'Recomputed from the receipts.'),
    is_identical: { type: 'boolean', description: 'computed_receipt_root equals receipt_root.' },
    header_verified: nullable({
      type: 'boolean',
      description: 'With header_rlp: its hash is block_hash, its number block_number, its receipts root receipt_root.',
    }),
    computed_logs_bloom: hex(256, 'Block bloom of all the receipts.'),
    logs_bloom_matches_header: nullable({ type: 'boolean' }),
    transaction_count: {
      type: 'integer',
      description: 'Receipts hashed into the root; excluded_receipts are not counted.',
    },
    excluded_receipts: {
      type: 'array',
      description:
        "Receipts sent that the chain's rules leave out of the root and the bloom (Polygon PoS before Madhugiri: Bor's state-sync receipt, recognised by its tx_hash); empty when none. No commitment covers them: where there are any, the verdict is at best not_verifiable, is_identical still the root's comparison alone.",
      items: EXCLUDED_RECEIPT_SCHEMA,
    },
    unproven_receipt: {
      type: 'object',
      description:
        "Present only where the verdict holds whatever one receipt is whose kind the era has not shown (an untyped receipt that used no gas, last: maybe Bor's state-sync receipt, unrecognised): its index, and why the verdict does not rest on it.",
      required: ['index', 'reason'],
      properties: { index: { type: 'integer' }, reason: { type: 'string' } },
    },
  },
};

/** `data[0]` of a logs-bloom answer. */
export const LOGS_BLOOM_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['expected_bloom', 'computed_bloom', 'is_identical'],
  properties: {
    expected_bloom: hex(256, 'As sent.'),
    computed_bloom: hex(256, 'Folded from the logs.'),
    is_identical: { type: 'boolean' },
  },
};

/** A proven receipt in JSON-RPC's conventions, with its `status` or (before Byzantium) its `root`. */
function provenReceipt(title: string, outcome: 'status' | 'root', description: string): JsonSchema {
  const text = (what: string): JsonSchema => ({ type: 'string', description: what });
  return {
    title,
    type: 'object',
    required: [
      'blockHash',
      'blockNumber',
      'transactionIndex',
      'type',
      outcome,
      'cumulativeGasUsed',
      'logsBloom',
      'logs',
    ],
    properties: {
      blockHash: text('block_hash, with 0x.'),
      blockNumber: text('block_number, 0x quantity.'),
      transactionIndex: text('index, 0x quantity.'),
      type: text('EIP-2718 type, 0x quantity.'),
      [outcome]: text(description),
      cumulativeGasUsed: text('0x quantity.'),
      logsBloom: text("The receipt's own bloom."),
      logs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['address', 'topics', 'data'],
          properties: {
            address: text('20 bytes.'),
            topics: { type: 'array', items: text('32 bytes.') },
            data: text('0x when empty.'),
          },
        },
      },
      depositNonce: text('OP-stack deposits, when the receipt holds it.'),
      depositReceiptVersion: text('OP-stack deposits, when the receipt holds it.'),
    },
  };
}

/** `data[0]` of a receipt-proof answer: whether the proof holds, why not, and the receipt it proves. */
export const RECEIPT_PROOF_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'is_valid',
    'reason',
    'node',
    'message',
    'block_number',
    'block_hash',
    'transaction_index',
    'receipt',
    'block_hash_held_to',
  ],
  properties: {
    is_valid: {
      type: 'boolean',
      description:
        'The header hashes to block_hash (and expected_block_hash when sent; with anchor, block_hash is one the anchor proof proves from its checkpoint), its receiptsRoot is receipt_root, and the proof holds the receipt under it.',
    },
    reason: nullable({
      enum: Object.keys(RECEIPT_PROOF_FAULTS),
      description: `Why the proof does not hold; null when it does. ${Object.entries(RECEIPT_PROOF_FAULTS)
        .map(([fault, why]) => `${fault}: ${why}`)
        .join('; ')}.`,
    }),
    node: nullable({
      type: 'integer',
      description: "Index in proof of the node at fault (the proof's length when one is missing); null when none is.",
    }),
    message: nullable({
      type: 'string',
      description: 'The reason in words, naming the node; null when the proof holds.',
    }),
    block_number: { type: 'integer', description: 'As sent.' },
    block_hash: hex(32, 'As sent.'),
    transaction_index: { type: 'integer', description: 'index, as sent.' },
    receipt: nullable({
      description:
        "The proven receipt in JSON-RPC's conventions (eth_getTransactionReceipt: 0x quantities and data); null when the proof does not hold.",
      oneOf: [
        provenReceipt('Receipt with status', 'status', 'Byzantium and later: 0x1 success, 0x0 revert.'),
        provenReceipt('Receipt with root', 'root', 'Before Byzantium: the post-state root.'),
      ],
    }),
    block_hash_held_to: nullable({
      enum: ['expected_block_hash', 'anchor'],
      description:
        "Extension: what block_hash was held to: the expected_block_hash sent, or the anchor's proven hashes; null when the body sent neither (a trust member misnamed is ignored like any unknown member), so that block_hash is the document's own word: a proof that holds then shows the receipt is in that block, not that the block is the chain's.",
    }),
  },
};

/** `data[0]` of a lineage answer: the walker's report. */
export const LINEAGE_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['chain_id', 'tracing_id', 'verdict', 'reason', 'assurance', 'summary', 'warnings', 'records'],
  properties: {
    chain_id: { type: 'integer' },
    tracing_id: { type: 'string' },
    verdict: {
      enum: ['pass', 'fail', 'not_verifiable'],
      description:
        'fail when any check failed; else not_verifiable when a check was skipped or no block was checked on chain; else pass.',
    },
    reason: nullable({
      type: 'string',
      description: 'Why the verdict is not pass: the first failed or skipped check; null for a pass.',
    }),
    assurance: {
      enum: ['authentic', 'partly_authentic', 'consistent'],
      description:
        "What the blocks checked on chain are: consistent here, as the endpoint takes no anchor proof (each block is consistent in itself, and its hash is the bundle's word: a forged block consistent in itself passes); the command line's lineage --anchor-proof makes them authentic.",
    },
    summary: {
      type: 'object',
      required: ['pass', 'fail', 'skipped'],
      description: 'How many checks passed, failed and were skipped, over every record.',
      properties: { pass: { type: 'integer' }, fail: { type: 'integer' }, skipped: { type: 'integer' } },
    },
    warnings: { type: 'array', items: { type: 'string' } },
    records: {
      type: 'array',
      description: 'The record asked for, then its parents, each with its checks.',
      items: {
        type: 'object',
        required: ['tracing_id', 'dataset', 'checks'],
        properties: {
          tracing_id: { type: 'string' },
          dataset: nullable({ type: 'string' }),
          checks: {
            type: 'array',
            items: {
              type: 'object',
              required: ['check', 'status', 'subject', 'reason'],
              properties: {
                check: { type: 'string', description: 'The check, such as shape.tracing_id or block.receipts_root.' },
                status: { enum: ['pass', 'fail', 'skipped'] },
                subject: {
                  type: 'string',
                  description: 'What it checked: a record, an artifact (genesis.logs[0]) or a block.',
                },
                reason: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
};

/** `GET /health`. */
export const HEALTH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' } },
};

/** `GET /ready`. */
export const READY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ready' } },
};

/** `GET /usage`: the account's current billing period. */
export const USAGE_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'plan',
    'cu_limit',
    'cu_used',
    'cu_remaining',
    'cu_held',
    'cu_reset_at',
    'rate_limit_rps',
    'cu_by_endpoint',
    'billing_period',
  ],
  properties: {
    plan: { type: 'string' },
    cu_limit: { type: 'integer', description: 'Allowance of the period, CU packages included.' },
    cu_used: { type: 'integer', description: 'CU charged this period: the requests answered 2xx.' },
    cu_remaining: { type: 'integer', description: 'cu_limit − cu_used (never below 0).' },
    cu_held: {
      type: 'integer',
      description:
        'Extension: of cu_remaining, the CU held by requests in progress; they are charged (2xx) or come back as those requests end. A request that needs more than cu_remaining − cu_held gets a retryable 429.',
    },
    cu_reset_at: { type: 'string', format: 'date-time' },
    rate_limit_rps: { type: 'integer' },
    cu_by_endpoint: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'CU charged this period (cu_used), by endpoint name.',
    },
    billing_period: {
      type: 'object',
      required: ['start', 'end'],
      properties: { start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' } },
    },
  },
};

const verifiable = (what: string): JsonSchema => ({
  type: 'boolean',
  description: `Whether any block of ${what} can be verified (its checks: \`checks\`).`,
});

/** A real block that evidence stands on: a shipped fixture, or a block an operator vouched for. */
const EVIDENCE_BLOCK_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['fixture', 'block', 'source'],
  properties: {
    fixture: {
      type: 'string',
      description: "A fixture (fixtures/blocks/<fixture>.json in the repository), or an operator's evidence file.",
    },
    block: { type: 'integer' },
    source: { enum: ['shipped', 'operator'] },
    receipts: {
      type: 'array',
      description: 'The kinds of receipts it holds: "ethereum", a type of the chain\'s own, …',
      items: {},
    },
    logs: { type: 'boolean', description: 'Whether it holds a log.' },
    block_hash: { type: 'string', description: "An operator's block: the hash vouched for." },
    vouched_by: { type: 'string' },
    vouched_at: { type: 'string', format: 'date-time' },
  },
};

/** A check's claim: verified on real blocks (or on the configuration's word), or not and why. */
const CLAIM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['verified'],
  properties: {
    verified: { type: 'boolean' },
    evidence: {
      description:
        'The chain\'s own real blocks that show it (shipped, or vouched for by an operator), or "configured" for a chain the configuration adds.',
      oneOf: [{ type: 'array', items: EVIDENCE_BLOCK_SCHEMA }, { enum: ['configured'] }],
    },
    registry: {
      type: 'object',
      description:
        "The registry entry that declares the chain a standard member of its rule set's family, and the family's shipped blocks the claim borrows.",
      required: ['repository', 'path', 'commit', 'declares', 'evidence'],
      properties: {
        repository: { type: 'string' },
        path: { type: 'string' },
        commit: { type: 'string' },
        declares: { type: 'string' },
        evidence: { type: 'array', items: EVIDENCE_BLOCK_SCHEMA },
      },
    },
    reason: { type: 'string', description: 'Why it is not verified.' },
  },
};

const CHECKS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Each check (block_hash, receipts_root, logs_bloom) and whether it is verified, on what evidence.',
  required: ['block_hash', 'receipts_root', 'logs_bloom'],
  properties: { block_hash: CLAIM_SCHEMA, receipts_root: CLAIM_SCHEMA, logs_bloom: CLAIM_SCHEMA },
};

/** `GET /chains`: the chain registry (`describeChain`). */
export const CHAINS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['data', 'count'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chain_id', 'name', 'rules', 'verifiable'],
        properties: {
          chain_id: { type: 'integer' },
          name: { type: 'string' },
          rules: { type: 'string', description: 'The receipt rule set its receipts follow.' },
          verifiable: verifiable('any of its blocks'),
          reason: { type: 'string', description: 'Why not, when it is not verifiable.' },
          eras: {
            type: 'array',
            description:
              "A built-in chain's eras in block order: each with its rules, header layout and what shows each check.",
            items: {
              type: 'object',
              required: ['name', 'first_block', 'last_block', 'verifiable', 'rules', 'header'],
              properties: {
                name: { type: 'string' },
                first_block: { type: 'integer' },
                last_block: nullable({ type: 'integer', description: 'null for the current era.' }),
                verifiable: verifiable('the era'),
                reason: { type: 'string' },
                rules: { type: 'string', description: "The era's receipt rule set." },
                header: { enum: ['ethereum', 'aura', 'avalanche'], description: 'The layout its headers hash in.' },
                state_sync: { type: 'string', description: 'Polygon PoS: how state sync enters the block.' },
                checks: CHECKS_SCHEMA,
              },
            },
          },
          checks: { ...CHECKS_SCHEMA, description: 'For a chain the configuration adds: every check "configured".' },
        },
      },
    },
    count: { type: 'integer' },
  },
};
