/**
 * A header carries exactly the fork fields of its block's fork, by its chain's own schedule: a field its fork does not
 * have is invalid input naming the field and the fork (a devnet's Prague block relabelled as mainnet block 54 was
 * identical), and one it has that the header lacks is missing. Every real block of a chain with a schedule agrees
 * with it.
 */
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_CHAINS,
  ChainRegistry,
  encodeHeader,
  Problems,
  readRpcBlock,
  verifyBlock,
  type ForkActivation,
} from '../packages/core/src/index.js';
import { receiptRootBody, verifyReceiptRootOperation } from '../packages/core/src/api/index.js';
import { HEADER_FIELDS } from '../packages/core/src/header/header-fields.js';
import { scheduledFields } from '../packages/core/src/chains/fork-schedule.js';
import { HEADER_LAYOUTS } from '../packages/core/src/header/layouts.js';
import { defaultRegistry } from '../packages/core/src/chains/registry.js';
import { fixtureNames, headerNames, HIVE_CHAIN_ID, loadFixture, type FixtureBlock } from './helpers/fixtures.js';

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** The block with its chain id and header members replaced (undefined drops a member). */
function relabel(block: FixtureBlock, chainId: number, header: Record<string, string | undefined>): unknown {
  const merged = Object.fromEntries(
    Object.entries({ ...block.header, ...header }).filter(([, value]) => value !== undefined),
  );
  return { ...block, chain_id: chainId, header: merged };
}

/** The problems a block is refused with, or [] when it is verified. */
function problemsOf(block: unknown) {
  const result = verifyBlock(block);
  if (result.ok) return [];
  if (result.error.kind !== 'invalid') throw new Error(JSON.stringify(result.error));
  return result.error.problems;
}

