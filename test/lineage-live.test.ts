/**
 * The CLI against a live (fake, loopback) hosted service and JSON-RPC node:
 * `lineage --service URL --rpc URL --record FILE`, then the recorded bundle
 * replayed offline with `--bundle FILE` gives the same report; with `--bundle FILE --rpc URL`, a fault of the node's
 * is told as the node's, not the bundle's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLineage } from '../packages/service/src/cli/lineage.js';
import { loadFixture } from './helpers/fixtures.js';
import { buildHeldBundle, PAIR_RECORD } from './helpers/lineage-bundles.js';

type Json = Record<string, any>;
// The snapshot whose every field is held to the chain: the lineage passes live.
const bundle = buildHeldBundle();
const fixture = loadFixture('mainnet-19426587');
const requests: Array<{ path: string; auth: string | undefined }> = [];

async function body(req: IncomingMessage): Promise<Json> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as Json;
}
const send = (res: ServerResponse, status: number, value: unknown) =>
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));

/** Replays the bundle's answers, as the hosted service gave them; raw/blocks is not offered (404). */
const service = createServer(async (req, res) => {
  const sent = await body(req);
  const path = req.url!.replace(/^\/v1/, '');
  requests.push({ path, auth: req.headers.authorization });
  const id = sent.tracing_id ?? sent._tracing_id;
  const match = bundle.exchanges.find(
    (e) =>
      e.path === path &&
      path !== '/evm/raw/blocks' &&
      e.body.chain_id === sent.chain_id &&
      (e.body.tracing_id ?? e.body._tracing_id) === id &&
      (e.body.cursor ?? null) === (sent.cursor ?? null),
  );
  if (match === undefined)
    return send(res, 404, {
      error: { code: 'NOT_FOUND', http_status: 404, message: 'no such record', hint: '', docs_url: '' },
    });
  send(res, match.status, match.response);
});

/** The fixture's receipts carry no transaction hashes; the node gives them stand-ins, consistently. */
const txHashes = fixture.receipts.map((_, i) => `0x${i.toString(16).padStart(64, '0')}`);
const receipts = fixture.receipts.map((r, i) => ({ ...r, transactionHash: txHashes[i] }));
/** Changes each receipt the node gives (a faulty node); none by default. */
let tamper: ((receipt: Json) => Json) | undefined;

/** A JSON-RPC node that knows the fixture block. */
const node = createServer(async (req, res) => {
  const call = await body(req);
  const result = (() => {
    switch (call.method) {
      case 'eth_chainId':
        return '0x1';
      case 'eth_getBlockByNumber':
        return call.params[0] === fixture.header.number ? { ...fixture.header, transactions: txHashes } : null;
      case 'eth_getBlockReceipts':
        return call.params[0] === fixture.header.number ? receipts.map((r) => tamper?.(r) ?? r) : null;
      default:
        return undefined;
    }
  })();
  send(
    res,
    200,
    result === undefined
      ? { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'method not found' } }
      : { jsonrpc: '2.0', id: call.id, result },
  );
});

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-live-'));

beforeAll(async () => {
  await Promise.all([service, node].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
});
afterAll(async () => {
  await Promise.all([service, node].map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
}

describe('lineage against a live service and node, recorded and replayed', () => {
  it('passes live, and the --record bundle replays offline to the same report', async () => {
    const recorded = join(dir, 'audit.json.gz');
    const live = capture();
    const code = await runLineage(
      [
        PAIR_RECORD,
        '--chain',
        '1',
        '--service',
        `${urlOf(service)}/v1`,
        '--rpc',
        urlOf(node),
        '--record',
        recorded,
        '--json',
      ],
      live.io,
      { EVM_DATA_SERVICE_API_KEY: 'secret-key' },
    );
    expect(live.out.stderr).toBe('');
    expect(code).toBe(0);
    expect(requests.every((r) => r.auth === 'Bearer secret-key')).toBe(true);
    const report = JSON.parse(live.out.stdout);
    expect(report.verdict).toBe('pass');

    const offline = capture();
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', recorded, '--json'], offline.io, {})).toBe(0);
    expect(JSON.parse(offline.out.stdout)).toEqual(report);
  });

  it("--bundle with --rpc: a block the node gives that cannot be read, or a node that cannot be reached, is told as the node's, not the bundle's (was: named the bundle file)", async () => {
    const file = join(dir, 'pair.bundle.json');
    writeFileSync(file, JSON.stringify(bundle));
    const args = [PAIR_RECORD, '--chain', '1', '--bundle', file, '--json'];
    const ok = capture();
    expect(await runLineage([...args, '--rpc', urlOf(node)], ok.io, {})).toBe(0);
    expect(ok.out.stderr).toBe('');

    tamper = (r) => ({ ...r, blockHash: `0x${'22'.repeat(32)}` });
    try {
      const bad = capture();
      expect(await runLineage([...args, '--rpc', urlOf(node)], bad.io, {})).toBe(2);
      expect(bad.out.stderr).toMatch(
        new RegExp(
          `^evm-integrity: block 19426587 of the JSON-RPC node at ${urlOf(node)} cannot be read: receipts\\[0\\]\\.blockHash: expected 0x`,
        ),
      );
      expect(bad.out.stderr).not.toContain(file);
    } finally {
      tamper = undefined;
    }

    // A node that cannot be reached: its own message, without the bundle's name.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = urlOf(closed);
    await new Promise((resolve) => closed.close(resolve));
    const down = capture();
    expect(await runLineage([...args, '--rpc', gone], down.io, {})).toBe(2);
    expect(down.out.stderr).toMatch(new RegExp(`^evm-integrity: the JSON-RPC node at ${gone} answered .*ECONNREFUSED`));
    expect(down.out.stderr).not.toContain(file);
  });
});
