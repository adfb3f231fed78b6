/**
 * A claim cannot outlive its evidence. Every check a built-in chain's era claims names real
 * blocks of fixtures/ that reproduce it; every fixture is run against the claims of its chain and
 * era: a claimed check matches, and a real block never gets `different`.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CHAINS } from '../packages/core/src/index.js';
import {
  CHECK_NAMES,
  defaultRegistry,
  type CheckName,
  type EvidenceBlock,
} from '../packages/core/src/chains/registry.js';
import { receiptKinds } from '../packages/core/src/chains/claims.js';
import { ChainRegistry, Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import {
  asBlock,
  fixtureNames,
  headerNames,
  loadFixture,
  unverifiableNames,
  type FixtureBlock,
} from './helpers/fixtures.js';

const withoutJson = (name: string) => name.replace(/\.json$/, '');
const blocks = fixtureNames.map(withoutJson);
const headers = headerNames.map(withoutJson);

/** A fixture verified as `verify block` does; a header alone, with no receipts. */
function verified(fixture: FixtureBlock) {
  const result = verifyBlock(asBlock(fixture));
  if (!result.ok) throw new Error(`${fixture.id}: ${JSON.stringify(result.error)}`);
  return result.value;
}

const claims = BUILTIN_CHAINS.flatMap((chain) =>
  (chain.eras ?? []).flatMap((era, i, eras) =>
    CHECK_NAMES.flatMap((check) => {
      const evidence = era.evidence?.[check];
      if (evidence === undefined || typeof evidence === 'string') return [];
      const last = eras[i + 1] === undefined ? Number.POSITIVE_INFINITY : eras[i + 1]!.from - 1;
      return evidence.map(
        (block): [string, CheckName, EvidenceBlock, { chainId: number; from: number; last: number }] => [
          `${chain.name} ${era.name} ${check}: ${block.fixture}`,
          check,
          block,
          { chainId: chain.chainId, from: era.from, last },
        ],
      );
    }),
  ),
);

describe('every claim of the registry stands on real blocks', () => {
  it('every built-in chain that can be verified has eras, and every era of it says what shows each check', () => {
    for (const chain of BUILTIN_CHAINS.filter((c) => c.verifiable)) {
      expect(chain.eras, chain.name).toBeDefined();
      for (const era of chain.eras!.filter((e) => e.notVerifiable === undefined))
        expect(Object.keys(era.evidence ?? {}).sort(), `${chain.name} ${era.name}`).toEqual([...CHECK_NAMES].sort());
    }
  });

  it.each(claims)('%s', (_name, check, evidence, era) => {
    const isBlock = blocks.includes(evidence.fixture);
    expect(
      isBlock || (check === 'block_hash' && headers.includes(evidence.fixture)),
      'a block of fixtures/blocks/ (a header alone shows the hash only)',
    ).toBe(true);
    const fixture = loadFixture(evidence.fixture);
    expect(fixture.real).toBe(true);
    expect(fixture.source).toMatchObject({ repository: expect.any(String), files: expect.any(String) });
    expect(fixture.chain_id).toBe(era.chainId);
    expect(Number(fixture.header.number)).toBe(evidence.block);
    expect(evidence.block >= era.from && evidence.block <= era.last, 'the block is in the era').toBe(true);
    const report = verified(fixture);
    expect(report[check].matches, report[check].reason).toBe(true);
    const read = readRpcBlock(fixture, new Problems())!;
    // What the evidence says the block holds is what it holds.
    if (check === 'receipts_root')
      expect([...evidence.receipts!].sort()).toEqual(
        receiptKinds(read.receipts, read.excludedReceipts.length > 0).sort(),
      );
    if (check === 'logs_bloom') expect(evidence.logs).toBe(read.receipts.some((r) => r.logs.length > 0));
  });
});

describe('every real block against the claims of its chain and era', () => {
  const real = [...blocks, ...headers].filter((name) => {
    const fixture = loadFixture(name);
    return fixture.real && fixture.chain_id !== null && defaultRegistry.get(fixture.chain_id) !== undefined;
  });

  it.each(real)('%s: never different; each check runs as far as its era claims it, and then matches', (name) => {
    const fixture = loadFixture(name);
    const verifiability = defaultRegistry.verifiability(fixture.chain_id!, BigInt(fixture.header.number!));
    const report = verified(fixture);
    if (verifiability.status !== 'verifiable') {
      expect(report.verdict).toBe('not_verifiable');
      return;
    }
    const checks: readonly CheckName[] = blocks.includes(name) ? CHECK_NAMES : ['block_hash'];
    for (const check of checks)
      if (report[check].matches !== null) expect(report[check].matches, `${check}: ${report[check].reason}`).toBe(true);
    if (blocks.includes(name)) expect(report.verdict).not.toBe('different');
    // The era's block hash claim reaches every block of it.
    expect(report.block_hash.matches).toBe(verifiability.checks.block_hash.verified ? true : null);
  });
});

describe('the chains registered as not verifiable: their real blocks show why', () => {
  it.each(unverifiableNames.map(withoutJson))(
    "%s: its chain is not verifiable, and Ethereum's rules do not reproduce it",
    (name) => {
      const fixture = loadFixture(name);
      expect(fixture.real).toBe(true);
      const chain = defaultRegistry.get(fixture.chain_id!);
      // A testnet outside the registry is named by its mainnet's entry (Bittensor's testnet, 945, by Bittensor EVM,
      // 964).
      expect(chain?.verifiable ?? false).toBe(false);
      const registry = new ChainRegistry([
        { chainId: 31_337_001, name: 'as Ethereum', rules: 'ethereum', verifiable: true },
      ]);
      const asEthereum = verifyBlock({ ...fixture, chain_id: 31_337_001 }, { registry });
      // Either the header cannot be rebuilt at all, or a check that Ethereum's rules would make fails.
      if (asEthereum.ok) expect(asEthereum.value.verdict).toBe('different');
      else expect(asEthereum.error.kind).toBe('invalid');
      if (chain !== undefined)
        expect(verifyBlock(fixture)).toMatchObject({ ok: true, value: { verdict: 'not_verifiable' } });
    },
  );
});
