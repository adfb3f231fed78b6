import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  encodeHeader,
  headerHash,
  Problems,
  readRpcBlock,
  receiptsRoot,
  RULE_SETS,
} from '../packages/core/src/index.js';
import {
  receiptRootBody,
  verifyLogsBloomOperation,
  verifyReceiptRootOperation,
  type OperationResult,
  verifyBlockOperation,
  verifyBlockText,
} from '../packages/core/src/api/index.js';
import { ANCHOR_BODY } from '../packages/core/src/input/requests/anchor-request.js';
import { loadFixture } from './helpers/fixtures.js';
import { TEST_CHAINS, testRegistry } from './helpers/test-chains.js';

const EMPTY_ROOT = '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const ADDRESS = 'aa'.repeat(20);
const TOPIC = 'bb'.repeat(32);

const tx = (over: Record<string, unknown> = {}) => ({
  index: 0,
  status: 1,
  cumulative_gas_used: 21000,
  logs: [],
  ...over,
});
const body = (over: Record<string, unknown> = {}) => ({
  chain_id: 1,
  receipt_root: EMPTY_ROOT,
  transactions: [],
  ...over,
});
/** A block of every built-in chain's current era (chains with eras need the block number). */
const CURRENT_ERA = { block_number: 200_000_000 };
/**
 * A body whose root differs from the one sent, and nothing it left out may explain: its block's number and its
 * receipts' types are given (without them, a root that differs is asked about, not answered).
 */
const decided = (over: Record<string, unknown> = {}) =>
  body({
    ...CURRENT_ERA,
    ...over,
    transactions: ((over.transactions ?? []) as Array<Record<string, unknown>>).map((t) => ({ type: 0, ...t })),
  });

function problems(result: OperationResult) {
  expect(result.status).toBe(400);
  expect(result.verdict).toBe('invalid');
  const error = (result.body as any).error;
  expect(error).toMatchObject({ code: 'BAD_REQUEST', http_status: 400, retryable: false, severity: 'error' });
  expect(error.docs_url).toMatch(/^http.*\/docs#error-bad_request$/);
  return error.details.invalid_parameters as Array<{
    name: string;
    location: string;
    reason: string;
    expected: string;
  }>;
}

/** The single problem a body yields. */
function only(result: OperationResult) {
  const list = problems(result);
  expect(list).toHaveLength(1);
  expect(list[0]!.location).toBe('body');
  return list[0]!;
}

describe('receipt-root body: the body itself', () => {
  it.each([[[]], [null], ['text'], [42]])('%j is not an object', (value) => {
    expect(only(verifyReceiptRootOperation(value))).toMatchObject({ name: 'body', reason: 'invalid_format' });
  });

  it('an empty block verifies against the empty trie root', () => {
    const result = verifyReceiptRootOperation(body());
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      chain_id: 1,
      data: [
        {
          block_number: null,
          block_hash: null,
          parent_block_hash: null,
          receipt_root: EMPTY_ROOT,
          computed_receipt_root: EMPTY_ROOT,
          is_identical: true,
          header_verified: null,
          computed_logs_bloom: '00'.repeat(256),
          logs_bloom_matches_header: null,
          transaction_count: 0,
          excluded_receipts: [],
        },
      ],
      cursor: null,
      count: 1,
    });
  });

  it('unknown members are ignored; limit and cursor are accepted', () => {
    expect(verifyReceiptRootOperation(body({ foo: 1, limit: 10, cursor: null })).status).toBe(200);
  });

  it('a misspelt known member is reported, not guessed at', () => {
    const { receipt_root: _root, ...rest } = body();
    const list = problems(verifyReceiptRootOperation({ ...rest, recipt_root: EMPTY_ROOT }));
    expect(list).toContainEqual(
      expect.objectContaining({
        name: 'recipt_root',
        reason: 'invalid_format',
        expected: expect.stringContaining('did you mean "receipt_root"'),
      }),
    );
    expect(list).toContainEqual(expect.objectContaining({ name: 'receipt_root', reason: 'missing' }));
  });

  it('a known member given in a second spelling beside it is reported, neither read', () => {
    const other = 'ff'.repeat(32);
    const list = problems(
      verifyReceiptRootOperation(
        body({ ...CURRENT_ERA, receiptRoot: other, transactions: [tx({ cumulativeGasUsed: 1 })] }),
      ),
    );
    expect(list.map((p) => [p.name, p.reason])).toEqual([
      ['receiptRoot', 'invalid_format'],
      ['transactions[0].cumulativeGasUsed', 'invalid_format'],
    ]);
    expect(list[0]!.expected).toBe(
      'one spelling of each member: "receiptRoot" is "receipt_root" spelled another way, and "receipt_root" is given too; give one',
    );
  });

  it('a near-miss beside the member it resembles is an extra member, ignored', () => {
    expect(verifyReceiptRootOperation(body({ recipt_root: 'ff'.repeat(32) })).status).toBe(200);
  });

  it('camelCase from JSON-RPC habits is caught too', () => {
    const list = problems(
      verifyReceiptRootOperation(body({ transactions: [{ index: 0, status: 1, cumulativeGasUsed: 1, logs: [] }] })),
    );
    expect(list).toContainEqual(
      expect.objectContaining({
        name: 'transactions[0].cumulativeGasUsed',
        expected: expect.stringContaining('cumulative_gas_used'),
      }),
    );
  });
});

