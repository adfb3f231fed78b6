/**
 * Arbitrum Nitro's header members `sendRoot`, `sendCount` and `l1BlockNumber` repeat what its hashed
 * `extraData` and `mixHash` carry: on the real block 150,000,000 of Arbitrum One they agree, and a
 * member altered is a conflict named at its path, never a block reported identical.
 */
import { describe, expect, it } from 'vitest';
import { Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import { runCliBytes } from './helpers/cli-process.js';
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

describe('a chain outside the registry: the members under the rules the caller names', () => {
  const OUTSIDE = 424242;
  const orbit = (over: Record<string, unknown> = {}) => ({ ...withHeader(over), chain_id: OUTSIDE });
  const under = (input: unknown, rules: 'arbitrum' | 'ethereum') => {
    const result = verifyBlock(input, { rules });
    if (result.ok) return result.value.verdict;
    return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
  };

  it('the real block relabelled, verified under arbitrum rules, is identical', () => {
    expect(under(orbit(), 'arbitrum')).toBe('identical');
  });

  it.each([
    ['sendRoot', `0x${'4cb7dd12349a993663fbdb2ff9a9dd458df4a0a0087c5946f29f26df0086b588'}`],
    ['sendCount', '0x17a28'],
    ['l1BlockNumber', '0x11b3fb4'],
  ])('%s altered, under arbitrum rules: a conflict named at its path, as on Arbitrum One', (member, value) => {
    expect(under(orbit({ [member]: value }), 'arbitrum')).toEqual(problemsOf(withHeader({ [member]: value })));
  });

  it("a receipt's l1BlockNumber altered, under arbitrum rules: a conflict with the header's, as on Arbitrum One", () => {
    const receipts = fixture.receipts.map((r, i) => (i === 0 ? { ...r, l1BlockNumber: '0x1' } : r));
    expect(under({ ...orbit(), receipts }, 'arbitrum')).toEqual([
      [
        'receipts[0].l1BlockNumber',
        'conflict',
        "18562995, the header's l1BlockNumber (bytes 8 to 16 of mixHash), which it repeats, got 1",
      ],
    ]);
  });

  it('under other rules the members are refused, as on a chain of the registry', () => {
    const mainnet = { ...loadFixture('mainnet-22869878'), chain_id: OUTSIDE };
    const header = { ...mainnet.header, sendRoot: fixture.header['extraData'] };
    expect(under({ ...mainnet, header }, 'ethereum')).toEqual([
      [
        'header.sendRoot',
        'conflict',
        "absent: an ethereum chain's header does not carry sendRoot (Arbitrum Nitro's does, repeating a field it hashes): no block hash covers it",
      ],
    ]);
  });

  it('with no rules named the block is not verified at all', () => {
    const result = verifyBlock(orbit({ sendRoot: `0x${'11'.repeat(32)}` }));
    expect(!result.ok && result.error.kind).toBe('chain_not_supported');
  });

  it('the command line: verify block --rules arbitrum refuses the altered member (exit 2) and passes the real block', async () => {
    const altered = await runCliBytes(['verify', 'block', '-', '--rules', 'arbitrum'], {
      input: Buffer.from(JSON.stringify(orbit({ sendCount: '0x17a28' }))),
    });
    expect(altered.status).toBe(2);
    expect(`${altered.stdout.toString()}${altered.stderr}`).toContain(
      'header.sendCount: expected 96807, the first 8 bytes of mixHash, which it repeats, got 96808',
    );
    const real = await runCliBytes(['verify', 'block', '-', '--rules', 'arbitrum'], {
      input: Buffer.from(JSON.stringify(orbit())),
    });
    expect(real.status).toBe(0);
    expect(JSON.parse(real.stdout.toString())).toMatchObject({
      chain_id: OUTSIDE,
      rules: 'arbitrum',
      verdict: 'identical',
    });
  });
});

// Nitro's node fills these members from DeserializeHeaderExtraInformation (OffchainLabs/go-ethereum core/types/
// arb_types.go), which returns an empty HeaderInfo for a header without its information (here: difficulty 0, a 25-byte
// extraData); internal/ethapi/api.go writes them, and each receipt's l1BlockNumber, from it: zeros.
describe('a header that carries no Nitro header information, under arbitrum rules: the members are zeros', () => {
  const mainnet = loadFixture('mainnet-19426587');
  const claims = { sendRoot: `0x${'11'.repeat(32)}`, sendCount: '0x5', l1BlockNumber: '0x7' };
  const block = (chainId: number, header: Record<string, unknown>, receiptL1: string | undefined) => ({
    ...mainnet,
    chain_id: chainId,
    header: { ...mainnet.header, ...header },
    receipts: mainnet.receipts.map((r) => (receiptL1 === undefined ? r : { ...r, l1BlockNumber: receiptL1 })),
  });
  const why =
    'what a Nitro node reports for a header that carries no Nitro header information (its extraData is 25 bytes, not 32), which it repeats';
  const outcome = (input: unknown, rules?: 'arbitrum') => {
    const result = verifyBlock(input, rules === undefined ? {} : { rules });
    if (result.ok) return result.value.verdict;
    return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
  };
  const headerConflicts = [
    ['header.sendRoot', 'conflict', `0x${'00'.repeat(32)}, ${why}, got 0x${'11'.repeat(32)}`],
    ['header.sendCount', 'conflict', `0, ${why}, got 5`],
    ['header.l1BlockNumber', 'conflict', `0, ${why}, got 7`],
  ];

  it.each([
    ['a chain outside the registry, --rules arbitrum', 999999, 'arbitrum' as const],
    ['Arbitrum Nova (the registry)', 42170, undefined],
  ])('%s: non-zero members are conflicts naming each, not identical', (_, chainId, rules) => {
    expect(outcome(block(chainId, claims, '0x1'), rules)).toEqual(headerConflicts);
  });

  it.each([
    ['a chain outside the registry, --rules arbitrum', 999999, 'arbitrum' as const],
    ['Arbitrum Nova (the registry)', 42170, undefined],
  ])("%s: a receipt's non-zero l1BlockNumber is a conflict with the zero a node reports", (_, chainId, rules) => {
    expect(outcome(block(chainId, {}, '0x1'), rules)).toEqual(
      mainnet.receipts.map((_r, i) => [
        `receipts[${i}].l1BlockNumber`,
        'conflict',
        `0, the header's l1BlockNumber, ${why}, got 1`,
      ]),
    );
  });

  it('zeros, as a node reports them, are identical', () => {
    const zeros = { sendRoot: `0x${'00'.repeat(32)}`, sendCount: '0x0', l1BlockNumber: '0x0' };
    expect(outcome(block(999999, zeros, '0x0'), 'arbitrum')).toBe('identical');
    expect(outcome(block(42170, zeros, '0x0'))).toBe('identical');
  });

  it('the command line: verify block --rules arbitrum refuses the members (exit 2)', async () => {
    const run = await runCliBytes(['verify', 'block', '-', '--rules', 'arbitrum'], {
      input: Buffer.from(JSON.stringify(block(999999, claims, '0x1'))),
    });
    expect(run.status).toBe(2);
    expect(`${run.stdout.toString()}${run.stderr}`).toContain(`header.sendCount: expected 0, ${why}, got 5`);
  });
});

describe('request, on a chain whose rules are unknown: Nitro members are refused, not carried unchecked', () => {
  const OUTSIDE = 424242;
  const relabelled = (over: Record<string, unknown> = {}) => ({ ...withHeader(over), chain_id: OUTSIDE });
  const altered = relabelled({ sendRoot: `0x${'11'.repeat(32)}`, sendCount: '0x5', l1BlockNumber: '0x7' });
  const request = (what: string, input: unknown, ...flags: string[]) =>
    runCliBytes(['request', what, '-', ...flags], { input: Buffer.from(JSON.stringify(input)) });

  it.each(['receipt-root', 'logs-bloom'])(
    'request %s: no body, one line naming the member and --add-chain, exit 2',
    async (what) => {
      const run = await request(what, altered);
      expect(run.stdout.toString()).toBe('');
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        `header.sendRoot: expected absent: chain ${OUTSIDE}'s rules are unknown, so what sendRoot claims cannot be checked (name them: --add-chain ${OUTSIDE}:arbitrum)`,
      );
    },
  );

  it("a receipt's l1BlockNumber alone is refused likewise", async () => {
    const { sendRoot: _r, sendCount: _c, l1BlockNumber: _l, ...header } = fixture.header;
    const run = await request('receipt-root', { ...fixture, chain_id: OUTSIDE, header });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`receipts[0].l1BlockNumber: expected absent: chain ${OUTSIDE}'s rules are unknown`);
  });

  it('with --add-chain ID:arbitrum the altered block is refused as a conflict and the real one makes a body', async () => {
    const refused = await request('receipt-root', altered, '--add-chain', `${OUTSIDE}:arbitrum`);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('header.sendRoot: expected 0x4cb7');
    const made = await request('receipt-root', relabelled(), '--add-chain', `${OUTSIDE}:arbitrum`);
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    expect(JSON.parse(made.stdout.toString())).toMatchObject({ chain_id: OUTSIDE });
  });

  it('a block of an unknown chain without them still makes a body', async () => {
    const run = await request('receipt-root', { ...loadFixture('mainnet-22869878'), chain_id: OUTSIDE });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it("verify block's answer is unchanged: the chain is not supported (422), before any member is read", async () => {
    const result = verifyBlock(altered);
    expect(!result.ok && result.error.kind).toBe('chain_not_supported');
    const run = await runCliBytes(['verify', 'block', '-'], { input: Buffer.from(JSON.stringify(altered)) });
    expect(run.status).toBe(2);
    expect(run.stdout.toString()).toContain('CHAIN_NOT_SUPPORTED');
  });

  it('the library: readRpcBlock refuses them where asked to (refuseUnchecked), and leaves them otherwise', () => {
    const asked = new Problems();
    expect(readRpcBlock(altered, asked, { refuseUnchecked: true })).toBeUndefined();
    expect(asked.invalidInput().problems.map((p) => p.name)).toEqual([
      'header.sendRoot',
      'header.sendCount',
      'header.l1BlockNumber',
      ...fixture.receipts.map((_r, i) => `receipts[${i}].l1BlockNumber`),
    ]);
    const left = new Problems();
    expect(readRpcBlock(altered, left)).toBeDefined();
  });
});

describe('a header whose base fee is 0, on which Nitro nodes differ: either answer holds, no other', () => {
  // Before OffchainLabs/go-ethereum 61ab3402 such a header carried no information (zeros); since, its fields' values.
  // The base fee changed, the block's hash no longer matches: the members are judged before it, as problems.
  const zeroFee = (over: Record<string, unknown>, receiptL1?: string) => ({
    ...fixture,
    header: { ...fixture.header, baseFeePerGas: '0x0', ...over },
    receipts: fixture.receipts.map((r) => (receiptL1 === undefined ? r : { ...r, l1BlockNumber: receiptL1 })),
  });
  const zeros = { sendRoot: `0x${'00'.repeat(32)}`, sendCount: '0x0', l1BlockNumber: '0x0' };

  it("the decoded values (a node since 61ab3402) are read, and the block's hash is what differs", () => {
    expect(problemsOf(zeroFee({}))).toBe('different');
  });

  it('zeros throughout (a node before it) are read likewise', () => {
    expect(problemsOf(zeroFee(zeros, '0x0'))).toBe('different');
  });

  it('any other value is a conflict named at its path', () => {
    expect(problemsOf(zeroFee({ sendCount: '0x5' }))).toEqual([
      ['header.sendCount', 'conflict', '96807, the first 8 bytes of mixHash, which it repeats, got 5'],
    ]);
  });

  it("a receipt's l1BlockNumber is held to the answer its header's members give", () => {
    const [first] = problemsOf(zeroFee(zeros, '0x11b3fb3')) as string[][];
    expect(first).toEqual([
      'receipts[0].l1BlockNumber',
      'conflict',
      expect.stringContaining("0, the header's l1BlockNumber, what a Nitro node reports"),
    ]);
    expect(problemsOf(zeroFee({}, '0x0'))).toEqual(
      fixture.receipts.map((_r, i) => [
        `receipts[${i}].l1BlockNumber`,
        'conflict',
        "18562995, the header's l1BlockNumber (bytes 8 to 16 of mixHash), which it repeats, got 0",
      ]),
    );
  });
});

describe('a Nitro header that lost its base fee', () => {
  it('is refused naming baseFeePerGas, not each member as differing from zeros', () => {
    const { baseFeePerGas: _fee, ...header } = fixture.header;
    expect(problemsOf({ ...fixture, header })).toEqual([
      [
        'header.baseFeePerGas',
        'missing',
        'present: a Nitro header has a base fee, and its sendRoot, sendCount and l1BlockNumber, not zero here, are information only a header with one carries',
      ],
    ]);
  });
});
