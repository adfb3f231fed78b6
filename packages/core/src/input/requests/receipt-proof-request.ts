import { uncheckable, type ChainRegistry, type NotVerifiable, type Verifiability } from '../../chains/registry.js';
import { InvalidHeaderError } from '../../errors.js';
import { decodeHeader, headerNumberIfAny } from '../../header/header-decoding.js';
import type { BlockHeader } from '../../header/header-fields.js';
import type { HeaderLayout } from '../../header/layouts.js';
import { forkFieldFaults } from '../../chains/header-fork-fields.js';
import { err, ok, type Result } from '../../result.js';
import { isObject } from '../values/json-values.js';
import { bodyNotAnObject, Problems, type InvalidInput } from '../values/problems.js';
import type { UnsupportedChain } from './receipt-root-request.js';
import { arrayOf, givesMember, hex, integer, object, type Spec } from '../values/schema.js';
import { ANCHOR_MEMBER, anchorRequestOf, type AnchorRequest } from './anchor-request.js';
import { refuseUntakenMembers } from './untaken-members.js';

/** The `format` of a receipt proof document. */
export const RECEIPT_PROOF_FORMAT = 'evm-integrity/receipt-proof';
/** The version of the receipt proof document this code writes and reads. */
export const RECEIPT_PROOF_VERSION = 1;

/** A validated receipt proof document (`POST /v1/evm/verify/receipt-proof`, `evm-integrity prove receipt`). */
export interface ReceiptProofRequest {
  chainId: number;
  blockNumber: number;
  blockHash: Uint8Array;
  headerRlp: Uint8Array;
  index: number;
  receiptRoot: Uint8Array;
  proof: Uint8Array[];
  /** The hash the proof must be of, when the caller binds it to one it trusts. */
  expectedBlockHash?: Uint8Array;
  /** In place of `expectedBlockHash`: an anchor proof that must prove the block's hash from its checkpoint. */
  anchor?: AnchorRequest;
  /** The block's era, verifiable with its receipts root and block hash claimed. */
  verifiability: Extract<Verifiability, { status: 'verifiable' }>;
}

/** Why a receipt proof body is refused: invalid (400), or of a chain or era that cannot be verified (422). */
export type ReceiptProofRefusal = InvalidInput | UnsupportedChain;

/** A JSON string equal to `value`. */
function constant(value: string, description: string): Spec<string> {
  return {
    schema: { const: value, description },
    read: (raw, path, problems) => {
      if (raw === value) return value;
      const got = raw === undefined ? undefined : JSON.stringify(raw);
      problems.add(path, got === undefined ? 'missing' : 'invalid_format', `"${value}"${got ? `, got ${got}` : ''}`);
      return undefined;
    },
    valid: (raw) => (raw === value ? value : undefined),
  };
}

const hash = (description: string) => hex({ bytes: 32, description });

/** The members of a receipt proof document. */
const RECEIPT_PROOF_MEMBERS = {
  format: { spec: constant(RECEIPT_PROOF_FORMAT, 'What the document is.'), required: true },
  version: {
    spec: integer({
      min: RECEIPT_PROOF_VERSION,
      max: RECEIPT_PROOF_VERSION,
      description: 'Version of the document format.',
      expected: `version ${RECEIPT_PROOF_VERSION} (the one this version of evm-integrity reads)`,
    }),
    required: true,
  },
  chain_id: {
    spec: integer({ min: 0, description: 'Chain; one of GET /v1/chains.', expected: 'chain id as a JSON integer' }),
    required: true,
  },
  block_number: {
    spec: integer({
      min: 0,
      description: "The block's number; must be header_rlp's.",
      expected: 'block number as a JSON integer',
    }),
    required: true,
  },
  block_hash: { spec: hash('The hash of the block the proof is of: keccak of header_rlp.'), required: true },
  header_rlp: {
    spec: hex({
      description: "The block header's RLP, in the layout of its chain's era.",
      expected: 'the block header RLP as hex',
    }),
    required: true,
  },
  index: {
    spec: integer({
      min: 0,
      description: "The receipt's transaction index: its key in the receipts trie.",
      expected: 'zero-based transaction index (JSON integer)',
    }),
    required: true,
  },
  receipt_root: { spec: hash("The receipts root the proof starts from: the header's receiptsRoot."), required: true },
  proof: {
    spec: arrayOf(hex({ description: 'RLP of a trie node.', expected: 'a trie node RLP as hex' }), {
      description: 'The trie nodes from the root to the leaf that holds the receipt, as eth_getProof gives them.',
      expected: 'an array of trie node RLPs as hex',
    }),
    required: true,
  },
  expected_block_hash: {
    spec: hash('The block hash you trust (from your own node): the proof must be of that block. Not with anchor.'),
    nullable: true,
  },
  anchor: { spec: ANCHOR_MEMBER, nullable: true },
} as const;

