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
  provision(store, config, new Date());
  const app = createApp({ config, store, logger: capturingLogger().logger });
  const source = await (await app.request('/v1/openapi.json')).text();
  const post = async (path: string, body: unknown) =>
    (await app.request(`/v1${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json();
  return { source, doc: JSON.parse(source), post };
}

type Example = { value: unknown };

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const { source } = await served();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)).toEqual([]);
  });

  it('each verify request example, sent as it is, is answered with the response example', async () => {
    const { doc, post } = await served();
    const verify = Object.entries(doc.paths as Record<string, any>).filter(([path]) => path.startsWith('/evm/verify/'));
    const withExamples = verify.filter(([, item]) => item.post.requestBody.content['application/json'].examples !== undefined);
    expect(withExamples.map(([path]) => path)).toEqual(['/evm/verify/receipt-root', '/evm/verify/logs-bloom']);
    for (const [path, item] of withExamples) {
      const requests = Object.values(item.post.requestBody.content['application/json'].examples as Record<string, Example>);
      const responses = Object.values(item.post.responses['200'].content['application/json'].examples as Record<string, Example>);
      expect(requests.length).toBe(responses.length);
      for (const [i, request] of requests.entries()) expect(await post(path, request.value)).toEqual(responses[i]!.value);
    }
  });

  it('the 400 example is the answer to a body with members missing', async () => {
    const { doc, post } = await served();
    const examples = doc.paths['/evm/verify/receipt-root'].post.responses['400'].content['application/json'].examples as Record<string, Example>;
    expect(await post('/evm/verify/receipt-root', { chain_id: 1 })).toEqual(examples.missingMembers!.value);
  });
});
