/**
 * Evidence beyond the shipped fixtures: a registry entry that declares a chain a standard member of its rule set's
 * family, and a block an operator vouched for. The vouched hash binds the header and the header binds the receipts
 * root and bloom, so only the real block is admitted; every report names the evidence each check stood on.
 *
 * Chain ids are not hashed: a real block of one chain relabelled with another's id reproduces on the other wherever
 * its rules are the same. The tests use that to put real blocks on chains no shipped block shows; a real operator
 * vouches for a hash their own node of the chain gave.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admitEvidence,
  ChainRegistry,
  EvidenceError,
  evidenceRecord,
  readEvidenceRecord,
  verifyBlock,
  type RuleSetName,
  type Vouch,
} from '../packages/core/src/index.js';
import { runCliBytes, runWithoutFileSpace } from './helpers/cli-process.js';
import { forge, type Alteration } from './helpers/forge.js';
import { loadFixture, type FixtureBlock } from './helpers/fixtures.js';
import { startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { capturingLogger, testConfig } from './helpers/server.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { runs } from './helpers/runs.js';

const AMOY = 80002;

/** A real fixture block given `chainId`. */
const relabelled = (name: string, chainId: number): FixtureBlock => ({ ...loadFixture(name), chain_id: chainId });

/** Polygon PoS block 23,887,160 as a block of Amoy's Bor era, which no shipped block shows. */
const amoyBlock = () => relabelled('polygon-pos-23887160', AMOY);
const hashOf = (block: FixtureBlock) => block.header.hash as string;
const vouch = (blockHash: string, file = 'evidence/80002-23887160.json'): Vouch => ({
  blockHash,
  vouchedBy: 'ops@example',
  vouchedAt: '2026-11-29T12:00:00.000Z',
  file,
});

/** The evidence of an admission that must have succeeded. */
function admittedValue(admitted: ReturnType<typeof admitEvidence>) {
  if (!admitted.ok) throw new Error(admitted.error.reason);
  return admitted.value;
}