describe('receipt-root body: chain_id', () => {
  it('missing', () => {
    const { chain_id: _c, ...rest } = body();
    expect(only(verifyReceiptRootOperation(rest))).toMatchObject({ name: 'chain_id', reason: 'missing' });
  });
  it('a string', () =>
    expect(only(verifyReceiptRootOperation(body({ chain_id: '1' })))).toMatchObject({
      name: 'chain_id',
      reason: 'invalid_format',
    }));
  it('negative', () =>
    expect(only(verifyReceiptRootOperation(body({ chain_id: -1 })))).toMatchObject({
      name: 'chain_id',
      reason: 'out_of_range',
    }));

  it.each([
    ['chain_id', '{"chain_id":9007199254740993,"receipt_root":"%R","transactions":[]}'],
    [
      'block_number',
      '{"chain_id":1,"block_number":100000000000000000000000000001,"receipt_root":"%R","transactions":[]}',
    ],
    [
      'block_number',
      '{"chain_id":1,"block_number":-100000000000000000000000000001,"receipt_root":"%R","transactions":[]}',
    ],
    [
      'transactions[0].cumulative_gas_used',
      '{"chain_id":1,"receipt_root":"%R","transactions":[{"index":0,"status":1,"cumulative_gas_used":100000000000000000000000000001}]}',
    ],
    ['chain_id', '{"chain_id":1e400,"receipt_root":"%R","transactions":[]}'],
    [
      'transactions[0].cumulative_gas_used',
      '{"chain_id":1,"receipt_root":"%R","transactions":[{"index":0,"status":1,"cumulative_gas_used":1e400}]}',
    ],
  ])('%s beyond 2^53-1 as a JSON number: refused saying so, never quoting the rounded value', (name, text) => {
    const problem = only(verifyReceiptRootOperation(JSON.parse(text.replace('%R', EMPTY_ROOT))));
    expect(problem).toMatchObject({ name, reason: 'out_of_range' });
    expect(problem.expected).toMatch(/got a number (beyond |below -\()2\^53-1\)?$/);
    expect(problem.expected).not.toMatch(/9007199254740992|e\+29/);
  });

  // A user check: `verify block` of a file that was one number of 70,000 digits said "got number Infinity".
  it.each([
    ['a number of 70,001 digits', '1' + '0'.repeat(70_000), 'a number beyond 2^53-1'],
    ['-1e400', '-1e400', 'a number below -(2^53-1)'],
    ['2^53+1', '9007199254740993', 'a number beyond 2^53-1'],
    ['a header of 1e400', '{"chain_id":1,"header":1e400,"receipts":[]}', 'a number beyond 2^53-1'],
  ])('a block body holding %s where an object is expected: named by how far it is', (_, text, got) => {
    const result = verifyBlockText(text);
    expect(result.ok).toBe(false);
    const problem = !result.ok && result.error.kind === 'invalid' ? result.error.problems[0]! : undefined;
    expect(problem?.reason).toBe('invalid_format');
    expect(problem?.expected.endsWith(`, got ${got}`)).toBe(true);
    expect(problem?.expected).not.toMatch(/Infinity|9007199254740992/);
  });
  it('a receipt-root body whose transactions are a number beyond the doubles: named by how far it is', () => {
    const text = `{"chain_id":1,"receipt_root":"${EMPTY_ROOT}","transactions":1e400}`;
    const problem = only(verifyReceiptRootOperation(JSON.parse(text)));
    expect(problem).toMatchObject({ name: 'transactions', reason: 'invalid_format' });
    expect(problem.expected.endsWith(', got a number beyond 2^53-1')).toBe(true);
  });

  it('a negative chain_id: out_of_range saying the least chain id, in a receipt-root body and an anchor body', () => {
    const expected = 'chain id as a JSON integer, at least 0, got -1';
    expect(only(verifyReceiptRootOperation(body({ chain_id: -1 })))).toMatchObject({
      name: 'chain_id',
      reason: 'out_of_range',
      expected,
    });
    const problems = new Problems();
    ANCHOR_BODY.read({ chain_id: -1 }, '', problems);
    expect(problems.list.find((problem) => problem.name === 'chain_id')).toMatchObject({
      reason: 'out_of_range',
      expected,
    });
  });

  it.each([999999, 123456789, 0])('outside the registry (%i): 422 CHAIN_NOT_SUPPORTED naming the chain', (id) => {
    const result = verifyReceiptRootOperation(body({ chain_id: id, block_number: 7 }));
    expect(result.status).toBe(422);
    expect((result.body as any).error).toMatchObject({
      code: 'CHAIN_NOT_SUPPORTED',
      http_status: 422,
      details: { chain_id: id, chain: null, block_number: 7, reason: `chain ${id} is not in the chain registry` },
    });
  });

  it.each([
    [324, /zkSync Era/],
    [295, /Hedera/],
    [999, /HyperEVM/],
  ])('chain %i is known but not verifiable: 422 saying why, its details naming the chain', (id, name) => {
    const result = verifyReceiptRootOperation(body({ chain_id: id }));
    expect(result.status).toBe(422);
    const error = (result.body as any).error;
    expect(error.message).toMatch(name);
    expect(error.message).toMatch(/Patricia|receipts root/);
    expect(error.details).toMatchObject({ chain_id: id, chain: expect.stringMatching(name), block_number: null });
    expect(error.details.reason).toEqual(expect.any(String));
  });
});

