import type { ChainRegistry } from '../../chains/registry.js';
import { err, ok, type Result } from '../../result.js';
import { isObject } from '../values/json-values.js';
import { bodyNotAnObject, Problems, type InvalidInput } from '../values/problems.js';
import type { UnsupportedChain } from './receipt-root-request.js';
import { hex, integer, object, refused } from '../values/schema.js';
import { ANCHOR_MEMBER, anchorRequestOf, type AnchorRequest } from './anchor-request.js';
import { refuseUntakenMembers } from './untaken-members.js';

/** A validated `POST /v1/evm/verify/logs-proof` body: the head the range hangs from is a hash, or an anchor proof's. */
export type LogsProofRequest = LogsProofRequestOf<{ headHash: Uint8Array } | { anchor: AnchorRequest }>;

/** The members of a logs-proof request besides what the caller trusts. */
type LogsProofRequestOf<Trust> = Trust & {
  chainId: number;
  /** The artifact's bytes, not yet read: the verifier reads and checks them. */
  proof: Uint8Array;
  /** The range the caller asked for, where it says: a proof of another is refused (`range-mismatch`). */
  expected?: { fromBlock?: number; toBlock?: number };
};

/** Why a logs-proof body is refused: invalid (400), or of a chain that cannot be verified at all (422). */
export type LogsProofRequestRefusal = InvalidInput | UnsupportedChain;

/**
 * A filter member a client may send (as `eth_getLogs` takes `address` and `topics`, as the answer's `filter`, or a log's
 * address as the receipt-root and logs-bloom bodies name it, `contract_address`): the proof's filter is its own, fixed in
 * its preamble, so one sent beside it would be ignored while the answer held logs of another filter. Refused instead.
 */
const FILTER_REFUSED = refused({
  description:
    "Refused: the filter is the proof's own (its preamble; the answer's filter). The endpoint takes no filter to hold the proof to.",
  expected:
    "no filter: the filter is the proof's own (the answer's filter names it); compare it with yours, or verify with the command line's --address and --topic0, which refuse another",
});

/**
 * A block chosen by its `what` (`hash`, as `eth_getLogs` takes `blockHash` instead of a range; `number`, as the
 * receipt-proof and logs-bloom bodies name one): the proof's blocks are its own range, so one sent beside it would be
 * ignored while the answer held the logs of other blocks. Refused instead.
 */
const blockRefused = (what: 'hash' | 'number') =>
  refused({
    description: `Refused: the blocks are the proof's own range (its preamble; the answer's from_block and to_block). The endpoint takes no block ${what} to hold the proof to.`,
    expected: `no block ${what}: the blocks are the proof's own range, hanging from head_hash (or anchor); send from_block and to_block to hold it to the range you asked for`,
  });
const BLOCK_HASH_REFUSED = blockRefused('hash');
const BLOCK_NUMBER_REFUSED = blockRefused('number');

/** The logs-proof request body: the chain and head hash the caller trusts, and the artifact. */
export const LOGS_PROOF_BODY = object(
  {
    chain_id: {
      spec: integer({
        min: 0,
        description:
          "The chain; one of GET /v1/chains. Required: the chain's rules decide how its blocks are read, so the proof must be of the chain you name.",
        expected: 'chain id as a JSON integer',
      }),
      required: true,
    },
    head_hash: {
      spec: hex({
        bytes: 32,
        description:
          "The hash of the range's last block, from a source you trust: the whole range hangs from it. Required unless anchor is sent.",
        expected: "the hash of the range's last block (32-byte hex)",
      }),
    },
    anchor: { spec: ANCHOR_MEMBER, nullable: true },
    from_block: {
      spec: integer({
        min: 0,
        description:
          "The range's first block you asked for: a proof of a range that starts elsewhere does not hold (range-mismatch). Optional: without it the answer's from_block says which range the proof covers.",
        expected: 'a block number as a JSON integer',
      }),
      nullable: true,
    },
    to_block: {
      spec: integer({
        min: 0,
        description:
          "The range's last block you asked for: a proof of a range that ends elsewhere does not hold (range-mismatch). Optional, as from_block.",
        expected: 'a block number as a JSON integer',
      }),
      nullable: true,
    },
    proof: {
      spec: hex({
        description:
          'The logs proof artifact (signature, preamble, one record per block), as hex: what LogsProofBuilder (evm-integrity/proof) writes.',
        expected: 'a logs proof artifact as even-length hex',
      }),
      required: true,
    },
    address: { spec: FILTER_REFUSED, nullable: true },
    topics: { spec: FILTER_REFUSED, nullable: true },
    filter: { spec: FILTER_REFUSED, nullable: true },
    // Its other spellings (contractAddress) and near-misses (contract_addresses) are refused as it is.
    contract_address: { spec: FILTER_REFUSED, nullable: true },
    blockHash: { spec: BLOCK_HASH_REFUSED, nullable: true },
    block_hash: { spec: BLOCK_HASH_REFUSED, nullable: true },
    block_number: { spec: BLOCK_NUMBER_REFUSED, nullable: true },
  },
  { description: 'POST /v1/evm/verify/logs-proof', expected: 'a JSON object' },
);

/**
 * Validates a logs-proof body: each member's problem named (400), or a chain the registry cannot
 * verify any block of (422). Whether each block of the range can be verified is the verifier's to
 * tell, block by block.
 */
export function parseLogsProofRequest(
  body: unknown,
  registry: ChainRegistry,
): Result<LogsProofRequest, LogsProofRequestRefusal> {
  if (!isObject(body)) return err(bodyNotAnObject(body));
  const problems = new Problems();
  const values = LOGS_PROOF_BODY.read(body, '', problems)!;
  if (values.head_hash !== undefined && values.anchor !== undefined)
    problems.add('anchor', 'conflict', 'head_hash or anchor, not both: each says which block hash to trust');
  // Without either (an invalid anchor is named already): the hash is what is missing.
  if (values.head_hash === undefined && values.anchor === undefined && problems.empty)
    problems.add('head_hash', 'missing', "the hash of the range's last block (32-byte hex), or anchor");
  refuseUntakenMembers(body, 'logs-proof', problems);
  if (!problems.empty) return err(problems.invalidInput());
  const chainId = values.chain_id!;
  const verifiability = registry.verifiability(chainId);
  // A chain with eras answers era by era: the verifier refuses the first block it cannot rest on.
  if (verifiability.status === 'not_verifiable') return err({ kind: 'chain_not_supported', verifiability });
  const trust =
    values.anchor === undefined ? { headHash: values.head_hash! } : { anchor: anchorRequestOf(values.anchor)! };
  const expected = {
    ...(values.from_block != null && { fromBlock: values.from_block }),
    ...(values.to_block != null && { toBlock: values.to_block }),
  };
  return ok({ ...trust, chainId, proof: values.proof!, ...(Object.keys(expected).length > 0 && { expected }) });
}
