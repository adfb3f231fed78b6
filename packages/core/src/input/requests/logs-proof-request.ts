import type { ChainRegistry } from '../../chains/registry.js';
import { err, ok, type Result } from '../../result.js';
import { isObject } from '../values/json-values.js';
import { bodyNotAnObject, Problems, type InvalidInput } from '../values/problems.js';
import type { UnsupportedChain } from './receipt-root-request.js';
import { hex, integer, object } from '../values/schema.js';

/** A validated `POST /v1/evm/verify/logs-proof` body. */
export interface LogsProofRequest {
  chainId: number;
  headHash: Uint8Array;
  /** The artifact's bytes, not yet read: the verifier reads and checks them. */
  proof: Uint8Array;
}

/** Why a logs-proof body is refused: invalid (400), or of a chain that cannot be verified at all (422). */
export type LogsProofRequestRefusal = InvalidInput | UnsupportedChain;

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
        description: "The hash of the range's last block, from a source you trust: the whole range hangs from it.",
        expected: "the hash of the range's last block (32-byte hex)",
      }),
      required: true,
    },
    proof: {
      spec: hex({
        description:
          'The logs proof artifact (signature, preamble, one record per block), as hex: what LogsProofBuilder (evm-integrity/proof) writes.',
        expected: 'a logs proof artifact as even-length hex',
      }),
      required: true,
    },
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
  if (!problems.empty) return err(problems.invalidInput());
  const chainId = values.chain_id!;
  const verifiability = registry.verifiability(chainId);
  // A chain with eras answers era by era: the verifier refuses the first block it cannot rest on.
  if (verifiability.status === 'not_verifiable') return err({ kind: 'chain_not_supported', verifiability });
  return ok({ chainId, headHash: values.head_hash!, proof: values.proof! });
}