describe('receipt-root body: roots and hashes', () => {
  it.each([
    [undefined, 'missing'],
    ['abc', 'invalid_format'],
    ['zz'.repeat(32), 'invalid_format'],
    ['00'.repeat(31), 'invalid_format'],
    [32, 'invalid_format'],
  ])('receipt_root %j → %s', (value, reason) => {
    const problem = only(verifyReceiptRootOperation(body({ receipt_root: value })));
    expect(problem).toMatchObject({ name: 'receipt_root', reason });
    expect(problem.expected).toMatch(/32-byte hex string/);
  });

  it('hex with 0x, in any case, is accepted; outputs are lowercase without 0x', () => {
    const result = verifyReceiptRootOperation(
      body({ receipt_root: `0x${EMPTY_ROOT.toUpperCase()}`, block_hash: `0X${'AB'.repeat(32)}` }),
    );
    expect((result.body as any).data[0]).toMatchObject({
      receipt_root: EMPTY_ROOT,
      block_hash: 'ab'.repeat(32),
      is_identical: true,
    });
  });

  it('block_hash and block_number are checked for shape', () => {
    const list = problems(verifyReceiptRootOperation(body({ block_hash: '12', block_number: 1.5 })));
    expect(list.map((p) => [p.name, p.reason])).toEqual([
      ['block_number', 'invalid_format'],
      ['block_hash', 'invalid_format'],
    ]);
  });
});

