/**
 * The members a node adds to a block's receipts and logs that repeat the block (its hash, number and timestamp, the
 * transaction's hash and place, the log's place in the block, and that it is not removed) are not hashed: on every
 * real block they agree with what they repeat, and one altered is a conflict named at its path, never a block
 * reported identical, whichever reader reads it.
 */
import { describe, expect, it } from 'vitest';
import {
  borStateSyncTxHash,
  bytesToHex,
  ChainRegistry,
  commitmentsHold,
  defaultRegistry,
  hexToBytes,
  Problems,
  readRpcBlock,
  verifyBlock,
} from '../packages/core/src/index.js';
import { proveReceipt } from '../packages/core/src/api/index.js';
import { GAS_USED_SHOWN } from '../packages/core/src/input/json-rpc/restated-members.js';
import { fixtureNames, loadFixture, unverifiableNames } from './helpers/fixtures.js';

type Json = Record<string, any>;
const fixture = loadFixture('op-mainnet-154497277') as Json;
const HASH = fixture.header.hash as string;
const TX2 = fixture.header.transactions[2] as string;

/** The fixture with `change` made to a deep copy of it. */
function altered(change: (block: Json) => void, base: Json = fixture): Json {
  const block = structuredClone(base);
  change(block);
  return block;
}
const problemsOf = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.verdict;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
};

describe("the members of a block's receipts and logs that repeat the block", () => {
  it('every real block that carries them says what they repeat: the logs counted from 0 across the block', () => {
    const withLogIndex = [...fixtureNames, ...unverifiableNames].filter((name) =>
      loadFixture(name).receipts.some((r: Json) => r.logs?.some((l: Json) => l.logIndex !== undefined)),
    );
    // Ethereum, Polygon PoS, OP Mainnet (deposits), Arbitrum One, a devnet, Cronos and Tempo.
    expect(withLogIndex.length).toBeGreaterThanOrEqual(15);
    for (const name of withLogIndex) {
      const block = loadFixture(name) as Json;
      const logIndexes = block.receipts.flatMap((r: Json) => r.logs.map((l: Json) => Number(l.logIndex)));
      expect(logIndexes, name).toEqual(logIndexes.map((_: number, i: number) => i));
    }
    expect(problemsOf(fixture)).toBe('identical');
  });

  const log = 'receipts[2].logs[0]';
  it.each([
    [
      'receipts[2].blockHash',
      (b: Json) => (b.receipts[2].blockHash = `0x${'11'.repeat(32)}`),
      `${HASH}, the header's hash`,
    ],
    ['receipts[2].blockNumber', (b: Json) => (b.receipts[2].blockNumber = '0x1'), "154497277, the header's number"],
    [
      'receipts[2].transactionHash',
      (b: Json) => {
        b.receipts[2].transactionHash = `0x${'22'.repeat(32)}`;
        for (const l of b.receipts[2].logs) l.transactionHash = `0x${'22'.repeat(32)}`;
      },
      `${TX2}, the block's transactions[2]`,
    ],
    [
      `${log}.blockHash`,
      (b: Json) => (b.receipts[2].logs[0].blockHash = `0x${'11'.repeat(32)}`),
      `${HASH}, the header's hash`,
    ],
    [`${log}.blockNumber`, (b: Json) => (b.receipts[2].logs[0].blockNumber = '0x1'), "154497277, the header's number"],
    [
      `${log}.blockTimestamp`,
      (b: Json) => (b.receipts[2].logs[0].blockTimestamp = '0x1'),
      `${Number(fixture.header.timestamp)}, the header's timestamp`,
    ],
    [
      `${log}.transactionHash`,
      (b: Json) => (b.receipts[2].logs[0].transactionHash = `0x${'22'.repeat(32)}`),
      `${TX2}, its receipt's transactionHash`,
    ],
    [
      `${log}.transactionIndex`,
      (b: Json) => (b.receipts[2].logs[0].transactionIndex = '0x7'),
      "2, its receipt's place among the block's transactions",
    ],
    [
      `${log}.logIndex`,
      (b: Json) => (b.receipts[2].logs[0].logIndex = '0x999'),
      "its position among the block's logs, counted from 0 in transaction order",
    ],
  ])('%s altered: a conflict named at its path, saying what it repeats', (path, change, expected) => {
    const problems = problemsOf(altered(change));
    expect(problems).toContainEqual([path, 'conflict', expect.stringContaining(`${expected}`)]);
    expect(problems).toContainEqual([path, 'conflict', expect.stringContaining('which it repeats, got')]);
  });

  it('a log said to be removed is a conflict: a log of the receipts of a block is in the block', () => {
    expect(problemsOf(altered((b) => (b.receipts[2].logs[0].removed = true)))).toEqual([
      [`${log}.removed`, 'conflict', 'false or absent: a log of the receipts of a block is in the block, got true'],
    ]);
  });

  it('the log index is its position across the block, not in its receipt', () => {
    // The first receipt with logs after one that has some.
    const first = fixture.receipts.findIndex(
      (r: Json, i: number) => r.logs.length > 0 && fixture.receipts.slice(0, i).some((p: Json) => p.logs.length > 0),
    );
    expect(Number(fixture.receipts[first].logs[0].logIndex)).toBeGreaterThan(0);
    expect(problemsOf(altered((b) => (b.receipts[first].logs[0].logIndex = '0x0')))).toEqual([
      [`receipts[${first}].logs[0].logIndex`, 'conflict', expect.stringMatching(/^\d+, its position .* got 0$/)],
    ]);
  });

  it('the same values spelled otherwise (upper-case hex, decimal, a JSON number, leading zeros) are the same', () => {
    const block = altered((b) => {
      const r = b.receipts[2];
      r.blockHash = HASH.toUpperCase().replace('0X', '0x');
      r.blockNumber = '154497277';
      r.transactionHash = TX2.toUpperCase().replace('0X', '0x');
      r.logs[0].blockNumber = 154497277;
      r.logs[0].logIndex = `0x000${r.logs[0].logIndex.slice(2)}`;
      r.logs[0].removed = null;
      delete r.logs[1].transactionIndex;
    });
    expect(problemsOf(block)).toBe('identical');
  });

  it('the listed transactions may be objects: the receipt repeats their hash', () => {
    const objects = (b: Json) => (b.header.transactions = b.header.transactions.map((hash: string) => ({ hash })));
    expect(problemsOf(altered(objects))).toBe('identical');
    const other = altered((b) => {
      objects(b);
      b.header.transactions[2].hash = `0x${'33'.repeat(32)}`;
    });
    expect(problemsOf(other)).toEqual([
      [
        'receipts[2].transactionHash',
        'conflict',
        `0x${'33'.repeat(32)}, the block's transactions[2].hash, which it repeats, got ${TX2}`,
      ],
    ]);
  });

  it.each([
    ['receipts[2].blockHash', (b: Json) => (b.receipts[2].blockHash = '0x1234')],
    [`${log}.blockNumber`, (b: Json) => (b.receipts[2].logs[0].blockNumber = 'one')],
    [`${log}.logIndex`, (b: Json) => (b.receipts[2].logs[0].logIndex = -1)],
    [`${log}.removed`, (b: Json) => (b.receipts[2].logs[0].removed = 'false')],
    ['header.transactions[2]', (b: Json) => (b.header.transactions[2] = '0xzz')],
  ])('%s not a value of its kind: named as such', (path, change) => {
    expect(problemsOf(altered(change))).toEqual([
      [path, expect.stringMatching(/^(invalid_format|out_of_range)$/), expect.any(String)],
    ]);
  });

  it('absent or null members are not asked for (not every node gives them)', () => {
    const block = altered((b) => {
      for (const r of b.receipts) {
        r.blockHash = null;
        delete r.blockNumber;
        for (const l of r.logs)
          for (const m of ['blockHash', 'blockNumber', 'transactionHash', 'logIndex', 'removed']) delete l[m];
      }
    });
    expect(problemsOf(block)).toBe('identical');
  });

  it('a range of receipts listed out of order is counted in transaction order', () => {
    const block = altered((b) => b.receipts.reverse());
    expect(problemsOf(block)).toBe('identical');
  });
});

