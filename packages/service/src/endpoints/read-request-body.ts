import { badRequest, decodeJsonBody, type ErrorEnvelope } from 'evm-integrity/api';
import type { Endpoint } from './endpoints.js';

/**
 * A request body read as JSON: its value, the 400 envelope when it is not JSON, or the chain an account is not entitled
 * to.
 */
export type RequestBody =
  | { kind: 'value'; value: unknown }
  | { kind: 'invalid'; envelope: ErrorEnvelope }
  | { kind: 'forbidden'; chainId: number };

/**
 * The chain a verify body of `endpoint` is about, for the account's chain entitlements: its `chainOf`, else the body's
 * `chain_id`; undefined when it names none.
 */
function chainOfBody(endpoint: Pick<Endpoint, 'chainOf'>, body: unknown): number | undefined {
  if (endpoint.chainOf !== undefined) return endpoint.chainOf(body);
  const chainId = (body as { chain_id?: unknown } | null)?.chain_id;
  return typeof chainId === 'number' ? chainId : undefined;
}

/**
 * Reads a verify body of `endpoint` from its bytes (`decodeJsonBody`, as the CLI reads files) and checks the chain it
 * is about (`chainOfBody`) against the account's chains (null: all). The route runs it inline for small bodies and
 * the pool's workers for large ones, so both answer alike.
 */
export function readRequestBody(
  endpoint: Pick<Endpoint, 'chainOf'>,
  bytes: Uint8Array,
  chains: readonly number[] | null,
  docsUrl: string,
): RequestBody {
  const parsed = decodeJsonBody(bytes);
  if (!parsed.ok) return { kind: 'invalid', envelope: badRequest([parsed.error], 1, { docsUrl }) };
  if (chains !== null) {
    const chainId = chainOfBody(endpoint, parsed.value);
    if (chainId !== undefined && !chains.includes(chainId)) return { kind: 'forbidden', chainId };
  }
  return { kind: 'value', value: parsed.value };
}
