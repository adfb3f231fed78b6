/**
 * POST /v1/evm/verify/logs-proof over real HTTP on loopback: proofs built by the library from real
 * fixture blocks answer the logs eth_getLogs would (helpers/logs-proofs.ts computes them from the
 * fixtures' JSON alone); a proof that does not hold is a 200 false verdict naming the block; bytes
 * that are no proof are 400 naming `proof`; a block no proof can rest on is 422; the body has its
 * own limit (413) and its CU grow with it; large proofs run on the worker pool, which knows the
 * chains the configuration adds.
 */
import { decode, encode } from '@ethereumjs/rlp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, ChainRegistry, encodeHeader, type ChainInfo } from '../packages/core/src/index.js';
import { encodePreamble, LOGS_PROOF_SIGNATURE } from '../packages/core/src/proof/index.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import {
  buildArtifact,
  concat,
  expectedLogs,
  rangeNames,
  readFixtureBlock,
  toFilter,
  type HexFilter,
  BUSY_2016,
  THIRTY,
  TRANSFER,
} from './helpers/logs-proofs.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const MERGE = rangeNames('mainnet', 15_537_393, 15_537_394);
const OP = ['op-mainnet-154497277'];
const MIB = 1024 * 1024;
const LOGS_PROOF_LIMIT = 4 * MIB;

const DEVNET: ChainInfo = { chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true };

const keyOf = (account: string) => `evmi_logs-proof-api-${account}-0123456789abcdefghijklmnop`;
const account = (
  id: string,
  entitlements: { endpoints?: string[]; chains?: number[] } | null = null,
  cuLimit = 100_000,
) => ({
  id,
  name: id,
  plan: 'pro',
  cuLimit,
  rateLimitRps: 10_000,
  entitlements,
  keys: [{ label: 'test', key: keyOf(id) }],
});

let server: RunningServer;

beforeAll(async () => {
  server = await startServer(
    testConfig({
      host: '127.0.0.1',
      // The other endpoints' limit is below a logs proof's: the endpoint has its own.
      bodyLimitBytes: MIB,
      logsProofBodyLimitBytes: LOGS_PROOF_LIMIT,
      poolWorkers: 1,
      // fetch keeps connections alive; close() ends them at this deadline.
      shutdownTimeoutMs: 500,
      // Thirty blocks (42 KB of hex) and more go to the worker; the smallest proofs are read inline.
      poolThresholdBytes: 32_768,
      chains: [DEVNET],
      accounts: [
        account('auditor'),
        account('meter'),
        account('blooms-only', { endpoints: ['verify/logs-bloom'] }),
        account('mainnet-only', { chains: [1] }),
        account('three-cu', null, 3),
      ],
    }),
    { logger: capturingLogger().logger },
  );
});
afterAll(async () => {
  await server?.close();
});

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;

/** The request body of an artifact, as a client writes it. */
const bodyOf = (chainId: number, headHash: Uint8Array, artifact: Uint8Array) =>
  JSON.stringify({ chain_id: chainId, head_hash: hex(headHash), proof: hex(artifact) });

const post = (body: string, who = 'auditor', path = 'logs-proof') =>
  fetch(`${server.url}/v1/evm/verify/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${keyOf(who)}` },
    body,
  });

/** `data[0]` of a 200 answer. */
async function resultOf(res: Response): Promise<any> {
  const answer = (await res.json()) as { data: unknown[]; cursor: null; count: number };
  expect(res.status, JSON.stringify(answer)).toBe(200);
  expect(answer).toMatchObject({ cursor: null, count: 1 });
  return answer.data[0];
}
const errorOf = async (res: Response) => ((await res.json()) as { error: any }).error;

