/**
 * Each endpoint's 413 over real HTTP on loopback: its `recommended_actions` are its own (the endpoint's declared
 * `oversizeActions`), in the terms of what its body holds, by a declared Content-Length and by a chunked body alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../packages/service/src/endpoints/endpoints.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const KEY = 'evmi_oversize-advice-test-key-0123456789abcdefghijk';
const LIMIT = 4096;

let server: RunningServer;

beforeAll(async () => {
  server = await startServer(
    testConfig({
      host: '127.0.0.1',
      bodyLimitBytes: LIMIT,
      logsProofBodyLimitBytes: LIMIT,
      accounts: [auditorAccount(KEY, 'test')],
    }),
    { logger: capturingLogger().logger },
  );
});
afterAll(() => server?.close());

/** The 413's details of a body over the limit, sent with its length or in chunks (a stream: no Content-Length). */
async function oversize(path: string, chunked: boolean): Promise<{ status: number; details: any }> {
  const text = JSON.stringify({ padding: 'x'.repeat(LIMIT) });
  const body = chunked
    ? new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      })
    : text;
  const res = await fetch(`${server.url}/v1${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body,
    ...(chunked && { duplex: 'half' }),
  });
  return { status: res.status, details: ((await res.json()) as any).error.details };
}

/** Words each endpoint's advice must speak of: what its body holds. */
const TERMS: Record<string, RegExp> = {
  'verify/receipt-root': /transactions|receipts/,
  'verify/logs-bloom': /logs/,
  'verify/receipt-proof': /proof document/,
  'verify/lineage': /bundle/,
  'verify/logs-proof': /range/,
  'verify/anchor': /anchor proof/,
};

describe('413 advice', () => {
  it.each(ENDPOINTS.map((endpoint) => [endpoint.name, endpoint] as const))(
    "%s: its own recommended_actions, by length and chunked (was: the receipt endpoints' advice for some)",
    async (name, endpoint) => {
      for (const chunked of [false, true]) {
        const { status, details } = await oversize(endpoint.path, chunked);
        expect(status).toBe(413);
        expect(details.recommended_actions).toEqual(endpoint.oversizeActions);
        expect(details.recommended_actions.join(' '), name).toMatch(TERMS[name]!);
      }
    },
  );

  it('no two endpoints give the same advice', () => {
    const advice = ENDPOINTS.map((endpoint) => JSON.stringify(endpoint.oversizeActions));
    expect(new Set(advice).size).toBe(ENDPOINTS.length);
  });
});
