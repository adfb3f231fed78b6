/**
 * No verdict without evidence: a real block whose receipts were altered, its receiptsRoot and
 * logsBloom recomputed to match, never passes, whatever header fields the forger leaves out; a
 * lineage with nothing checked on chain is not a pass; an audit says which blocks an anchor
 * proves. Through the library, the operations, the CLI as a process and the server over HTTP.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyBlock } from '../packages/core/src/index.js';
import { auditBundle, bundleParameter } from '../packages/core/src/api/lineage-operation.js';
import { judgeBlock } from '../packages/core/src/audit/block-checks.js';
import type { BlockJson } from '../packages/core/src/sources/block-source.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { forge, type Alteration } from './helpers/forge.js';
import { loadFixture, type FixtureBlock } from './helpers/fixtures.js';
import {
  buildBundle,
  buildHeldBundle,
  forgeErc20Result,
  forgeGetReserves,
  PAIR_RECORD,
  recordOf,
  WETH_RECORD,
} from './helpers/lineage-bundles.js';
import { fixtureChain, rehash, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { capturingLogger, testConfig } from './helpers/server.js';
import { runs } from './helpers/runs.js';

const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Real blocks of every header era from Frontier to Prague, each with receipts and logs. */
const REAL = [
  'mainnet-1000023',
  'mainnet-7000000',
  'mainnet-14764013',
  'mainnet-17034870',
  'mainnet-19426587',
  'mainnet-22431084',
];

/** The alterations of what the roots commit to: a forgery that only the roots (or an anchor) can tell. */
const committedAlterationArb: fc.Arbitrary<Alteration> = fc.oneof(
  fc.record({ kind: fc.constant('log-data' as const), receipt: fc.nat(400) }),
  fc.record({ kind: fc.constant('gas' as const), receipt: fc.nat(400) }),
  fc.constant({ kind: 'drop-last' as const }),
);

const alterationArb: fc.Arbitrary<Alteration> = fc.oneof(
  committedAlterationArb,
  fc.record({ kind: fc.constant('gas-used' as const), receipt: fc.nat(400) }),
  fc.record({ kind: fc.constant('same-hash' as const), receipt: fc.nat(400), as: fc.nat(400) }),
);

