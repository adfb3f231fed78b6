/**
 * Verifying from a beacon-chain checkpoint over real HTTP on loopback, against `evm-integrity serve` started as an
 * operator starts it: `POST /v1/evm/verify/anchor` answers the blocks the real anchor proof file
 * (fixtures/anchor/mainnet-checkpoint-11635710.jsonl) proves, or why it does not verify; the receipt-proof and
 * logs-proof endpoints take an `anchor` member in place of their trusted hash, and proofs built by the library from
 * real blocks of three eras (before the merge, the first Capella block, a Deneb block) hold from the checkpoint
 * alone, `anchoring` naming it; a block the file does not prove, another checkpoint, a changed byte are never a pass;
 * the body limit counts the file, and the CU grow with it. A property: no changed hex digit of the file lets a
 * receipt proof through.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '../packages/core/src/index.js';
import { proveReceipt, verifyReceiptProofOperation } from '../packages/core/src/api/index.js';
import { ELECTRA_CHECKPOINT } from './helpers/anchor-files.js';
import { buildArtifact } from './helpers/logs-proofs.js';
import { loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';
import { serveProcess, type ServeProcess } from './helpers/serve-process.js';

const TEXT = readFileSync(new URL('../fixtures/anchor/mainnet-checkpoint-11635710.jsonl', import.meta.url), 'utf8');
/** Light-client steps across the Electra fork, from ELECTRA_CHECKPOINT. */
const LIGHT_CLIENT_TEXT = readFileSync(
  new URL('../fixtures/anchor/mainnet-light-client-1421-1422.jsonl', import.meta.url),
  'utf8',
);
const CHECKPOINT = '0x5ab5b37414ebe99dc2c1e1e325bca79b8f659a4f0af21afdea4b38e646508e82';
const OTHER_CHECKPOINT = `0x${'11'.repeat(32)}`;
/** One block of each era: before the merge, the first of Capella, one of Deneb. */
const ERAS = [14764013, 17034870, 22162263] as const;
/** The file's head and its pre-merge block alone: it proves 14,764,013 and nothing else. */
const PRE_MERGE_ONLY = TEXT.split('\n').slice(0, 3).join('\n');
const MIB = 1024 * 1024;
const KEY = 'evmi_anchor-api-auditor-0123456789abcdefghijklmnop';
/** The key of an account entitled to OP Mainnet (chain 10) alone. */
const OP_ONLY_KEY = 'evmi_anchor-api-op-only-0123456789abcdefghijklmnop';

const bare = (hash: string) => hash.slice(2);
const hashOf = (number: number) => loadFixture(`mainnet-${number}`).header['hash'] as string;

/** The receipt proof document of the first receipt of a fixture block, as `prove receipt` writes it. */
function receiptProof(number: number): Record<string, unknown> {
  const proof = proveReceipt(loadFixture(`mainnet-${number}`), 0);
  if (!proof.ok) throw new Error(`no proof of block ${number}`);
  return JSON.parse(JSON.stringify(proof.value)) as Record<string, unknown>;
}

/** The complete-log proof of one fixture block, every log (no filter), as hex. */
function logsProof(number: number): string {
  const { artifact } = buildArtifact([`mainnet-${number}`], { addresses: [], topics: [] });
  return `0x${bytesToHex(artifact)}`;
}

let dir: string;
let served: ServeProcess;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'anchor-api-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      body_limit_bytes: 2 * MIB,
      logs_proof_body_limit_bytes: 2 * MIB,
      accounts: [
        { id: 'auditor', plan: 'pro', cu_limit: 100_000, rate_limit_rps: 10_000, keys: [{ label: 'test', key: KEY }] },
        {
          id: 'op-only',
          plan: 'pro',
          cu_limit: 100_000,
          rate_limit_rps: 10_000,
          entitlements: { chains: [10] },
          keys: [{ label: 'test', key: OP_ONLY_KEY }],
        },
      ],
    }),
  );
  served = serveProcess(['--config', config]);
  url = (await served.listening).url;
}, 30_000);

