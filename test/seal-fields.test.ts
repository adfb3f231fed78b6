/**
 * The members OpenEthereum and Nethermind add to a header that repeat hashed fields: `author` (the
 * `miner`) and `sealFields` (the seal, RLP-encoded: Ethash's mixHash and nonce, AuRa's step and
 * signature). On the real blocks that carry them they agree; one that says another value is a
 * conflict named at its path, never a block reported identical. Clients of other chains give
 * `sealFields` empty (no seal to repeat), and Bor's give `author` another meaning (the signer, where
 * `miner` is zero): neither restates anything there.
 */
import { describe, expect, it } from 'vitest';
import { verifyBlock } from '../packages/core/src/index.js';
import { loadFixture } from './helpers/fixtures.js';

const outcome = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.verdict;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
};
const CARRIERS = ['mainnet-47218', 'mainnet-47219', 'mainnet-483920', 'gnosis-10226218'];
const withHeader = (name: string, over: Record<string, unknown>) => {
  const fixture = loadFixture(name);
  return { ...fixture, header: { ...fixture.header, ...over } };
};
const flipLastByte = (hex: string) =>
  `${hex.slice(0, -2)}${(parseInt(hex.slice(-2), 16) ^ 1).toString(16).padStart(2, '0')}`;

describe('author and sealFields repeat the hashed seal and miner', () => {
  it.each(CARRIERS)('%s carries them as its hashed fields say, and is identical', (name) => {
    const { header } = loadFixture(name);
    expect(header['author']).toBe(header['miner']);
    expect(Array.isArray(header['sealFields'])).toBe(true);
    expect(outcome(loadFixture(name))).toBe('identical');
  });

  it.each(CARRIERS)('%s: author altered is a conflict with miner', (name) => {
    const miner = loadFixture(name).header['miner'] as string;
    expect(outcome(withHeader(name, { author: flipLastByte(miner) }))).toEqual([
      ['header.author', 'conflict', 'the same value as miner (author and miner name one header field), got another'],
    ]);
  });

  it.each([
    ['mainnet-47218', 0, 'mixHash'],
    ['mainnet-47218', 1, 'nonce'],
    ['gnosis-10226218', 0, 'auraStep'],
    ['gnosis-10226218', 1, 'auraSeal'],
  ] as const)('%s: sealFields[%i] altered is a conflict with the RLP of %s', (name, i, field) => {
    const seal = [...(loadFixture(name).header['sealFields'] as unknown as string[])];
    const original = seal[i]!;
    seal[i] = flipLastByte(original);
    expect(outcome(withHeader(name, { sealFields: seal }))).toEqual([
      [`header.sealFields[${i}]`, 'conflict', `${original}, the RLP of ${field}, which it repeats, got ${seal[i]}`],
    ]);
  });

  it('sealFields with another number of items, or not an array: named', () => {
    const seal = loadFixture('mainnet-47218').header['sealFields'] as unknown as string[];
    expect(outcome(withHeader('mainnet-47218', { sealFields: [seal[0]] }))).toEqual([
      ['header.sealFields', 'conflict', '2 items, the RLP of mixHash and nonce'],
    ]);
    expect(outcome(withHeader('mainnet-47218', { sealFields: 'x' }))).toEqual([
      ['header.sealFields', 'invalid_format', expect.stringContaining('the RLP of mixHash and nonce')],
    ]);
  });
});

describe('client dialects: members that restate nothing on their chain', () => {
  it.each(['mainnet-47218', 'mainnet-22431084', 'op-mainnet-154497277', 'polygon-pos-23887160'])(
    '%s with sealFields: [] (no seal given) is identical',
    (name) => {
      expect(outcome(withHeader(name, { sealFields: [] }))).toBe('identical');
    },
  );

  it('an empty sealFields takes nothing away: a forged mixHash beside it still makes the block different', () => {
    const mixHash = loadFixture('mainnet-47218').header['mixHash'] as string;
    expect(outcome(withHeader('mainnet-47218', { sealFields: [], mixHash: flipLastByte(mixHash) }))).toBe('different');
  });

  const SIGNER = '0x' + 'ab'.repeat(20);
  it("Polygon PoS: author is Bor's signer, not the zero miner: the real block is identical", () => {
    expect(loadFixture('polygon-pos-23887160').header['miner']).toBe('0x' + '00'.repeat(20));
    expect(outcome(withHeader('polygon-pos-23887160', { author: SIGNER }))).toBe('identical');
  });

  it("Polygon PoS: author's form is still checked, and it never stands for a miner left out", () => {
    expect(outcome(withHeader('polygon-pos-23887160', { author: 'zzz' }))).toEqual([
      ['header.author', 'invalid_format', expect.stringContaining('20-byte hex string')],
    ]);
    const { miner: _, ...header } = loadFixture('polygon-pos-23887160').header;
    const result = verifyBlock({ ...loadFixture('polygon-pos-23887160'), header: { ...header, author: SIGNER } });
    expect(result.ok && result.value.verdict).not.toBe('identical');
  });

  it('Polygon PoS: beside a miner that is not zero (no Bor header), author names it and must agree', () => {
    const block = withHeader('mainnet-1000001', { author: SIGNER });
    expect(outcome({ ...block, chain_id: 137 })).toEqual([
      ['header.author', 'conflict', 'the same value as miner (author and miner name one header field), got another'],
    ]);
  });

  it('Polygon Amoy, an era no real block has shown: with author, not verifiable rather than invalid input', () => {
    const block = withHeader('polygon-pos-23887160', { author: SIGNER });
    const result = verifyBlock({ ...block, chain_id: 80002 });
    expect(result.ok && result.value.verdict).toBe('not_verifiable');
  });

  it('Ethereum: the same author beside a zero miner is a conflict', () => {
    const block = withHeader('mainnet-22431084', { author: SIGNER, miner: '0x' + '00'.repeat(20) });
    expect(outcome(block)).toEqual([
      ['header.author', 'conflict', 'the same value as miner (author and miner name one header field), got another'],
    ]);
  });
});