/** The header without the named members. */
const without = (header: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(Object.entries(header).filter(([name]) => !fields.includes(name)));

/** A forged block with any set of its header's members left out (none included). */
const forgedArb = fc
  .record({ name: fc.constantFrom(...REAL), alteration: alterationArb })
  .chain(({ name, alteration }) => {
    const forged = forge(loadFixture(name), alteration);
    return fc
      .subarray(Object.keys(forged.header))
      .map((removed) => ({ name, alteration, removed, block: { ...forged, header: without(forged.header, removed) } }));
  });

const PROPERTY_RUNS = runs(400);

describe('a forged block never passes, whatever header fields are left out (fast-check)', () => {
  it(`verifyBlock: never identical; a refusal names a missing field (${PROPERTY_RUNS} runs)`, () => {
    fc.assert(
      fc.property(forgedArb, ({ block, removed, alteration }) => {
        const result = verifyBlock(block);
        // A member no root commits to: the roots and the hash still match, and only the member's own rule tells it.
        if (alteration.kind === 'gas-used' || alteration.kind === 'same-hash') expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.error.kind).toBe('invalid');
          return;
        }
        expect(result.value.verdict).not.toBe('identical');
        // Nothing left out, or a fork field off the end: the header no longer hashes to the real hash.
        expect(result.value.block_hash.matches, JSON.stringify(removed)).toBe(false);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it(`the audit's judgeBlock: never pass, linked to the real parent or to nothing (${PROPERTY_RUNS} runs)`, () => {
    fc.assert(
      fc.property(forgedArb, fc.boolean(), ({ block, name }, linked) => {
        const parent = linked ? loadFixture(name).header.parentHash! : undefined;
        const audit = judgeBlock(
          Number(loadFixture(name).header.number),
          block as unknown as BlockJson,
          verifyBlock(block),
          { expectedParent: parent },
        );
        expect(audit.verdict).not.toBe('pass');
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('a forgery re-hashed as well passes alone: only an anchor tells it (see the audit below)', () => {
    const forged = forge(loadFixture('mainnet-19426587'), { kind: 'log-data', receipt: 3 }, { rehash: true });
    expect(verifyBlock(forged)).toMatchObject({ ok: true, value: { verdict: 'identical' } });
  });
});

/** Each fork field of Ethereum's header, in order, with a value of its kind. */
const FORK_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['baseFeePerGas', '0x7'],
  ['withdrawalsRoot', `0x${'56'.repeat(32)}`],
  ['blobGasUsed', '0x0'],
  ['excessBlobGas', '0x0'],
  ['parentBeaconBlockRoot', `0x${'11'.repeat(32)}`],
  ['requestsHash', `0x${'e3'.repeat(32)}`],
];

/**
 * A forged block of an era before Prague, re-hashed with the next fork fields its fork does not have appended (one
 * or more, without a gap): a header whose hash matches, at a height where those fields' fork is not active.
 */
const aheadOfItsForkArb = fc
  .record({
    name: fc.constantFrom(...REAL.slice(0, -1)),
    // Only the fork fields are to be refused: a receipt member that contradicts another is refused on its own.
    alteration: committedAlterationArb,
    count: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ name, alteration, count }) => {
    const forged = forge(loadFixture(name), alteration);
    const next = FORK_FIELDS.filter(([field]) => forged.header[field] === undefined).slice(0, count);
    const header = rehash({ ...forged.header, ...Object.fromEntries(next) }) as Record<string, string>;
    return { added: next.map(([field]) => field), block: { ...forged, header } };
  });

describe('a fork field added at a height where its fork is not active (fast-check)', () => {
  it(`re-hashed to match: refused, naming each added field as one its block's fork does not have (${PROPERTY_RUNS / 4} runs; was: identical)`, () => {
    fc.assert(
      fc.property(aheadOfItsForkArb, ({ added, block }) => {
        const result = verifyBlock(block);
        expect(result.ok).toBe(false);
        if (result.ok || result.error.kind !== 'invalid') return;
        expect(result.error.problems.map((p) => [p.name, p.reason])).toEqual(
          added.map((field) => [`header.${field}`, 'conflict']),
        );
      }),
      { numRuns: PROPERTY_RUNS / 4 },
    );
  });
});

/** The lineage bundle with its block forged: the pair's Sync log moved to other reserves, roots recomputed. */
function forgedBundle(removed: readonly string[] = []) {
  const bundle = buildBundle();
  const block = bundle.blocks[0] as unknown as FixtureBlock;
  const forged = forge(block, { kind: 'log-data', receipt: 9 });
  bundle.blocks[0] = { ...forged, header: without(forged.header, removed) } as never;
  return bundle;
}

describe('lineage: a forged block never passes, and nothing checked on chain is no pass', () => {
  it(`any set of header fields left out of a forged block: never pass; a refusal names the member (${PROPERTY_RUNS / 4} runs)`, async () => {
    const fields = Object.keys(loadFixture('mainnet-19426587').header);
    await fc.assert(
      fc.asyncProperty(fc.subarray(fields), async (removed) => {
        const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle: forgedBundle(removed) });
        if (!audit.ok) expect(bundleParameter(audit.error).name).toMatch(/^bundle\.blocks\[0\]\.header\.\w+$/);
        else expect(audit.value.verdict).not.toBe('pass');
      }),
      { numRuns: PROPERTY_RUNS / 4 },
    );
  });

  it(`a forged function result with its record changed to match: never pass (${PROPERTY_RUNS / 4} runs)`, async () => {
    // Over the snapshot that passes (WETH as its parent again when WETH's result is forged): the forged result, checked
    // only against itself and the record made to match, must not let the lineage pass.
    const forgery = fc.oneof(
      fc.record({ member: fc.constant('name' as const), value: fc.string({ maxLength: 40 }) }),
      fc.record({ member: fc.constant('symbol' as const), value: fc.string({ maxLength: 12 }) }),
      fc.record({ member: fc.constant('decimals' as const), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({
        member: fc.constant('getReserves' as const),
        value: fc.tuple(fc.bigInt(0n, 2n ** 112n - 1n), fc.bigInt(0n, 2n ** 112n - 1n)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(forgery, async ({ member, value }) => {
        const bundle = buildHeldBundle();
        if (member === 'getReserves') forgeGetReserves(bundle, ...value);
        else {
          recordOf(bundle, PAIR_RECORD)._parent_tracing_ids = [WETH_RECORD];
          forgeErc20Result(bundle, member, value);
        }
        const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle });
        expect(audit.ok).toBe(true);
        expect(audit.ok && audit.value.verdict).not.toBe('pass');
      }),
      { numRuns: PROPERTY_RUNS / 4 },
    );
  });

  it('the forger leaves nonce out: 400 naming bundle.blocks[0].header.nonce (was: pass)', async () => {
    const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle: forgedBundle(['nonce']) });
    expect(!audit.ok && bundleParameter(audit.error)).toMatchObject({
      name: 'bundle.blocks[0].header.nonce',
      reason: 'missing',
    });
  });
});

describe('over HTTP: POST /v1/evm/verify/lineage on a real server', () => {
  const KEY = 'evmi_forged-test-key-0123456789abcdef0123';
  let server: RunningServer;
  beforeAll(async () => {
    const config = testConfig({
      host: '127.0.0.1',
      accounts: [
        {
          id: 'auditor',
          name: 'Auditor',
          plan: 'pro',
          cuLimit: 1_000,
          rateLimitRps: 1_000,
          entitlements: null,
          keys: [{ label: 't', key: KEY }],
        },
      ],
    });
    server = await startServer(config, { logger: capturingLogger().logger });
  });
  afterAll(() => server?.close());
  const post = (bundle: unknown): Promise<{ status: number; json(): Promise<any> }> =>
    fetch(`${server.url}/v1/evm/verify/lineage`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ chain_id: 1, tracing_id: PAIR_RECORD, bundle }),
    });

  it('a forged block without its mixHash: 400 naming it (was: 200, verdict pass)', async () => {
    const res = await post(forgedBundle(['mixHash']));
    expect(res.status).toBe(400);
    expect((await res.json()).error.details.invalid_parameters[0]).toMatchObject({
      name: 'bundle.blocks[0].header.mixHash',
      reason: 'missing',
    });
  });

  it('a header with a gap in its fork fields (withdrawalsRoot present, baseFeePerGas missing): 400, not 500', async () => {
    const bundle = buildBundle();
    delete bundle.blocks[0]!.header.baseFeePerGas;
    const res = await post(bundle);
    expect(res.status).toBe(400);
    expect((await res.json()).error.details.invalid_parameters[0]).toMatchObject({
      name: 'bundle.blocks[0].header.baseFeePerGas',
      expected: expect.stringMatching(/since withdrawalsRoot is/),
    });
  });

  it('blocks: [] is 200 with the verdict not_verifiable, never pass', async () => {
    const bundle = buildBundle();
    bundle.blocks = [];
    const res = await post(bundle);
    expect(res.status).toBe(200);
    expect((await res.json()).data[0]).toMatchObject({
      verdict: 'not_verifiable',
      reason: expect.stringMatching(/block.available/),
    });
  });

  it('the real bundle: not verifiable, its fields held by no log named; the snapshot claiming only them passes', async () => {
    const res = await post(buildBundle());
    expect(res.status).toBe(200);
    expect((await res.json()).data[0]).toMatchObject({
      verdict: 'not_verifiable',
      reason: expect.stringMatching(/^record\.fields .*: nothing checked holds pool_uid, exchange_id to the chain$/),
    });
    const held = await post(buildHeldBundle());
    expect((await held.json()).data[0]).toMatchObject({ verdict: 'pass', reason: null });
  });

  it("WETH's name() forged as Fake Ether with the record to match: 200, not verifiable (was: pass)", async () => {
    const bundle = buildBundle();
    forgeErc20Result(bundle, 'name', 'Fake Ether');
    const res = await post(bundle);
    expect(res.status).toBe(200);
    const report = (await res.json()).data[0];
    expect(report.verdict).toBe('not_verifiable');
    expect(report.records[1].checks.find((c: { check: string }) => c.check === 'record.fields').reason).toMatch(
      /^not verifiable: name, symbol, decimals rest only on function results/,
    );
  });
});

describe('the CLI as a process on a forged block', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forged-'));
  const verify = (block: unknown) => {
    const file = join(dir, 'block.json');
    writeFileSync(file, JSON.stringify(block));
    const result = spawnSync(process.execPath, [BIN, 'verify', 'block', file], { cwd: ROOT, encoding: 'utf8' });
    return { status: result.status, json: JSON.parse(result.stdout) };
  };
  const forged = forge(loadFixture('mainnet-19426587'), { kind: 'log-data', receipt: 3 });

  it.each(['nonce', 'mixHash', 'hash'])(
    'verify block without %s: exit 2, 400 naming header.%s (was: identical, exit 0)',
    (field) => {
      const { status, json } = verify({ ...forged, header: without(forged.header, [field]) });
      expect(status).toBe(2);
      expect(json.error.details.invalid_parameters.map((p: { name: string }) => p.name)).toEqual([`header.${field}`]);
    },
  );

  it('a header without receiptsRoot (nothing claimed): exit 2 naming it, not a mismatch (was: different, exit 1)', () => {
    const real = loadFixture('mainnet-19426587');
    const { status, json } = verify({ ...real, header: without(real.header, ['receiptsRoot']) });
    expect(status).toBe(2);
    expect(json.error.details.invalid_parameters.map((p: { name: string }) => p.name)).toEqual(['header.receiptsRoot']);
  });

  it('with every field, the real hash exposes it: exit 1, block_hash does not match', () => {
    const { status, json } = verify(forged);
    expect(status).toBe(1);
    expect(json).toMatchObject({
      verdict: 'different',
      receipts_root: { matches: true },
      block_hash: { matches: false },
    });
  });
});

// ---------------------------------------------------------------------------
// The range audit as a process against a loopback node

const FROM = 1_000_001;
const TO = 1_000_030;
const RANGE = ['--chain', '1', '--from', String(FROM), '--to', String(TO)];
const realHash = (n: number) => loadFixture(`mainnet-${n}`).header.hash!;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}
function audit(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'audit', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
const blockLine = (run: Run, n: number) => lines(run.stdout).find((l) => l.block_number === n)!;
const summaryOf = (run: Run) => lines(run.stdout).at(-1)!.summary;

describe('audit: forged blocks, anchors at both ends, bad headers (a process against a loopback node)', () => {
  let node: LoopbackNode | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });
  /** A node serving the real run with block `n` replaced. */
  async function serving(replace: Record<number, FixtureBlock> = {}) {
    const blocks = fixtureChain(FROM, TO);
    for (const [n, block] of Object.entries(replace))
      blocks.set(Number(n), { header: block.header, receipts: block.receipts });
    node = await startLoopbackNode(1, blocks);
    return node.url;
  }
  const forgedAt = (n: number, options: { rehash?: boolean } = {}) =>
    forge(loadFixture(`mainnet-${n}`), { kind: 'gas', receipt: 0 }, options);

  it('a forged block without its nonce fails block_input naming it (was: 30/30 pass, exit 0)', async () => {
    const forged = forgedAt(1_000_010);
    const url = await serving({ 1_000_010: { ...forged, header: without(forged.header, ['nonce']) as never } });
    const run = await audit([...RANGE, '--rpc', url]);
    expect(run.status).toBe(1);
    expect(blockLine(run, 1_000_010)).toMatchObject({
      verdict: 'fail',
      failures: [{ check: 'block_input', message: expect.stringContaining('header.nonce') }],
    });
    expect(summaryOf(run).verdicts).toMatchObject({ pass: 29, fail: 1 });
  });

  it("without the hash: that block fails, and the next one's parent link cannot be checked: not_verifiable, never pass", async () => {
    const forged = forgedAt(1_000_010);
    const url = await serving({ 1_000_010: { ...forged, header: without(forged.header, ['hash']) as never } });
    const run = await audit([...RANGE, '--rpc', url]);
    expect(run.status).toBe(1);
    expect(blockLine(run, 1_000_010)).toMatchObject({ verdict: 'fail', failures: [{ check: 'block_input' }] });
    expect(blockLine(run, 1_000_011)).toMatchObject({
      verdict: 'not_verifiable',
      reason: expect.stringMatching(/parent_link/),
    });
  });

  it('a header with a gap in its fork fields is a block_input line, not an abort', async () => {
    const real = loadFixture('mainnet-1000012');
    const url = await serving({
      1_000_012: { ...real, header: { ...real.header, withdrawalsRoot: `0x${'00'.repeat(32)}` } },
    });
    const run = await audit([...RANGE, '--rpc', url]);
    expect(run.status).toBe(1);
    expect(blockLine(run, 1_000_012)).toMatchObject({
      verdict: 'fail',
      failures: [{ check: 'block_input', message: expect.stringContaining('header.baseFeePerGas') }],
    });
    expect(summaryOf(run).complete).toBe(true);
  });

  it('a fully re-hashed forgery of the last block: without an anchor it is consistent, not authentic; --tail-hash fails it', async () => {
    const url = await serving({ [TO]: forgedAt(TO, { rehash: true }) });
    const unanchored = await audit([...RANGE, '--rpc', url]);
    expect(unanchored.status).toBe(0);
    expect(summaryOf(unanchored).anchoring).toMatchObject({
      assurance: 'consistent',
      authenticated_blocks: 0,
      anchors: [],
    });

    const anchored = await audit([...RANGE, '--rpc', url, '--tail-hash', realHash(TO)]);
    expect(anchored.status).toBe(1);
    expect(blockLine(anchored, TO)).toMatchObject({
      verdict: 'fail',
      failures: [{ check: 'anchor', evidence: { expected: realHash(TO) } }],
    });
    // The anchor proves nothing: no block before it links to it through a passing block.
    expect(summaryOf(anchored).anchoring).toMatchObject({
      assurance: 'consistent',
      anchors: [{ block_number: TO, matches: false }],
    });
  });

  it('the real range with --tail-hash: every block is authentic; an anchor mid-range proves the blocks up to it', async () => {
    const url = await serving();
    const tail = await audit([
      ...RANGE,
      '--rpc',
      url,
      '--head-hash',
      loadFixture(`mainnet-${FROM}`).header.parentHash!,
      '--tail-hash',
      realHash(TO),
    ]);
    expect(tail.status).toBe(0);
    expect(summaryOf(tail).anchoring).toEqual({
      head_hash: loadFixture(`mainnet-${FROM}`).header.parentHash!,
      anchors: [{ block_number: TO, hash: realHash(TO), matches: true }],
      authenticated: [[FROM, TO]],
      authenticated_blocks: 30,
      assurance: 'authentic',
    });
    const mid = await audit([...RANGE, '--rpc', url, '--anchor', `1000020:${realHash(1_000_020)}`]);
    expect(summaryOf(mid).anchoring).toMatchObject({
      authenticated: [[FROM, 1_000_020]],
      authenticated_blocks: 20,
      assurance: 'partly_authentic',
    });
    expect(lines(mid.stdout)[0]).toEqual({
      audit: { chain_id: 1, from: FROM, to: TO, anchors: { 1000020: realHash(1_000_020) } },
    });
  });

  it.each([
    [
      ['--anchor', '5:0x00'],
      /--anchor: "0x00" is not a block hash \(2 hex digits\); use 64 hex digits, with or without 0x/,
    ],
    [['--anchor', `999:${'0x'.padEnd(66, '1')}`], /block 999 is outside the range/],
    [
      ['--tail-hash', 'abc'],
      /--tail-hash: "abc" is not a block hash \(3 hex digits\); use 64 hex digits, with or without 0x/,
    ],
  ])('%j is a usage error (exit 2)', async (flags, message) => {
    const run = await audit([...RANGE, '--rpc', 'http://127.0.0.1:1', ...flags]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('a node of another chain: exit 2 naming both chain ids, no block line, no file (was: unreachable, "resume later")', async () => {
    const url = await serving();
    const out = join(mkdtempSync(join(tmpdir(), 'forged-audit-')), 'audit.ndjson');
    const run = await audit(['--chain', '5', '--from', String(FROM), '--to', String(TO), '--rpc', url, '--out', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/serves chain 1, not chain 5/);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });
});

describe('--resume from any prefix of a checkpoint file, cut at any byte', () => {
  let node: LoopbackNode | undefined;
  afterAll(async () => node?.close());

  it('resumes and ends with the lines of an uninterrupted run (a sample of cut points, every line edge included)', async () => {
    node = await startLoopbackNode(1, fixtureChain(FROM, FROM + 5));
    const range = [
      '--chain',
      '1',
      '--from',
      String(FROM),
      '--to',
      String(FROM + 5),
      '--rpc',
      node.url,
      '--tail-hash',
      realHash(FROM + 5),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'forged-resume-'));
    const full = join(dir, 'full.ndjson');
    expect((await audit([...range, '--out', full])).status).toBe(0);
    const text = readFileSync(full);
    const withoutTimes = (file: string) =>
      lines(readFileSync(file, 'utf8')).map((l) =>
        l.summary === undefined
          ? l
          : { ...l.summary, blocks_per_second: 0, time_share: 0, timings: 0, carried_over: undefined },
      );
    const edges = [...text.entries()].filter(([, byte]) => byte === 0x0a).flatMap(([i]) => [i, i + 1, i + 2]);
    const cuts = [...new Set([0, 1, ...edges, ...fc.sample(fc.nat(text.length), { numRuns: 12, seed: 14 })])].filter(
      (c) => c <= text.length,
    );
    for (const cut of cuts) {
      const file = join(dir, `cut-${cut}.ndjson`);
      writeFileSync(file, text.subarray(0, cut));
      const run = await audit([...range, '--out', file, '--resume']);
      expect(run.status, `cut at byte ${cut}: ${run.stderr}`).toBe(0);
      expect(withoutTimes(file), `cut at byte ${cut}`).toEqual(withoutTimes(full));
    }
  }, 120_000);
});