afterAll(async () => {
  await served?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown, key = KEY) =>
  fetch(`${url}/v1/evm/verify/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The status and body of an answer. */
async function answerOf(path: string, body: unknown, key = KEY): Promise<{ status: number; body: any }> {
  const res = await post(path, body, key);
  return { status: res.status, body: await res.json() };
}

/** `data[0]` of a 200 answer. */
async function resultOf(path: string, body: unknown): Promise<any> {
  const { status, body: answer } = await answerOf(path, body);
  expect(status, JSON.stringify(answer).slice(0, 500)).toBe(200);
  expect(answer).toMatchObject({ cursor: null, count: 1 });
  return answer.data[0];
}

/** The CU the account has spent on an endpoint. */
async function spentOn(endpoint: string, key = KEY): Promise<number> {
  const res = await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await res.json()) as { cu_by_endpoint: Record<string, number> }).cu_by_endpoint[endpoint] ?? 0;
}

describe('POST /v1/evm/verify/anchor', () => {
  it('answers every block the file proves from the checkpoint, each hash the one the block has', async () => {
    const { status, body } = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT });
    expect(status).toBe(200);
    expect(body).toMatchObject({ chain_id: 1, cursor: null, count: 1 });
    const [result] = body.data;
    expect(result).toMatchObject({
      is_valid: true,
      reason: null,
      line: null,
      message: null,
      checkpoint: bare(CHECKPOINT),
      network: 'mainnet',
    });
    expect(result.blocks[0]).toEqual({
      block_number: 14764013,
      block_hash: bare(hashOf(14764013)),
      via: 'pre-merge',
      slot: null,
      line: 3,
    });
    for (const block of result.blocks.slice(1)) {
      expect(block.via).toBe('historical-summaries');
      if (block.block_number !== 17042287) expect(block.block_hash).toBe(bare(hashOf(block.block_number)));
    }
    expect(result.blocks.map((b: { block_number: number }) => b.block_number)).toEqual([
      14764013, 17034870, 17042287, 17062257, 19426586, 19426587, 22162263,
    ]);
  });

  it('blank lines before the first line are skipped, as between records; lines keep their numbers (line 1 was refused as blank: a user re-check)', async () => {
    const { status, body } = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: `\n  \r\n${TEXT}` });
    expect(status).toBe(200);
    expect(body.data[0]).toMatchObject({ is_valid: true, line: null });
    expect(body.data[0].blocks[0]).toMatchObject({ block_number: 14764013, line: 5 });
    const other = await answerOf('anchor', { checkpoint: OTHER_CHECKPOINT, proof: `\n${TEXT}` });
    expect(other.body.data[0]).toMatchObject({ is_valid: false, reason: 'checkpoint', line: 2 });
  });

  it('a file that starts with a byte order mark (U+FEFF) verifies, as the CLI reads it; the account is held to its chain all the same (a user check: 400 "not a JSON value")', async () => {
    const bom = `\uFEFF${TEXT}`;
    const plain = await resultOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT });
    expect(await resultOf('anchor', { checkpoint: CHECKPOINT, proof: bom })).toEqual(plain);
    const proof = await resultOf('receipt-proof', {
      ...receiptProof(22162263),
      anchor: { checkpoint: CHECKPOINT, proof: bom },
    });
    expect(proof).toMatchObject({
      is_valid: true,
      anchoring: { assurance: 'authentic', network: 'mainnet' },
      block_hash_held_to: 'anchor',
    });
    // The chain an account is held to is read from the head as the verifier finds it: after the mark, after blank lines.
    for (const text of [bom, `\n\n${TEXT}`, `\uFEFF\n\n${TEXT}`]) {
      const refused = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: text }, OP_ONLY_KEY);
      expect(refused.status).toBe(403);
    }
    const two = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: `\uFEFF${bom}` });
    expect(two.status).toBe(400);
    expect(two.body.error.details.invalid_parameters[0]).toMatchObject({
      name: 'proof',
      expected:
        'an anchor proof file (line 1: $: a byte order mark (U+FEFF): one is allowed, at the very start of the file)',
    });
  });

  it('another checkpoint: a 200 false verdict at line 1, nothing proven', async () => {
    const { status, body } = await answerOf('anchor', { checkpoint: OTHER_CHECKPOINT, proof: TEXT });
    expect(status).toBe(200);
    expect(body.chain_id).toBeNull();
    expect(body.data[0]).toEqual({
      is_valid: false,
      reason: 'checkpoint',
      line: 1,
      message: `the file hangs from checkpoint ${CHECKPOINT}, not the trusted ${OTHER_CHECKPOINT}`,
      checkpoint: bare(OTHER_CHECKPOINT),
      network: null,
      blocks: null,
    });
  });

  it('a changed byte: a false verdict naming the line', async () => {
    // The last hex digit of block 17,034,870's state_summary_root (line 4).
    const lines = TEXT.split('\n');
    lines[3] = lines[3]!.replace(
      /("state_summary_root":"0x[0-9a-f]{63})([0-9a-f])/,
      (_, head: string, last: string) => `${head}${last === '0' ? '1' : '0'}`,
    );
    const result = await resultOf('anchor', { checkpoint: CHECKPOINT, proof: lines.join('\n') });
    expect(result).toMatchObject({ is_valid: false, reason: 'block-branch', line: 4, blocks: null });
  });

  it('text that is no anchor proof, or a member missing: 400 naming it; an unknown network: 422', async () => {
    const notJson = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: 'not a proof' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.details.invalid_parameters).toEqual([
      {
        name: 'proof',
        location: 'body',
        reason: 'invalid_format',
        expected:
          'an anchor proof file (line 1: $: not a JSON value; an anchor proof file is JSON Lines, one whole JSON object a line, as anchor prove writes it)',
      },
    ]);
    const empty = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: `${TEXT.split('\n')[0]}\n` });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.invalid_parameters[0].expected).toMatch(/no records/);
    const missing = await answerOf('anchor', { proof: TEXT });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.invalid_parameters.map((p: { name: string }) => p.name)).toEqual(['checkpoint']);
    const elsewhere = await answerOf('anchor', {
      checkpoint: CHECKPOINT,
      proof: TEXT.replace('"mainnet"', '"nowhere"'),
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error).toMatchObject({
      code: 'CHAIN_NOT_SUPPORTED',
      // The body named no chain: the file's own; details say so, and why.
      details: { chain_id: null, reason: expect.stringMatching(/"nowhere"/) },
    });
    expect(elsewhere.body.error.message).toMatch(/network "nowhere" is not one the anchor knows/);
  });

  it("chain_id, where sent, must be the file's network's chain: another is 422 naming both, never valid for chain 1", async () => {
    const optimism = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT, chain_id: 10 });
    expect(optimism.status).toBe(422);
    expect(optimism.body.error).toMatchObject({
      code: 'CHAIN_NOT_SUPPORTED',
      message: "The anchor proof's network mainnet proves blocks of chain 1, not of chain 10.",
      details: { chain_id: 10 },
    });
    const mainnet = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT, chain_id: 1 });
    expect(mainnet).toMatchObject({ status: 200, body: { chain_id: 1, data: [{ is_valid: true }] } });
    const unnamed = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT, chain_id: null });
    expect(unnamed).toMatchObject({ status: 200, body: { chain_id: 1 } });
    const text = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT, chain_id: '1' });
    expect(text.status).toBe(400);
    expect(text.body.error.details.invalid_parameters).toMatchObject([{ name: 'chain_id' }]);
  });

  it("is 403 for an account not entitled to the file's chain, on the event loop and on a worker, and charges nothing", async () => {
    const files = [
      { checkpoint: CHECKPOINT, proof: TEXT },
      // Light-client steps are verified on a worker whatever the body's size.
      { checkpoint: `0x${bytesToHex(ELECTRA_CHECKPOINT)}`, proof: LIGHT_CLIENT_TEXT },
    ];
    for (const file of files) {
      const refused = await answerOf('anchor', file, OP_ONLY_KEY);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: "This account's entitlements do not include chain 1.",
      });
    }
    expect(await spentOn('verify/anchor', OP_ONLY_KEY)).toBe(0);
    // A network the anchor does not know names no chain: the operation's 422, as for any account.
    const elsewhere = { checkpoint: CHECKPOINT, proof: TEXT.replace('"mainnet"', '"nowhere"') };
    expect((await answerOf('anchor', elsewhere, OP_ONLY_KEY)).status).toBe(422);
    // The entitled account is served the same files.
    for (const file of files) expect((await resultOf('anchor', file)).is_valid).toBe(true);
  });

  it('costs 1 CU and 1 more per full MiB of body, on a 2xx only', async () => {
    const before = await spentOn('verify/anchor');
    expect((await answerOf('anchor', { checkpoint: CHECKPOINT, proof: TEXT })).status).toBe(200);
    expect(await spentOn('verify/anchor')).toBe(before + 1);
    // Refused at line 1, a 200 all the same: the body's MiB are paid for.
    const large = { checkpoint: OTHER_CHECKPOINT, proof: `${TEXT}${' '.repeat(1.25 * MIB)}` };
    expect((await answerOf('anchor', large)).status).toBe(200);
    expect(await spentOn('verify/anchor')).toBe(before + 3);
    expect((await answerOf('anchor', { checkpoint: CHECKPOINT, proof: 'x' })).status).toBe(400);
    expect(await spentOn('verify/anchor')).toBe(before + 3);
  });
});

describe('the anchor member of POST /v1/evm/verify/receipt-proof', () => {
  it.each(ERAS)('block %i: the proof holds from the checkpoint alone, anchoring names it', async (number) => {
    const result = await resultOf('receipt-proof', {
      ...receiptProof(number),
      anchor: { checkpoint: CHECKPOINT, proof: TEXT },
    });
    expect(result).toMatchObject({
      is_valid: true,
      reason: null,
      block_number: number,
      block_hash: bare(hashOf(number)),
    });
    expect(result.receipt.blockHash).toBe(hashOf(number));
    expect(result.anchoring).toEqual({
      assurance: 'authentic',
      // Before the merge the block rests on the accumulator EIP-7643 fixes: the checkpoint proves nothing of it.
      checkpoint: number === 14764013 ? null : bare(CHECKPOINT),
      network: 'mainnet',
      block_number: number,
      via: number === 14764013 ? 'pre-merge' : 'historical-summaries',
      slot: number === 14764013 ? null : expect.any(Number),
    });
  });

  it('a block the file does not prove: block-hash-mismatch naming it, no receipt', async () => {
    const result = await resultOf('receipt-proof', {
      ...receiptProof(22162263),
      anchor: { checkpoint: CHECKPOINT, proof: PRE_MERGE_ONLY },
    });
    expect(result).toMatchObject({
      is_valid: false,
      reason: 'block-hash-mismatch',
      message: `Block 22162263's hash ${hashOf(22162263)} is not among the blocks the anchor proof proves from checkpoint ${CHECKPOINT}.`,
      receipt: null,
      anchoring: null,
    });
  });

  it('another checkpoint: anchor-refused, no receipt', async () => {
    const result = await resultOf('receipt-proof', {
      ...receiptProof(17034870),
      anchor: { checkpoint: OTHER_CHECKPOINT, proof: TEXT },
    });
    expect(result).toMatchObject({ is_valid: false, reason: 'anchor-refused', receipt: null, anchoring: null });
    expect(result.message).toMatch(/^The anchor proof is refused at line 1 \(checkpoint\): /);
  });

  it('a mainnet file relabelled sepolia, for a chain-1 proof: 422 naming both chains, before the file is verified (a user check: 200 anchor-refused)', async () => {
    const sepolia = TEXT.replace('"network":"mainnet"', '"network":"sepolia"');
    const message = "The anchor proof's network sepolia proves blocks of chain 11155111, not of chain 1.";
    const proof = await answerOf('receipt-proof', {
      ...receiptProof(22162263),
      anchor: { checkpoint: CHECKPOINT, proof: sepolia },
    });
    expect(proof.status).toBe(422);
    expect(proof.body.error).toMatchObject({ code: 'CHAIN_NOT_SUPPORTED', message, details: { chain_id: 1 } });
    const anchor = await answerOf('anchor', { checkpoint: CHECKPOINT, proof: sepolia, chain_id: 1 });
    expect(anchor.status).toBe(422);
    expect(anchor.body.error).toMatchObject({ code: 'CHAIN_NOT_SUPPORTED', message });
  });

  it('with expected_block_hash too: 400 conflict naming anchor; a file that is no anchor proof: 400 naming anchor.proof', async () => {
    const both = await answerOf('receipt-proof', {
      ...receiptProof(17034870),
      expected_block_hash: hashOf(17034870),
      anchor: { checkpoint: CHECKPOINT, proof: TEXT },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details.invalid_parameters).toMatchObject([{ name: 'anchor', reason: 'conflict' }]);
    const notAProof = await answerOf('receipt-proof', {
      ...receiptProof(17034870),
      anchor: { checkpoint: CHECKPOINT, proof: '{}' },
    });
    expect(notAProof.status).toBe(400);
    expect(notAProof.body.error.details.invalid_parameters).toMatchObject([{ name: 'anchor.proof' }]);
    const noCheckpoint = await answerOf('receipt-proof', { ...receiptProof(17034870), anchor: { proof: TEXT } });
    expect(noCheckpoint.body.error.details.invalid_parameters).toMatchObject([
      { name: 'anchor.checkpoint', reason: 'missing' },
    ]);
  });

  it('"anchor": null is absent (the proof holds, nothing anchors it); "anchor": {} is an anchor without its members: 400 naming both', async () => {
    const nulled = await resultOf('receipt-proof', { ...receiptProof(17034870), anchor: null });
    expect(nulled).toMatchObject({ is_valid: true, anchoring: null, block_hash_held_to: null });
    const empty = await answerOf('receipt-proof', { ...receiptProof(17034870), anchor: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.invalid_parameters).toMatchObject([
      { name: 'anchor.checkpoint', reason: 'missing' },
      { name: 'anchor.proof', reason: 'missing' },
    ]);
  });

  it('the body limit counts the anchor proof: over it, 413', async () => {
    const padded = {
      ...receiptProof(17034870),
      anchor: { checkpoint: CHECKPOINT, proof: `${TEXT}${' '.repeat(2 * MIB)}` },
    };
    const res = await post('receipt-proof', padded);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    const anchorOnly = await post('anchor', { checkpoint: CHECKPOINT, proof: `${TEXT}${' '.repeat(2 * MIB)}` });
    expect(anchorOnly.status).toBe(413);
  });
});

