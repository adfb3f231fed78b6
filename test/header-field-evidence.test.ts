/**
 * A header that lacks a field a fork appended: what the chain's real blocks show decides whether
 * its block must have it (invalid input naming the field, never `different`), has it not (the
 * header is whole, and a hash that differs is `different`), or cannot be told (the block hash is
 * not verifiable). The evidence is generated from fixtures/ and checked against its generator.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { generateHeaderFieldEvidence } from '../scripts/gen-header-fields.js';
import { BUILTIN_CHAINS } from '../packages/core/src/index.js';
import { HEADER_LAYOUTS } from '../packages/core/src/header/layouts.js';
import { absentForkFields } from '../packages/core/src/chains/absent-fork-fields.js';
import { verifyBlock } from '../packages/core/src/index.js';
import { asBlock, fixtureNames, headerNames, loadFixture, type FixtureBlock } from './helpers/fixtures.js';
import { startLoopbackNode, fixtureBlocks } from './helpers/loopback-rpc.js';
import { auditRange } from '../packages/core/src/audit/engine.js';
import { RpcBlockSource } from '../packages/core/src/live/rpc-block-source.js';
import type { BlockAudit } from '../packages/core/src/audit/audit-report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const real = [...fixtureNames, ...headerNames]
  .map((name) => loadFixture(name))
  .filter((f) => f.real && f.chain_id !== null);
const chainOf = (f: FixtureBlock) => BUILTIN_CHAINS.find((c) => c.chainId === f.chain_id);
/** The fork fields of the layout `verify block` hashes the fixture's header in. */
const forkFieldsOf = (f: FixtureBlock) => {
  const verified = verifyBlock(asBlock(f));
  if (!verified.ok || verified.value.block_hash.matches !== true) return [];
  const layout = HEADER_LAYOUTS[verified.value.header_layout];
  return layout.fields.slice(layout.required).map((field) => field.name);
};
const without = (f: FixtureBlock, fields: string[]) => {
  const block = asBlock(f);
  return {
    ...block,
    header: Object.fromEntries(Object.entries(block.header).filter(([name]) => !fields.includes(name))),
  };
};

describe('packages/core/src/chains/header-field-evidence.ts is generated from fixtures/', () => {
  it('is byte for byte what scripts/gen-header-fields.ts emits (run `npm run gen:header-fields` after adding a fixture)', () => {
    const committed = readFileSync(
      new URL('../packages/core/src/chains/header-field-evidence.ts', import.meta.url),
      'utf8',
    );
    expect(committed, 'differs from the generator output: run `npm run gen:header-fields`').toBe(
      generateHeaderFieldEvidence(ROOT),
    );
  });

  it('no real block of a chain contradicts its bounds', () => {
    let judged = 0;
    for (const fixture of real) {
      const bounds = chainOf(fixture)?.headerFields;
      if (bounds === undefined) continue;
      const n = Number(fixture.header['number']);
      for (const [field, { absentThrough, presentFrom }] of Object.entries(bounds)) {
        const has = fixture.header[field] !== undefined && fixture.header[field] !== null;
        if (presentFrom !== undefined && n >= presentFrom.block) expect(has, `${fixture.id} ${field}`).toBe(true);
        if (absentThrough !== undefined && n <= absentThrough.block) expect(has, `${fixture.id} ${field}`).toBe(false);
        judged++;
      }
    }
    expect(judged).toBeGreaterThan(500);
  });

  it('mainnet: each fork shown by the last block before it and the first of it', () => {
    const mainnet = BUILTIN_CHAINS.find((c) => c.chainId === 1)!.headerFields!;
    expect(
      Object.fromEntries(Object.entries(mainnet).map(([f, e]) => [f, [e.absentThrough?.block, e.presentFrom?.block]])),
    ).toEqual({
      baseFeePerGas: [12_000_000, 14_764_013],
      withdrawalsRoot: [17_034_869, 17_034_870],
      blobGasUsed: [19_426_586, 19_426_587],
      excessBlobGas: [19_426_586, 19_426_587],
      parentBeaconBlockRoot: [19_426_586, 19_426_587],
      requestsHash: [22_431_083, 22_431_084],
    });
  });
});

