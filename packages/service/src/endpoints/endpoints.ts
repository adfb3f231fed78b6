import {
  type JsonSchema,
  LINEAGE_BODY,
  LOGS_BLOOM_BODY,
  type OperationContext,
  type OperationResult,
  RECEIPT_PROOF_BODY,
  RECEIPT_ROOT_BODY,
  verifyLineageOperation,
  verifyLogsBloomOperation,
  verifyReceiptProofOperation,
  verifyReceiptRootOperation,
} from 'evm-integrity/api';
import type { ChainRegistry } from 'evm-integrity';
import {
  LINEAGE_RESULT_SCHEMA,
  LOGS_BLOOM_RESULT_SCHEMA,
  nullable,
  RECEIPT_PROOF_RESULT_SCHEMA,
  RECEIPT_ROOT_RESULT_SCHEMA,
  verifyAnswer,
} from './result-schemas.js';
import { LOGS_PROOF_RESULT_SCHEMA } from './logs-proof-schema.js';
import {
  ANCHOR_BODY,
  anchorChainOf,
  LOGS_PROOF_BODY,
  verifyAnchorOperation,
  verifyLogsProofOperation,
} from 'evm-integrity/api';
import { ANCHOR_RESULT_SCHEMA, withAnchoring } from './anchor-schema.js';

/** A metered endpoint: its name (for entitlements and usage), cost and operation. */
export interface Endpoint {
  name: string;
  path: string;
  /** CU of a request answered 2xx (with `cuPerMiB`, its least). */
  cu: number;
  /**
   * CU added per full MiB of the request body, for work that grows with the body (a logs proof's range, an anchor
   * proof's blocks); absent: none.
   */
  cuPerMiB?: number;
  /**
   * Whether a body, whatever its size, is verified on a worker thread (when the server has them): one whose work does
   * not follow its size, as an anchor proof's light-client steps (a BLS check, and a new committee's 512 keys, each).
   */
  verifiesOnPool?: (body: Uint8Array) => boolean;
  /**
   * The chain a body is about, which the account must be entitled to (403 before the work); absent: the body's
   * `chain_id`. Undefined when the body names none: the operation answers that.
   */
  chainOf?: (body: unknown) => number | undefined;
  /** The configuration member that is the endpoint's own body limit; absent: `body_limit_bytes`. */
  bodyLimit?: 'logsProofBodyLimitBytes';
  /**
   * What a 413 of the endpoint recommends (`details.recommended_actions`), in the terms of what its body holds: each
   * endpoint says its own, so none is told to send fewer of what it does not carry.
   */
  oversizeActions: readonly string[];
  summary: string;
  /** JSON Schema of the request body: the same declaration that validates it. */
  requestSchema: JsonSchema;
  /**
   * JSON Schema of a 200 answer (`verifyAnswer`: `{chain_id, data: [result], count}` and the endpoint's own members).
   */
  answerSchema: JsonSchema;
  operation: (
    body: unknown,
    context: OperationContext & { registry: ChainRegistry },
  ) => OperationResult | Promise<OperationResult>;
}

const HASH_PATTERN = '^(0[xX])?[0-9a-fA-F]{64}$';

/** A schema's description as text; empty when it has none. */
const textOf = (description: unknown) => (typeof description === 'string' ? description : '');

/**
 * The receipt-root body's schema with what its declaration cannot say: exactly one of `status` and
 * `root` (`oneOf`: a receipt with a status, one with a root; one with both matches both and is
 * refused), and in the descriptions the rules across members that the validator checks.
 */
function receiptRootRequestSchema(): JsonSchema {
  const schema = structuredClone(RECEIPT_ROOT_BODY.schema) as JsonSchema & {
    properties: Record<string, JsonSchema & { items: JsonSchema }>;
  };
  const transactions = schema.properties.transactions!;
  transactions.description = `${textOf(transactions.description)} Checked across the list: the indexes are exactly 0..n-1, each once (a missing or repeated one is 400 naming it); each type must be one of the chain's rule set (GET /v1/chains, rules; any other is 400 unknown_type); deposit_nonce and deposit_receipt_version belong to 0x7e deposits of OP-stack chains only, and deposit_receipt_version needs deposit_nonce; tx_hash names Polygon's state-sync receipt before Madhugiri, which is left out of the root, and is one receipt's (another receipt's is 400 conflict).`;
  transactions.items.oneOf = [
    {
      title: 'Receipt with status',
      description: 'Byzantium and later: status, and root absent or null.',
      required: ['status'],
      properties: { status: { enum: [0, 1] } },
    },
    {
      title: 'Receipt with root',
      description: 'Before Byzantium: the post-state root, and status absent or null.',
      required: ['root'],
      properties: { root: { type: 'string', pattern: HASH_PATTERN } },
    },
  ];
  schema.description = `${textOf(schema.description)}. With header_rlp, the header must hash to block_hash and carry block_number and receipt_root (header_verified says whether it does). On a chain with an era that cannot be verified, block_number or header_rlp is needed to tell the era (400 naming block_number without either).`;
  return schema;
}

