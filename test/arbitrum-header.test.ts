/**
 * Arbitrum Nitro's header members `sendRoot`, `sendCount` and `l1BlockNumber` repeat what its hashed
 * `extraData` and `mixHash` carry: on the real block 150,000,000 of Arbitrum One they agree, and a
 * member altered is a conflict named at its path, never a block reported identical.
 */
import { describe, expect, it } from 'vitest';
import { verifyBlock } from '../packages/core/src/index.js';
import { loadFixture } from './helpers/fixtures.js';

const fixture = loadFixture('arbitrum-one-150000000');
const withHeader = (over: Record<string, unknown>) => ({ ...fixture, header: { ...fixture.header, ...over } });
const problemsOf = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.verdict;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
};

describe('Arbitrum One: the header information members', () => {
  it('the real block carries them as its hashed fields do, and is identical', () => {
    expect(fixture.header).toMatchObject({
      sendRoot: fixture.header['extraData'],
      sendCount: '0x17a27',
      l1BlockNumber: '0x11b3fb3',
    });
    expect(problemsOf(fixture)).toBe('identical');
  });

  it('the same values spelled otherwise (decimal, upper-case hex) are the same', () => {
    const upper = `0x${fixture.header['extraData']!.slice(2).toUpperCase()}`;
    expect(problemsOf(withHeader({ sendRoot: upper, sendCount: 96807, l1BlockNumber: '18562995' }))).toBe('identical');
  });

  it.each([
    [
      'sendRoot',
      `0x${'4cb7dd12349a993663fbdb2ff9a9dd458df4a0a0087c5946f29f26df0086b588'}`,
      "0x4cb7dd12349a993663fbdb2ff9a9dd458df4a0a0087c5946f29f26df0086b587, the header's extraData, which it repeats, got 0x4cb7dd12349a993663fbdb2ff9a9dd458df4a0a0087c5946f29f26df0086b588",
    ],
    ['sendCount', '0x17a28', '96807, the first 8 bytes of mixHash, which it repeats, got 96808'],
    ['l1BlockNumber', '0x11b3fb4', '18562995, bytes 8 to 16 of mixHash, which it repeats, got 18562996'],
  ])('%s altered: a conflict named at its path, not identical', (member, value, expected) => {
    expect(problemsOf(withHeader({ [member]: value }))).toEqual([[`header.${member}`, 'conflict', expected]]);
  });

  it('a member that is not a value of its kind is named as such', () => {
    expect(problemsOf(withHeader({ sendCount: 'many' }))).toEqual([
      ['header.sendCount', 'invalid_format', expect.stringContaining('')],
    ]);
  });

  it('absent or null members are not asked for (not every node gives them)', () => {
    const { sendRoot: _r, sendCount: _c, ...rest } = fixture.header;
    expect(problemsOf({ ...fixture, header: { ...rest, l1BlockNumber: null } })).toBe('identical');
  });
});
