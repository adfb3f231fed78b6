/**
 * A JSON-RPC block's member given beside another spelling of its name (case, `_` and `-` aside) is two claims of one
 * member: the reader read one and ignored the other, so a block could pass over a claim that contradicts it. Without
 * the member, that spelling is a claim the reader passed over. Either is refused at its path, by the rule a request
 * body's members follow (json-values.ts), whichever reader reads the block; members that spell no member the reader
 * reads, near-misses by edits among them, and a header field's aliases, are read as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import { loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';
import { SecondSpellings } from '../packages/core/src/input/values/second-spellings.js';

type Json = Record<string, any>;
const mainnet = loadFixture('mainnet-22869878') as Json;
/** A block as a node gives it: its receipts and logs repeat the block (logIndex, blockHash, …). */
const op = loadFixture('op-mainnet-154497277') as Json;

function altered(base: Json, change: (block: Json) => void): Json {
  const block = structuredClone(base);
  change(block);
  return block;
}

/** The problems of `block` as verifyBlock names them (the streamed reader first), and readRpcBlock's. */
function problemsOf(block: Json): { verify: unknown; read: unknown } {
  const result = verifyBlock(block);
  const verify = result.ok
    ? result.value.verdict
    : 'problems' in result.error
      ? result.error.problems.map((p) => [p.name, p.reason, p.expected])
      : result.error;
  const problems = new Problems();
  const read =
    readRpcBlock(block, problems) === undefined ? problems.list.map((p) => [p.name, p.reason, p.expected]) : 'read';
  return { verify, read };
}

const twice = (member: string, known: string) =>
  `one spelling of each member: "${member}" is "${known}" spelled another way, and "${known}" is given too; give one`;
const didYouMean = (member: string, known: string) =>
  `a known member name; "${member}" is not one: did you mean "${known}"?`;

describe("a JSON-RPC block's member given in two spellings", () => {
  const first = mainnet.receipts.findIndex((r: Json) => r.logs.length > 0);
  const opFirst = op.receipts.findIndex((r: Json) => r.logs.length > 0);
  it.each([
    ['chainId', 'chain_id', mainnet, (b: Json) => (b.chainId = 10)],
    ['header.ReceiptsRoot', 'receiptsRoot', mainnet, (b: Json) => (b.header.ReceiptsRoot = `0x${'11'.repeat(32)}`)],
    ['header.base_fee_per_gas', 'baseFeePerGas', mainnet, (b: Json) => (b.header.base_fee_per_gas = '0x1')],
    ['receipts[3].Status', 'status', mainnet, (b: Json) => (b.receipts[3].Status = '0x0')],
    [
      'receipts[3].cumulative-gas-used',
      'cumulativeGasUsed',
      mainnet,
      (b: Json) => (b.receipts[3]['cumulative-gas-used'] = '0x1'),
    ],
    [`receipts[${first}].logs[0].Data`, 'data', mainnet, (b: Json) => (b.receipts[first].logs[0].Data = '0x00')],
    [
      `receipts[${opFirst}].logs[0].log_index`,
      'logIndex',
      op,
      (b: Json) => (b.receipts[opFirst].logs[0].log_index = '0x7'),
    ],
    [
      `receipts[${opFirst}].TransactionHash`,
      'transactionHash',
      op,
      (b: Json) => (b.receipts[opFirst].TransactionHash = `0x${'22'.repeat(32)}`),
    ],
  ])('%s beside %s is refused at its path, by both readers', (path, known, base, change) => {
    const member = path.slice(path.lastIndexOf('.') + 1);
    const expected = [[path, 'invalid_format', twice(member, known)]];
    expect(problemsOf(altered(base, change))).toEqual({ verify: expected, read: expected });
  });

  it('is refused beside the member even where that member is null, as in a request body', () => {
    const block = altered(mainnet, (b) => {
      b.receipts[3].logsBloom = null;
      b.receipts[3].logs_bloom = `0x${'00'.repeat(256)}`;
    });
    const expected = [['receipts[3].logs_bloom', 'invalid_format', twice('logs_bloom', 'logsBloom')]];
    expect(problemsOf(block)).toEqual({ verify: expected, read: expected });
  });

  it("a member that spells none the reader reads, and a header field's alias, are read as before", () => {
    const block = altered(op, (b) => {
      b.extra = 1;
      b.header.prevRandao = b.header.mixHash;
      b.header.totalDifficulty = '0x0';
      b.receipts[opFirst].effective_gas_price = '0x1';
      b.receipts[opFirst].logs[0].Extra = true;
    });
    expect(problemsOf(block)).toEqual({ verify: 'identical', read: 'read' });
    expect(problemsOf(mainnet)).toEqual({ verify: 'identical', read: 'read' });
  });

  it.each([
    ['arbitrum-one-150000000', 'identical'],
    ['hoodi-411443', 'identical'],
    ['gnosis-10226218', 'identical'],
    // Bor's state-sync receipt, which no commitment covers.
    ['polygon-pos-10000000', 'not_verifiable'],
    ['base-goerli-12399126', 'identical'],
  ])(
    "%s, with every member its node gave (Nitro's, Nethermind's AuRa seal, OP's fees), is read as before (%s)",
    (name, verify) => {
      expect(problemsOf(loadFixture(name) as Json)).toEqual({ verify, read: 'read' });
    },
  );
});