describe("mainnet's fork schedule", () => {
  it("a devnet block with Prague's fields relabelled as mainnet block 54 is refused, naming each field and its fork (was: identical)", () => {
    const problems = problemsOf(relabel(loadFixture('hive-generated-54'), 1, {}));
    expect(problems.map((p) => [p.name, p.reason])).toEqual([
      ['header.baseFeePerGas', 'conflict'],
      ['header.withdrawalsRoot', 'conflict'],
      ['header.blobGasUsed', 'conflict'],
      ['header.excessBlobGas', 'conflict'],
      ['header.parentBeaconBlockRoot', 'conflict'],
      ['header.requestsHash', 'conflict'],
    ]);
    expect(problems[0]!.expected).toBe(
      'absent: Ethereum Mainnet block 54 is in Frontier, which has no baseFeePerGas (London, from block 12,965,000)',
    );
    expect(problems[5]!.expected).toBe(
      'absent: Ethereum Mainnet block 54 is in Frontier, which has no requestsHash (Prague, from timestamp 1746612311)',
    );
  });

  it("the same block as Holesky, Sepolia, Hoodi and OP Mainnet block 54: refused by each chain's own schedule", () => {
    const block = loadFixture('hive-generated-54');
    const time = Number(block.header.timestamp);
    expect(problemsOf(relabel(block, 560048, {})).map((p) => p.expected)).toEqual([
      `absent: Hoodi block 54 is in Cancun, which has no requestsHash (Prague, from timestamp 1742999832)`,
    ]);
    expect(time).toBeLessThan(1_742_999_832);
    expect(problemsOf(relabel(block, 17000, {}))[0]!.expected).toBe(
      'absent: Holesky block 54 is in Paris, which has no withdrawalsRoot (Shanghai, from timestamp 1696000704)',
    );
    expect(problemsOf(relabel(block, 11155111, {}))[0]!.expected).toBe(
      'absent: Sepolia block 54 is in London, which has no withdrawalsRoot (Shanghai, from timestamp 1677557088)',
    );
    expect(problemsOf(relabel(block, 10, {}))[0]!.expected).toBe(
      'absent: OP Mainnet block 54 is in legacy (l2geth), which has no baseFeePerGas (Bedrock, from block 105,235,063)',
    );
  });

  it('a block whose number and timestamp disagree is in one fork for every field: Base block 2,000,000 as mainnet is in the DAO fork', () => {
    // Before London by its number, past Shanghai by its timestamp: no field is due by the timestamp alone (withdrawalsRoot
    // was "expected present: … is in Shanghai" beside "baseFeePerGas: expected absent: … is in DAO fork").
    // Its deposit receipts are no type of mainnet's either: the header's problems are the ones asked about.
    const problems = problemsOf(relabel(loadFixture('base-2000000'), 1, {})).filter((p) =>
      p.name.startsWith('header.'),
    );
    expect(problems.map((p) => [p.name, p.reason, p.expected])).toEqual([
      [
        'header.baseFeePerGas',
        'conflict',
        'absent: Ethereum Mainnet block 2000000 is in DAO fork, which has no baseFeePerGas (London, from block 12,965,000)',
      ],
    ]);
  });

  it('a block whose number is before a fork and whose timestamp is past later ones is named in the earlier fork (was: Isthmus)', () => {
    // Mainnet block 22,869,878 (2025) as OP Mainnet: before Bedrock by its number, past Isthmus by its timestamp.
    expect(problemsOf(relabel(loadFixture('mainnet-22869878'), 10, {}))[0]!.expected).toBe(
      'absent: OP Mainnet block 22869878 is in legacy (l2geth), which has no baseFeePerGas (Bedrock, from block 105,235,063)',
    );
  });

  // The first real block of each fork that appended fields, and where the fork activates.
  const boundaries: Array<[string, string, string, { number?: number; timestamp?: number }]> = [
    ['London', 'mainnet-14764013', 'baseFeePerGas', { number: 12_965_000 }],
    ['Shanghai', 'mainnet-17034870', 'withdrawalsRoot', { timestamp: 1_681_338_455 }],
    ['Cancun', 'mainnet-19426587', 'parentBeaconBlockRoot', { timestamp: 1_710_338_135 }],
    ['Prague', 'mainnet-22431084', 'requestsHash', { timestamp: 1_746_612_311 }],
  ];

  it.each(boundaries)(
    '%s: its field one block or second before activation is refused naming the fork; at activation it is not',
    (fork, fixture, field, at) => {
      const block = loadFixture(fixture);
      const before = at.number === undefined ? { timestamp: hex(at.timestamp! - 1) } : { number: hex(at.number - 1) };
      const atActivation = at.number === undefined ? { timestamp: hex(at.timestamp!) } : { number: hex(at.number) };
      const refused = problemsOf(relabel(block, 1, before)).find((p) => p.name === `header.${field}`);
      expect(refused?.reason).toBe('conflict');
      expect(refused?.expected).toContain(`which has no ${field} (${fork}, from `);
      const result = verifyBlock(relabel(block, 1, atActivation));
      expect(result.ok).toBe(true);
      // At activation, the same header without the field lost it.
      const lost = problemsOf(relabel(block, 1, { ...atActivation, [field]: undefined }));
      expect(lost.map((p) => [p.name, p.reason])).toContainEqual([`header.${field}`, 'missing']);
      expect(lost.find((p) => p.name === `header.${field}`)!.expected).toContain(`is in ${fork} (from `);
    },
  );

  it("a header without baseFeePerGas at London's first block lost it (was: not verifiable, no real block between)", () => {
    const block = loadFixture('mainnet-14764013');
    const problems = problemsOf(relabel(block, 1, { number: hex(12_965_000), baseFeePerGas: undefined }));
    expect(problems).toEqual([
      {
        name: 'header.baseFeePerGas',
        location: 'body',
        reason: 'missing',
        expected: 'present: Ethereum Mainnet block 12965000 is in London (from block 12,965,000), which has it',
      },
    ]);
  });

  it('the real first blocks of Cancun and Prague, at their activation second, are identical', () => {
    for (const name of ['mainnet-19426587', 'mainnet-22431084'])
      expect(verifyBlock(loadFixture(name))).toMatchObject({ ok: true, value: { verdict: 'identical' } });
  });
});

