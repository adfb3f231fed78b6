import type { ChainRegistry } from 'evm-integrity';
import { ENDPOINTS } from '../endpoints/endpoints.js';
import { readRequestBody } from '../endpoints/read-request-body.js';
import { answerOf, type VerifyOutcome } from '../endpoints/verify-outcome.js';

/** A verify request handed to a worker: the body's bytes (transferred, not copied) and what the route knows of it. */
export interface VerifyJob {
  kind: 'endpoint';
  /** The endpoint's name, such as `verify/receipt-root`. */
  endpoint: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** The chains the account is entitled to; null: all. */
  chains: readonly number[] | null;
  docsUrl: string;
}

/**
 * What a worker does with a job: the route's own body reading, then the endpoint's operation,
 * and the answer serialised to JSON there too, so the event loop only writes it.
 */
export async function runVerifyJob(job: VerifyJob, registry: ChainRegistry): Promise<VerifyOutcome> {
  const endpoint = ENDPOINTS.find((e) => e.name === job.endpoint);
  if (endpoint === undefined) throw new Error(`no endpoint ${JSON.stringify(job.endpoint)}`);
  const body = readRequestBody(endpoint, job.bytes, job.chains, job.docsUrl);
  if (body.kind === 'forbidden') return body;
  if (body.kind === 'invalid') return { kind: 'answer', status: 400, json: JSON.stringify(body.envelope) };
  return answerOf(await endpoint.operation(body.value, { registry, docsUrl: job.docsUrl }));
}