describe('a real header without a fork field its block has: invalid input naming the field, never different', () => {
  const cases = real.flatMap((fixture) => {
    const present = forkFieldsOf(fixture).filter((f) => fixture.header[f] !== undefined && fixture.header[f] !== null);
    if (present.length === 0) return [];
    // The last one alone (a client that does not know the newest fork), and all of them.
    return [
      [`${fixture.id} without ${present.at(-1)}`, fixture, [present.at(-1)!]],
      [`${fixture.id} without ${present.join(', ')}`, fixture, present],
    ] as Array<[string, FixtureBlock, string[]]>;
  });

  it('covers the fork fields of every era that has them', () => {
    expect(cases.length).toBeGreaterThan(30);
    expect(new Set(cases.flatMap(([, , fields]) => fields))).toEqual(
      new Set([
        'baseFeePerGas',
        'withdrawalsRoot',
        'blobGasUsed',
        'excessBlobGas',
        'parentBeaconBlockRoot',
        'requestsHash',
        'extDataGasUsed',
        'blockGasCost',
        'timestampMilliseconds',
        'minDelayExcess',
        'targetExponent',
        'minPriceExponent',
        'settledHeight',
        'settledGasUnix',
        'settledGasNumerator',
        'settledExcess',
      ]),
    );
  });

  it.each(cases)('%s', (_, fixture, fields) => {
    const result = verifyBlock(without(fixture, fields));
    expect(result.ok, JSON.stringify(result.ok && result.value.block_hash)).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('invalid');
    const paths = 'problems' in result.error ? result.error.problems.map((p) => p.name) : [];
    expect(paths).toEqual(fields.map((f) => `header.${f}`));
  });
});

describe('a header whose block no real block tells about', () => {
  it('a hash that differs while it lacks such a field is not verifiable, naming the field and what shows it', () => {
    // Polygon PoS: block 23,887,160 lacks withdrawalsRoot, and no real later block shows whether later ones have it.
    const polygon = loadFixture('polygon-pos-23887160');
    const later = { ...polygon, header: { ...polygon.header, number: '0x16c7d39' } }; // 23,887,161
    const result = verifyBlock(later);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.verdict).toBe('not_verifiable');
    expect(result.value.block_hash).toMatchObject({ matches: null, computed: null });
    expect(result.value.block_hash.reason).toBe(
      'not verifiable: the header has no withdrawalsRoot, and no real block of Polygon PoS shows whether block 23887161 has it (block 23887160 lacks it): a hash that differs cannot be told from a header that lost it',
    );
    // The receipts' checks still stand.
    expect(result.value.receipts_root.matches).toBe(true);
  });

  it('a header that lacks no field its block could have is different when its hash differs', () => {
    for (const name of ['mainnet-7000000', 'mainnet-22869878', 'polygon-pos-23887160']) {
      const fixture = loadFixture(name);
      const altered = { ...fixture, header: { ...fixture.header, gasUsed: '0x1' } };
      const result = verifyBlock(altered);
      expect(result.ok && result.value.verdict, name).toBe('different');
      expect(result.ok && result.value.block_hash.matches, name).toBe(false);
    }
  });

  it('a block before a field is shown absent, or a chain with no evidence of it: absentForkFields tells them apart', () => {
    const mainnet = BUILTIN_CHAINS.find((c) => c.chainId === 1)!.headerFields;
    const layout = HEADER_LAYOUTS.ethereum;
    expect(absentForkFields({}, layout, mainnet, 12_000_000n)).toEqual({ lost: [] });
    expect(absentForkFields({}, layout, mainnet, 12_000_001n).unknown?.field).toBe('baseFeePerGas');
    expect(absentForkFields({ baseFeePerGas: 1n }, layout, mainnet, 17_034_869n)).toEqual({ lost: [] });
    expect(absentForkFields({ baseFeePerGas: 1n }, layout, mainnet, 17_034_870n)).toEqual({
      lost: [{ field: 'withdrawalsRoot', from: { fixture: 'mainnet-17034870', block: 17_034_870 } }],
    });
    expect(absentForkFields({ baseFeePerGas: 1n }, layout, mainnet, 22_431_084n).lost.map((l) => l.field)).toEqual([
      'withdrawalsRoot',
      'blobGasUsed',
      'excessBlobGas',
      'parentBeaconBlockRoot',
      'requestsHash',
    ]);
    expect(absentForkFields({}, layout, undefined, 1n)).toEqual({
      lost: [],
      unknown: { field: 'baseFeePerGas', evidence: {} },
    });
    expect(absentForkFields({}, layout, mainnet, undefined).unknown?.field).toBe('baseFeePerGas');
  });
});

describe('an audit from a node that drops the newest fork field', () => {
  it('the block fails as a block that cannot be read, naming the field, not as a header whose hash differs', async () => {
    const blocks = fixtureBlocks(['mainnet-22869878']);
    const block = blocks.get(22_869_878)!;
    delete block.header['requestsHash'];
    const node = await startLoopbackNode(1, blocks);
    try {
      const audit = auditRange({
        source: new RpcBlockSource({ url: node.url, keepMiscountedReceipts: true }),
        chainId: 1,
        from: 22_869_878,
        to: 22_869_878,
      });
      const events: BlockAudit[] = [];
      for await (const event of audit) events.push(event as BlockAudit);
      expect(events).toHaveLength(1);
      expect(events[0]!.verdict).toBe('fail');
      expect(events[0]!.failures.map((f) => f.check)).toEqual(['block_input']);
      expect(events[0]!.failures[0]!.message).toContain('header.requestsHash');
    } finally {
      await node.close();
    }
  });
});
