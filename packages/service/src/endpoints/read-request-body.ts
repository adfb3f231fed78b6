import { badRequest, decodeJsonBody, type ErrorEnvelope } from 'evm-integrity/api';

/**
 * A request body read as JSON: its value, the 400 envelope when it is not JSON, or the chain an account is not entitled
 * to.
 */
export type RequestBody =
  | { kind: 'value'; value: unknown }
  | { kind: 'invalid'; envelope: ErrorEnvelope }
  | { kind: 'forbidden'; chainId: number };

/**
 * Reads a verify body from its bytes (`decodeJsonBody`, as the CLI reads files) and checks its
 * `chain_id` against the account's chains (null: all). The route runs it inline for small bodies
 * and the pool's workers for large ones, so both answer alike.
 */
export function readRequestBody(bytes: Uint8Array, chains: readonly number[] | null, docsUrl: string): RequestBody {
  const parsed = decodeJsonBody(bytes);
  if (!parsed.ok) return { kind: 'invalid', envelope: badRequest([parsed.error], 1, { docsUrl }) };
  const chainId = (parsed.value as { chain_id?: unknown } | null)?.chain_id;
  if (chains !== null && typeof chainId === 'number' && !chains.includes(chainId))
    return { kind: 'forbidden', chainId };
  return { kind: 'value', value: parsed.value };
}
