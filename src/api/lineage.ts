import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { isObject } from '../input/fields.js';
import { bodyNotAnObject, Problems } from '../input/problems.js';
import { ignored, integer, object, type Spec } from '../input/schema.js';
import { BundleSource, parseBundle } from '../lineage/bundle-source.js';
import { SourceError } from '../lineage/source.js';
import { walkLineage } from '../lineage/walker.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';

const tracingId: Spec<string> = {
  schema: { type: 'string', pattern: '^[0-9a-fA-F]{36}$', description: 'The record to audit: 18 bytes, 36 hex characters (legacy spelling _tracing_id accepted).' },
  read: (value, path, problems) => {
    if (typeof value === 'string' && /^[0-9a-fA-F]{36}$/.test(value)) return value;
    problems.add(path, value === undefined ? 'missing' : 'invalid_format', 'a tracing id of 36 hex characters');
    return undefined;
  },
};

const bundle: Spec<Record<string, unknown>> = {
  schema: { type: 'object', description: 'A lineage bundle (DECISIONS.md "Lineage"): {base_url, exchanges, blocks}.', required: ['exchanges'] },
  read: (value, path, problems) => {
    if (isObject(value)) return value;
    problems.add(path, value === undefined ? 'missing' : 'invalid_format', 'a lineage bundle object with exchanges and blocks');
    return undefined;
  },
};

/** `POST /v1/evm/verify/lineage` (extension): body `{chain_id, tracing_id, bundle}`. */
export const LINEAGE_BODY = object(
  {
    chain_id: { spec: integer({ min: 1, description: 'Chain of the record.', expected: 'chain id as a JSON integer' }), required: true },
    tracing_id: { spec: tracingId },
    _tracing_id: { spec: tracingId },
    bundle: { spec: bundle, required: true },
    limit: { spec: ignored('Accepted; one report per request.') },
  },
  { description: 'POST /v1/evm/verify/lineage', expected: 'a JSON object' },
);

/**
 * Audits a derived record's lineage against a bundle, offline: the report in the
 * spec's envelope `{chain_id, data: [report], count: 1}`.
 */
export async function verifyLineage(body: unknown, context: OperationContext & { registry?: ChainRegistry } = {}): Promise<OperationResult> {
  if (!isObject(body)) return { status: 400, verdict: 'invalid', body: badRequest(bodyNotAnObject(body).problems, 1, context) };
  const problems = new Problems();
  const values = LINEAGE_BODY.read(body, '', problems)!;
  const id = values.tracing_id ?? values._tracing_id;
  if (id === undefined && body.tracing_id === undefined && body._tracing_id === undefined) problems.add('tracing_id', 'missing', 'a tracing id of 36 hex characters');
  let source: BundleSource | undefined;
  if (values.bundle !== undefined) {
    try {
      source = new BundleSource(parseBundle(values.bundle));
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      problems.add('bundle', 'invalid_format', error.message);
    }
  }
  if (!problems.empty) return { status: 400, verdict: 'invalid', body: badRequest(problems.list, problems.count, context) };
  let report;
  try {
    report = await walkLineage({ chainId: values.chain_id!, tracingId: id!, source: source!, blocks: source!, registry: context.registry ?? defaultRegistry });
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    return { status: 400, verdict: 'invalid', body: badRequest([{ name: 'bundle', location: 'body', reason: 'invalid_format', expected: error.message }], 1, context) };
  }
  return { status: 200, verdict: report.verdict === 'pass' ? 'identical' : 'different', body: { chain_id: values.chain_id, data: [report], count: 1 } };
}
