/**
 * Members that bind an answer (a trusted hash, a checkpoint, an anchor proof) sent to an endpoint that does not take
 * them, over real HTTP on loopback: each is a 400 naming the member and the endpoint that takes it, in any spelling the
 * project reads as one member (case, `_` and `-` aside), rather than ignored while the answer says is_valid true as if
 * bound to it. Every other unknown member stays ignored: a body spread from the service's block record, `block_hash`
 * as context on logs-bloom.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  logsBloomBody,
  proveReceipt,
  receiptRootBody,
  type ReceiptProofDocument,
} from '../packages/core/src/api/index.js';
import { bytesToHex } from '../packages/core/src/bytes/hex.js';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';
import { BINDING_MEMBERS } from '../packages/core/src/input/requests/untaken-members.js';
import { ENDPOINTS } from '../packages/service/src/endpoints/endpoints.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { loadFixture } from './helpers/fixtures.js';
import { buildArtifact, THIRTY, toFilter } from './helpers/logs-proofs.js';
import { buildBundle, PAIR_RECORD } from './helpers/lineage-bundles.js';
import { MAINNET_CHECKPOINT, mainnetAnchorFile } from './helpers/anchor-files.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const KEY = 'evmi_untaken-members-test-key-0123456789abcdefghijk';
const HASH = `0x${'ab'.repeat(32)}`;

let server: RunningServer;

beforeAll(async () => {
  server = await startServer(testConfig({ host: '127.0.0.1', accounts: [auditorAccount(KEY, 'test')] }), {
    logger: capturingLogger().logger,
  });
});
afterAll(async () => {
  await server?.close();
});

const post = async (endpoint: string, body: unknown) => {
  const res = await fetch(`${server.url}/v1/evm/verify/${endpoint}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

function receiptProof(): ReceiptProofDocument {
  const proof = proveReceipt(loadFixture('mainnet-19433903'), 7);
  if (!proof.ok) throw new Error(JSON.stringify(proof.error));
  return proof.value;
}

/** A valid body of each endpoint, built from real blocks and files. */
function validBodies(): Record<string, Record<string, unknown>> {
  const { header, receipts } = readRpcBlock(loadFixture('mainnet-19433903'), new Problems())!;
  const logs = receipts.flatMap((r) => r.logs);
  const { artifact, headHash } = buildArtifact(THIRTY.slice(0, 2), toFilter({}));
  return {
    'receipt-root': { ...receiptRootBody({ chainId: 1, receiptRoot: header.fields.receiptsRoot!, receipts }) },
    'logs-bloom': logsBloomBody({ expectedBloom: header.fields.logsBloom!, logs }),
    'receipt-proof': { ...receiptProof() },
    lineage: { chain_id: 1, tracing_id: PAIR_RECORD, bundle: buildBundle() },
    'logs-proof': { chain_id: 1, head_hash: bytesToHex(headHash), proof: bytesToHex(artifact) },
    anchor: { checkpoint: `0x${bytesToHex(MAINNET_CHECKPOINT)}`, proof: mainnetAnchorFile() },
  };
}

const ANCHOR = () => ({ checkpoint: `0x${bytesToHex(MAINNET_CHECKPOINT)}`, proof: mainnetAnchorFile() });