function report(block: unknown, registry?: ChainRegistry) {
  const result = verifyBlock(block, registry && { registry });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

describe('registry evidence: standard members of a family, cited', () => {
  it('Zora (superchain_level 1): a real OP-stack block verifies, each check naming the registry entry and the family blocks it borrows', () => {
    const zora = report(relabelled('base-2000000', 7777777));
    expect(zora.verdict).toBe('identical');
    for (const check of ['block_hash', 'receipts_root', 'logs_bloom'] as const) {
      expect(zora[check].evidence?.kind, check).toBe('registry');
      expect(zora[check].evidence?.registry).toMatchObject({
        repository: 'ethereum-optimism/superchain-registry',
        path: 'superchain/configs/mainnet/zora.toml',
        commit: '738212ef2932d26f9274e3317699471534d2b3ac',
      });
      expect(zora[check].evidence!.registry!.evidence.length).toBeGreaterThan(0);
    }
  });

  it('Base on its own blocks is shipped evidence; a Canyon deposit its own blocks never showed borrows OP Mainnet’s under the registry', () => {
    const own = report(loadFixture('base-2000000')).receipts_root.evidence!;
    expect(own.kind).toBe('shipped');
    expect(own.blocks.every((b) => b.fixture.startsWith('base-') && b.source === 'shipped')).toBe(true);
    const canyon = report(relabelled('op-mainnet-154497277', 8453));
    expect(canyon.verdict).toBe('identical');
    expect(canyon.receipts_root.evidence).toMatchObject({
      kind: 'registry',
      registry: { path: 'superchain/configs/mainnet/base.toml', evidence: [{ fixture: 'op-mainnet-154497277' }] },
    });
  });

  it("Sepolia on go-ethereum's SepoliaChainConfig; Arbitrum Sepolia on Nitro's chain list", () => {
    const sepolia = report(relabelled('mainnet-22869878', 11155111));
    expect(sepolia.verdict).toBe('identical');
    expect(sepolia.receipts_root.evidence).toMatchObject({
      kind: 'registry',
      registry: { repository: 'ethereum/go-ethereum', path: 'params/config.go' },
    });
    const arbitrum = report(relabelled('arbitrum-one-150000000', 421614));
    expect(arbitrum.verdict).toBe('identical');
    expect(arbitrum.receipts_root.evidence?.registry?.path).toBe('cmd/chaininfo/arbitrum_chain_info.json');
  });

  it("Arbitrum's own kinds no real block shows (0x64-0x69) are refused with the reason, on the registry as on Arbitrum One", () => {
    const block = structuredClone(relabelled('arbitrum-one-150000000', 421614));
    delete block.raw_receipts;
    (block.receipts[1] as Record<string, unknown>).type = '0x68';
    const refused = report(block);
    expect(refused.verdict).toBe('not_verifiable');
    expect(refused.receipts_root.reason).toMatch(/receipts of type 0x68 yet, nor has an operator's evidence/);
  });

  it('Blast and Mantle, which deviate from the family, have no registry entry', () => {
    for (const chainId of [81457, 5000]) {
      const verifiability = new ChainRegistry().verifiability(chainId, 1);
      expect(verifiability.status === 'verifiable' && verifiability.checks.receipts_root.verified).toBe(false);
    }
  });
});

describe('operator evidence: a vouched block that reproduces', () => {
  it('admits a real block vouched for with its hash, and a chain with no shipped evidence goes from not_verifiable to identical', () => {
    const block = amoyBlock();
    expect(report(block).verdict).toBe('not_verifiable');
    const admitted = admitEvidence(block, vouch(hashOf(block)));
    expect(admitted).toMatchObject({ ok: true, value: { chainId: AMOY, block: 23_887_160, logs: true } });
    const registry = new ChainRegistry([], { evidence: [admittedValue(admitted)] });
    const after = report(block, registry);
    expect(after.verdict).toBe('identical');
    expect(after.receipts_root.evidence).toMatchObject({
      kind: 'operator',
      blocks: [{ source: 'operator', vouched_by: 'ops@example', fixture: 'evidence/80002-23887160.json' }],
    });
    // Another block of the era with the same kinds stands on it too; Polygon PoS itself is unchanged.
    expect(report(loadFixture('polygon-pos-23887160'), registry).receipts_root.evidence?.kind).toBe('shipped');
  });

  it('refuses a block whose header does not hash to the vouched hash, naming both', () => {
    const block = amoyBlock();
    const refused = admitEvidence(block, vouch(`0x${'11'.repeat(32)}`));
    expect(refused).toMatchObject({
      ok: false,
      error: { reason: expect.stringMatching(/not to the vouched hash 0x1111/) },
    });
  });

  it('refuses what cannot be tried: an era whose rules are not implemented, a chain added on its configuration’s word', () => {
    const classic = admitEvidence(
      {
        ...loadFixture('arbitrum-one-150000000'),
        chain_id: 42161,
        header: { ...loadFixture('arbitrum-one-150000000').header, number: '0x1' },
      },
      vouch(`0x${'22'.repeat(32)}`),
    );
    expect(classic.ok).toBe(false);
    const devnet = new ChainRegistry([{ chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true }]);
    const added = admitEvidence(relabelled('mainnet-22869878', 31337), vouch(hashOf(loadFixture('mainnet-22869878'))), {
      registry: devnet,
    });
    expect(added).toMatchObject({ ok: false, error: { reason: expect.stringMatching(/configuration's word/) } });
    expect(
      () =>
        new ChainRegistry([], {
          evidence: [
            {
              chainId: 999_999,
              block: 1,
              receipts: [],
              logs: false,
              forkFields: { present: [], absent: [] },
              vouch: vouch('0x'),
            },
          ],
        }),
    ).toThrow(EvidenceError);
  });

  // A gas alteration would leave the receipts' gasUsed (which these blocks give) contradicting it: refused as input.
  it("an operator's block shows its header's fork fields: a forged block of its height is different, not not_verifiable", () => {
    const block = amoyBlock();
    const registry = new ChainRegistry([], { evidence: [admittedValue(admitEvidence(block, vouch(hashOf(block))))] });
    const forged = forge(block, { kind: 'log-data', receipt: 3 }, { rules: 'polygon' });
    expect(report(forged).verdict).toBe('not_verifiable');
    const judged = report(forged, registry);
    expect(judged.verdict).toBe('different');
    expect(judged.block_hash.matches).toBe(false);
  });

  it('where only an operator shows the receipts, a type the rule set does not define is a kind unshown, not invalid input (Celo 0x7b)', () => {
    const celo = relabelled('op-mainnet-154497277', 42220);
    const registry = new ChainRegistry([], { evidence: [admittedValue(admitEvidence(celo, vouch(hashOf(celo))))] });
    const withFeeCurrency = structuredClone(celo);
    delete withFeeCurrency.raw_receipts;
    const receipt = withFeeCurrency.receipts.find((r) => r.type === '0x2')!;
    receipt.type = '0x7b';
    const judged = report(withFeeCurrency, registry);
    expect(judged.verdict).toBe('not_verifiable');
    expect(judged.receipts_root.reason).toMatch(/receipts of type 0x7b/);
    expect(judged.block_hash).toMatchObject({ matches: true, evidence: { kind: 'shipped' } });
  });

  it('refusals say of which kind they are: no block, nothing to try it under, or not reproduced', () => {
    expect(admitEvidence({}, vouch(hashOf(amoyBlock())))).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    const hedera = relabelled('mainnet-22869878', 295);
    expect(admitEvidence(hedera, vouch(hashOf(hedera)))).toMatchObject({
      ok: false,
      error: { kind: 'cannot_try', reason: expect.stringMatching(/Hedera/) },
    });
    const devnet = new ChainRegistry([{ chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true }]);
    const added = relabelled('mainnet-22869878', 31337);
    expect(admitEvidence(added, vouch(hashOf(added)), { registry: devnet })).toMatchObject({
      ok: false,
      error: { kind: 'cannot_try', reason: expect.stringMatching(/^chain 31337 is not built in/) },
    });
    const edited = structuredClone(amoyBlock());
    edited.header.receiptsRoot = `0x${'12'.repeat(32)}`;
    expect(admitEvidence(edited, vouch(hashOf(amoyBlock())))).toMatchObject({
      ok: false,
      error: {
        kind: 'not_reproduced',
        reason: expect.stringMatching(/^its header does not hash to 0x19e2[0-9a-f]+ \(the header has no /),
      },
    });
  });

  const alterations: fc.Arbitrary<Alteration> = fc.oneof(
    fc.record({ kind: fc.constant('log-data' as const), receipt: fc.nat(400) }),
    fc.constant({ kind: 'drop-last' as const }),
  );

  it('a forged block is never admitted with the real hash vouched for, and never identical on operator or registry evidence (fast-check)', () => {
    const admitted = admitEvidence(amoyBlock(), vouch(hashOf(amoyBlock())));
    const registry = new ChainRegistry([], { evidence: [admittedValue(admitted)] });
    const cases: Array<[FixtureBlock, RuleSetName]> = [
      [amoyBlock(), 'polygon'],
      [relabelled('base-2000000', 7777777), 'optimism'],
      [relabelled('arbitrum-one-150000000', 421614), 'arbitrum'],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...cases.keys()), alterations, fc.boolean(), (i, alteration, rehashed) => {
        const [real, rules] = cases[i]!;
        const forged = forge(real, alteration, { rehash: rehashed, rules });
        expect(admitEvidence(forged, vouch(hashOf(real)), { registry }).ok).toBe(false);
        const result = verifyBlock(forged, { registry });
        if (result.ok && !rehashed) expect(result.value.verdict).not.toBe('identical');
      }),
      { numRuns: runs(120) },
    );
  });

  it('an evidence record is admitted again when read; one whose block or shows was edited is refused naming it', () => {
    const block = amoyBlock();
    const admitted = admitEvidence(block, vouch(hashOf(block)));
    const record = evidenceRecord(admittedValue(admitted), block, 'file amoy.json');
    expect(readEvidenceRecord(JSON.parse(JSON.stringify(record)), 'e.json')).toMatchObject({ ok: true });
    const edited = { ...record, shows: { receipts: ['ethereum', 'state-sync-outside-root'], logs: true } };
    expect(readEvidenceRecord(edited, 'e.json')).toMatchObject({
      ok: false,
      error: { reason: expect.stringMatching(/^e\.json: shows/) },
    });
    const forged = { ...record, block: forge(block, { kind: 'log-data', receipt: 0 }) };
    expect(readEvidenceRecord(forged, 'e.json')).toMatchObject({
      ok: false,
      error: { reason: expect.stringMatching(/^e\.json: block: /) },
    });
    expect(readEvidenceRecord({ ...record, format: 'x' }, 'e.json')).toMatchObject({
      ok: false,
      error: { reason: expect.stringMatching(/format/) },
    });
  });
});

describe('evidence add, capture and list, and --evidence, as processes', () => {
  let dir: string;
  let node: LoopbackNode;
  const write = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evidence-'));
    const block = amoyBlock();
    node = await startLoopbackNode(
      AMOY,
      new Map([[23_887_160, { header: { ...block.header }, receipts: block.receipts }]]),
    );
  });
  afterAll(async () => node.close());

  it('add: a forged block with the real hash, and a real one with another hash, are refused (exit 1); the real one is kept (exit 0)', async () => {
    const evidence = join(dir, 'added');
    const block = amoyBlock();
    const forged = write('forged.json', forge(block, { kind: 'log-data', receipt: 3 }));
    const forgedRun = await runCliBytes([
      'evidence',
      'add',
      forged,
      '--trusted-hash',
      hashOf(block),
      '--evidence-dir',
      evidence,
    ]);
    expect(forgedRun.status, forgedRun.stderr).toBe(1);
    // Its recomputed roots change its hash; on a chain no real block shows the fork fields of, that is told as a header
    // that may have lost a field: refused either way.
    expect(forgedRun.stderr).toMatch(
      /forged\.json: not admitted as evidence: (its header hashes|its header does not hash to)/,
    );
    const real = write('real.json', block);
    const wrong = await runCliBytes([
      'evidence',
      'add',
      real,
      '--trusted-hash',
      `0x${'ab'.repeat(32)}`,
      '--evidence-dir',
      evidence,
    ]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/its header hashes to 0x[0-9a-f]{64}, not to the vouched hash 0xabab/);
    const before = await runCliBytes(['verify', 'block', real]);
    expect(before.status).toBe(2);
    const added = await runCliBytes([
      'evidence',
      'add',
      real,
      '--trusted-hash',
      hashOf(block),
      '--evidence-dir',
      evidence,
      '--vouched-by',
      'ops@example',
    ]);
    expect(added.status, added.stderr).toBe(0);
    expect(readdirSync(evidence)).toEqual(['80002-23887160.json']);
    expect(JSON.parse(readFileSync(join(evidence, '80002-23887160.json'), 'utf8'))).toMatchObject({
      format: 'evm-integrity/evidence@1',
      chain_id: AMOY,
      block_hash: hashOf(block),
      vouched_by: 'ops@example',
    });
    const after = await runCliBytes(['verify', 'block', '--evidence', evidence, real]);
    expect(after.status, after.stderr).toBe(0);
    const answer = JSON.parse(after.stdout.toString());
    expect(answer.verdict).toBe('identical');
    expect(answer.receipts_root.evidence).toMatchObject({ kind: 'operator', blocks: [{ vouched_by: 'ops@example' }] });
    // On worker threads, the same registry.
    const pooled = await runCliBytes(['verify', 'block', '--workers', '1', '--evidence', evidence, real]);
    expect(JSON.parse(pooled.stdout.toString()).verdict).toBe('identical');
  });

  it('add that cannot write its file (a file size limit) is one line, exit 2, and leaves no temporary file (was: a 0-byte .tmp left in the directory; a user check)', () => {
    const evidence = join(dir, 'too-large');
    mkdirSync(evidence);
    const block = amoyBlock();
    const result = runWithoutFileSpace([
      'evidence',
      'add',
      write('limited.json', block),
      '--trusted-hash',
      hashOf(block),
      '--evidence-dir',
      evidence,
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `evm-integrity: evidence directory ${evidence}: cannot write ${join(evidence, '80002-23887160.json')}: the file is larger than this process may write (ulimit -f)\n`,
    );
    expect(readdirSync(evidence)).toEqual([]);
  });

  it('capture reads ETH_RPC_URL; add of input that is no block is exit 2; a block kept again is said to replace its file', async () => {
    const evidence = join(dir, 'env');
    const captured = await runCliBytes(
      ['evidence', 'capture', '--block', '23887160', '--trusted-hash', hashOf(amoyBlock()), '--evidence-dir', evidence],
      { env: { ...process.env, ETH_RPC_URL: node.url } },
    );
    expect(captured.status, captured.stderr).toBe(0);
    const again = await runCliBytes([
      'evidence',
      'add',
      write('again.json', amoyBlock()),
      '--trusted-hash',
      hashOf(amoyBlock()),
      '--evidence-dir',
      evidence,
    ]);
    expect(again.status).toBe(0);
    expect(again.stdout.toString()).toMatch(/replacing the one it held/);
    const empty = await runCliBytes([
      'evidence',
      'add',
      write('empty.json', {}),
      '--trusted-hash',
      hashOf(amoyBlock()),
    ]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/not admitted as evidence: the block is not valid input/);
  });

  it('an evidence directory is read strictly: the file named for its block, known members once each, an instant; a BOM is no part of it', async () => {
    const base = join(dir, 'env', '80002-23887160.json');
    const record = JSON.parse(readFileSync(base, 'utf8'));
    const cases: Array<[string, string, RegExp]> = [
      [
        'misnamed',
        JSON.stringify(record),
        /80002-1\.json: holds block 23887160 of chain 80002, which is kept as 80002-23887160\.json/,
      ],
      ['unknown', JSON.stringify({ ...record, vouched_byy: 'x' }), /vouched_byy: not a member of an evidence record/],
      ['instant', JSON.stringify({ ...record, vouched_at: 'yesterday' }), /vouched_at: expected an instant/],
      ['twice', `{"format":"x",${JSON.stringify(record).slice(1)}`, /not JSON: .*format/],
    ];
    for (const [name, text, message] of cases) {
      const sub = join(dir, `strict-${name}`);
      mkdirSync(sub);
      writeFileSync(join(sub, name === 'misnamed' ? '80002-1.json' : '80002-23887160.json'), text);
      const run = await runCliBytes(['evidence', 'list', '--evidence-dir', sub]);
      expect(run.status, name).toBe(2);
      expect(run.stderr, name).toMatch(message);
    }
    const dangling = join(dir, 'strict-link');
    mkdirSync(dangling);
    symlinkSync(join(dir, 'nowhere.json'), join(dangling, '80002-23887160.json'));
    const linked = await runCliBytes(['evidence', 'list', '--evidence-dir', dangling]);
    expect(linked.status).toBe(2);
    expect(linked.stderr).toMatch(/80002-23887160\.json: no such file/);
    const notDir = await runCliBytes([
      'evidence',
      'add',
      write('nd.json', amoyBlock()),
      '--trusted-hash',
      hashOf(amoyBlock()),
      '--evidence-dir',
      base,
    ]);
    expect(notDir.status).toBe(2);
    expect(notDir.stderr).toMatch(/evidence directory .*80002-23887160\.json: it is not a directory/);
    const empty = await runCliBytes(['evidence', 'list', '--evidence-dir', '']);
    expect(empty.stderr).toMatch(/the path is empty; give a directory/);
    const bom = join(dir, 'strict-bom');
    mkdirSync(bom);
    writeFileSync(join(bom, '80002-23887160.json'), `\uFEFF${JSON.stringify(record)}`);
    expect((await runCliBytes(['evidence', 'list', '--evidence-dir', bom])).status).toBe(0);
  });

  it('capture from a node, then list; a file edited by hand stops verify with its name (exit 2)', async () => {
    const evidence = join(dir, 'captured');
    const captured = await runCliBytes([
      'evidence',
      'capture',
      '--rpc',
      node.url,
      '--block',
      '23887160',
      '--trusted-hash',
      hashOf(amoyBlock()),
      '--evidence-dir',
      evidence,
    ]);
    expect(captured.status, captured.stderr).toBe(0);
    expect(captured.stdout.toString()).toMatch(/chain 80002 block 23887160 admitted as evidence/);
    const listed = await runCliBytes(['evidence', 'list', '--evidence-dir', evidence]);
    expect(listed.status).toBe(0);
    expect(listed.stdout.toString()).toMatch(/chain 80002 block 23887160/);
    const file = join(evidence, '80002-23887160.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...record, block_hash: `0x${'cd'.repeat(32)}` }));
    const refused = await runCliBytes(['verify', 'block', '--evidence', evidence, write('again.json', amoyBlock())]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/evidence file .*80002-23887160\.json: block: its header hashes to/);
    const missing = await runCliBytes([
      'verify',
      'block',
      '--evidence',
      join(dir, 'none'),
      write('again2.json', amoyBlock()),
    ]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/evidence directory .*none: no such directory/);
  });
});

describe('serve and audit stand on an evidence directory', () => {
  const KEY = 'evmi_evidence-test-key-0123456789abcdef012';
  let dir: string;
  let node: LoopbackNode;
  let server: RunningServer;
  const block = amoyBlock();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evidence-serve-'));
    const admitted = admitEvidence(block, vouch(hashOf(block), join(dir, '80002-23887160.json')));
    writeFileSync(
      join(dir, '80002-23887160.json'),
      JSON.stringify(evidenceRecord(admittedValue(admitted), block, 'test')),
    );
    node = await startLoopbackNode(
      AMOY,
      new Map([[23_887_160, { header: { ...block.header }, receipts: block.receipts }]]),
    );
    const account = { id: 'a', name: 'A', plan: 'pro', cuLimit: 1_000_000, rateLimitRps: 1_000, entitlements: null };
    server = await startServer(
      testConfig({ host: '127.0.0.1', evidenceDir: dir, accounts: [{ ...account, keys: [{ label: 't', key: KEY }] }] }),
      { logger: capturingLogger().logger },
    );
  });
  afterAll(async () => {
    await server?.close();
    await node?.close();
  });
  /** An audit of the Amoy block, from the loopback node. */
  const auditArgs = () => [
    'audit',
    '--chain',
    String(AMOY),
    '--from',
    '23887160',
    '--to',
    '23887160',
    '--rpc',
    node.url,
    '--quiet',
  ];

  it("GET /v1/chains names the operator's block in Amoy's era; the receipt-root endpoint verifies the block (422 without)", async () => {
    const chains = (await (
      await fetch(`${server.url}/v1/chains`, { headers: { Authorization: `Bearer ${KEY}` } })
    ).json()) as any;
    const amoy = chains.data.find((c: any) => c.chain_id === AMOY);
    expect(amoy.eras[0].checks.receipts_root).toMatchObject({
      verified: true,
      evidence: [{ source: 'operator', block: 23_887_160, vouched_by: 'ops@example' }],
    });
    const body = await runCliBytes(['request', 'receipt-root', '-'], { input: Buffer.from(JSON.stringify(block)) });
    expect(body.status, body.stderr).toBe(0);
    const post = (url: string) =>
      fetch(`${url}/v1/evm/verify/receipt-root`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
        body: body.stdout,
      });
    const answer = await post(server.url);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as any).data[0].is_identical).toBe(true);
    const plain = await startServer(
      testConfig({
        host: '127.0.0.1',
        accounts: [
          {
            id: 'a',
            name: 'A',
            plan: 'pro',
            cuLimit: 1_000_000,
            rateLimitRps: 1_000,
            entitlements: null,
            keys: [{ label: 't', key: KEY }],
          },
        ],
      }),
      { logger: capturingLogger().logger },
    );
    try {
      expect((await post(plain.url)).status).toBe(422);
    } finally {
      await plain.close();
    }
  });

  it('audit --evidence: the block passes on operator evidence; without it, not_verifiable', async () => {
    const args = auditArgs();
    const without = await runCliBytes(args);
    expect(without.status).toBe(2);
    expect(without.stdout.toString()).toMatch(/"verdict":"not_verifiable"/);
    const withEvidence = await runCliBytes([...args, '--evidence', dir]);
    expect(withEvidence.status, withEvidence.stderr).toBe(0);
    // A pass on an operator's word says so.
    expect(withEvidence.stdout.toString()).toMatch(/"evidence_kind":"operator","verdict":"pass"/);
    const queued = await runCliBytes([
      ...args.filter((a) => a !== '--quiet'),
      '--evidence',
      dir,
      '--queue',
      'postgres://u@127.0.0.1:5432/none',
    ]);
    expect(queued.status).toBe(2);
    expect(queued.stderr).toMatch(/--evidence is for an audit on this machine: queue workers do not take evidence yet/);
  });

  it('audit --resume stands on the evidence the file was audited on: the header records it, and other evidence, or none, is refused naming both (a user check)', async () => {
    const args = auditArgs();
    const file = join(mkdtempSync(join(tmpdir(), 'evidence-resume-')), 'audit.ndjson');
    expect((await runCliBytes([...args, '--evidence', dir, '--out', file])).status).toBe(0);
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!);
    expect(header.audit.evidence).toEqual({ '23887160': hashOf(block) });
    const kept = readFileSync(file, 'utf8');
    const resume = (...flags: string[]) => runCliBytes([...args, '--out', file, '--resume', ...flags]);
    const without = await resume();
    expect([without.status, without.stderr]).toEqual([
      2,
      `evm-integrity: --resume: ${file} was audited with --evidence of blocks {"23887160":"${hashOf(block)}"}, not without --evidence as this run is: give the same evidence to resume it, or audit to another file\n`,
    ]);
    // A directory without this chain's blocks changes no verdict of it: as none.
    const empty = mkdtempSync(join(tmpdir(), 'evidence-none-'));
    expect((await resume('--evidence', empty)).stderr).toBe(without.stderr);
    expect(readFileSync(file, 'utf8')).toBe(kept);
    const same = await resume('--evidence', dir);
    expect([same.status, same.stderr]).toEqual([0, '']);
    // A file audited without it (its block not_verifiable), or by an earlier version, which did not record it.
    const plainFile = join(mkdtempSync(join(tmpdir(), 'evidence-resume-')), 'audit.ndjson');
    expect((await runCliBytes([...args, '--out', plainFile])).status).toBe(2);
    const added = await runCliBytes([...args, '--out', plainFile, '--resume', '--evidence', dir]);
    expect([added.status, added.stderr]).toEqual([
      2,
      `evm-integrity: --resume: ${plainFile} was audited without --evidence, not with --evidence of blocks {"23887160":"${hashOf(block)}"} as this run is (or written by an earlier version, whose header line did not record it): leave out --evidence (or its blocks of chain ${AMOY}) to resume it, or audit to another file\n`,
    ]);

    const learnedFile = join(mkdtempSync(join(tmpdir(), 'evidence-resume-')), 'audit.ndjson');
    const anchored = [...args, '--tail-hash', hashOf(block), '--out', learnedFile];
    expect((await runCliBytes([...anchored, '--learn-evidence'])).status).toBe(0);
    const unlearned = await runCliBytes([...anchored, '--resume']);
    expect([unlearned.status, unlearned.stderr]).toEqual([
      2,
      `evm-integrity: --resume: ${learnedFile} was audited with --learn-evidence, not without it as this run is: give --learn-evidence to resume it, or audit to another file\n`,
    ]);
    expect((await runCliBytes([...anchored, '--resume', '--learn-evidence'])).status).toBe(0);
  });

  it('audit --learn-evidence: the --tail-hash block is learned and the range passes; a wrong anchor is not learned', async () => {
    const args = auditArgs();
    const learned = await runCliBytes([...args, '--tail-hash', hashOf(block), '--learn-evidence']);
    expect(learned.status, learned.stderr).toBe(0);
    expect(learned.stderr).toMatch(/--learn-evidence: block 23887160 admitted as evidence for this run/);
    expect(learned.stdout.toString()).toMatch(/"verdict":"pass"/);
    const wrong = await runCliBytes([...args, '--tail-hash', `0x${'ab'.repeat(32)}`, '--learn-evidence']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/--learn-evidence: block 23887160 not admitted: its header hashes to/);
    const none = await runCliBytes([...args, '--learn-evidence']);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--learn-evidence needs an anchor/);
  });

  it('serve with an evidence file that no longer reproduces does not start, naming the file', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'evidence-bad-'));
    const record = JSON.parse(readFileSync(join(dir, '80002-23887160.json'), 'utf8'));
    writeFileSync(join(bad, '80002-23887160.json'), JSON.stringify({ ...record, block_hash: `0x${'ee'.repeat(32)}` }));
    const run = await runCliBytes(['serve', '--store', 'memory', '--port', '0', '--evidence', bad]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/evidence file .*80002-23887160\.json: block: its header hashes to/);
  });
});