/** The paths the refusal of `input` names. */
const pathsOf = (input: unknown) => {
  const answer = problemsOf(input);
  return Array.isArray(answer) ? answer.map(([path]) => path) : answer;
};
const gasOf = (receipt: Json) => BigInt(receipt.gasUsed);

describe("the members of a block's receipts that repeat the receipts", () => {
  const real: Array<{ name: string; block: Json }> = [...fixtureNames, ...unverifiableNames].map((name) => ({
    name,
    block: loadFixture(name),
  }));

  it("every real block that gives gasUsed gives each receipt's step in cumulativeGasUsed", () => {
    const withGasUsed = real.filter(({ block }) => block.receipts.some((r: Json) => r.gasUsed !== undefined));
    // Hoodi, OP Mainnet (deposits), Arbitrum One (its internal transaction), Cronos, Tempo, Bittensor.
    expect(withGasUsed.map(({ name }) => name)).toEqual(
      expect.arrayContaining(
        ['hoodi-411443', 'op-mainnet-154497277', 'arbitrum-one-150000000', 'cronos-6542'].map((n) => `${n}.json`),
      ),
    );
    for (const { name, block } of withGasUsed) {
      // A receipt left out of the root (Bor's state sync, cumulativeGasUsed 0) is no step of the others'.
      const report = verifyBlock(block);
      const leftOut = new Set(report.ok ? report.value.excluded_receipts.map((e) => e.index) : []);
      let previous = 0n;
      for (const [i, receipt] of block.receipts.entries()) {
        if (leftOut.has(i)) continue;
        expect(gasOf(receipt), name).toBe(BigInt(receipt.cumulativeGasUsed) - previous);
        previous = BigInt(receipt.cumulativeGasUsed);
      }
    }
    // The rule sets it is compared on are those of the verifiable real blocks that show it, and no other.
    const shown = new Set(
      withGasUsed
        .map(({ block }) => defaultRegistry.verifiability(Number(block.chain_id), BigInt(block.header.number)))
        .flatMap((v) => (v.status === 'verifiable' ? [v.rules.name] : [])),
    );
    expect(shown).toEqual(GAS_USED_SHOWN);
  });

  it('every real block names each transaction once', () => {
    for (const { name, block } of real) {
      const hashes = block.receipts.flatMap((r: Json) => (r.transactionHash ? [r.transactionHash.toLowerCase()] : []));
      expect(new Set(hashes).size, name).toBe(hashes.length);
    }
  });

  const arbitrum = loadFixture('arbitrum-one-150000000') as Json;
  const hoodi = loadFixture('hoodi-411443') as Json;
  it.each([
    ['OP Mainnet', fixture, 3],
    ['Arbitrum One', arbitrum, 2],
    ['Hoodi (Ethereum)', hoodi, 0],
  ] as const)("%s: a gasUsed that is not the receipt's step is a conflict naming it", (_, base, i) => {
    const step = gasOf(base.receipts[i]);
    expect(problemsOf(altered((b) => (b.receipts[i].gasUsed = '0x1'), base))).toEqual([
      [
        `receipts[${i}].gasUsed`,
        'conflict',
        `${step}, its cumulativeGasUsed minus the previous receipt's, which it repeats, got 1`,
      ],
    ]);
    // Spelled otherwise, the same value is the same.
    expect(problemsOf(altered((b) => (b.receipts[i].gasUsed = step.toString()), base))).toBe('identical');
  });

  it('the step is counted from the previous receipt in transaction order, whether or not it gives gasUsed', () => {
    expect(problemsOf(altered((b) => b.receipts.reverse()))).toBe('identical');
    expect(problemsOf(altered((b) => delete b.receipts[2].gasUsed))).toBe('identical');
    const swapped = altered(
      (b) => ([b.receipts[3].gasUsed, b.receipts[4].gasUsed] = [b.receipts[4].gasUsed, b.receipts[3].gasUsed]),
    );
    expect(pathsOf(swapped)).toEqual(['receipts[3].gasUsed', 'receipts[4].gasUsed']);
  });

  it('a cumulativeGasUsed below the previous one leaves no step for gasUsed to repeat', () => {
    // The roots are not recomputed: the input is refused before they are compared.
    const block = altered((b) => (b.receipts[3].cumulativeGasUsed = '0x1'));
    expect(problemsOf(block)).toContainEqual([
      'receipts[3].gasUsed',
      'conflict',
      expect.stringContaining("but cumulativeGasUsed 1 is less than the previous receipt's 378784"),
    ]);
  });

  it("Polygon PoS: compared on every receipt, Bor's state-sync receipt left out of the root too, whose gas is counted from 0 (outside the block's, as the real block's 0 of 0 shows) and whose logs are numbered after the block's (was: not compared, a user check)", () => {
    const polygon = loadFixture('polygon-pos-10000000');
    const wrong = altered((b) => (b.receipts[1].gasUsed = '0x1'), polygon);
    expect(pathsOf(wrong)).toEqual(['receipts[1].gasUsed']);
    expect(problemsOf(altered((b) => (b.receipts[5].gasUsed = '0x1'), polygon))).toEqual([
      [
        'receipts[5].gasUsed',
        'conflict',
        "0, its cumulativeGasUsed (Bor's state-sync receipt counts its own gas, outside the block's), which it repeats, got 1",
      ],
    ]);
    expect(problemsOf(altered((b) => (b.receipts[5].logs[0].logIndex = '0x0'), polygon))).toEqual([
      [
        'receipts[5].logs[0].logIndex',
        'conflict',
        "146, its position among the block's logs, counted from 0 in transaction order, which it repeats, got 0",
      ],
    ]);
    // The user check's receipt: neither member a quantity.
    const garbled = altered((b) => {
      b.receipts[5].gasUsed = 'zz';
      b.receipts[5].logs[0].logIndex = 'zz';
    }, polygon);
    expect(problemsOf(garbled)).toEqual([
      ['receipts[5].gasUsed', 'invalid_format', expect.any(String)],
      ['receipts[5].logs[0].logIndex', 'invalid_format', expect.any(String)],
    ]);
  });

  it('not compared where no real block shows how the nodes count gas: a chain not verifiable', () => {
    const cronos = altered((b) => (b.receipts[0].gasUsed = '0x1'), loadFixture('cronos-6542'));
    expect(problemsOf(cronos)).toBe('not_verifiable');
  });

  it('two receipts with one transactionHash: a conflict naming the second', () => {
    const first = fixture.receipts[1].transactionHash;
    const block = altered((b) => {
      delete b.header.transactions;
      b.receipts[4].transactionHash = first.toUpperCase().replace('0X', '0x');
      for (const l of b.receipts[4].logs) l.transactionHash = b.receipts[4].transactionHash;
    });
    expect(problemsOf(block)).toEqual([
      [
        'receipts[4].transactionHash',
        'conflict',
        `a transaction hash no other receipt of the block has (one transaction has one receipt), got ${block.receipts[4].transactionHash}, which receipts[1].transactionHash has`,
      ],
    ]);
    // Where the block lists its transactions, the list names it, once.
    const listed = altered((b) => (b.receipts[4].transactionHash = first));
    expect(problemsOf(listed)).toContainEqual([
      'receipts[4].transactionHash',
      'conflict',
      expect.stringContaining("the block's transactions[4]"),
    ]);
    expect(pathsOf(listed)).toEqual([
      'receipts[4].transactionHash',
      ...fixture.receipts[4].logs.map((_: Json, i: number) => `receipts[4].logs[${i}].transactionHash`),
    ]);
  });

  it('the same hash without its 0x is the same transaction', () => {
    const first = fixture.receipts[1].transactionHash;
    const block = altered((b) => {
      delete b.header.transactions;
      b.receipts[4].transactionHash = first.slice(2);
      for (const l of b.receipts[4].logs) l.transactionHash = b.receipts[4].transactionHash;
    });
    expect(pathsOf(block)).toEqual(['receipts[4].transactionHash']);
  });

  it("a chain that is not verifiable is not refused for its node's duplicates (Hedera's relay gives them)", () => {
    const cronos = loadFixture('cronos-6542') as Json;
    const block = altered((b) => {
      delete b.header.transactions;
      b.receipts[2].transactionHash = b.receipts[0].transactionHash;
      for (const l of b.receipts[2].logs) l.transactionHash = b.receipts[0].transactionHash;
    }, cronos);
    expect(problemsOf(block)).toBe('not_verifiable');
  });
});

