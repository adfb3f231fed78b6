import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { claims, isObject } from '../input/values/json-values.js';
import { bodyNotAnObject, Problems, type Problem } from '../input/values/problems.js';
import { ignored, integer, object, type Spec } from '../input/values/schema.js';
import { BundleSource } from '../bundle/bundle-source.js';
import type { LineageReport } from '../lineage/lineage-report.js';
import { SourceError } from '../errors.js';
import { type BlockSource } from '../sources/block-source.js';
import { walkLineage } from '../lineage/walker.js';
import type { BlockAnchors } from '../lineage/onchain.js';
import type { BlockVerifier } from '../verify/block-verifier.js';
import { err, ok, type Result } from '../result.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';
import { refuseUntakenMembers } from '../input/requests/untaken-members.js';

const tracingId: Spec<string> = {
  schema: {
    type: 'string',
    pattern: '^[0-9a-fA-F]{36}$',
    description: 'The record to audit: 18 bytes, 36 hex characters (legacy spelling _tracing_id accepted).',
  },
  read: (value, path, problems) => {
    if (typeof value === 'string' && /^[0-9a-fA-F]{36}$/.test(value)) return value;
    problems.add(path, value === undefined ? 'missing' : 'invalid_format', 'a tracing id of 36 hex characters');
    return undefined;
  },
};

const bundle: Spec<Record<string, unknown>> = {
  schema: {
    type: 'object',
    description:
      "A lineage bundle: {base_url, exchanges, blocks}, the hosted service's recorded request/response pairs and blocks in the JSON-RPC format.",
    required: ['exchanges'],
    properties: {
      base_url: { type: 'string', description: 'The service the answers came from.' },
      exchanges: {
        type: 'array',
        description:
          'Request/response pairs of the hosted API: lineage/record, every page of lineage/genesis, optionally raw/blocks and raw/logs. A request is answered from the exchange of its path whose chain_id, tracing id (either spelling), cursor and, for raw endpoints, selectors and ranges equal the ones sent. One request answered twice must be answered identically (the same status and response), else the bundle is refused (reason conflict).',
        items: {
          type: 'object',
          required: ['method', 'path', 'body', 'status', 'response'],
          properties: {
            method: { enum: ['POST', 'GET'] },
            path: {
              type: 'string',
              description: 'The request path relative to base_url, such as /evm/lineage/record.',
            },
            body: {
              type: 'object',
              description:
                'The request body as sent; chain_id and the tracing id (tracing_id or _tracing_id) identify it.',
            },
            status: {
              type: 'integer',
              minimum: 100,
              maximum: 599,
              description: 'The HTTP status answered; the walk needs 200 (or 404 for a missing record).',
            },
            response: { description: 'The JSON the service answered.' },
          },
        },
      },
      blocks: {
        type: 'array',
        description:
          'Blocks in the JSON-RPC format, to check the records against on chain; without them those checks are skipped (verdict not_verifiable). A block (chain_id and number) given twice must be given identically, else the bundle is refused (reason conflict).',
        items: {
          type: 'object',
          required: ['chain_id', 'header', 'receipts'],
          properties: {
            chain_id: { type: 'integer', minimum: 1 },
            header: {
              type: 'object',
              required: ['number'],
              description: 'The block header as eth_getBlockByNumber answers it.',
              properties: {
                number: {
                  oneOf: [
                    { type: 'string', pattern: '^0[xX][0-9a-fA-F]+$' },
                    { type: 'integer', minimum: 0 },
                  ],
                },
              },
            },
            receipts: {
              type: 'array',
              items: { type: 'object' },
              description: "The block's complete receipts, as eth_getBlockReceipts answers them.",
            },
          },
        },
      },
    },
  },
  read: (value, path, problems) => {
    if (isObject(value)) return value;
    problems.add(
      path,
      value === undefined ? 'missing' : 'invalid_format',
      'a lineage bundle object with exchanges and blocks',
    );
    return undefined;
  },
};

const LINEAGE_MEMBERS = object(
  {
    chain_id: {
      spec: integer({ min: 1, description: 'Chain of the record.', expected: 'chain id as a JSON integer' }),
      required: true,
    },
    tracing_id: { spec: tracingId },
    _tracing_id: { spec: tracingId },
    bundle: { spec: bundle, required: true },
    limit: { spec: ignored('Accepted; one report per request.') },
  },
  { description: 'POST /v1/evm/verify/lineage', expected: 'a JSON object' },
);