describe('a receipt-root body with header_rlp', () => {
  const hive = loadFixture('hive-generated-54');
  const block = readRpcBlock({ ...hive, chain_id: null }, new Problems())!;
  const body = (chainId: number) =>
    receiptRootBody({
      chainId,
      receiptRoot: block.header.complete!.receiptsRoot,
      receipts: block.receipts,
      headerRlp: encodeHeader(block.header.complete!),
    });

  it("the devnet's Prague header as mainnet block 54: 400 naming header_rlp and the fork (was: 200, identical)", () => {
    const answer = verifyReceiptRootOperation(body(1));
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(
      'a header without requestsHash: Ethereum Mainnet block 54 is in Frontier, which has no requestsHash (Prague, from timestamp 1746612311)',
    );
  });

  it("a header without a field its block's fork has (mainnet block 3,000,026 as Base): 400 naming header_rlp and the fork, as verify block refuses it (was: 200, identical)", () => {
    const mainnet = readRpcBlock(loadFixture('mainnet-3000026'), new Problems())!;
    const answer = verifyReceiptRootOperation(
      receiptRootBody({
        chainId: 8453,
        receiptRoot: mainnet.header.complete!.receiptsRoot,
        receipts: mainnet.receipts,
        blockNumber: 3_000_026,
        headerRlp: encodeHeader(mainnet.header.complete!),
      }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(
      'a header with baseFeePerGas: Base block 3000026 is in Bedrock (from block 0), which has it',
    );
    expect(problemsOf(relabel(loadFixture('mainnet-3000026'), 8453, {})).map((p) => p.expected)).toContain(
      'present: Base block 3000026 is in Bedrock (from block 0), which has it',
    );
  });

  it('the same header of a chain without a schedule is verified as before', () => {
    const registry = new ChainRegistry([{ chainId: HIVE_CHAIN_ID, name: 'hive', rules: 'ethereum', verifiable: true }]);
    const answer = verifyReceiptRootOperation(body(HIVE_CHAIN_ID), { registry });
    expect(answer.status).toBe(200);
  });
});

describe('each built-in schedule', () => {
  const scheduled = BUILTIN_CHAINS.filter((chain) => chain.forks !== undefined);

  it.each(scheduled.map((chain) => [chain.name, chain.forks!] as const))(
    '%s: starts at genesis, in activation order, each header fork appended once',
    (_, forks: readonly ForkActivation[]) => {
      expect(forks[0]!.block).toBe(0);
      const blocks = forks.filter((f) => f.block !== undefined).map((f) => f.block);
      const times = forks.filter((f) => f.timestamp !== undefined).map((f) => f.timestamp);
      expect(blocks).toEqual([...blocks].sort((a, b) => a - b));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // Block-numbered forks come before timestamped ones.
      expect(forks.findIndex((f) => f.timestamp !== undefined)).toBeGreaterThanOrEqual(blocks.length);
      const appended = forks.map((f) => f.appends ?? f.fork);
      for (const fork of new Set(HEADER_FIELDS.flatMap((f) => (f.fork === undefined ? [] : [f.fork]))))
        expect(appended.filter((name) => name === fork).length).toBeLessThanOrEqual(1);
    },
  );

  const real = [...fixtureNames, ...headerNames]
    .map((name) => loadFixture(name))
    .filter((block) => block.real && scheduled.some((chain) => chain.chainId === block.chain_id));

  it.each(real.map((block) => [block.id, block] as const))(
    "%s has exactly the fork fields its chain's schedule gives its block",
    (_, block: FixtureBlock) => {
      const chain = scheduled.find((c) => c.chainId === block.chain_id)!;
      const number = BigInt(block.header.number!);
      const verifiability = defaultRegistry.verifiability(chain.chainId, number);
      const layout = verifiability.status === 'verifiable' ? verifiability.header : HEADER_LAYOUTS.ethereum;
      const fields = scheduledFields(layout, chain.forks!, { number, timestamp: BigInt(block.header.timestamp!) });
      for (const { field, due } of fields) expect([field, block.header[field] != null]).toEqual([field, due]);
    },
  );

  it('covers real blocks of mainnet, Holesky, Hoodi, OP Mainnet, Base, Base Sepolia and Celo', () => {
    expect(new Set(real.map((b) => b.chain_id))).toEqual(new Set([1, 17000, 560048, 10, 8453, 84532, 42220]));
  });
});