/**
 * The logs-proof body's schema with the rule its declaration cannot say: the range hangs from `head_hash` or from
 * `anchor`, one of them (both is 400 `conflict` naming `anchor`).
 */
function logsProofRequestSchema(): JsonSchema {
  const schema = structuredClone(LOGS_PROOF_BODY.schema);
  schema.anyOf = [
    { title: 'From a head hash', required: ['head_hash'] },
    { title: 'From an anchor proof', required: ['anchor'] },
  ];
  schema.description = `${textOf(schema.description)}. The range hangs from head_hash or from anchor (an anchor proof that proves its last block): exactly one of them.`;
  return schema;
}

/** Every anchor proof with light-client steps has a bootstrap record. */
const BOOTSTRAP = Buffer.from('bootstrap');

/**
 * Whether a body may carry light-client steps: a second of CPU for a new committee's keys, in a body of 100 KB, so
 * never on the event loop. A byte search, before the body is read: a false yes only sends a body to a worker.
 */
export function carriesLightClientSteps(body: Uint8Array): boolean {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).includes(BOOTSTRAP);
}

/** The advice of a 413 of an endpoint whose body carries an anchor proof: a file of the blocks needed. */
const ANCHOR_OVERSIZE = 'Send an anchor proof of the blocks needed only: each block is a line of its own, about 5 KB.';