/**
 * `POST /v1/evm/verify/lineage` (extension): body `{chain_id, tracing_id, bundle}`. The record is
 * named by `tracing_id` or by its legacy spelling `_tracing_id`; both sent must agree (else 400 `conflict`), one sent
 * as null says nothing.
 */
export const LINEAGE_BODY: typeof LINEAGE_MEMBERS = {
  ...LINEAGE_MEMBERS,
  schema: { ...LINEAGE_MEMBERS.schema, anyOf: [{ required: ['tracing_id'] }, { required: ['_tracing_id'] }] },
};

/** A lineage audit of a bundle: the report, or why the input cannot be audited (bad input, never a verdict). */
export type BundleAudit = Result<LineageReport, SourceError>;

/**
 * Audits a lineage against a bundle (JSON as parsed, checked here): the one code path of the
 * HTTP endpoint and of `lineage --bundle`. `blocks` replaces the bundle's blocks (`--rpc`).
 */
export async function auditBundle(input: {
  chainId: number;
  tracingId: string;
  bundle: unknown;
  blocks?: BlockSource;
  registry?: ChainRegistry;
  /** Verifies the blocks' receipts elsewhere (a pool of worker threads); absent, on this thread. */
  verify?: BlockVerifier;
  /** The hashes an anchor proof proves, which the blocks are held to (walkLineage's `anchors`). */
  anchors?: BlockAnchors;
}): Promise<BundleAudit> {
  try {
    const source = new BundleSource(input.bundle);
    const report = await walkLineage({
      chainId: input.chainId,
      tracingId: input.tracingId,
      source,
      blocks: input.blocks ?? source,
      registry: input.registry ?? defaultRegistry,
      ...(input.verify && { verify: input.verify }),
      ...(input.anchors && { anchors: input.anchors }),
    });
    return ok(report);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    return err(error);
  }
}

/** A lineage's verdict as the operation's: a pass is identical, a failure different; not_verifiable as it is. */
const LINEAGE_VERDICTS = { pass: 'identical', fail: 'different', not_verifiable: 'not_verifiable' } as const;

/** The invalid parameter of the request body that a bundle's fault is. */
export function bundleParameter(error: SourceError): Problem {
  const problem = error.details.problem ?? { path: '', reason: 'invalid_format', expected: error.message };
  return {
    name: problem.path === '' ? 'bundle' : `bundle.${problem.path}`,
    location: 'body',
    reason: problem.reason,
    expected: problem.expected,
  };
}

/**
 * Audits a derived record's lineage against a bundle, offline: the report in the
 * spec's envelope `{chain_id, data: [report], count: 1}`; a bundle that cannot be
 * audited (malformed, beyond the limits) is a 400 naming the member or limit.
 */
export async function verifyLineageOperation(
  body: unknown,
  context: OperationContext & { registry?: ChainRegistry } = {},
): Promise<OperationResult> {
  if (!isObject(body))
    return { status: 400, verdict: 'invalid', body: badRequest(bodyNotAnObject(body).problems, 1, context) };
  const problems = new Problems();
  const values = LINEAGE_BODY.read(body, '', problems)!;
  refuseUntakenMembers(body, 'lineage', problems);
  const id = values.tracing_id ?? values._tracing_id;
  // Neither spelling given (absent or null: a null spelling says nothing), not one given and refused.
  if (id === undefined && !claims(body.tracing_id) && !claims(body._tracing_id))
    problems.add('tracing_id', 'missing', 'a tracing id of 36 hex characters');
  if (!problems.empty)
    return { status: 400, verdict: 'invalid', body: badRequest(problems.list, problems.count, context) };
  const audit = await auditBundle({
    chainId: values.chain_id!,
    tracingId: id!,
    bundle: values.bundle,
    registry: context.registry ?? defaultRegistry,
  });
  if (!audit.ok)
    return { status: 400, verdict: 'invalid', body: badRequest([bundleParameter(audit.error)], 1, context) };
  return {
    status: 200,
    verdict: LINEAGE_VERDICTS[audit.value.verdict],
    body: { chain_id: values.chain_id, data: [audit.value], count: 1 },
  };
}