describe('receipt-root body: transactions', () => {
  it('missing, or not an array', () => {
    const { transactions: _t, ...rest } = body();
    expect(only(verifyReceiptRootOperation(rest))).toMatchObject({ name: 'transactions', reason: 'missing' });
    expect(only(verifyReceiptRootOperation(body({ transactions: {} })))).toMatchObject({
      name: 'transactions',
      reason: 'invalid_format',
    });
  });

  it('an index is required', () => {
    expect(only(verifyReceiptRootOperation(body({ transactions: [tx({ index: undefined })] })))).toMatchObject({
      name: 'transactions[0].index',
      reason: 'missing',
    });
  });

  it('indexes must be 0..n-1 each once: a duplicate names both places and the missing index', () => {
    const list = problems(verifyReceiptRootOperation(body({ transactions: [tx(), tx()] })));
    expect(list).toEqual([
      expect.objectContaining({
        name: 'transactions[1].index',
        reason: 'duplicate',
        expected: expect.stringContaining('transactions[0]'),
      }),
      expect.objectContaining({
        name: 'transactions',
        reason: 'missing',
        expected: expect.stringContaining('index 1'),
      }),
    ]);
  });

  it('an index past the end is out of range', () => {
    const list = problems(verifyReceiptRootOperation(body({ transactions: [tx({ index: 5 })] })));
    expect(list[0]).toMatchObject({ name: 'transactions[0].index', reason: 'out_of_range' });
  });

  it('order does not matter', () => {
    const a = tx({ index: 0, cumulative_gas_used: 1 });
    const b = tx({ index: 1, cumulative_gas_used: 2 });
    const inOrder = verifyReceiptRootOperation(decided({ transactions: [a, b] })).body as any;
    const reversed = verifyReceiptRootOperation(decided({ transactions: [b, a] })).body as any;
    expect(reversed.data[0].computed_receipt_root).toBe(inOrder.data[0].computed_receipt_root);
  });

  it('status and root together conflict in a request body (its transactions[] give exactly one); neither is missing', () => {
    expect(only(verifyReceiptRootOperation(body({ transactions: [tx({ root: 'cc'.repeat(32) })] })))).toMatchObject({
      name: 'transactions[0].root',
      reason: 'conflict',
    });
    expect(only(verifyReceiptRootOperation(body({ transactions: [tx({ status: undefined })] })))).toMatchObject({
      name: 'transactions[0].status',
      reason: 'missing',
    });
  });

  it('a null root is absent, as on modern receipts', () => {
    expect(
      verifyReceiptRootOperation(decided({ transactions: [tx({ root: null })], receipt_root: '00'.repeat(32) })).status,
    ).toBe(200);
  });

  it('status must be 0 or 1, as a number', () => {
    expect(only(verifyReceiptRootOperation(body({ transactions: [tx({ status: 2 })] })))).toMatchObject({
      name: 'transactions[0].status',
      reason: 'out_of_range',
    });
    expect(only(verifyReceiptRootOperation(body({ transactions: [tx({ status: '1' })] })))).toMatchObject({
      name: 'transactions[0].status',
      reason: 'invalid_format',
    });
  });

  it('a post-state root belongs only to legacy receipts', () => {
    const problem = only(
      verifyReceiptRootOperation(body({ transactions: [tx({ status: undefined, root: 'cc'.repeat(32), type: 2 })] })),
    );
    expect(problem).toMatchObject({ name: 'transactions[0].root', reason: 'conflict' });
  });

  it.each([
    [undefined, 'missing'],
    [-1, 'out_of_range'],
    [1.5, 'invalid_format'],
    ['12abc', 'invalid_format'],
    [2 ** 53, 'out_of_range'],
    ['0x10000000000000000', 'out_of_range'],
  ])('cumulative_gas_used %j → %s', (value, reason) => {
    expect(
      only(verifyReceiptRootOperation(body({ transactions: [tx({ cumulative_gas_used: value })] }))),
    ).toMatchObject({
      name: 'transactions[0].cumulative_gas_used',
      reason,
    });
  });

  it('cumulative_gas_used as a number, a decimal string or a hex string means the same', () => {
    const root = (value: unknown) =>
      (verifyReceiptRootOperation(decided({ transactions: [tx({ cumulative_gas_used: value })] })).body as any).data[0]
        .computed_receipt_root;
    expect(root('21000')).toBe(root(21000));
    expect(root('0x5208')).toBe(root(21000));
    expect(root('0xffffffffffffffff')).not.toBe(root(21000));
  });

  it.each([
    [1, 126, 'unknown_type'],
    [10, 3, 'unknown_type'],
    [42161, 0x67, 'unknown_type'],
    [1, 256, 'out_of_range'],
    [1, '0x2', 'invalid_format'],
  ])('on chain %i, type %j → %s', (chain, type, reason) => {
    const problem = only(
      verifyReceiptRootOperation(body({ chain_id: chain, ...CURRENT_ERA, transactions: [tx({ type })] })),
    );
    expect(problem).toMatchObject({ name: 'transactions[0].type', reason });
  });

  it('the types a chain knows are accepted', () => {
    for (const [chain, type] of [
      [1, 4],
      [42161, 0x6a],
      [TEST_CHAINS.scroll, 0x7e],
      [TEST_CHAINS.polygon, 0x7f],
    ] as const) {
      expect(
        verifyReceiptRootOperation(body({ chain_id: chain, ...CURRENT_ERA, transactions: [tx({ type })] }), {
          registry: testRegistry,
        }).status,
      ).toBe(200);
    }
    // A deposit with its nonce and version, which a root that differs is then judged without (Canyon hashes both).
    const deposit = tx({ type: 0x7e, deposit_nonce: 1, deposit_receipt_version: 1 });
    expect(verifyReceiptRootOperation(body({ chain_id: 10, ...CURRENT_ERA, transactions: [deposit] })).status).toBe(
      200,
    );
  });
});