/** The receipt proof document, which is also the request body of `POST /v1/evm/verify/receipt-proof`. */
export const RECEIPT_PROOF_BODY = object(RECEIPT_PROOF_MEMBERS, {
  description: 'POST /v1/evm/verify/receipt-proof',
  expected: 'a JSON object',
});

/**
 * Whether a receipt proof document gives `expected_block_hash` or `anchor`, as the endpoint reads it: null claims
 * nothing and is absent; `"anchor": {}` is given (an anchor without its members, which the endpoint refuses naming
 * them). The command line asks it before binding a document to the hash or anchor proof of whoever checks.
 */
export function receiptProofGives(body: unknown, name: 'expected_block_hash' | 'anchor'): boolean {
  return givesMember(RECEIPT_PROOF_MEMBERS, body, name);
}

/** The header's fields in `layout`; undefined where it does not decode so. */
function decodedOrUndefined(rlp: Uint8Array, layout: HeaderLayout): BlockHeader | undefined {
  try {
    return decodeHeader(rlp, layout);
  } catch (error) {
    if (error instanceof InvalidHeaderError) return undefined;
    throw error;
  }
}

/**
 * Validates a receipt proof document. Its era, from chain_id and the header's number, gives the
 * receipts' rules and the header's layout; an era that cannot be verified, or does not claim its
 * receipts root or block hash, is refused (422), as is a chain outside the registry; a header with a field its
 * block's fork lacks, or without one it has, is 400 naming header_rlp.
 */
export function parseReceiptProofRequest(
  body: unknown,
  registry: ChainRegistry,
): Result<ReceiptProofRequest, ReceiptProofRefusal> {
  if (!isObject(body)) return err(bodyNotAnObject(body));
  const problems = new Problems();
  const values = RECEIPT_PROOF_BODY.read(body, '', problems)!;
  refuseUntakenMembers(body, 'receipt-proof', problems);
  if (!problems.empty) return err(problems.invalidInput());
  if (values.expected_block_hash !== undefined && values.anchor !== undefined) {
    problems.add('anchor', 'conflict', 'expected_block_hash or anchor, not both: each says which block hash to trust');
    return err(problems.invalidInput());
  }
  const inHeader = headerNumberIfAny(values.header_rlp!);
  if (inHeader !== undefined && inHeader !== BigInt(values.block_number!)) {
    problems.add('block_number', 'conflict', `header_rlp's number ${inHeader}, got ${values.block_number}`);
    return err(problems.invalidInput());
  }
  const blockNumber = BigInt(values.block_number!);
  const verifiability = registry.verifiability(values.chain_id!, blockNumber);
  const refuse = (subject: NotVerifiable) =>
    err({ kind: 'chain_not_supported', verifiability: subject, blockNumber } as const);
  // era_unknown cannot happen: the number is always known.
  if (verifiability.status !== 'verifiable') return refuse(verifiability as NotVerifiable);
  const unclaimed = uncheckable(verifiability, 'receipts_root') ?? uncheckable(verifiability, 'block_hash');
  if (unclaimed !== null) return refuse(unclaimed);
  // A header its chain's forks refuse is refused here as verify block and the receipt-root body refuse it: a proof of
  // another chain's block, relabelled, is no proof of this chain's. One that does not decode is the proof's to answer.
  const fields = decodedOrUndefined(values.header_rlp!, verifiability.header);
  for (const { kind, expected } of fields === undefined
    ? []
    : forkFieldFaults(verifiability.chain, verifiability.header, fields, true))
    problems.add('header_rlp', kind, expected);
  if (!problems.empty) return err(problems.invalidInput());
  return ok({
    chainId: values.chain_id!,
    blockNumber: values.block_number!,
    blockHash: values.block_hash!,
    headerRlp: values.header_rlp!,
    index: values.index!,
    receiptRoot: values.receipt_root!,
    proof: values.proof!,
    ...(values.expected_block_hash !== undefined && { expectedBlockHash: values.expected_block_hash }),
    ...(values.anchor !== undefined && { anchor: anchorRequestOf(values.anchor)! }),
    verifiability,
  });
}