describe("a chain added with its rule set (--add-chain, the service's chains), or a block verified under --rules, is held to what its rule set's nodes restate", () => {
  // Hoodi 411443 gives a receipt's gasUsed and timestamp, mainnet 19433903 its receipts' transactionHash. Relabelled to
  // a devnet added under Ethereum's rules, or verified under --rules ethereum (a chain outside the registry, or none
  // named), each alteration is refused as on its own chain: the caller named the rule set, and real blocks of that rule
  // set show these members (docs/chains.md). Under --rules alone they were not compared (a user check).
  const hoodi = loadFixture('hoodi-411443') as Json;
  const named = loadFixture('mainnet-19433903') as Json;
  const devnet = new ChainRegistry([{ chainId: 99998, name: 'devnet', rules: 'ethereum', verifiable: true }]);
  const alterations: Array<[string, Json, (b: Json) => void, string]> = [
    ['a gasUsed that is not its step', hoodi, (b) => (b.receipts[0].gasUsed = '0x1'), 'receipts[0].gasUsed'],
    ["a receipt timestamp not the header's", hoodi, (b) => (b.receipts[0].timestamp = '0x1'), 'receipts[0].timestamp'],
    [
      'two receipts with one transactionHash',
      named,
      (b) => {
        delete b.header.transactions;
        b.receipts[1].transactionHash = b.receipts[0].transactionHash;
        for (const l of b.receipts[1].logs) l.transactionHash = b.receipts[0].transactionHash;
      },
      'receipts[1].transactionHash',
    ],
  ];

  const named_ = (result: ReturnType<typeof verifyBlock>) =>
    !result.ok && 'problems' in result.error && result.error.problems.map((p) => p.name);

  it.each(alterations)('%s: refused on its own chain, as an added chain and under --rules', (_, base, change, path) => {
    expect(problemsOf(altered(change, base))).not.toBe('identical');
    const relabelled = altered((b) => {
      change(b);
      b.chain_id = 99998;
    }, base);
    const unnamed = altered((b) => {
      change(b);
      delete b.chain_id;
    }, base);
    expect(named_(verifyBlock(relabelled, { registry: devnet }))).toEqual([path]);
    expect(named_(verifyBlock(relabelled, { rules: 'ethereum' }))).toEqual([path]);
    expect(named_(verifyBlock(unnamed, { rules: 'ethereum' }))).toEqual([path]);
  });

  it("every real block whose commitments hold on its own chain gives, relabelled under its rules, what it gives on a chain added with them: identical, but for Gnosis's seal fields, and Bor's state-sync receipt set aside, its place unknown to an added chain's one era", () => {
    /** The verdict, or the invalid parameters named. */
    const outcome = (result: ReturnType<typeof verifyBlock>) =>
      result.ok ? result.value.verdict : named_(result) || result.error.kind;
    const other: string[] = [];
    for (const name of fixtureNames) {
      const block = loadFixture(name) as Json;
      const own = verifyBlock(block);
      if (!own.ok || !commitmentsHold(own.value)) continue;
      const rules = own.value.rules;
      const relabelled = { ...block, chain_id: 99998 };
      const added = new ChainRegistry([{ chainId: 99998, name: 'devnet', rules, verifiable: true }]);
      const ruled = verifyBlock(relabelled, { rules });
      expect(outcome(ruled), name).toEqual(outcome(verifyBlock(relabelled, { registry: added })));
      if (outcome(ruled) !== 'identical') other.push(`${name}: ${String(outcome(ruled))}`);
    }
    expect(other).toEqual([
      'gnosis-0.json: header.auraStep,header.auraSeal',
      'gnosis-10000000.json: header.auraStep,header.auraSeal',
      'gnosis-10226218.json: header.step,header.signature',
      // Bor's state-sync receipt, which no commitment covers, set aside: the root matches with it left out.
      'polygon-pos-10000000.json: not_verifiable',
    ]);
  });
});