describe('receipt-root body: OP-stack deposit fields', () => {
  const deposit = (over: Record<string, unknown>) =>
    body({ chain_id: 10, ...CURRENT_ERA, transactions: [tx({ type: 126, ...over })] });
  const root = (b: unknown) => (verifyReceiptRootOperation(b).body as any).data[0].computed_receipt_root;

  it('on a non-deposit receipt they conflict', () => {
    expect(
      only(
        verifyReceiptRootOperation(
          body({ chain_id: 10, ...CURRENT_ERA, transactions: [tx({ type: 2, deposit_nonce: 1 })] }),
        ),
      ),
    ).toMatchObject({
      name: 'transactions[0].deposit_nonce',
      reason: 'conflict',
    });
    expect(
      only(verifyReceiptRootOperation(body({ chain_id: 534352, transactions: [tx({ type: 126, deposit_nonce: 1 })] }))),
    ).toMatchObject({ reason: 'conflict' });
  });

  it('a version needs the nonce', () => {
    expect(only(verifyReceiptRootOperation(deposit({ deposit_receipt_version: 1 })))).toMatchObject({
      name: 'transactions[0].deposit_nonce',
      reason: 'missing',
    });
  });

  it('a nonce alone is accepted and not hashed; with a version both are', () => {
    // The root of the deposit hashed without either: a body that gives it is identical where they are not hashed.
    const bare = bytesToHex(
      receiptsRoot([{ type: 126, status: 1, cumulativeGasUsed: 21000n, logs: [] }], { rules: RULE_SETS.optimism }),
    );
    const sent = (over: Record<string, unknown>) => ({ ...deposit(over), receipt_root: bare });
    expect(verifyReceiptRootOperation(sent({ deposit_nonce: 5 }))).toMatchObject({ status: 200, verdict: 'identical' });
    expect(root(sent({ deposit_nonce: 5, deposit_receipt_version: 1 }))).not.toBe(bare);
    // Without header_rlp the block's time is unknown: a root that differs where neither is given may be them (Canyon).
    expect(verifyReceiptRootOperation(deposit({ deposit_nonce: 5 }))).toMatchObject({
      status: 422,
      verdict: 'not_verifiable',
    });
  });
});

