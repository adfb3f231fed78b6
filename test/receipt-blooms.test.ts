/**
 * A receipt from a node carries its own `logsBloom`, a field of its consensus encoding. verifyBlock computes each
 * receipt's bloom from its logs and compares the one the source gave with it: a receipt whose bloom was altered, its
 * logs not, is `different` (it was `identical`), on both ways of reading a block, and one that is not 256 bytes of hex
 * is refused as input, naming it.
 */
import { describe, expect, it } from 'vitest';
import { commitmentsHold, verifyBlock } from '../packages/core/src/index.js';
import { fixtureNames, loadFixture, type FixtureBlock } from './helpers/fixtures.js';

const hasBloom = (receipt: Record<string, unknown>) => receipt.logsBloom !== undefined && receipt.logsBloom !== null;

/** Blocks whose receipts carry their own bloom (the t8n blocks have no complete header: they are not verified whole). */
const withBlooms = fixtureNames.filter((name) => {
  const { header, receipts } = loadFixture(name);
  return header.hash !== undefined && receipts.some(hasBloom);
});

/** The transaction index of the receipt at `position` of the fixture's list (some lists are not in that order). */
const txIndexOf = (fixture: FixtureBlock, position: number) =>
  Number(fixture.receipts[position]!.transactionIndex ?? position);

/** The block with receipt `index`'s bloom set to `bloom`. */
function withBloom(fixture: FixtureBlock, index: number, bloom: unknown): FixtureBlock {
  const receipts = fixture.receipts.map((r, i) => (i === index ? { ...r, logsBloom: bloom } : r));
  return { ...fixture, receipts };
}

/** `hex` with one digit changed (the 41st, inside the bloom whatever its prefix). */
function oneDigitOff(hex: string): string {
  return `${hex.slice(0, 40)}${hex[40] === '0' ? '1' : '0'}${hex.slice(41)}`;
}

/** The generated (hive) chains are outside the registry: they follow Ethereum's rules. */
const ANY_CHAIN = { rules: 'ethereum' } as const;

const withoutRaw = ({ raw_receipts: _raw, ...block }: FixtureBlock) => block as FixtureBlock;

describe("a receipt's own logsBloom", () => {
  it('real blocks of several chains and eras carry it', () => {
    // Frontier-era and Byzantium mainnet (one with raw receipts), OP, Arbitrum, Polygon with a state-sync receipt.
    expect(withBlooms).toEqual(
      expect.arrayContaining([
        'mainnet-1000023.json',
        'mainnet-7000000.json',
        'op-mainnet-154497277.json',
        'arbitrum-one-150000000.json',
        'polygon-pos-9013767.json',
      ]),
    );
  });

  it.each(withBlooms)('%s: each is the bloom of its logs, compared and matching', (name) => {
    const fixture = loadFixture(name);
    const report = verifyBlock(fixture, ANY_CHAIN);
    // Bor's state-sync receipt, which no commitment covers, leaves polygon-pos-10000000 not proven, its commitments holding.
    const verdict = name.startsWith('polygon-pos-10000000') ? 'not_verifiable' : 'identical';
    expect(report).toMatchObject({ ok: true, value: { verdict } });
    if (!report.ok) return;
    expect(commitmentsHold(report.value)).toBe(true);
    // Bor's state-sync receipt, left out of the root, is compared too (was not: a user check).
    const count = fixture.receipts.filter(hasBloom).length;
    expect(report.value.receipt_blooms).toEqual({ count, matches: true, first_mismatch: null });
  });

  it.each(withBlooms)('%s: one digit of one altered, its logs not: different, naming receipt_blooms', (name) => {
    const fixture = loadFixture(name);
    const index = fixture.receipts.findIndex(hasBloom);
    const altered = withBloom(fixture, index, oneDigitOff(fixture.receipts[index]!.logsBloom as string));
    for (const block of [altered, withoutRaw(altered)]) {
      const report = verifyBlock(block, ANY_CHAIN);
      expect(report).toMatchObject({
        ok: true,
        value: {
          verdict: 'different',
          reason: 'does not match: receipt_blooms',
          receipts_root: { matches: true },
          logs_bloom: { matches: true },
          receipt_blooms: { matches: false, first_mismatch: txIndexOf(fixture, index) },
        },
      });
    }
  });

  it('the bloom of another receipt: different, at the first receipt whose bloom is not its own', () => {
    const fixture = loadFixture('mainnet-7000000');
    const blooms = fixture.receipts.map((r) => r.logsBloom as string);
    const other = blooms.findIndex((b) => b !== blooms[0]);
    expect(other).toBeGreaterThan(0);
    const block = withBloom(withBloom(fixture, other, blooms[0]), 0, blooms[other]);
    const first = Math.min(txIndexOf(fixture, 0), txIndexOf(fixture, other));
    for (const b of [block, withoutRaw(block)])
      expect(verifyBlock(b)).toMatchObject({
        ok: true,
        value: { receipt_blooms: { matches: false, first_mismatch: first } },
      });
  });

  it.each([
    ['a byte short', `0x${'00'.repeat(255)}`],
    ['not hex', `0x${'zz'.repeat(256)}`],
    ['a number', 0],
    ['empty', '0x'],
  ])('%s: refused as input naming receipts[i].logsBloom, on both readers', (_, bloom) => {
    const fixture = loadFixture('mainnet-7000000');
    for (const block of [withBloom(fixture, 2, bloom), withoutRaw(withBloom(fixture, 2, bloom))]) {
      const report = verifyBlock(block, ANY_CHAIN);
      expect(report.ok).toBe(false);
      if (report.ok) return;
      expect(report.error).toMatchObject({ kind: 'invalid', problems: [{ name: 'receipts[2].logsBloom' }] });
    }
  });

  it('upper-case hex and a 0X prefix are the same bloom', () => {
    const fixture = loadFixture('mainnet-7000000');
    const bloom = fixture.receipts[1]!.logsBloom as string;
    const block = withBloom(fixture, 1, `0X${bloom.slice(2).toUpperCase()}`);
    expect(verifyBlock(withoutRaw(block))).toMatchObject({ ok: true, value: { verdict: 'identical' } });
    expect(verifyBlock(block)).toMatchObject({ ok: true, value: { verdict: 'identical' } });
  });

  it('receipts without one: null, nothing compared', () => {
    const fixture = loadFixture('mainnet-15537394');
    expect(fixture.receipts.some(hasBloom)).toBe(false);
    expect(verifyBlock(fixture)).toMatchObject({ ok: true, value: { verdict: 'identical', receipt_blooms: null } });
  });

  it('a chain that cannot be verified: not compared (null), but a malformed one is still refused', () => {
    // A chain in the registry whose receipts Ethereum's rules do not reproduce.
    const fixture = loadFixture('cronos-10000');
    const report = verifyBlock(withBloom(fixture, 0, `0x${'ff'.repeat(256)}`));
    expect(report).toMatchObject({ ok: true, value: { verdict: 'not_verifiable', receipt_blooms: null } });
    expect(verifyBlock(withBloom(fixture, 0, '0x12'))).toMatchObject({ ok: false, error: { kind: 'invalid' } });
  });
});