describe('the anchor member of POST /v1/evm/verify/logs-proof', () => {
  it.each(ERAS)(
    'block %i: the proof holds from the checkpoint alone, every log, anchoring names it',
    async (number) => {
      const result = await resultOf('logs-proof', {
        chain_id: 1,
        anchor: { checkpoint: CHECKPOINT, proof: TEXT },
        proof: logsProof(number),
      });
      const logs = loadFixture(`mainnet-${number}`).receipts.flatMap((r) => (r['logs'] as unknown[]) ?? []);
      expect(result).toMatchObject({
        is_valid: true,
        head_hash: bare(hashOf(number)),
        from_block: number,
        to_block: number,
        anchoring: {
          assurance: 'authentic',
          checkpoint: number === 14764013 ? null : bare(CHECKPOINT),
          block_number: number,
        },
      });
      expect(result.logs).toHaveLength(logs.length);
    },
  );

  it('a head the file does not prove: head-mismatch naming it, no log handed out', async () => {
    const result = await resultOf('logs-proof', {
      chain_id: 1,
      anchor: { checkpoint: CHECKPOINT, proof: PRE_MERGE_ONLY },
      proof: logsProof(17034870),
    });
    expect(result).toMatchObject({
      is_valid: false,
      reason: 'head-mismatch',
      block: 17034870,
      message: `Block 17034870's hash ${hashOf(17034870)} is not among the blocks the anchor proof proves from checkpoint ${CHECKPOINT}.`,
      head_hash: null,
      logs: null,
      anchoring: null,
    });
  });

  it('another checkpoint: anchor-refused; head_hash and anchor both, or neither: 400', async () => {
    const refused = await resultOf('logs-proof', {
      chain_id: 1,
      anchor: { checkpoint: OTHER_CHECKPOINT, proof: TEXT },
      proof: logsProof(22162263),
    });
    expect(refused).toMatchObject({ is_valid: false, reason: 'anchor-refused', logs: null, head_hash: null });
    const both = await answerOf('logs-proof', {
      chain_id: 1,
      head_hash: hashOf(22162263),
      anchor: { checkpoint: CHECKPOINT, proof: TEXT },
      proof: logsProof(22162263),
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details.invalid_parameters).toMatchObject([{ name: 'anchor', reason: 'conflict' }]);
    const neither = await answerOf('logs-proof', { chain_id: 1, proof: logsProof(22162263) });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details.invalid_parameters).toMatchObject([{ name: 'head_hash', reason: 'missing' }]);
  });
});