describe("a JSON-RPC block's member spelled another way, without the member", () => {
  // A user check: `"Removed": true` in a log without `removed`, a receipt's `block_hash` of another block without
  // `blockHash`, and a top-level `rawReceipts` without `raw_receipts` were ignored (identical, exit 0) where a request
  // body's `Status` without `status` is a 400 "did you mean": the claim they make was passed over unread.
  const cancun = loadFixture('mainnet-19426587') as Json;
  const first = mainnet.receipts.findIndex((r: Json) => r.logs.length > 0);

  it.each([
    ['rawReceipts', 'raw_receipts', mainnet, (b: Json) => (b.rawReceipts = ['0x00'])],
    ['header.seal_fields', 'sealFields', mainnet, (b: Json) => (b.header.seal_fields = [])],
    ['receipts[1].block_hash', 'blockHash', mainnet, (b: Json) => (b.receipts[1].block_hash = `0x${'11'.repeat(32)}`)],
    [
      'receipts[0].Logs-Bloom',
      'logsBloom',
      mainnet,
      (b: Json) => (b.receipts[0]['Logs-Bloom'] = `0x${'ff'.repeat(256)}`),
    ],
    [`receipts[${first}].logs[0].Removed`, 'removed', mainnet, (b: Json) => (b.receipts[first].logs[0].Removed = true)],
    // A user check: the members read since (a log's `type` and `transactionLogIndex`), spelled another way, were
    // passed over (identical, exit 0) where the member itself is refused.
    [`receipts[${first}].logs[0].Type`, 'type', mainnet, (b: Json) => (b.receipts[first].logs[0].Type = 'pending')],
    [
      `receipts[${first}].logs[0].transaction_log_index`,
      'transactionLogIndex',
      mainnet,
      (b: Json) => (b.receipts[first].logs[0].transaction_log_index = '0x7'),
    ],
  ])("%s without %s is refused at its path, by both readers, as a request body's is", (path, known, base, change) => {
    const member = path.slice(path.lastIndexOf('.') + 1);
    const expected = [[path, 'invalid_format', didYouMean(member, known)]];
    expect(problemsOf(altered(base, change))).toEqual({ verify: expected, read: expected });
  });

  it('the four of the user check (lone-spellings.json) are each named, in the order the reader meets them', () => {
    const block = altered(cancun, (b) => {
      b.receipts[0].logs_bloom = `0x${'ff'.repeat(256)}`;
      b.receipts[1].block_hash = `0x${'11'.repeat(32)}`;
      b.receipts[1].logs[0].Removed = true;
      b.rawReceipts = ['0x00'];
    });
    const expected = [
      ['rawReceipts', 'invalid_format', didYouMean('rawReceipts', 'raw_receipts')],
      ['receipts[0].logs_bloom', 'invalid_format', didYouMean('logs_bloom', 'logsBloom')],
      ['receipts[1].block_hash', 'invalid_format', didYouMean('block_hash', 'blockHash')],
      ['receipts[1].logs[0].Removed', 'invalid_format', didYouMean('Removed', 'removed')],
    ];
    expect(problemsOf(block)).toEqual({ verify: expected, read: expected });
  });

  it("a listed transaction object's `block_hash` without `blockHash` is refused at its path", () => {
    const block = altered(mainnet, (b) => {
      b.header.transactions = b.receipts.map((r: Json, i: number) => ({
        hash: r.transactionHash ?? `0x${(i + 1).toString(16).padStart(64, '0')}`,
        ...(i === 2 && { block_hash: `0x${'11'.repeat(32)}` }),
      }));
    });
    expect(problemsOf(block).verify).toEqual([
      ['header.transactions[2].block_hash', 'invalid_format', didYouMean('block_hash', 'blockHash')],
    ]);
  });
});

