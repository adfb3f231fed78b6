/**
 * `POST /v1/evm/verify/receipt-proof` over real HTTP on loopback: proofs of real blocks of several
 * chains hold and give their receipts, on the event loop and on a worker alike; a proof altered is
 * a 200 with is_valid false naming the reason and the node; bad input is 400 naming the member,
 * an unknown chain 422, a body over the limit 413; each 2xx costs the endpoint's CU.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proveReceipt, type ReceiptProofDocument } from '../packages/core/src/api/index.js';
import { ENDPOINTS } from '../packages/service/src/endpoints/endpoints.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { loadFixture } from './helpers/fixtures.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const KEY = 'evmi_receipt-proof-test-key-0123456789abcdefghijklm';
const PATH = '/v1/evm/verify/receipt-proof';
const BODY_LIMIT = 64 * 1024;

let server: RunningServer;
/** The same server with every body verified on a worker thread. */
let pooled: RunningServer;

beforeAll(async () => {
  const config = (poolThresholdBytes: number) =>
    testConfig({
      host: '127.0.0.1',
      bodyLimitBytes: BODY_LIMIT,
      poolThresholdBytes,
      poolWorkers: 1,
      accounts: [auditorAccount(KEY, 'test')],
    });
  server = await startServer(config(BODY_LIMIT), { logger: capturingLogger().logger });
  pooled = await startServer(config(1), { logger: capturingLogger().logger });
});
afterAll(async () => {
  await Promise.all([server?.close(), pooled?.close()]);
});

const post = async (body: unknown, base = server.url) => {
  const res = await fetch(`${base}${PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** The proof of receipt `index` of a fixture, made by the core's prover (as `prove receipt` makes it). */
function proofOf(name: string, index: number): ReceiptProofDocument {
  const proof = proveReceipt(loadFixture(name), index);
  if (!proof.ok) throw new Error(JSON.stringify(proof.error));
  return proof.value;
}

describe('POST /v1/evm/verify/receipt-proof', () => {
  it.each([
    ['mainnet-3000026', 5],
    ['mainnet-19433903', 7],
    ['op-mainnet-154497277', 0],
    ['arbitrum-one-150000000', 0],
    ['polygon-pos-9013760', 3],
  ])(
    '%s receipt %i: the proof holds, on the event loop and on a worker, and gives the receipt',
    async (name, index) => {
      const proof = proofOf(name, index);
      const fixture = loadFixture(name);
      const expected = (fixture.receipts as Array<Record<string, any>>).find(
        (r, i) => Number(r.transactionIndex ?? i) === index,
      )!;
      const answer = await post(proof);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        chain_id: proof.chain_id,
        data: [
          {
            is_valid: true,
            reason: null,
            node: null,
            message: null,
            block_number: proof.block_number,
            block_hash: proof.block_hash.slice(2),
            transaction_index: index,
            receipt: {
              blockHash: proof.block_hash,
              cumulativeGasUsed: expected.cumulativeGasUsed,
              logsBloom: expected.logsBloom,
            },
          },
        ],
        cursor: null,
        count: 1,
      });
      expect((await post(proof, pooled.url)).body).toEqual(answer.body);
    },
  );

  it('a node altered, or another expected_block_hash: 200 with is_valid false, the reason and the node', async () => {
    const proof = proofOf('mainnet-19433903', 7);
    const node = proof.proof.length - 1;
    const leaf = proof.proof[node]!;
    const tampered = { ...proof, proof: proof.proof.map((n, i) => (i === node ? `${leaf.slice(0, -2)}ff` : n)) };
    const answer = await post(tampered);
    expect(answer.status).toBe(200);
    expect(answer.body.data[0]).toMatchObject({
      is_valid: false,
      reason: 'hash-mismatch',
      node,
      message: `Proof node ${node}: its hash is not the one node ${node - 1} names.`,
      receipt: null,
    });
    const other = 'ab'.repeat(32);
    const unbound = await post({ ...proof, expected_block_hash: other });
    expect(unbound.status).toBe(200);
    expect(unbound.body.data[0]).toMatchObject({ is_valid: false, reason: 'block-hash-mismatch', node: null });
    expect(unbound.body.data[0].message).toContain(`not of the expected block 0x${other}`);
    const bound = await post({ ...proof, expected_block_hash: proof.block_hash.toUpperCase().replace('0X', '0x') });
    expect(bound.body.data[0].is_valid).toBe(true);
  });

  it('says what block_hash was held to: the expected_block_hash sent, or nothing, a trust member misnamed among them (was: a misnamed one answered as any valid proof: a user check)', async () => {
    const proof = proofOf('mainnet-19433903', 7);
    const bound = await post({ ...proof, expected_block_hash: proof.block_hash });
    expect(bound.body.data[0]).toMatchObject({ is_valid: true, block_hash_held_to: 'expected_block_hash' });
    expect((await post(proof)).body.data[0]).toMatchObject({ is_valid: true, block_hash_held_to: null });
    for (const misnamed of ['trusted_block_hash', 'expected_hash'])
      expect((await post({ ...proof, [misnamed]: 'ab'.repeat(32) })).body.data[0], misnamed).toMatchObject({
        is_valid: true,
        block_hash_held_to: null,
      });
  });

  it('a malformed proof: 400 naming each member at fault', async () => {
    const proof = proofOf('mainnet-3000026', 0);
    const { index: _, ...withoutIndex } = proof;
    const answer = await post({ ...withoutIndex, proof: 'f851' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('BAD_REQUEST');
    expect(answer.body.error.details.invalid_parameters).toEqual([
      { name: 'index', location: 'body', reason: 'missing', expected: 'zero-based transaction index (JSON integer)' },
      {
        name: 'proof',
        location: 'body',
        reason: 'invalid_format',
        expected: 'an array of trie node RLPs as hex, got "f851"',
      },
    ]);
    const notJson = await post('{"format":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.details.invalid_parameters[0].name).toBe('body');
  });

  it('a chain outside the registry: 422 CHAIN_NOT_SUPPORTED', async () => {
    const answer = await post({ ...proofOf('mainnet-3000026', 0), chain_id: 999_999 });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      code: 'CHAIN_NOT_SUPPORTED',
      message: 'Chain 999999 is not in the chain registry.',
    });
  });

  it('a body over the limit: 413', async () => {
    const answer = await post({ ...proofOf('mainnet-3000026', 0), pad: 'x'.repeat(BODY_LIMIT) });
    expect(answer.status).toBe(413);
    expect(answer.body.error.details).toMatchObject({
      max_allowed_bytes: BODY_LIMIT,
      limit_applies_to: 'request_body',
    });
    expect(answer.body.error.details.recommended_actions[0]).toMatch(/^Send the proof document alone/);
  });

  it('costs its CU on a 2xx, a verdict of does-not-hold included, and nothing on a 4xx', async () => {
    const cu = ENDPOINTS.find((e) => e.name === 'verify/receipt-proof')!.cu;
    expect(cu).toBe(1);
    const used = async () =>
      ((await (await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as any)
        .cu_by_endpoint['verify/receipt-proof'] ?? 0;
    const before = await used();
    const proof = proofOf('mainnet-47218', 0);
    expect((await post(proof)).status).toBe(200);
    expect((await post({ ...proof, expected_block_hash: '00'.repeat(32) })).status).toBe(200);
    expect((await post({ ...proof, index: -1 })).status).toBe(400);
    expect((await post({ ...proof, chain_id: 999_999 })).status).toBe(422);
    expect(await used()).toBe(before + 2 * cu);
  });
});
