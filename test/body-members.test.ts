/**
 * The members of a verified block that its header commits to, or that repeat what is hashed, and that no other check
 * covers: the header's `withdrawals` (under its `withdrawalsRoot`, EIP-4895) and `uncles` (under its `sha3Uncles`), a
 * log's `type` and `transactionLogIndex`, and a listed transaction object's `type` (its receipt's). On every real block
 * they hold; one made up is never passed: a withdrawal changes the verdict to different, the others are refused.
 */
import { readFileSync } from 'node:fs';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { encode } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  hexToBytes,
  Problems,
  readRpcBlock,
  verifyBlock,
  verifyRpcBlockReceipts,
} from '../packages/core/src/index.js';
import { judgeBlock } from '../packages/core/src/audit/block-checks.js';
import { withdrawalsRoot, type Withdrawal } from '../packages/core/src/header/body-roots.js';
import { fixtureNames, loadFixture } from './helpers/fixtures.js';

type Json = Record<string, any>;

/** The fixture `name` with `change` made to a deep copy of it. */
function altered(name: string, change: (block: Json) => void): Json {
  const block = structuredClone(loadFixture(name)) as Json;
  change(block);
  return block;
}

/** The verdict, or the refusal's problems as [path, reason, expected]. */
const outcomeOf = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.verdict;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
};

/** A withdrawal no beacon chain made. */
const MADE_UP = { index: '0x1', validatorIndex: '0x2', address: `0x${'ab'.repeat(20)}`, amount: '0x3b9aca00' };

const read = (w: Json): Withdrawal => ({
  index: BigInt(w.index),
  validatorIndex: BigInt(w.validatorIndex),
  address: hexToBytes(w.address),
  amount: BigInt(w.amount),
});

/** The withdrawals root by @ethereumjs/mpt, one put per withdrawal: nothing shared with src/ but the input. */
async function oracleRoot(withdrawals: Json[]): Promise<string> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < withdrawals.length; i++) {
    const w = withdrawals[i]!;
    const n = (q: string) => {
      const digits = BigInt(q).toString(16);
      return BigInt(q) === 0n ? new Uint8Array() : hexToBytes(digits.length % 2 === 0 ? digits : `0${digits}`);
    };
    await trie.put(encode(i), encode([n(w.index), n(w.validatorIndex), hexToBytes(w.address), n(w.amount)]));
  }
  return bytesToHex(trie.root());
}

/** Real headers with their withdrawals: Gnosis (a block with receipts) and two mainnet headers (anchor fixtures). */
const realWithdrawals: [string, Json][] = [
  ['gnosis-30000000', loadFixture('gnosis-30000000').header],
  ...['block-22432102/eth_getBlockByNumber_0x1564967_false', 'block-22017690/eth_getBlockByNumber_0x14ff69b_false'].map(
    (file): [string, Json] => [
      file,
      JSON.parse(readFileSync(new URL(`../fixtures/anchor/colibri/${file}.json`, import.meta.url), 'utf8')).result,
    ],
  ),
];