/** The verify endpoints: each one an operation of the core, served as it is. */
export const ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'verify/receipt-root',
    path: '/evm/verify/receipt-root',
    cu: 1,
    oversizeActions: [
      "Send each receipt's members the root hashes only (index, type, status or root, cumulative_gas_used, logs): a node's other members are ignored, yet count against the limit.",
      'A block whose receipts are larger than the limit needs a server with a larger body_limit_bytes, or the command line (evm-integrity verify receipt-root FILE), which reads the body from a file without a body limit.',
    ],
    summary: 'Recompute the receipts root of a complete receipt list and compare it with receipt_root.',
    requestSchema: receiptRootRequestSchema(),
    answerSchema: verifyAnswer(RECEIPT_ROOT_RESULT_SCHEMA, { type: 'integer' }, { cursor: { type: 'null' } }),
    operation: verifyReceiptRootOperation,
  },
  {
    name: 'verify/logs-bloom',
    path: '/evm/verify/logs-bloom',
    cu: 1,
    oversizeActions: [
      "Send each log's contract_address and topics only: its data is not in the bloom, and is not read.",
      "Logs whose addresses and topics are larger than the limit need a server with a larger body_limit_bytes: the bloom is of all of a block's logs, so they cannot be split over requests.",
    ],
    summary: 'Fold logs into the 2048-bit bloom and compare it with expected_bloom.',
    requestSchema: LOGS_BLOOM_BODY.schema,
    answerSchema: verifyAnswer(
      LOGS_BLOOM_RESULT_SCHEMA,
      nullable({ type: 'integer', description: 'As sent; null when absent.' }),
      {
        block_number: nullable({ type: 'integer', description: 'As sent; null when absent.' }),
      },
    ),
    operation: verifyLogsBloomOperation,
  },
  {
    name: 'verify/receipt-proof',
    path: '/evm/verify/receipt-proof',
    cu: 1,
    // An anchor proof in the body is work that grows with it.
    cuPerMiB: 1,
    verifiesOnPool: carriesLightClientSteps,
    oversizeActions: [
      'Send the proof document alone: a receipt proof holds one receipt, a few nodes and a header.',
      ANCHOR_OVERSIZE,
      'A receipt whose logs carry more data than the limit needs a server with a larger body_limit_bytes.',
    ],
    summary:
      'Extension: check a receipt proof (what evm-integrity prove receipt writes) against its block hash, or an anchor proof from a beacon-chain checkpoint, and answer the receipt it proves.',
    requestSchema: RECEIPT_PROOF_BODY.schema,
    answerSchema: verifyAnswer(
      withAnchoring(RECEIPT_PROOF_RESULT_SCHEMA),
      { type: 'integer' },
      { cursor: { type: 'null' } },
    ),
    operation: verifyReceiptProofOperation,
  },
  {
    name: 'verify/lineage',
    path: '/evm/verify/lineage',
    cu: 1,
    oversizeActions: [
      'Send a bundle of this lineage alone: the exchanges of the paths its walk reads and the blocks they name (exchanges of other paths are ignored, but still sent).',
      'Audit a larger bundle with the command line (evm-integrity lineage --bundle FILE), which reads it from a file, without a body limit.',
    ],
    summary: "Extension: audit a derived record's lineage against a bundle of the hosted service's answers and blocks.",
    requestSchema: LINEAGE_BODY.schema,
    answerSchema: verifyAnswer(LINEAGE_RESULT_SCHEMA, { type: 'integer' }),
    operation: verifyLineageOperation,
  },
  {
    name: 'verify/logs-proof',
    path: '/evm/verify/logs-proof',
    cu: 1,
    cuPerMiB: 1,
    verifiesOnPool: carriesLightClientSteps,
    bodyLimit: 'logsProofBodyLimitBytes',
    oversizeActions: [
      'Prove the range in shorter parts, each from its own last block.',
      'Narrow the filter: fewer blocks then carry their receipts.',
      ANCHOR_OVERSIZE,
    ],
    summary:
      'Extension: check a complete-log proof over a range of blocks from its head hash (or an anchor proof of its last block), and answer every log that matches its filter.',
    requestSchema: logsProofRequestSchema(),
    answerSchema: verifyAnswer(
      withAnchoring(LOGS_PROOF_RESULT_SCHEMA),
      { type: 'integer' },
      { cursor: { type: 'null' } },
    ),
    operation: verifyLogsProofOperation,
  },
  {
    name: 'verify/anchor',
    path: '/evm/verify/anchor',
    // SHA-256 branches and a keccak a block: the work grows with the file, as a logs proof's.
    cu: 1,
    cuPerMiB: 1,
    verifiesOnPool: carriesLightClientSteps,
    // The body names no chain_id: the file's network is its chain.
    chainOf: anchorChainOf,
    oversizeActions: [ANCHOR_OVERSIZE, 'Split the blocks over several files, each with its beacon-header record.'],
    summary:
      'Extension: verify an anchor proof file from a beacon-chain checkpoint you trust, and answer every execution block hash it proves.',
    requestSchema: ANCHOR_BODY.schema,
    answerSchema: verifyAnswer(
      ANCHOR_RESULT_SCHEMA,
      nullable({
        type: 'integer',
        description: "The execution chain of the file's network (1: mainnet); null when it does not verify.",
      }),
      { cursor: { type: 'null' } },
    ),
    operation: verifyAnchorOperation,
  },
];

const MIB = 1024 * 1024;

/**
 * The CU a request of `bodyBytes` costs when answered 2xx: `cu`, and `cuPerMiB` for each full MiB
 * of its body. Known once the body is read, before the work: the CU are reserved then.
 *
 * @example cuOf({ cu: 1, cuPerMiB: 1 }, 3 * 1024 * 1024 + 5) // 4
 */
export function cuOf(endpoint: Pick<Endpoint, 'cu' | 'cuPerMiB'>, bodyBytes: number): number {
  return endpoint.cu + (endpoint.cuPerMiB ?? 0) * Math.floor(bodyBytes / MIB);
}

/**
 * How `endpoint`'s CU are counted, for a message beside a request's cost: `1 + 1 per full MiB of its body`; undefined
 * when every request costs the same (`cuOf`'s rule, in words).
 */
export function cuRuleOf(endpoint: Pick<Endpoint, 'cu' | 'cuPerMiB'>): string | undefined {
  return endpoint.cuPerMiB === undefined ? undefined : `${endpoint.cu} + ${endpoint.cuPerMiB} per full MiB of its body`;
}

/** The endpoints' names, as entitlements list them (`verify/receipt-root`): a name not here would refuse everything. */
export const ENDPOINT_NAMES: readonly string[] = ENDPOINTS.map((endpoint) => endpoint.name);