describe("a log's transactionHash where neither its receipt nor the header names the transaction (the fixtures' format)", () => {
  // mainnet 19426587 as the fixture keeps it: no receipt or log gives a transactionHash, the header lists none;
  // receipts[0] has two logs, receipts[1] one.
  const compact = loadFixture('mainnet-19426587') as Json;
  const [A, B] = [`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`];
  const noneOther = 'a transaction hash no other receipt of the block has (one transaction has one receipt)';

  it('the real block gives none: identical; its logs naming one transaction a receipt are identical too', () => {
    expect(problemsOf(compact)).toBe('identical');
    const named = altered((b) => {
      b.receipts[0].logs[0].transactionHash = A;
      b.receipts[0].logs[1].transactionHash = A.toUpperCase().replace('0X', '0x');
      b.receipts[1].transactionHash = B;
      b.receipts[1].logs[0].transactionHash = B.slice(2);
    }, compact);
    expect(problemsOf(named)).toBe('identical');
  });

  it.each([
    ['zz', '32-byte hex string (64 hex characters), got non-hex characters'],
    [true, '32-byte hex string (64 hex characters), got boolean true'],
    ['0x12', '32-byte hex string (64 hex characters), got 1 byte'],
  ])('a transactionHash %j is invalid_format, named (was: identical)', (given, expected) => {
    const block = altered((b) => (b.receipts[0].logs[0].transactionHash = given), compact);
    expect(problemsOf(block)).toEqual([['receipts[0].logs[0].transactionHash', 'invalid_format', expected]]);
    expect(proveReceipt(block, 0)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
  });

  it('the logs of one receipt name one transaction: the first given is what the others repeat (was: identical)', () => {
    const block = altered((b) => {
      b.receipts[0].logs[0].transactionHash = A;
      b.receipts[0].logs[1].transactionHash = B;
    }, compact);
    expect(problemsOf(block)).toEqual([
      [
        'receipts[0].logs[1].transactionHash',
        'conflict',
        `${A}, receipts[0].logs[0].transactionHash, the first transaction hash its receipt's logs give (its receipt and the header give none), which it repeats, got ${B}`,
      ],
    ]);
  });

  it('the logs of two receipts name two transactions: the second named (was: identical)', () => {
    const block = altered((b) => {
      b.receipts[0].logs[1].transactionHash = A;
      b.receipts[1].logs[0].transactionHash = A.slice(2).toUpperCase();
    }, compact);
    expect(problemsOf(block)).toEqual([
      [
        'receipts[1].logs[0].transactionHash',
        'conflict',
        `${noneOther}, got ${A.slice(2).toUpperCase()}, which receipts[0].logs[1].transactionHash has`,
      ],
    ]);
  });

  it("a log naming another receipt's transaction, and a receipt naming another receipt's logs', is named (was: identical)", () => {
    const cross = altered((b) => {
      b.receipts[0].transactionHash = A;
      b.receipts[1].logs[0].transactionHash = A;
    }, compact);
    expect(problemsOf(cross)).toEqual([
      [
        'receipts[1].logs[0].transactionHash',
        'conflict',
        `${noneOther}, got ${A}, which receipts[0].transactionHash has`,
      ],
    ]);
    const reverse = altered((b) => {
      b.receipts[0].logs[0].transactionHash = A;
      b.receipts[1].transactionHash = A;
    }, compact);
    expect(problemsOf(reverse)).toEqual([
      [
        'receipts[1].transactionHash',
        'conflict',
        `${noneOther}, got ${A}, which receipts[0].logs[0].transactionHash has`,
      ],
    ]);
  });

  it("a chain that is not verifiable is not refused for its logs' duplicates, as for its receipts'", () => {
    const cronos = altered((b) => {
      for (const r of b.receipts) {
        delete r.transactionHash;
        for (const l of r.logs) delete l.transactionHash;
      }
      delete b.header.transactions;
      const [first, second] = b.receipts.filter((r: Json) => r.logs.length > 0);
      first.logs[0].transactionHash = A;
      second.logs[0].transactionHash = A;
    }, loadFixture('cronos-6542'));
    expect(problemsOf(cronos)).toBe('not_verifiable');
  });
});

describe("a receipt's timestamp (Hoodi's node gives one)", () => {
  const hoodi = loadFixture('hoodi-411443') as Json;
  it("is the header's timestamp on the real block, and another is a conflict naming it", () => {
    expect(problemsOf(hoodi)).toBe('identical');
    expect(problemsOf(altered((b) => (b.receipts[0].timestamp = '0x1'), hoodi))).toEqual([
      [
        'receipts[0].timestamp',
        'conflict',
        `${Number(hoodi.header.timestamp)}, the header's timestamp, which it repeats, got 1`,
      ],
    ]);
  });
});

describe("the header's transactions and transactionCount against the block's receipts", () => {
  const FAKE = `0x${'ab'.repeat(32)}`;
  const genesis = loadFixture('mainnet-0') as Json;
  const mainnet = loadFixture('mainnet-19433903') as Json;
  const hoodi = loadFixture('hoodi-411443') as Json;
  const objects = (b: Json) => (b.header.transactions = b.header.transactions.map((hash: string) => ({ hash })));
  const listed = (n: number, got: number, more = '') =>
    `${n} transactions, one for each of the block's ${n} receipts${more} (a header and receipts of one block), got ${got} transactions`;
  /** The one problem of a block whose header lists `got` transactions beside its `n` receipts. */
  const miscounted = (n: number, got: number, more = '') => [['header.transactions', 'conflict', listed(n, got, more)]];

  it('every real block that lists or counts its transactions lists one for each receipt', () => {
    const real = [...fixtureNames, ...unverifiableNames].map((name) => {
      const block: Json = loadFixture(name);
      return { name, block };
    });
    const withList = real.filter(({ block }) => Array.isArray(block.header.transactions));
    expect(withList.length).toBeGreaterThanOrEqual(30);
    for (const { name, block } of withList) {
      expect(block.header.transactions.length, name).toBe(block.receipts.length);
      if (block.header.transactionCount !== undefined)
        expect(Number(block.header.transactionCount), name).toBe(block.receipts.length);
    }
  });

  it.each([
    [
      'Ethereum genesis, one transaction listed and no receipt',
      genesis,
      (b: Json) => (b.header.transactions = [FAKE]),
      0,
      1,
    ],
    ['mainnet 19433903, a hash appended', mainnet, (b: Json) => b.header.transactions.push(FAKE), 172, 173],
    [
      "mainnet 19433903, the last hash removed (its receipt's transaction listed nowhere)",
      mainnet,
      (b: Json) => b.header.transactions.pop(),
      172,
      171,
    ],
    [
      'mainnet 19433903 as transaction objects, one appended',
      mainnet,
      (b: Json) => {
        objects(b);
        b.header.transactions.push({ hash: FAKE });
      },
      172,
      173,
    ],
    [
      'mainnet 14764013 (receipts without transactionHash), a hash appended',
      loadFixture('mainnet-14764013') as Json,
      (b: Json) => b.header.transactions.push(FAKE),
      19,
      20,
    ],
    [
      'mainnet 14764013, a hash removed',
      loadFixture('mainnet-14764013') as Json,
      (b: Json) => b.header.transactions.pop(),
      19,
      18,
    ],
    [
      'Polygon PoS 2233682, as objects, one appended',
      loadFixture('polygon-pos-2233682') as Json,
      (b: Json) => {
        objects(b);
        b.header.transactions.push({ hash: FAKE });
      },
      5,
      6,
    ],
    ['Hoodi 411443, a hash appended', hoodi, (b: Json) => b.header.transactions.push(FAKE), 1, 2],
  ] as const)('%s: refused, naming header.transactions and both counts', (_, base, change, n, got) => {
    expect(problemsOf(base)).toBe('identical');
    const block = altered(change, base);
    // (On Polygon PoS before Madhugiri the message says too where Bor's state-sync transaction may stand.)
    expect(problemsOf(block)).toEqual([
      [
        'header.transactions',
        'conflict',
        n === 0
          ? // No receipt: said to be missing (a user check read "one for each of the block's 0 receipts").
            `0 transactions, as its receipts are none: a block's transactions are verified with their receipts (eth_getBlockReceipts's result), which this block does not give, got ${got} transactions`
          : expect.stringMatching(
              new RegExp(`^${n} transactions, one for each of the block's ${n} receipts.*, got ${got} transactions$`),
            ),
      ],
    ]);
    // The whole-block reader, which the request builders, prove receipt and lineage read with, refuses it too.
    const problems = new Problems();
    expect(readRpcBlock(block, problems)).toBeUndefined();
    expect(problems.list.map((p) => p.name)).toEqual(['header.transactions']);
    expect(proveReceipt(block, 0)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
  });

  it('the same transactions listed otherwise (objects, upper-case hex, in a list out of order) are the same block', () => {
    expect(problemsOf(altered(objects, mainnet))).toBe('identical');
    expect(problemsOf(altered((b) => b.receipts.reverse(), mainnet))).toBe('identical');
  });

  it('header.transactions that is not a list is named as such', () => {
    expect(problemsOf(altered((b) => (b.header.transactions = '0x1'), hoodi))).toEqual([
      ['header.transactions', 'invalid_format', `an array of the block's transactions (hashes or objects), got "0x1"`],
    ]);
    expect(problemsOf(altered((b) => (b.header.transactions = null), hoodi))).toBe('identical');
  });

  it("Hoodi's transactionCount (Otterscan's) must count the block's receipts: another is refused, naming it", () => {
    expect(hoodi.header.transactionCount).toBe(1);
    for (const count of [1, '0x1', '1', null])
      expect(problemsOf(altered((b) => (b.header.transactionCount = count), hoodi)), String(count)).toBe('identical');
    for (const [count, read] of [
      [2, 2],
      ['0x2', 2],
      [0, 0],
      ['0x0', 0],
    ] as const)
      expect(problemsOf(altered((b) => (b.header.transactionCount = count), hoodi))).toEqual([
        [
          'header.transactionCount',
          'conflict',
          `1 transactions, one for each of the block's 1 receipts (a header and receipts of one block), got ${read}`,
        ],
      ]);
    expect(problemsOf(altered((b) => (b.header.transactionCount = 'two'), hoodi))).toEqual([
      ['header.transactionCount', 'invalid_format', expect.stringContaining('got "two"')],
    ]);
  });

  describe("receipts without transactionHash (the fixtures' format): the list is read and repeated all the same", () => {
    const noHashes = (b: Json) => {
      for (const r of b.receipts) {
        delete r.transactionHash;
        for (const log of r.logs) delete log.transactionHash;
      }
    };
    const early = loadFixture('mainnet-47218') as Json; // 2 transactions
    const withLog = loadFixture('mainnet-1000026') as Json;

    it('each entry must be a 32-byte hash, or an object with one (was: any value passed)', () => {
      for (const [entry, path, got] of [
        ['zz', 'header.transactions[3]', 'got non-hex characters'],
        [null, 'header.transactions[3]', 'got null'],
        [{}, 'header.transactions[3].hash', 'missing'],
        [{ hash: '0x12' }, 'header.transactions[3].hash', 'got 1 byte'],
      ] as const) {
        const block = altered((b) => (noHashes(b), (b.header.transactions[3] = entry)), mainnet);
        const problems = problemsOf(block) as unknown[][];
        expect(problems, JSON.stringify(entry)).toHaveLength(1);
        expect(problems[0]!.slice(0, 1)).toEqual([path]);
        expect(String(problems[0]![2]) + String(problems[0]![1]), JSON.stringify(entry)).toContain(
          got === 'missing' ? 'missing' : got,
        );
        expect(proveReceipt(block, 0)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
      }
    });

    it('no hash is listed twice (was: mainnet 47218 listing its first transaction twice was identical)', () => {
      const first = early.header.transactions[0] as string;
      const block = altered((b) => (noHashes(b), (b.header.transactions = [first, first])), early);
      expect(problemsOf(block)).toEqual([
        [
          'header.transactions[1]',
          'conflict',
          `a transaction hash the block lists once (one transaction is in a block once), got ${first}, which header.transactions[0] has`,
        ],
      ]);
      expect(proveReceipt(block, 0)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    });

    it('a hash listed twice is found in whatever spelling of hex the second copy takes', () => {
      const first = early.header.transactions[0] as string;
      const digits = first.slice(2);
      for (const second of [`0x${digits.toUpperCase()}`, `0X${digits}`, digits, digits.toUpperCase()]) {
        const block = altered((b) => (noHashes(b), (b.header.transactions = [first, second])), early);
        expect(problemsOf(block), second).toEqual([
          [
            'header.transactions[1]',
            'conflict',
            `a transaction hash the block lists once (one transaction is in a block once), got ${second}, which header.transactions[0] has`,
          ],
        ]);
      }
    });

    it("a log's transactionHash must be the hash listed at its transaction's place (was: any hash passed)", () => {
      const place = withLog.receipts.findIndex((r: Json) => r.logs.length > 0); // 1
      const list = [`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`];
      const listedHash = list[place]!;
      const other = `0x${'cc'.repeat(32)}`;
      const listing = (b: Json) => (noHashes(b), (b.header.transactions = list));
      const block = altered((b) => {
        listing(b);
        b.receipts[place].logs[0].transactionHash = other;
      }, withLog);
      expect(problemsOf(block)).toEqual([
        [
          `receipts[${place}].logs[0].transactionHash`,
          'conflict',
          `${listedHash}, the block's transactions[${place}], which it repeats, got ${other}`,
        ],
      ]);
      expect(
        problemsOf(altered((b) => (listing(b), (b.receipts[place].logs[0].transactionHash = listedHash)), withLog)),
      ).toBe('identical');
    });
  });

  it("a listed transaction object's blockHash, blockNumber and transactionIndex repeat the block: another value is refused, naming it (was: identical)", () => {
    const hash = mainnet.header.hash as string;
    const asObjects = (members: (i: number) => Json) => (b: Json) =>
      (b.header.transactions = b.header.transactions.map((h: string, i: number) => ({ hash: h, ...members(i) })));
    const plain = (i: number) => ({
      blockHash: hash,
      blockNumber: mainnet.header.number,
      transactionIndex: `0x${i.toString(16)}`,
    });
    expect(problemsOf(altered(asObjects(plain), mainnet))).toBe('identical');
    expect(
      problemsOf(
        altered(
          asObjects(() => ({ blockHash: null, blockNumber: null, transactionIndex: null })),
          mainnet,
        ),
      ),
    ).toBe('identical');
    const wrong = altered(
      asObjects((i) => ({ blockHash: `0x${'22'.repeat(32)}`, blockNumber: '0x1', transactionIndex: i + 7 })),
      mainnet,
    );
    const problems = problemsOf(wrong) as unknown[][];
    expect(problems.length).toBeGreaterThanOrEqual(3);
    expect(problems.slice(0, 3)).toEqual([
      [
        'header.transactions[0].blockHash',
        'conflict',
        `${hash}, the header's hash, which it repeats, got 0x${'22'.repeat(32)}`,
      ],
      [
        'header.transactions[0].blockNumber',
        'conflict',
        `${BigInt(mainnet.header.number)}, the header's number, which it repeats, got 1`,
      ],
      [
        'header.transactions[0].transactionIndex',
        'conflict',
        "0, its place in the block's list of transactions, which it repeats, got 7",
      ],
    ]);
    expect(proveReceipt(wrong, 0)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
  });

  it("a listed transaction object's chainId names the block's chain: another chain's is refused, naming it (was: a mainnet block relabelled chain 137 was identical)", () => {
    const withChainIds = (ids: (i: number) => unknown) => (b: Json) =>
      (b.header.transactions = b.header.transactions.map((h: string, i: number) => ({ hash: h, chainId: ids(i) })));
    // As a node writes it, by value in any spelling; 0 (or null) is no chain: an unprotected legacy transaction's.
    expect(
      problemsOf(
        altered(
          withChainIds(() => '0x1'),
          mainnet,
        ),
      ),
    ).toBe('identical');
    expect(
      problemsOf(
        altered(
          withChainIds((i) => (i === 0 ? '0x0' : i === 1 ? null : 1)),
          mainnet,
        ),
      ),
    ).toBe('identical');
    // Past the largest chain id a signature can carry (EIP-2294) it names none either: go-ethereum's for a legacy
    // transaction of v 0 (its TestRPCMarshalBlock), as OP Mainnet's pre-Bedrock deposits are (was refused: a re-check).
    for (const none of ['0x7fffffffffffffee', '0x7fffffffffffffef', '0xffffffffffffffff'])
      expect(
        problemsOf(
          altered(
            withChainIds((i) => (i === 3 ? none : '0x1')),
            mainnet,
          ),
        ),
        none,
      ).toBe('identical');
    expect(
      problemsOf(
        altered(
          withChainIds((i) => (i === 3 ? '0x7fffffffffffffdb' : '0x1')),
          mainnet,
        ),
      ),
    ).toEqual([
      [
        'header.transactions[3].chainId',
        'conflict',
        "1, the block's chain_id, which it repeats, got 9223372036854775771",
      ],
    ]);
    // The block relabelled as Polygon PoS's: its transactions still name chain 1.
    const relabelled = altered((b) => {
      withChainIds(() => '0x1')(b);
      b.chain_id = 137;
    }, mainnet);
    expect((problemsOf(relabelled) as unknown[][])[0]).toEqual([
      'header.transactions[0].chainId',
      'conflict',
      "137, the block's chain_id, which it repeats, got 1",
    ]);
    // One transaction of another chain in a chain 1 block.
    const stray = altered(
      withChainIds((i) => (i === 2 ? '0x89' : '0x1')),
      mainnet,
    );
    expect(problemsOf(stray)).toEqual([
      ['header.transactions[2].chainId', 'conflict', "1, the block's chain_id, which it repeats, got 137"],
    ]);
    expect(
      problemsOf(
        altered(
          withChainIds((i) => (i === 0 ? 'one' : '0x1')),
          mainnet,
        ),
      ),
    ).toEqual([['header.transactions[0].chainId', 'invalid_format', expect.stringContaining('"one"')]]);
  });

  describe("Polygon PoS before Madhugiri: Bor's state-sync transaction, listed or not, and its receipt, returned or not", () => {
    const polygon = loadFixture('polygon-pos-10000000') as Json;
    const hashes: string[] = polygon.receipts.map((r: Json) => r.transactionHash);
    const derived = `0x${bytesToHex(borStateSyncTxHash(BigInt(polygon.header.number), hexToBytes(polygon.header.hash)))}`;
    const stateSync = ", or 5 without Bor's state-sync transaction, whose receipt (receipts[5]) is not in the root";

    it('the real block holds the state-sync receipt last, under its derived hash', () => {
      expect(hashes[5]).toBe(derived);
      // Not proven for that receipt, which no commitment covers; every commitment of the others matches.
      expect(verifyBlock(polygon)).toMatchObject({
        ok: true,
        value: { verdict: 'not_verifiable', transaction_count: 5, receipts_root: { matches: true } },
      });
    });

    // Read, not refused: identical without the state-sync receipt, not_verifiable with it (no commitment covers it).
    it.each([
      ['listed with its receipt (Bor from v1.3.2)', 'not_verifiable', (b: Json) => (b.header.transactions = hashes)],
      ['not listed, its receipt returned', 'not_verifiable', (b: Json) => (b.header.transactions = hashes.slice(0, 5))],
      [
        'listed, as objects, its receipt not returned (Bor before v1.3.2)',
        'identical',
        (b: Json) => {
          b.header.transactions = hashes.map((hash) => ({ hash }));
          b.receipts.pop();
        },
      ],
      ['counted or not by transactionCount', 'not_verifiable', (b: Json) => (b.header.transactionCount = '0x5')],
      ['counted by transactionCount', 'not_verifiable', (b: Json) => (b.header.transactionCount = 6)],
    ])('%s: %s', (_, verdict, change) => {
      expect(problemsOf(altered(change, polygon))).toBe(verdict);
    });

    it('any other difference is refused: one more or one less, or another transaction in its place', () => {
      expect(problemsOf(altered((b) => (b.header.transactions = [...hashes, FAKE]), polygon))).toEqual(
        miscounted(6, 7, stateSync),
      );
      expect(problemsOf(altered((b) => (b.header.transactions = hashes.slice(0, 4)), polygon))).toEqual(
        miscounted(6, 4, stateSync),
      );
      expect(problemsOf(altered((b) => (b.header.transactions = [...hashes, derived]), polygon))).toEqual([
        ...miscounted(6, 7, stateSync),
        [
          'header.transactions[6]',
          'conflict',
          `a transaction hash the block lists once (one transaction is in a block once), got ${derived}, which header.transactions[5] has`,
        ],
      ]);
      const fake = altered((b) => {
        b.header.transactions = [...hashes.slice(0, 5), FAKE];
        b.receipts.pop();
      }, polygon);
      expect(problemsOf(fake)).toEqual(
        miscounted(
          5,
          6,
          `, or 6 with Bor's state-sync transaction last (${derived}), whose receipt is not in the root`,
        ),
      );
      expect(problemsOf(altered((b) => (b.header.transactionCount = 7), polygon))).toEqual([
        [
          'header.transactionCount',
          'conflict',
          `6 transactions, one for each of the block's 6 receipts${stateSync} (a header and receipts of one block), got 7`,
        ],
      ]);
    });

    it("a header's list and its transactionCount, and the source's transaction_count, say one number: the list's length (was: each held to the receipts alone)", () => {
      const countOf = (length: number, got: number, path = 'header.transactionCount') => [
        [
          path,
          'conflict',
          `${length}, the length of header.transactions (one block has one number of transactions), got ${got}`,
        ],
      ];
      const unlisted = (b: Json) => (b.header.transactions = hashes.slice(0, 5));
      const listedNoReceipt = (b: Json) => {
        b.header.transactions = hashes;
        b.receipts.pop();
      };
      expect(problemsOf(altered((b) => (unlisted(b), (b.header.transactionCount = 6)), polygon))).toEqual(
        countOf(5, 6),
      );
      expect(problemsOf(altered((b) => (listedNoReceipt(b), (b.header.transactionCount = 5)), polygon))).toEqual(
        countOf(6, 5),
      );
      expect(problemsOf(altered((b) => (unlisted(b), (b.transaction_count = 6)), polygon))).toEqual(
        countOf(5, 6, 'transaction_count'),
      );
      expect(problemsOf(altered((b) => (unlisted(b), (b.transaction_count = 5)), polygon))).toBe('not_verifiable');
      expect(problemsOf(altered((b) => (b.transaction_count = 4), polygon))).toEqual([
        [
          'transaction_count',
          'conflict',
          `6 transactions, one for each of the block's 6 receipts${stateSync} (a header and receipts of one block), got 4`,
        ],
      ]);
    });

    it('after Madhugiri, or on another chain, the derived hash is no transaction left out of a list', () => {
      const ethereum = altered((b) => {
        b.chain_id = 1;
        b.header.transactions = hashes;
        b.receipts.pop();
      }, polygon);
      expect(problemsOf(ethereum)).toContainEqual(['header.transactions', 'conflict', listed(5, 6)]);
    });
  });
});

describe('a header that claims no hash (geth t8n output, or its hash member removed)', () => {
  const base = loadFixture('base-2000000') as Json;
  const OTHER = `0x${'11'.repeat(32)}`;
  const { hash: HASHED, ...unhashed } = base.header;
  const noHash = { ...structuredClone(base), header: unhashed };
  const t8n = {
    ...structuredClone(base),
    header: { receiptsRoot: base.header.receiptsRoot, logsBloom: base.header.logsBloom },
  };
  /** What readRpcBlock refuses of `block`: each problem's path, kind and expected. */
  const refused = (block: Json) => {
    const problems = new Problems();
    const read = readRpcBlock(block, problems);
    return read === undefined ? problems.invalidInput().problems.map((p) => [p.name, p.reason, p.expected]) : [];
  };

  it('the real block, read without its hash or as the commitments alone: nothing refused', () => {
    expect(refused(noHash)).toEqual([]);
    expect(refused(t8n)).toEqual([]);
  });

  it("its header hashable (every field given): a receipt's or a log's blockHash is held to the hash of its fields, which verifyBlock computes (was: not compared, and request | verify receipt-root identical)", () => {
    expect(refused(altered((b) => (b.receipts[0].blockHash = OTHER), noHash))).toEqual([
      [
        'receipts[0].blockHash',
        'conflict',
        `${HASHED}, the hash of the header's fields (it gives no hash), which it repeats, got ${OTHER}`,
      ],
    ]);
    expect(refused(altered((b) => (b.receipts[4].logs[2].blockHash = OTHER), noHash))).toEqual([
      [
        'receipts[4].logs[2].blockHash',
        'conflict',
        `${HASHED}, the hash of the header's fields (it gives no hash), which it repeats, got ${OTHER}`,
      ],
    ]);
    // Every member naming one other block, consistently, is not that block either.
    const allOther = altered((b) => {
      for (const r of b.receipts) {
        r.blockHash = OTHER;
        for (const l of r.logs) l.blockHash = OTHER;
      }
    }, noHash);
    expect(refused(allOther)[0]).toEqual([
      'receipts[0].blockHash',
      'conflict',
      `${HASHED}, the hash of the header's fields (it gives no hash), which it repeats, got ${OTHER}`,
    ]);
  });

  it('its header not hashable (the commitments alone): the receipts and logs must name one block, the first given the reference (was: a receipt of block 1 among those of 2000000 passed)', () => {
    const mixed = altered((b) => {
      b.receipts[3].blockHash = OTHER;
      b.receipts[3].blockNumber = '0x1';
      for (const l of b.receipts[3].logs) Object.assign(l, { blockHash: OTHER, blockNumber: '0x1' });
    }, t8n);
    const problems = refused(mixed);
    expect(problems.slice(0, 2)).toEqual([
      [
        'receipts[3].blockHash',
        'conflict',
        `${HASHED}, receipts[0].blockHash, the first block hash the block's members give (its header gives none), which it repeats, got ${OTHER}`,
      ],
      [
        'receipts[3].blockNumber',
        'conflict',
        "2000000, receipts[0].blockNumber, the first block number the block's members give (its header gives none), which it repeats, got 1",
      ],
    ]);
    // The first receipt other: the rest are named against it.
    const first = altered((b) => (b.receipts[0].blockHash = OTHER), t8n);
    expect(refused(first)[0]).toEqual([
      'receipts[1].blockHash',
      'conflict',
      `${OTHER}, receipts[0].blockHash, the first block hash the block's members give (its header gives none), which it repeats, got ${HASHED}`,
    ]);
  });
});
