/**
 * A lineage's blocks held to an anchor proof: a bundle whose block is a forgery consistent in itself (its receipts
 * altered, its roots and hash recomputed, the raw block record made to match) passes every check a block can make of
 * itself, so the report says its assurance is `consistent`; an anchor proof that proves the block's real hash from a
 * beacon-chain checkpoint fails it (`block.anchor`), and proves the real block `authentic`. Over the real mainnet
 * block 19426587 and the anchor proof built from the fixtures' Portal and Lodestar vectors (test/helpers/anchor-files.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchoredHashes, type AnchoredHashes } from '../packages/core/src/anchor/index.js';
import { auditBundle } from '../packages/core/src/api/lineage-operation.js';
import { BundleSource, type Bundle } from '../packages/core/src/bundle/bundle-source.js';
import { bytesToHex } from '../packages/core/src/bytes/hex.js';
import type { LineageReport } from '../packages/core/src/lineage/lineage-report.js';
import { walkLineage } from '../packages/core/src/lineage/walker.js';
import { mainnetAnchorFile, MAINNET_CHECKPOINT } from './helpers/anchor-files.js';
import { runCliBytes } from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';
import { forge } from './helpers/forge.js';
import { buildHeldBundle, PAIR_RECORD } from './helpers/lineage-bundles.js';

const anchors = (): AnchoredHashes => {
  const proven = anchoredHashes(mainnetAnchorFile(), MAINNET_CHECKPOINT, 1);
  if (!proven.ok) throw new Error(proven.error.message);
  return proven.value;
};

/** The bundle that passes, its block replaced by a rehashed forgery and the raw block record made to match it. */
function forgedBundle(): { bundle: Bundle; hash: string } {
  const bundle = buildHeldBundle();
  const block = forge(loadFixture('mainnet-19426587'), { kind: 'gas', receipt: 0 }, { rehash: true });
  bundle.blocks = [{ chain_id: 1, header: block.header, receipts: block.receipts }];
  const raw = bundle.exchanges.find((e) => e.path === '/evm/raw/blocks')!;
  const record = (raw.response as { data: Array<Record<string, unknown>> }).data[0]!;
  record.block_hash = block.header.hash!.slice(2);
  record.receipt_root = (block.header.receiptsRoot as string).slice(2);
  return { bundle, hash: block.header.hash!.slice(2) };
}

const walk = (bundle: Bundle, anchored?: AnchoredHashes): Promise<LineageReport> => {
  const source = new BundleSource(bundle);
  return walkLineage({
    chainId: 1,
    tracingId: PAIR_RECORD,
    source,
    blocks: source,
    ...(anchored && { anchors: anchored }),
  });
};
const checksNamed = (report: LineageReport, name: string) =>
  report.records.flatMap((r) => r.checks).filter((c) => c.check === name);
const REAL_HASH = loadFixture('mainnet-19426587').header.hash!.slice(2);

describe("a lineage without an anchor proof: its blocks are the source's word", () => {
  it('the real block passes, consistent', async () => {
    const report = await walk(buildHeldBundle());
    expect(report).toMatchObject({ verdict: 'pass', assurance: 'consistent' });
    expect(checksNamed(report, 'block.anchor')).toEqual([]);
  });

  it('a forgery consistent in itself passes every check of itself, and the report says consistent, not authentic', async () => {
    const { bundle, hash } = forgedBundle();
    expect(hash).not.toBe(REAL_HASH);
    expect(await walk(bundle)).toMatchObject({ verdict: 'pass', assurance: 'consistent' });
  });
});