describe('receipt-root body: logs', () => {
  const withLog = (log: Record<string, unknown>) =>
    decided({ transactions: [tx({ logs: [{ contract_address: ADDRESS, topics: [TOPIC], data: '0x', ...log }] })] });

  it('reports the full path of a bad topic', () => {
    const problem = only(
      verifyReceiptRootOperation(
        body({
          transactions: [
            tx(),
            tx({ index: 1 }),
            tx({ index: 2 }),
            tx({ index: 3, logs: [{ contract_address: ADDRESS, topics: [TOPIC, 'bb'], data: '0x' }] }),
          ],
        }),
      ),
    );
    expect(problem).toMatchObject({ name: 'transactions[3].logs[0].topics[1]', reason: 'invalid_format' });
    expect(problem.expected).toMatch(/32-byte hex string.*got 1 byte/);
  });

  it.each([
    [{ topics: [TOPIC, TOPIC, TOPIC, TOPIC, TOPIC] }, 'transactions[0].logs[0].topics', 'out_of_range'],
    [{ topics: 'x' }, 'transactions[0].logs[0].topics', 'invalid_format'],
    [{ contract_address: 'aa'.repeat(19) }, 'transactions[0].logs[0].contract_address', 'invalid_format'],
    [{ contract_address: undefined }, 'transactions[0].logs[0].contract_address', 'missing'],
    [{ data: '0xabc' }, 'transactions[0].logs[0].data', 'invalid_format'],
    [{ data: undefined }, 'transactions[0].logs[0].data', 'missing'],
  ])('%j → %s %s', (log, name, reason) => {
    expect(only(verifyReceiptRootOperation(withLog(log)))).toMatchObject({ name, reason });
  });

  it('empty data may be "0x" or ""', () => {
    const a = verifyReceiptRootOperation(withLog({ data: '0x' })).body as any;
    const b = verifyReceiptRootOperation(withLog({ data: '' })).body as any;
    expect(a.data[0].computed_receipt_root).toBe(b.data[0].computed_receipt_root);
  });

  it('lists every problem, up to 100, and says how many there were', () => {
    const logs = Array.from({ length: 150 }, () => ({ contract_address: 'x', topics: [], data: '0x' }));
    const result = verifyReceiptRootOperation(body({ transactions: [tx({ logs })] }));
    expect(problems(result)).toHaveLength(100);
    expect((result.body as any).error.message).toBe('150 invalid parameters (the first 100 are listed).');
  });
});

describe('receipt-root body: header_rlp binds the root to a block', () => {
  const fixture = loadFixture('mainnet-22431084');
  const block = readRpcBlock(fixture, new Problems())!;
  const header = block.header.complete!;
  const request = (over: Record<string, unknown> = {}) => ({
    ...receiptRootBody({
      chainId: 1,
      receiptRoot: header.receiptsRoot,
      receipts: block.receipts,
      blockNumber: Number(header.number),
      blockHash: headerHash(header),
      headerRlp: encodeHeader(header),
    }),
    ...over,
  });
  const result = (over?: Record<string, unknown>) => (verifyReceiptRootOperation(request(over)).body as any).data[0];

  it('a consistent header is verified and gives the parent hash', () => {
    expect(result()).toMatchObject({
      header_verified: true,
      logs_bloom_matches_header: true,
      is_identical: true,
      parent_block_hash: bytesToHex(header.parentHash),
    });
  });

  it('a block_hash that is not the header hash fails header_verified', () => {
    expect(result({ block_hash: 'ab'.repeat(32) }).header_verified).toBe(false);
  });

  it('a block_number that is not the header number fails header_verified', () => {
    expect(result({ block_number: 1 }).header_verified).toBe(false);
  });

  it('a receipt_root that is not the header root fails both checks', () => {
    expect(result({ receipt_root: 'ab'.repeat(32) })).toMatchObject({ header_verified: false, is_identical: false });
  });

  it('without block_hash, the header hash is reported as the block hash', () => {
    expect(result({ block_hash: undefined }).block_hash).toBe(fixture.header.hash!.slice(2));
  });

  it('bytes that are not a header are 400 on header_rlp', () => {
    const problem = only(verifyReceiptRootOperation(request({ header_rlp: 'c0' })));
    expect(problem).toMatchObject({ name: 'header_rlp', reason: 'invalid_format' });
    expect(problem.expected).toMatch(/15 to 21 fields/);
  });
});