describe("a block's withdrawals, under its header's withdrawalsRoot (EIP-4895)", () => {
  it.each(realWithdrawals)(
    '%s: the root of its real withdrawals is its header’s, as @ethereumjs/mpt computes it',
    async (_, header) => {
      expect(header.withdrawals.length).toBeGreaterThan(0);
      const root = bytesToHex(withdrawalsRoot(header.withdrawals.map(read)));
      expect(root).toBe(header.withdrawalsRoot.slice(2));
      expect(await oracleRoot(header.withdrawals)).toBe(root);
    },
  );

  it('every real fixture block that lists withdrawals, and every one after Shanghai, stays identical', () => {
    const withList = fixtureNames.filter((name) => Array.isArray(loadFixture(name).header.withdrawals));
    expect(withList).toEqual(['gnosis-30000000.json', 'hoodi-411443.json', 'op-mainnet-154497277.json']);
    const afterShanghai = fixtureNames.filter((n) => loadFixture(n).header.withdrawalsRoot !== undefined);
    expect(afterShanghai.length).toBeGreaterThanOrEqual(17);
    for (const name of afterShanghai) {
      // A devnet outside the registry under Ethereum's rules, as --rules ethereum verifies it; the registry's stand else.
      const result = verifyBlock(loadFixture(name), { rules: 'ethereum' });
      expect(result.ok, name).toBe(true);
      // Celo's fee-currency receipts have no evidence: not verifiable, as before.
      if (result.ok && !name.startsWith('celo-')) expect(result.value.verdict, name).toBe('identical');
    }
    const gnosis = verifyBlock(loadFixture('gnosis-30000000'));
    const root = (loadFixture('gnosis-30000000').header.withdrawalsRoot as string).slice(2);
    expect(gnosis.ok && gnosis.value.withdrawals).toEqual({ count: 8, expected: root, computed: root, matches: true });
    // An empty list is not compared (Otterscan and Erigon send [] on blocks without withdrawals).
    const hoodi = verifyBlock(loadFixture('hoodi-411443'));
    expect(hoodi.ok && [hoodi.value.verdict, hoodi.value.withdrawals]).toEqual(['identical', null]);
  });

  it.each([
    ['mainnet-22869878', (b: Json) => (b.header.withdrawals = [MADE_UP])],
    ['hoodi-411443', (b: Json) => b.header.withdrawals.push(MADE_UP)],
    ['gnosis-30000000', (b: Json) => b.header.withdrawals.push(MADE_UP)],
    ['gnosis-30000000', (b: Json) => (b.header.withdrawals[3].amount = '0x1')],
    ['gnosis-30000000', (b: Json) => b.header.withdrawals.pop()],
  ])('%s with a withdrawal made up, changed or dropped is different, naming withdrawals', (name, change) => {
    const block = altered(name, change);
    const result = verifyBlock(block);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.verdict).toBe('different');
    expect(result.value.reason).toBe('does not match: withdrawals');
    expect(result.value.withdrawals?.matches).toBe(false);
    expect(result.value.withdrawals?.expected).toBe(block.header.withdrawalsRoot.slice(2));
    // The audit's line names the check.
    const line = judgeBlock(Number(block.header.number), block as never, result, { expectedParent: undefined });
    expect(line.verdict).toBe('fail');
    expect(line.failures.map((f) => f.check)).toEqual(['withdrawals']);
  });

  it('a withdrawal in a block whose header has no withdrawalsRoot is refused, naming withdrawals', () => {
    // After the merge, before Shanghai: no withdrawals, no root.
    expect(outcomeOf(altered('mainnet-15537394', (b) => (b.header.withdrawals = [MADE_UP])))).toEqual([
      [
        'header.withdrawals',
        'conflict',
        "absent or empty: the header has no withdrawalsRoot, which would commit to the block's withdrawals (a block before Shanghai, or of a chain without it, has none), got 1 withdrawal",
      ],
    ]);
    // An empty list is no claim.
    expect(outcomeOf(altered('mainnet-15537394', (b) => (b.header.withdrawals = [])))).toBe('identical');
    // Polygon PoS has no withdrawals either.
    expect(outcomeOf(altered('polygon-pos-23887160', (b) => (b.header.withdrawals = [MADE_UP])))).toEqual([
      ['header.withdrawals', 'conflict', expect.stringContaining('the header has no withdrawalsRoot')],
    ]);
  });

  it('a withdrawal beside a header that lost the withdrawalsRoot its fork has is refused naming the missing field', () => {
    const block = altered('mainnet-22869878', (b) => {
      b.header.withdrawals = [MADE_UP];
      delete b.header.withdrawalsRoot;
    });
    const problems = outcomeOf(block) as string[][];
    expect(problems.map((p) => p[0])).toContain('header.withdrawalsRoot');
    expect(problems.map((p) => p[0])).not.toContain('header.withdrawals');
    // The receipts verified alone ask nothing of the header's fields but this: the withdrawals need their root.
    const shanghai = altered('mainnet-17034870', (b) => {
      b.header.withdrawals = [MADE_UP];
      delete b.header.withdrawalsRoot;
    });
    const read = readRpcBlock(shanghai, new Problems())!;
    const receiptsAlone = verifyRpcBlockReceipts(read);
    expect(!receiptsAlone.ok && 'problems' in receiptsAlone.error && receiptsAlone.error.problems).toEqual([
      {
        name: 'header.withdrawalsRoot',
        location: 'body',
        reason: 'missing',
        expected:
          "present: the header commits to the block's withdrawals in it, and blocks of Ethereum Mainnet have it from block 17034870 on at the latest, and this is block 17034870",
      },
    ]);
  });

  it('on an OP Stack chain, whose withdrawalsRoot is the message passer’s storage root, a withdrawal is refused', () => {
    expect(outcomeOf(altered('op-mainnet-154497277', (b) => b.header.withdrawals.push(MADE_UP)))).toEqual([
      [
        'header.withdrawals',
        'conflict',
        "absent or empty: an OP Stack block has no withdrawals (its header's withdrawalsRoot is the storage root of the L2ToL1MessagePasser, not a root of a list), got 1 withdrawal",
      ],
    ]);
  });

  it('a withdrawal that is not one is invalid input naming its member', () => {
    const block = altered('gnosis-30000000', (b) => (b.header.withdrawals[2].address = '0x12'));
    expect(outcomeOf(block)).toEqual([['header.withdrawals[2].address', 'invalid_format', expect.any(String)]]);
    // One spelling of each member: a second is a claim read over.
    const twice = altered('gnosis-30000000', (b) => (b.header.withdrawals[0].Amount = '0x1'));
    expect(outcomeOf(twice)).toEqual([['header.withdrawals[0].Amount', 'invalid_format', expect.any(String)]]);
    expect(outcomeOf(altered('gnosis-30000000', (b) => (b.header.withdrawals = {})))).toEqual([
      ['header.withdrawals', 'invalid_format', expect.any(String)],
    ]);
  });
});