const usedBy = async (who: string): Promise<number> => {
  const usage = (await (
    await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${keyOf(who)}` } })
  ).json()) as { cu_by_endpoint: Record<string, number> };
  return usage.cu_by_endpoint['verify/logs-proof'] ?? 0;
};

/** Strips `0x` and lowercases, as the answer writes a filter. */
const bare = (h: string) => h.slice(2).toLowerCase();

describe('a proof of real blocks answers the logs eth_getLogs would', () => {
  const cases: Array<[string, string[], HexFilter, number]> = [
    ['30 mainnet blocks of 2016, the busiest contract', THIRTY, { address: [BUSY_2016] }, 1],
    ['the Merge pair, Transfer', MERGE, { topics: [[TRANSFER]] }, 1],
    ['an OP Mainnet block with deposits, Transfer', OP, { topics: [[TRANSFER]] }, 10],
  ];
  it.each(cases)('%s', async (_, names, filter, chainId) => {
    const { artifact, headHash } = buildArtifact(names, toFilter(filter));
    const result = await resultOf(await post(bodyOf(chainId, headHash, artifact)));
    const expected = expectedLogs(names, filter);
    expect(expected.length).toBeGreaterThan(0);
    expect(result.logs).toEqual(expected);
    const first = Number(readFixtureBlock(names[0]!).header.fields.number);
    expect(result).toMatchObject({
      is_valid: true,
      reason: null,
      block: null,
      message: null,
      head_hash: bytesToHex(headHash),
      from_block: first,
      to_block: first + names.length - 1,
      filter: {
        address: (filter.address ?? []).map(bare),
        topics: (filter.topics ?? []).map((alternatives) => (alternatives ?? []).map(bare)),
      },
      blocks: names.length,
    });
    expect(result.candidate_blocks).toBeGreaterThanOrEqual(1);
    expect(result.receipts).toBeGreaterThanOrEqual(result.candidate_blocks);
  });

  it('a chain the configuration adds: read with its rules, on the worker as inline', async () => {
    const registry = new ChainRegistry([DEVNET]);
    const filter = { address: [BUSY_2016] };
    const { artifact, headHash } = buildArtifact(THIRTY, toFilter(filter), { chainId: 31337, registry });
    const body = bodyOf(31337, headHash, artifact);
    expect(body.length).toBeGreaterThan(32_768);
    const result = await resultOf(await post(body));
    expect(result.is_valid).toBe(true);
    expect(result.logs).toEqual(expectedLogs(THIRTY, filter));
  });
});

describe('a proof that does not hold: 200, is_valid false, the reason and the block', () => {
  const filter = toFilter({ address: [BUSY_2016] });
  const { artifact, headHash, records } = buildArtifact(THIRTY, filter);

  it('another head hash: head-mismatch at the last block, and no log handed out', async () => {
    const other = readFixtureBlock('mainnet-1000029').header.hash!;
    const result = await resultOf(await post(bodyOf(1, other, artifact)));
    expect(result).toMatchObject({
      is_valid: false,
      reason: 'head-mismatch',
      block: 1_000_030,
      head_hash: bytesToHex(other),
      from_block: null,
      to_block: null,
      filter: null,
      blocks: null,
      logs: null,
    });
    expect(result.message).toMatch(/^Block 1000030 hashes to 0x[0-9a-f]{64}, not to the head hash/);
  });

  it("a byte flipped in a log's data in block 1,000,023: root-mismatch there", async () => {
    // Record 23 is block 1,000,023, which holds the contract's logs; the last byte of its first
    // receipt with logs is a log's data, which no bloom covers: only the root can refuse it.
    const [, receipts] = decode(records[23]) as unknown as [Uint8Array, Uint8Array[]];
    const withLogs = readFixtureBlock('mainnet-1000023').receipts.findIndex((r) => r.logs.length > 0);
    const receipt = receipts[withLogs]!;
    const inRecord = Buffer.from(records[23]!).indexOf(Buffer.from(receipt));
    const at = records.slice(0, 23).reduce((n, r) => n + r.length, 0) + inRecord + receipt.length - 1;
    const changed = artifact.slice();
    changed[at]! ^= 0x01;
    const result = await resultOf(await post(bodyOf(1, headHash, changed)));
    expect(result).toMatchObject({ is_valid: false, reason: 'root-mismatch', block: 1_000_023, logs: null });
    expect(result.message).toMatch(/^Block 1,000,023's \d+ receipts do not make its receiptsRoot/);
  });

  it('from_block and to_block, where sent, refuse a proof of another range: range-mismatch (a shorter range held: a user check)', async () => {
    const asked = (from: number, to: number) =>
      JSON.stringify({ chain_id: 1, head_hash: hex(headHash), proof: hex(artifact), from_block: from, to_block: to });
    expect(await resultOf(await post(asked(1_000_001, 1_000_030)))).toMatchObject({ is_valid: true });
    const result = await resultOf(await post(asked(1_000_000, 1_000_030)));
    expect(result).toMatchObject({ is_valid: false, reason: 'range-mismatch', block: null, logs: null });
    expect(result.message).toBe(
      'The proof is of blocks 1,000,001 to 1,000,030, not of blocks 1,000,000 to 1,000,030 as asked.',
    );
  });

  it('a proof of another chain than chain_id: chain-mismatch', async () => {
    const result = await resultOf(await post(bodyOf(137, headHash, artifact)));
    expect(result).toMatchObject({ is_valid: false, reason: 'chain-mismatch', block: null, logs: null });
    expect(result.message).toBe('The proof is of chain 1, not of chain 137.');
  });

  it('the last blocks cut off: blocks-missing', async () => {
    const short = concat(records.slice(0, 29));
    const result = await resultOf(await post(bodyOf(1, headHash, short)));
    expect(result).toMatchObject({ is_valid: false, reason: 'blocks-missing', block: 1_000_029 });
  });
});

describe('what is not a request (400) or cannot be verified (422)', () => {
  const { artifact, headHash } = buildArtifact(rangeNames('mainnet', 1_000_025, 1_000_026), toFilter({}));
  const valid = { chain_id: 1, head_hash: hex(headHash), proof: hex(artifact) };
  const problemsOf = async (body: unknown) => {
    const res = await post(JSON.stringify(body));
    const error = await errorOf(res);
    expect(res.status, JSON.stringify(error)).toBe(400);
    expect(error.code).toBe('BAD_REQUEST');
    return error.details.invalid_parameters as Array<{ name: string; reason: string; expected: string }>;
  };

  it('the well-formed body holds (the cases below change one member of it)', async () => {
    expect((await resultOf(await post(JSON.stringify(valid)))).is_valid).toBe(true);
  });

  it.each([
    ['not hex', '0xzz00'],
    ['odd length', '0x89454c5'],
    ['a number', 42],
  ])('proof %s: 400 naming proof', async (_, proof) => {
    expect(await problemsOf({ ...valid, proof })).toEqual([
      expect.objectContaining({ name: 'proof', reason: 'invalid_format' }),
    ]);
  });

  it('hex that is no logs proof, or nothing: 400 naming proof, saying why', async () => {
    const [noSignature] = await problemsOf({ ...valid, proof: '0x00112233445566778899' });
    expect(noSignature).toEqual({
      name: 'proof',
      location: 'body',
      reason: 'invalid_format',
      expected: 'a logs proof artifact (The input is not a logs proof: it does not begin with its signature)',
    });
    const [empty] = await problemsOf({ ...valid, proof: '0x' });
    expect(empty!.expected).toBe(
      'a logs proof artifact (The input is not a logs proof: it ends before its 8-byte signature)',
    );
    const version2 = concat([LOGS_PROOF_SIGNATURE, encode([Uint8Array.of(2)])]);
    const [preamble] = await problemsOf({ ...valid, proof: hex(version2) });
    expect(preamble!.name).toBe('proof');
    expect(preamble!.expected).toBe(
      'a logs proof artifact (The input is no logs proof: format version 2 is not supported; this library reads version 1)',
    );
  });

  it("a filter sent with the proof (address, topics, filter, or a near name): 400 naming each, the filter being the proof's own", async () => {
    // The proof is of every log: a filter the body names would be answered with logs of other contracts.
    const contract = '0x' + '12'.repeat(20);
    const sent = await problemsOf({
      ...valid,
      address: contract,
      topics: [[TRANSFER]],
      filter: { address: [contract] },
    });
    expect(sent.map((problem) => [problem.name, problem.reason])).toEqual([
      ['address', 'invalid_format'],
      ['topics', 'invalid_format'],
      ['filter', 'invalid_format'],
    ]);
    for (const problem of sent) expect(problem.expected).toMatch(/no filter: the filter is the proof's own/);
    const near = await problemsOf({ ...valid, addresses: [contract], topic0: [TRANSFER] });
    expect(near.map((problem) => problem.name)).toEqual(['addresses', 'topic0']);
    for (const problem of near) expect(problem.expected).toMatch(/no filter: the filter is the proof's own/);
  });

  it("a log's address as this API's bodies name it (contract_address, in any spelling) or a block number: 400 naming each, not ignored beside a proof of every log (a user check)", async () => {
    // The proof of mainnet 1,000,001–1,000,030 with no filter holds the logs of several contracts: a body narrowing it
    // to one contract, or to block 1,000,029, was answered is_valid true with all of them.
    const all = buildArtifact(THIRTY, toFilter({}));
    const wide = { chain_id: 1, head_hash: hex(all.headHash), proof: hex(all.artifact) };
    const answered = await resultOf(await post(JSON.stringify(wide)));
    expect(answered).toMatchObject({ is_valid: true, from_block: 1_000_001, to_block: 1_000_030 });
    expect(new Set(answered.logs.map((log: { address: string }) => log.address)).size).toBeGreaterThan(1);
    for (const member of ['contract_address', 'contractAddress', 'ContractAddress', 'contract_addresses']) {
      const problems = await problemsOf({ ...wide, [member]: BUSY_2016 });
      expect(problems.map((problem) => [problem.name, problem.reason])).toEqual([[member, 'invalid_format']]);
      expect(problems[0]!.expected).toMatch(/^no filter: the filter is the proof's own/);
    }
    for (const member of ['block_number', 'blockNumber']) {
      const problems = await problemsOf({ ...wide, [member]: 1_000_029 });
      expect(problems.map((problem) => [problem.name, problem.reason])).toEqual([[member, 'invalid_format']]);
      expect(problems[0]!.expected).toMatch(/^no block number: the blocks are the proof's own range/);
    }
    // Null claims nothing, as for every refused member; a member that narrows nothing is still ignored.
    const ignored = { ...wide, contract_address: null, block_number: null, note: 'mine' };
    expect((await resultOf(await post(JSON.stringify(ignored)))).is_valid).toBe(true);
  });

  it("a block chosen by hash as eth_getLogs does (blockHash, block_hash, or a near name): 400 naming each, the blocks being the proof's own", async () => {
    // A proof of any range would hold beside it: the block it names would be ignored.
    for (const member of ['blockHash', 'block_hash', 'BlockHash']) {
      const problems = await problemsOf({ ...valid, [member]: '0x00' });
      expect(problems.map((problem) => [problem.name, problem.reason])).toEqual([[member, 'invalid_format']]);
      expect(problems[0]!.expected).toMatch(/^no block hash: the blocks are the proof's own range/);
    }
  });

  it('a member in a second spelling beside it (fromBlock beside from_block): 400 naming it, neither claim guessed at', async () => {
    // The proof holds from_block's range; fromBlock asks for another, which reading either alone would answer or miss.
    const both = { ...valid, from_block: 1_000_025, fromBlock: 1_000_000, to_block: 1_000_026, ToBlock: 1_000_026 };
    const problems = await problemsOf(both);
    expect(problems.map((problem) => [problem.name, problem.reason])).toEqual([
      ['fromBlock', 'invalid_format'],
      ['ToBlock', 'invalid_format'],
    ]);
    expect(problems[0]!.expected).toBe(
      'one spelling of each member: "fromBlock" is "from_block" spelled another way, and "from_block" is given too; give one',
    );
    // A spelling given as null claims nothing, yet the other is still a second spelling of it: named, never read.
    const nulled = await problemsOf({ ...valid, from_block: null, fromBlock: 1_000_000 });
    expect(nulled.map((problem) => problem.name)).toEqual(['fromBlock']);
    // A member that is no spelling of a known one is still ignored (forward compatibility).
    expect((await resultOf(await post(JSON.stringify({ ...valid, from_block: 1_000_025, note: 1 })))).is_valid).toBe(
      true,
    );
  });

  it('chain_id missing, head_hash short, proof missing: every problem named', async () => {
    expect(await problemsOf({ head_hash: '0xabcd' })).toEqual([
      { name: 'chain_id', location: 'body', reason: 'missing', expected: 'chain id as a JSON integer' },
      {
        name: 'head_hash',
        location: 'body',
        reason: 'invalid_format',
        expected: "the hash of the range's last block (32-byte hex), got 2 bytes",
      },
      { name: 'proof', location: 'body', reason: 'missing', expected: 'a logs proof artifact as even-length hex' },
    ]);
  });

  it('a chain outside the registry: 422 CHAIN_NOT_SUPPORTED', async () => {
    const res = await post(JSON.stringify({ ...valid, chain_id: 999_999 }));
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toMatchObject({
      code: 'CHAIN_NOT_SUPPORTED',
      message: 'Chain 999999 is not in the chain registry.',
      details: { chain_id: 999_999, chain: null, block_number: null },
    });
  });

  it("a block no proof can rest on (Polygon's state sync before Madhugiri): 422 naming the block and its era", async () => {
    // Written by hand, as in logs-proof.test.ts: the builder will not write it.
    const blocks = rangeNames('polygon-pos', 9_013_765, 9_013_766).map(readFixtureBlock);
    const preamble = encodePreamble({ chainId: 137, fromBlock: 9_013_765, toBlock: 9_013_766, filter: toFilter({}) });
    const head = encode([encodeHeader(blocks[0]!.header.complete!, blocks[0]!.header.layout)]);
    const polygon = concat([LOGS_PROOF_SIGNATURE, preamble, head]);
    const res = await post(bodyOf(137, blocks[1]!.header.hash!, polygon));
    expect(res.status).toBe(422);
    const error = await errorOf(res);
    expect(error.code).toBe('CHAIN_NOT_SUPPORTED');
    expect(error.message).toMatch(/^Block 9,013,765 of Polygon PoS \(chain 137\) is in its .* era/);
    expect(error.message).toMatch(
      /state-sync receipts of this era are in neither the receipts root nor the logs bloom/,
    );
    // No later block of Polygon PoS can be verified yet: no Madhugiri block has shown its rules (GET /v1/chains).
    expect(error.details).toMatchObject({
      chain_id: 137,
      chain: 'Polygon PoS',
      block_number: 9_013_765,
      era: 'Bor before Madhugiri',
      first_verifiable_block: null,
    });
  });
});

describe('size, cost and keys', () => {
  const merge = buildArtifact(MERGE, toFilter({ topics: [[TRANSFER]] }));
  const mergeBody = bodyOf(1, merge.headHash, merge.artifact);
  const small = buildArtifact(rangeNames('mainnet', 1_000_025, 1_000_026), toFilter({}));
  const smallBody = bodyOf(1, small.headHash, small.artifact);

  it('costs 1 CU and 1 more per full MiB of body, on a 2xx only', async () => {
    expect(mergeBody.length).toBeGreaterThan(3 * MIB);
    let used = await usedBy('meter');
    expect((await post(smallBody, 'meter')).status).toBe(200);
    expect(await usedBy('meter')).toBe(used + 1);
    used += 1;
    expect((await post(mergeBody, 'meter')).status).toBe(200);
    expect(await usedBy('meter')).toBe(used + 1 + Math.floor(mergeBody.length / MIB));
    used = await usedBy('meter');
    // A false verdict is an answer (charged); a 400 is not.
    const other = readFixtureBlock('mainnet-15537393').header.hash!;
    expect((await resultOf(await post(bodyOf(1, other, merge.artifact), 'meter'))).reason).toBe('head-mismatch');
    expect(await usedBy('meter')).toBe(used + 4);
    expect((await post(JSON.stringify({ chain_id: 1 }), 'meter')).status).toBe(400);
    expect(await usedBy('meter')).toBe(used + 4);
  });

  it('an allowance that pays the least cost but not this body: 429 once the body is read, nothing charged', async () => {
    const res = await post(mergeBody, 'three-cu');
    expect(res.status).toBe(429);
    expect((await errorOf(res)).details).toMatchObject({ limit_scope: 'cu_allowance' });
    expect(await usedBy('three-cu')).toBe(0);
    expect((await post(smallBody, 'three-cu')).status).toBe(200);
    expect(await usedBy('three-cu')).toBe(1);
  });

  it('its own body limit: a proof above the other endpoints’ limit is read, one above its own is 413', async () => {
    expect(mergeBody.length).toBeGreaterThan(MIB);
    expect((await post(mergeBody)).status).toBe(200);
    const bloomOfSameSize = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [], pad: 'x'.repeat(2 * MIB) });
    expect((await post(bloomOfSameSize, 'auditor', 'logs-bloom')).status).toBe(413);

    const oversize = JSON.stringify({ ...JSON.parse(smallBody), proof: `0x${'00'.repeat(LOGS_PROOF_LIMIT / 2 + 1)}` });
    const res = await post(oversize);
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await errorOf(res)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: {
        max_allowed_bytes: LOGS_PROOF_LIMIT,
        request_bytes: Buffer.byteLength(oversize),
        limit_applies_to: 'request_body',
        recommended_actions: [
          'Prove the range in shorter parts, each from its own last block.',
          'Narrow the filter: fewer blocks then carry their receipts.',
          'Send an anchor proof of the blocks needed only: each block is a line of its own, about 5 KB.',
        ],
      },
    });
    // The same keep-alive client goes on: fetch opens a connection in place of the one closed.
    expect((await resultOf(await post(smallBody))).is_valid).toBe(true);
  });

  it('keys and entitlements as every verify endpoint: 401, 403 for the endpoint, 403 for the chain', async () => {
    const anonymous = await fetch(`${server.url}/v1/evm/verify/logs-proof`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: smallBody,
    });
    expect(anonymous.status).toBe(401);
    expect((await post(smallBody, 'blooms-only')).status).toBe(403);
    const op = buildArtifact(OP, toFilter({ topics: [[TRANSFER]] }));
    const refused = await post(bodyOf(10, op.headHash, op.artifact), 'mainnet-only');
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe('FORBIDDEN');
    expect((await post(smallBody, 'mainnet-only')).status).toBe(200);
  });

  it('large proofs are verified on the worker: /v1/health answers while they wait for it', async () => {
    const held = Array.from({ length: 3 }, () => post(mergeBody));
    await expect.poll(() => server.pool!.waiting, { interval: 1 }).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    expect(server.pool!.waiting).toBeGreaterThan(0);
    for (const res of await Promise.all(held)) expect((await resultOf(res)).logs.length).toBe(10_035);
  });
});