describe("SecondSpellings' shortcut over the shapes it has seen", () => {
  // The shortcut compares an object's names with the last shapes found plain, and keeps names that spell no known
  // member: in any sequence of objects it must say what looking at each object alone says, a known member spelled
  // another way refused beside the member and without it alike, and a near-miss by edits (`statue`) not refused.
  const KNOWN = ['status', 'logs', 'transactionHash', 'cumulativeGasUsed'];
  const NAMES = [
    ...KNOWN,
    'Status',
    'transaction_hash',
    'cumulative-gas-used',
    'blobGasUsed',
    'blobGasPrice',
    'extra',
    'LOGS',
    'statue',
  ];
  /** The rule written out: the same name but for case, `_` and `-`. */
  const same = (a: string, b: string) => a.toLowerCase().replace(/[_-]/g, '') === b.toLowerCase().replace(/[_-]/g, '');
  const objectArb = fc
    .uniqueArray(fc.constantFrom(...NAMES), { maxLength: NAMES.length })
    .map((names) => Object.fromEntries(names.map((name) => [name, 1])));

  it('says of each object of a sequence what a check of that object alone says', () => {
    fc.assert(
      fc.property(fc.array(objectArb, { maxLength: 40 }), (objects) => {
        const spellings = new SecondSpellings(KNOWN);
        for (const obj of objects) {
          const alone = Object.keys(obj).every(
            (member) => KNOWN.includes(member) || !KNOWN.some((k) => same(k, member)),
          );
          expect(spellings.none(obj)).toBe(alone);
          const problems = new Problems();
          spellings.check(obj, 'r', problems);
          expect(problems.count === 0).toBe(alone);
        }
      }),
      { numRuns: runs(300) },
    );
  });
});

describe("a header's listed transaction objects", () => {
  // A node that lists its transactions whole (eth_getBlockByNumber with true) gives each as an object, whose `hash` the
  // receipts' transactionHash is held to: a second spelling beside it is two claims of the transaction's hash.
  const withObjects = (extra: (i: number) => Json = () => ({})) =>
    altered(mainnet, (block) => {
      block.header.transactions = block.receipts.map((r: Json, i: number) => ({
        hash: r.transactionHash ?? `0x${(i + 1).toString(16).padStart(64, '0')}`,
        blockHash: block.header.hash,
        blockNumber: block.header.number,
        transactionIndex: `0x${i.toString(16)}`,
        from: `0x${'11'.repeat(20)}`,
        input: '0x',
        chainId: '0x1',
        ...extra(i),
      }));
    });

  it('read whole as a node gives them: identical', () => {
    expect(problemsOf(withObjects()).verify).toBe('identical');
  });

  it('`Type` beside `type`, or alone, is refused at its path (a user check: passed over, identical)', () => {
    const beside = withObjects((i) => (i === 2 ? { type: mainnet.receipts[2].type, Type: '0x0' } : {}));
    expect(problemsOf(beside).verify).toEqual([
      ['header.transactions[2].Type', 'invalid_format', twice('Type', 'type')],
    ]);
    const alone = withObjects((i) => (i === 2 ? { TYPE: '0x7e' } : {}));
    expect(problemsOf(alone).verify).toEqual([
      ['header.transactions[2].TYPE', 'invalid_format', didYouMean('TYPE', 'type')],
    ]);
  });

  it('`Hash` beside `hash` is refused at its path', () => {
    const block = withObjects((i) => (i === 2 ? { Hash: `0x${'22'.repeat(32)}` } : {}));
    expect(problemsOf(block).verify).toEqual([
      [
        'header.transactions[2].Hash',
        'invalid_format',
        'one spelling of each member: "Hash" is "hash" spelled another way, and "hash" is given too; give one',
      ],
    ]);
  });
});