describe('receipt-root body: tx_hash names one transaction each, as verify block holds transactionHash', () => {
  const fixture = loadFixture('mainnet-19433903');
  const block = readRpcBlock(fixture, new Problems())!;
  const header = block.header.complete!;
  const request = (hashes: Record<number, string>) => {
    const body = receiptRootBody({
      chainId: 1,
      receiptRoot: header.receiptsRoot,
      receipts: block.receipts,
      headerRlp: encodeHeader(header),
    });
    for (const [index, hash] of Object.entries(hashes)) body.transactions[Number(index)]!.tx_hash = hash;
    return body;
  };
  const A = `0x${'ab'.repeat(32)}`;

  it('the real block with a hash of its own for each named receipt: identical', () => {
    const result = verifyReceiptRootOperation(request({ 0: A, 1: 'cd'.repeat(32) }));
    expect(result.status).toBe(200);
    expect((result.body as any).data[0].is_identical).toBe(true);
  });

  it('two receipts with one tx_hash (in any case, with or without 0x): 400 conflict naming the second (was: identical)', () => {
    const second = A.slice(2).toUpperCase();
    // In index order, whatever the order of the list.
    const body = request({ 0: A, 5: second });
    body.transactions.reverse();
    expect(only(verifyReceiptRootOperation(body))).toEqual({
      name: `transactions[${body.transactions.length - 1 - 5}].tx_hash`,
      location: 'body',
      reason: 'conflict',
      expected: `a transaction hash no other receipt of the block has (one transaction has one receipt), got ${second}, which transactions[${body.transactions.length - 1}].tx_hash has`,
    });
  });
});

describe('logs-bloom body', () => {
  const fixture = loadFixture('mainnet-19426587');
  const logs = fixture.receipts.flatMap((r) =>
    (r.logs as Array<{ address: string; topics: string[]; data: string }>).map((l) => ({
      contract_address: l.address,
      topics: l.topics,
      data: l.data,
    })),
  );
  const expected = fixture.header.logsBloom!;

  it('a block’s logs reproduce its bloom; chain_id and block_number are echoed', () => {
    const result = verifyLogsBloomOperation({ chain_id: 1, block_number: 19426587, expected_bloom: expected, logs });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      chain_id: 1,
      block_number: 19426587,
      count: 1,
      data: [{ is_identical: true, computed_bloom: expected.slice(2) }],
    });
  });

  it('order is irrelevant; one dropped log is not identical', () => {
    expect(verifyLogsBloomOperation({ expected_bloom: expected, logs: [...logs].reverse() }).verdict).toBe('identical');
    const dropped = verifyLogsBloomOperation({ expected_bloom: expected, logs: logs.slice(1) });
    expect(dropped.verdict).toBe('different');
    expect((dropped.body as any).chain_id).toBeNull();
  });

  it('data is accepted and ignored, even when it is not hex', () => {
    expect(
      verifyLogsBloomOperation({
        expected_bloom: '00'.repeat(256),
        logs: [{ contract_address: ADDRESS, topics: [], data: 'not hex' }],
      }).status,
    ).toBe(200);
  });

  it.each([
    [{ expected_bloom: undefined }, 'expected_bloom', 'missing'],
    [{ expected_bloom: '00'.repeat(255) }, 'expected_bloom', 'invalid_format'],
    [{ logs: undefined }, 'logs', 'missing'],
    [{ logs: [{ contract_address: ADDRESS, topics: ['1'] }] }, 'logs[0].topics[0]', 'invalid_format'],
    [{ logs: [{ topics: [] }] }, 'logs[0].contract_address', 'missing'],
    [{ chain_id: 'one' }, 'chain_id', 'invalid_format'],
    [{ block_number: -3 }, 'block_number', 'out_of_range'],
  ])('%j → %s %s', (over, name, reason) => {
    expect(only(verifyLogsBloomOperation({ expected_bloom: '00'.repeat(256), logs: [], ...over }))).toMatchObject({
      name,
      reason,
    });
  });
});