describe('a pre-merge block, which rests on the accumulator and not on the checkpoint', () => {
  // A file whose head names a made-up checkpoint: nothing checks that root but the records built on it.
  const MADE_UP = `0x${'42'.repeat(32)}`;
  const [head, checkpointHeader, preMerge, ...postMerge] = TEXT.trimEnd().split('\n');
  const madeUpHead = head!.replace(bare(CHECKPOINT), bare(MADE_UP));

  it('is authentic from a file that hangs from any checkpoint, and anchoring names no checkpoint', async () => {
    const anchor = { checkpoint: MADE_UP, proof: `${madeUpHead}\n${preMerge}\n` };
    const receipt = await resultOf('receipt-proof', { ...receiptProof(14764013), anchor });
    const logs = await resultOf('logs-proof', { chain_id: 1, anchor, proof: logsProof(14764013) });
    for (const result of [receipt, logs])
      expect(result).toMatchObject({
        is_valid: true,
        anchoring: { assurance: 'authentic', checkpoint: null, network: 'mainnet', via: 'pre-merge', slot: null },
      });
  });

  it('a file that mixes it with post-merge records under that checkpoint is refused at the first of them', async () => {
    const proof = [madeUpHead, preMerge, checkpointHeader, ...postMerge].join('\n');
    for (const number of [14764013, 22162263]) {
      const result = await resultOf('receipt-proof', {
        ...receiptProof(number),
        anchor: { checkpoint: MADE_UP, proof },
      });
      expect(result).toMatchObject({ is_valid: false, reason: 'anchor-refused', anchoring: null, receipt: null });
      expect(result.message).toMatch(/^The anchor proof is refused at line 3 \(untrusted-header\): /);
    }
  });
});

describe('forgery', () => {
  /** Where the file's hex digits are: any of them changed is a forged file. */
  const HEX_DIGITS = [...TEXT.matchAll(/"0x([0-9a-f]+)"/g)].flatMap((match) =>
    Array.from({ length: match[1]!.length }, (_, i) => match.index + 3 + i),
  );
  const PROOF = receiptProof(19426587);

  it('no changed hex digit of the anchor proof lets a receipt proof through', () => {
    expect(verifyReceiptProofOperation({ ...PROOF, anchor: { checkpoint: CHECKPOINT, proof: TEXT } }).verdict).toBe(
      'identical',
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: HEX_DIGITS.length - 1 }), fc.integer({ min: 1, max: 15 }), (at, delta) => {
        const place = HEX_DIGITS[at]!;
        const digit = ((parseInt(TEXT[place]!, 16) + delta) % 16).toString(16);
        const forged = `${TEXT.slice(0, place)}${digit}${TEXT.slice(place + 1)}`;
        const answer = verifyReceiptProofOperation({ ...PROOF, anchor: { checkpoint: CHECKPOINT, proof: forged } });
        expect(answer.verdict).not.toBe('identical');
      }),
      { numRuns: runs(300) },
    );
  });
});