describe("a block's uncles, under its header's sha3Uncles", () => {
  it('each listed uncle is a 32-byte hash, beside any sha3Uncles (a user check: `["0x12"]` was read as a list of uncles)', () => {
    const withUncles = altered('mainnet-1000015', (b) => (b.header.uncles = ['0x12', `0x${'ab'.repeat(32)}`]));
    expect(outcomeOf(withUncles)).toEqual([
      ['header.uncles[0]', 'invalid_format', "an uncle's 32-byte hash, got 1 byte"],
    ]);
    expect(outcomeOf(altered('mainnet-1000015', (b) => (b.header.uncles = [`0x${'ab'.repeat(32)}`])))).toBe(
      'identical',
    );
  });

  it('an uncle listed beside the hash of no uncles is refused, naming uncles', () => {
    const uncle = `0x${'cd'.repeat(32)}`;
    for (const name of ['mainnet-22869878', 'hoodi-411443']) {
      expect(outcomeOf(altered(name, (b) => (b.header.uncles = [uncle]))), name).toEqual([
        [
          'header.uncles',
          'conflict',
          `none: the header's sha3Uncles is the hash of no uncles (0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347), got 1 uncle`,
        ],
      ]);
      expect(outcomeOf(altered(name, (b) => (b.header.uncles = []))), name).toBe('identical');
    }
  });
});

describe("a log's type and transactionLogIndex (OpenEthereum, Nethermind)", () => {
  const withLogs = 'mainnet-22869878';
  it('"mined", and each log’s place in its receipt, pass', () => {
    const block = altered(withLogs, (b) =>
      b.receipts.forEach((r: Json) =>
        r.logs.forEach((l: Json, i: number) => {
          l.type = 'mined';
          l.transactionLogIndex = `0x${i.toString(16)}`;
        }),
      ),
    );
    expect(outcomeOf(block)).toBe('identical');
  });

  it.each([
    [
      'pending',
      (l: Json) => (l.type = 'pending'),
      'type',
      'conflict',
      '"mined" or absent: a log of the receipts of a block is mined, got "pending"',
    ],
    [
      'a number',
      (l: Json) => (l.type = 1),
      'type',
      'invalid_format',
      expect.stringMatching(/^"mined" or absent: a log of a block is mined, got .*1/),
    ],
    [
      'another place',
      (l: Json) => (l.transactionLogIndex = '0x0'),
      'transactionLogIndex',
      'conflict',
      "1, its position among its receipt's logs, counted from 0, which it repeats, got 0",
    ],
  ])(
    'a log whose type or transactionLogIndex says %s is refused naming the receipt and the log',
    (_, change, member, reason, expected) => {
      const receipt = altered(withLogs, () => {}).receipts.findIndex((r: Json) => r.logs.length > 1);
      const block = altered(withLogs, (b) => change(b.receipts[receipt].logs[1]));
      expect(outcomeOf(block)).toEqual([[`receipts[${receipt}].logs[1].${member}`, reason, expected]]);
    },
  );
});

describe("a listed transaction object's type", () => {
  /** The block with its header listing transaction objects, each with its receipt's hash and type. */
  const withObjects = (name: string) =>
    altered(name, (b) => {
      b.header.transactions = b.header.transactions.map((hash: string, i: number) => ({
        hash,
        type: b.receipts[i].type,
      }));
    });

  it('is its receipt’s on a real block', () => {
    expect(outcomeOf(withObjects('op-mainnet-154497277'))).toBe('identical');
  });

  it('another than its receipt’s is refused, naming both', () => {
    const block = withObjects('op-mainnet-154497277');
    const place = block.receipts.findIndex((r: Json) => r.type === '0x2');
    block.header.transactions[place].type = '0x0';
    expect(outcomeOf(block)).toEqual([
      [
        `header.transactions[${place}].type`,
        'conflict',
        `2, the type of its receipt (receipts[${place}].type), which it repeats, got 0`,
      ],
    ]);
  });
});
