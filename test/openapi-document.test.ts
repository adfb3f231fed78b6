import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../packages/service/src/server/app.js';
import { provision } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { capturingLogger, testConfig } from './helpers/server.js';

/** An app with auth off, and the OpenAPI document as a client gets it. */
async function served() {
  const config = testConfig({ auth: false });
  const store = new MemoryStore();
  await provision(store, config, new Date());
  const app = createApp({ config, store, logger: capturingLogger().logger });
  const source = await (await app.request('/v1/openapi.json')).text();
  const post = async (path: string, body: unknown) =>
    (
      await app.request(`/v1${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
  return { source, doc: JSON.parse(source), post };
}

type Example = { value: unknown };

/** Resolves a local `$ref` of the document. */
const resolve = (doc: any, schema: any): any =>
  schema?.$ref === undefined
    ? schema
    : resolve(
        doc,
        schema.$ref
          .slice(2)
          .split('/')
          .reduce((node: any, key: string) => node[key], doc),
      );

/**
 * The members of `value` (an answer of the server) that its schema declares but does not require,
 * as paths: none when every member the answer always has is required. Follows properties, array
 * items and the branches of anyOf/oneOf that are objects.
 */
function unrequired(doc: any, schema: any, value: unknown, path = ''): string[] {
  const s = resolve(doc, schema);
  if (s === undefined || value === null || typeof value !== 'object') return [];
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((b: any) => resolve(doc, b));
  if (branches.length > 0 && s.properties === undefined)
    return unrequired(
      doc,
      branches.find((b: any) => b.type !== 'null'),
      value,
      path,
    );
  if (Array.isArray(value)) return value.flatMap((item, i) => unrequired(doc, s.items, item, `${path}[${i}]`));
  return Object.entries(value as Record<string, unknown>).flatMap(([key, member]) => {
    if (s.properties?.[key] === undefined) return [];
    const here = (s.required ?? []).includes(key) ? [] : [`${path}.${key}`];
    return [...here, ...unrequired(doc, s.properties[key], member, `${path}.${key}`)];
  });
}

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const { source } = await served();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)).toEqual(
      [],
    );
  });

  it('each verify request example, sent as it is, is answered with the response example', async () => {
    const { doc, post } = await served();
    const verify = Object.entries(doc.paths as Record<string, any>).filter(([path]) => path.startsWith('/evm/verify/'));
    const withExamples = verify.filter(
      ([, item]) => item.post.requestBody.content['application/json'].examples !== undefined,
    );
    expect(withExamples.map(([path]) => path)).toEqual([
      '/evm/verify/receipt-root',
      '/evm/verify/logs-bloom',
      '/evm/verify/receipt-proof',
      '/evm/verify/lineage',
      '/evm/verify/logs-proof',
      '/evm/verify/anchor',
    ]);
    for (const [path, item] of withExamples) {
      const requests = Object.values(
        item.post.requestBody.content['application/json'].examples as Record<string, Example>,
      );
      const responses = Object.values(
        item.post.responses['200'].content['application/json'].examples as Record<string, Example>,
      );
      expect(requests.length).toBe(responses.length);
      for (const [i, request] of requests.entries())
        expect(await post(path, request.value)).toEqual(responses[i]!.value);
    }
  });

  it('the 400 example is the answer to a body with members missing', async () => {
    const { doc, post } = await served();
    const examples = doc.paths['/evm/verify/receipt-root'].post.responses['400'].content['application/json']
      .examples as Record<string, Example>;
    expect(await post('/evm/verify/receipt-root', { chain_id: 1 })).toEqual(examples.missingMembers!.value);
  });

  it('declares concrete status codes only (no 4XX ranges) and names the envelope ErrorEnvelope, not Error', async () => {
    const { doc } = await served();
    const codes = Object.values(doc.paths as Record<string, any>).flatMap((item) =>
      Object.values(item).flatMap((op: any) => Object.keys(op.responses)),
    );
    expect(codes.filter((code) => !/^\d{3}$/.test(code))).toEqual([]);
    expect(Object.keys(doc.components.schemas)).toEqual(['ErrorEnvelope', 'ErrorDetails']);
    expect(Object.keys(doc.components.headers)).toEqual([
      'XRequestId',
      'XRateLimitLimit',
      'XRateLimitRemaining',
      'RetryAfter',
      'WWWAuthenticate',
    ]);
    const receiptRoot = doc.paths['/evm/verify/receipt-root'].post.responses;
    expect(Object.keys(receiptRoot['429'].headers)).toEqual([
      'X-Request-Id',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
    ]);
    expect(Object.keys(receiptRoot['401'].headers)).toEqual(['X-Request-Id', 'WWW-Authenticate']);
  });

  it('declares no headers on 408 and 431, which the connection sends before any request was read (a verify 408 declared the request id and rate-limit ones: a user re-check)', async () => {
    const { doc } = await served();
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>))
      for (const op of Object.values<any>(item))
        for (const status of ['408', '431'].filter((code) => op.responses[code] !== undefined))
          expect([path, status, Object.keys(op.responses[status].headers)]).toEqual([path, status, []]);
  });

  it('declares 503 with Retry-After on every operation that reads the store: those that take a key, and /ready', async () => {
    const { doc } = await served();
    const operations = Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) =>
      Object.values(item).map((op: any) => ({ path, op })),
    );
    const readStore = operations.filter(({ path, op }) => op.security.length > 0 || path === '/ready');
    expect(readStore.map(({ path }) => path)).toEqual(expect.arrayContaining(['/usage', '/chains', '/ready']));
    for (const { path, op } of readStore)
      expect([path, Object.keys(op.responses['503']?.headers ?? {})]).toEqual([
        path,
        expect.arrayContaining(['X-Request-Id', 'Retry-After']),
      ]);
  });

  it('declares 408 on every operation (a request cut off at its deadline), and on the verify endpoints every status they answer', async () => {
    const { doc } = await served();
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>))
      for (const op of Object.values<any>(item)) expect([path, op.responses['408']]).toEqual([path, expect.anything()]);
    // A POST to a verify path answers neither 404 (only another method on it does) nor 405 (never, DECISIONS).
    expect(Object.keys(doc.paths['/evm/verify/logs-bloom'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '408',
      '413',
      '415',
      '417',
      '422',
      '429',
      '431',
      '500',
      '503',
    ]);
  });

  it('requires every member the answers always have: each example, the real answer, has no member left optional', async () => {
    const { doc } = await served();
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      for (const operation of Object.values<any>(item)) {
        const media = operation.responses['200'].content['application/json'];
        const answers =
          media.example === undefined
            ? Object.values(media.examples as Record<string, Example>).map((e) => e.value)
            : [media.example];
        // /chains: reason, eras, state_sync and checks are present only for some chains and eras.
        if (path === '/chains') continue;
        for (const answer of answers) expect(unrequired(doc, media.schema, answer), path).toEqual([]);
      }
    }
  });

  it("the lineage request names the record by tracing_id or _tracing_id, and types the bundle's exchanges and blocks", async () => {
    const { doc } = await served();
    const schema = doc.paths['/evm/verify/lineage'].post.requestBody.content['application/json'].schema;
    expect(schema.anyOf).toEqual([{ required: ['tracing_id'] }, { required: ['_tracing_id'] }]);
    expect(schema.properties.bundle.properties.exchanges.items.required).toEqual([
      'method',
      'path',
      'body',
      'status',
      'response',
    ]);
    expect(schema.properties.bundle.properties.blocks.items.required).toEqual(['chain_id', 'header', 'receipts']);
    const receipt =
      doc.paths['/evm/verify/receipt-root'].post.requestBody.content['application/json'].schema.properties.transactions
        .items;
    expect(receipt.oneOf.map((branch: any) => branch.required)).toEqual([['status'], ['root']]);
  });
});