describe('a lineage held to an anchor proof', () => {
  it('the real block: block.anchor passes, naming the checkpoint, and the lineage is authentic', async () => {
    const report = await walk(buildHeldBundle(), anchors());
    expect(report).toMatchObject({ verdict: 'pass', assurance: 'authentic' });
    expect(checksNamed(report, 'block.anchor')).toEqual([
      {
        check: 'block.anchor',
        status: 'pass',
        subject: 'block 19426587',
        reason: `the anchor proof proves the block's hash 0x${REAL_HASH} from checkpoint 0x${bytesToHex(MAINNET_CHECKPOINT)}`,
      },
    ]);
  });

  it('the forgery fails block.anchor, naming both hashes, and none of its logs is taken as on chain', async () => {
    const { bundle, hash } = forgedBundle();
    const report = await walk(bundle, anchors());
    expect(report.verdict).toBe('fail');
    expect(report.reason).toBe(
      `block.anchor (block 19426587): the block is not the chain's: its hash is 0x${hash}, the anchor proof proves 0x${REAL_HASH} from checkpoint 0x${bytesToHex(MAINNET_CHECKPOINT)}`,
    );
    expect(report.assurance).toBe('consistent');
    expect(checksNamed(report, 'log.position').map((c) => c.status)).not.toContain('pass');
  });

  it('the shared operation (the endpoint and lineage --bundle) takes the same anchors', async () => {
    const audit = await auditBundle({
      chainId: 1,
      tracingId: PAIR_RECORD,
      bundle: forgedBundle().bundle,
      anchors: anchors(),
    });
    expect(audit.ok && audit.value.verdict).toBe('fail');
  });

  it("anchors of another chain than the walk's: a RangeError naming anchors, not blocks held to another chain", async () => {
    const source = new BundleSource(buildHeldBundle());
    await expect(
      walkLineage({ chainId: 10, tracingId: PAIR_RECORD, source, blocks: source, anchors: anchors() }),
    ).rejects.toThrow(new RangeError('anchors: network mainnet proves blocks of chain 1, not of chain 10'));
  });
});

describe('lineage --anchor-proof FILE --checkpoint ROOT, as a user runs it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lineage-anchor-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const proof = file('anchor.jsonl', mainnetAnchorFile());
  const checkpoint = `0x${bytesToHex(MAINNET_CHECKPOINT)}`;
  const lineage = (bundle: string, ...flags: string[]) =>
    runCliBytes(['lineage', PAIR_RECORD, '--chain', '1', '--bundle', bundle, ...flags]);

  it('without it, a pass says the blocks are consistent and how to prove them', async () => {
    const { status, stdout } = await lineage(file('forged.json', JSON.stringify(forgedBundle().bundle)));
    expect(status).toBe(0);
    expect(stdout.toString()).toMatch(
      /: PASS \(\d+ passed, 0 failed, 0 skipped\)\nblocks: consistent: each block checked on chain is consistent in itself, but its hash is the source's word: no anchor proof proves it the chain's \(--anchor-proof FILE --checkpoint ROOT\)\n/,
    );
  });

  it('with it, the forgery fails (exit 1) and the real block is authentic (exit 0)', async () => {
    const forged = await lineage(
      file('forged2.json', JSON.stringify(forgedBundle().bundle)),
      '--anchor-proof',
      proof,
      '--checkpoint',
      checkpoint,
    );
    expect(forged.status).toBe(1);
    expect(forged.stdout.toString()).toContain(
      "\nblocks: consistent: each block checked on chain is consistent in itself, but its hash is the source's word: no anchor proof proves it the chain's",
    );
    expect(forged.stdout.toString()).toMatch(
      /: FAIL .*\nfirst failure: block\.anchor \(block 19426587\): the block is not the chain's/,
    );
    const real = await lineage(
      file('real.json', JSON.stringify(buildHeldBundle())),
      '--anchor-proof',
      proof,
      '--checkpoint',
      checkpoint,
      '--json',
    );
    expect(real.status).toBe(0);
    expect(JSON.parse(real.stdout.toString())).toMatchObject({ verdict: 'pass', assurance: 'authentic' });
  });

  it("an empty --anchor-proof path: one line naming the flag, exit 2 (was: ': cannot read it: no such file')", async () => {
    const { status, stderr } = await lineage(
      file('real3.json', JSON.stringify(buildHeldBundle())),
      '--anchor-proof',
      '',
      '--checkpoint',
      checkpoint,
    );
    expect({ status, stderr: stderr.toString() }).toEqual({
      status: 2,
      stderr: 'evm-integrity: --anchor-proof: the path is empty; give a file name\n',
    });
  });

  it('a checkpoint the proof does not hang from: refused before the walk, exit 1', async () => {
    const { status, stderr } = await lineage(
      file('real2.json', JSON.stringify(buildHeldBundle())),
      '--anchor-proof',
      proof,
      '--checkpoint',
      `0x${'11'.repeat(32)}`,
    );
    expect(status).toBe(1);
    expect(stderr.toString()).toMatch(/anchor\.jsonl: the anchor proof is refused at line 1/);
  });
});