describe('a binding member an endpoint does not take', () => {
  it('the endpoints each binding member is taken by are those whose body declares it', () => {
    for (const endpoint of ENDPOINTS) {
      const name = endpoint.path.replace('/evm/verify/', '');
      const declared = Object.keys((endpoint.requestSchema as { properties: object }).properties);
      const takes = Object.keys(BINDING_MEMBERS).filter((b) =>
        (BINDING_MEMBERS[b]!.takenBy as readonly string[]).includes(name),
      );
      expect(takes, name).toEqual(declared.filter((member) => Object.hasOwn(BINDING_MEMBERS, member)));
    }
  });

  it('each valid body is answered 200 without one (the cases below differ by that member alone)', async () => {
    for (const [endpoint, body] of Object.entries(validBodies())) {
      const answer = await post(endpoint, body);
      expect(answer.status, `${endpoint}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
    }
  });

  it.each([
    ['receipt-proof', 'checkpoint', HASH, 'POST /v1/evm/verify/anchor'],
    ['receipt-proof', 'anchor_proof', 1, 'no endpoint'],
    ['receipt-proof', 'head_hash', HASH, 'POST /v1/evm/verify/logs-proof'],
    ['receipt-proof', 'headHash', HASH, 'POST /v1/evm/verify/logs-proof'],
    ['receipt-proof', 'Trusted-Hash', HASH, 'no endpoint'],
    ['receipt-proof', 'TAIL_HASH', HASH, 'no endpoint'],
    ['logs-bloom', 'expected_block_hash', HASH, 'POST /v1/evm/verify/receipt-proof'],
    ['logs-bloom', 'expectedBlockHash', HASH, 'POST /v1/evm/verify/receipt-proof'],
    ['receipt-root', 'anchor', ANCHOR(), 'POST /v1/evm/verify/receipt-proof and POST /v1/evm/verify/logs-proof'],
    ['receipt-root', 'head_hash', HASH, 'POST /v1/evm/verify/logs-proof'],
    ['lineage', 'checkpoint', HASH, 'POST /v1/evm/verify/anchor'],
    ['logs-proof', 'expected_block_hash', HASH, 'POST /v1/evm/verify/receipt-proof'],
    ['logs-proof', 'checkpoint', HASH, 'POST /v1/evm/verify/anchor'],
    ['anchor', 'head_hash', HASH, 'POST /v1/evm/verify/logs-proof'],
    ['anchor', 'expected_block_hash', HASH, 'POST /v1/evm/verify/receipt-proof'],
    ['anchor', 'anchor', ANCHOR(), 'POST /v1/evm/verify/receipt-proof and POST /v1/evm/verify/logs-proof'],
  ])('%s with %s: 400 naming it and who takes it (was: ignored)', async (endpoint, member, value, taker) => {
    const body = { ...validBodies()[endpoint], [member]: value };
    const answer = await post(endpoint, body);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 400)).toBe(400);
    expect(answer.body.error.code).toBe('BAD_REQUEST');
    const [problem, ...others] = answer.body.error.details.invalid_parameters;
    expect(others).toEqual([]);
    expect(problem).toMatchObject({ name: member, location: 'body', reason: 'invalid_format' });
    expect(problem.expected).toContain(`POST /v1/evm/verify/${endpoint} does not take it`);
    expect(problem.expected).toContain(taker);
    expect(answer.body.error.message).toContain(member);
  });

  it('the receipt-proof answer that was is_valid true with a checkpoint ignored is now refused', async () => {
    const answer = await post('receipt-proof', { ...receiptProof(), checkpoint: HASH });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.invalid_parameters[0].expected).toMatch(
      /^no "checkpoint" in a body of POST \/v1\/evm\/verify\/receipt-proof/,
    );
  });

  it("listed beside the body's other problems, each once", async () => {
    const { receipt_root: _, ...body } = validBodies()['receipt-root']!;
    const answer = await post('receipt-root', { ...body, checkpoint: HASH, trusted_hash: HASH });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.invalid_parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'checkpoint',
      'receipt_root',
      'trusted_hash',
    ]);
  });

  it('taken where the endpoint takes it, and null (which claims nothing) where it does not', async () => {
    const proof = receiptProof();
    const bound = await post('receipt-proof', { ...proof, expected_block_hash: proof.block_hash, checkpoint: null });
    expect(bound.status).toBe(200);
    expect(bound.body.data[0].is_valid).toBe(true);
    const mismatched = await post('receipt-proof', { ...proof, expected_block_hash: HASH });
    expect(mismatched.status).toBe(200);
    expect(mismatched.body.data[0]).toMatchObject({ is_valid: false, reason: 'block-hash-mismatch' });
  });
});

describe('every other unknown member stays ignored', () => {
  it('a receipt-root body spread from the service block record (0101) is accepted', async () => {
    const fixture = loadFixture('mainnet-19433903');
    const header = fixture.header;
    const record = {
      block_number: Number(header.number),
      block_hash: header.hash!.slice(2),
      parent_block_hash: header.parentHash!.slice(2),
      receipt_root: header.receiptsRoot!.slice(2),
      miner: header.miner!.slice(2),
      gas_limit: Number(header.gasLimit),
      extra_data: header.extraData!.slice(2),
      timestamp_utc: new Date(Number(header.timestamp) * 1000).toISOString(),
      _tracing_id: '0'.repeat(36),
      _parent_tracing_ids: [],
      _genesis_tracing_ids: [],
      _computed_receipt_root: header.receiptsRoot!.slice(2),
    };
    const answer = await post('receipt-root', { ...record, ...validBodies()['receipt-root'] });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 400)).toBe(200);
    expect(answer.body.data[0].is_identical).toBe(true);
  });

  it('block_hash as context on logs-bloom, and an unknown member of another name, are accepted', async () => {
    const answer = await post('logs-bloom', {
      ...validBodies()['logs-bloom'],
      block_hash: HASH,
      block_number: 19433903,
      note: 'sent by a client that adds its own members',
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 400)).toBe(200);
    expect(answer.body.data[0].is_identical).toBe(true);
  });
});