describe('verify block input (JSON-RPC header + receipts)', () => {
  const fixture = () => structuredClone(loadFixture('mainnet-19426587')) as any;

  it("an address or topic that repeats the log before it at its place is read once: that log's bytes are shared", () => {
    const raw = loadFixture('mainnet-15537394') as any;
    const block = readRpcBlock(raw, new Problems())!;
    const logs = block.receipts.flatMap((r) => r.logs);
    const rawLogs = raw.receipts.flatMap((r: any) => r.logs);
    for (let i = 1; i < logs.length; i++) {
      const [log, before, text, textBefore] = [logs[i]!, logs[i - 1]!, rawLogs[i], rawLogs[i - 1]];
      expect(log.address === before.address).toBe(text.address === textBefore.address);
      log.topics.forEach((topic, t) =>
        expect(topic === before.topics[t]).toBe(text.topics[t] === textBefore.topics[t]),
      );
    }
    const items = logs.flatMap((log) => [log.address, ...log.topics]);
    expect(items.length).toBe(50_188);
    // 10,052 distinct items in 10,110 arrays, not 50,188: few repeats are not of the log before.
    expect(new Set(items.map(bytesToHex)).size).toBe(10_052);
    expect(new Set(items).size).toBe(10_110);
  });

  it('a bad topic is reported with its JSON-RPC path', () => {
    const block = fixture();
    const r = block.receipts.findIndex((x: any) => x.logs.length > 0);
    block.receipts[r].logs[0].topics[0] = '0x1234';
    expect(only(verifyBlockOperation(block))).toMatchObject({
      name: `receipts[${r}].logs[0].topics[0]`,
      reason: 'invalid_format',
    });
  });

  it('receipts are placed by transactionIndex; a duplicate is reported, and the index it leaves out', () => {
    const block = fixture();
    block.receipts[1].transactionIndex = '0x0';
    expect(problems(verifyBlockOperation(block))).toEqual([
      expect.objectContaining({
        name: 'receipts[1].transactionIndex',
        reason: 'duplicate',
        expected: 'each index once; 0 is also the index of receipts[0]',
      }),
      expect.objectContaining({
        name: 'receipts',
        reason: 'missing',
        expected: `a receipt with index 1: indexes must be exactly 0..${block.receipts.length - 1}`,
      }),
    ]);
  });

  it('the index rule and the status/root rule read alike in a request body and in JSON-RPC receipts', () => {
    const strip = (result: OperationResult) =>
      problems(result).map(({ reason, expected }) => [reason, expected.replace(/receipts\[|transactions\[/g, 'list[')]);
    const duplicate = fixture();
    duplicate.receipts[1].transactionIndex = '0x0';
    const rootOnTyped = fixture();
    const typed = rootOnTyped.receipts.findIndex((r: any) => r.type === '0x2');
    rootOnTyped.receipts[typed].root = `0x${'cc'.repeat(32)}`;
    delete rootOnTyped.receipts[typed].status;
    const request = (transactions: unknown[]) =>
      verifyReceiptRootOperation({ chain_id: 1, receipt_root: '00'.repeat(32), transactions });
    expect(strip(verifyBlockOperation(duplicate))).toContainEqual([
      'duplicate',
      'each index once; 0 is also the index of list[0]',
    ]);
    expect(strip(request([tx({ index: 0 }), tx({ index: 0 })]))).toContainEqual([
      'duplicate',
      'each index once; 0 is also the index of list[0]',
    ]);
    const rootConflict = [
      'conflict',
      'status; a post-state root exists only on pre-Byzantium legacy receipts, this one has type 2',
    ];
    expect(strip(verifyBlockOperation(rootOnTyped))).toEqual([rootConflict]);
    expect(strip(request([tx({ index: 0, type: 2, status: undefined, root: 'cc'.repeat(32) })]))).toEqual([
      rootConflict,
    ]);
  });

  it('shuffled receipts still verify, since each carries its transactionIndex', () => {
    const block = fixture();
    block.receipts.reverse();
    expect(verifyBlockOperation(block).verdict).toBe('identical');
  });

  it('transactionIndex on some receipts only is a conflict', () => {
    const block = fixture();
    delete block.receipts[0].transactionIndex;
    expect(only(verifyBlockOperation(block))).toMatchObject({ name: 'receipts', reason: 'conflict' });
  });

  it('a type the rule set does not know is unknown_type at its receipt', () => {
    const block = fixture();
    block.receipts[2].type = '0x7e';
    expect(only(verifyBlockOperation(block))).toMatchObject({ name: 'receipts[2].type', reason: 'unknown_type' });
  });

  it('a changed header field breaks only the block hash', () => {
    const block = fixture();
    block.header.gasUsed = '0x1';
    const report = verifyBlockOperation(block).body as any;
    expect(report).toMatchObject({
      receipts_root: { matches: true },
      logs_bloom: { matches: true },
      block_hash: { matches: false },
      is_identical: false,
    });
  });
});
