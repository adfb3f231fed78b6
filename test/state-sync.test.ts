/**
 * Polygon PoS state sync. Before Madhugiri, nodes return Bor's state-sync receipt
 * from eth_getBlockReceipts, but it is in neither the receipts root nor the logs
 * bloom; it is recognised by its derived transaction hash and left out. From
 * Madhugiri on it is a 0x7f transaction whose receipt is in the root.
 *
 * A real block with its state-sync receipt (polygon-pos-10000000) shows the built-in Polygon PoS
 * the rule, and, altered, that the receipt is read as every receipt is (the last describes). The
 * rule itself is also tested on a chain with
 * Polygon's rules and eras added as an operator adds one, with a state-sync receipt added to a
 * real block (polygon-pos-9013760, a sprint start, when Bor commits state syncs): its
 * transaction hash derived from the block's own number and hash, its logs those of a deposit
 * (the child token's Transfer, then the StateReceiver's StateCommitted).
 */
import { verifyBlockOperation } from '../packages/core/src/api/index.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { ChainRegistry, defaultRegistry } from '../packages/core/src/chains/registry.js';
import { borStateSyncTxHash } from '../packages/core/src/chains/state-sync.js';
import {
  bytesToHex,
  commitmentsHold,
  encodeHeader,
  Problems,
  readRpcBlock,
  verifyRpcBlock,
} from '../packages/core/src/index.js';
import { receiptRootBody, verifyReceiptRootOperation, type OperationResult } from '../packages/core/src/api/index.js';
import { receiptsRootAndBloom } from '../packages/core/src/receipts/root.js';
import { RULE_SETS } from '../packages/core/src/receipts/rules.js';
import { checkBlock, checkLog } from '../packages/core/src/lineage/onchain.js';
import { consensusFieldsOnly, loadFixture } from './helpers/fixtures.js';
import { TEST_CHAINS, TEST_MADHUGIRI, testRegistry } from './helpers/test-chains.js';

const CHAIN = TEST_CHAINS.polygon;
const real = loadFixture('polygon-pos-9013760');
/** The real block on the test chain (its header, and so its hash, unchanged). */
const fixture = { ...real, chain_id: CHAIN };
const context = { registry: testRegistry };
const block = readRpcBlock(fixture, new Problems(), context)!;
const number = block.header.fields.number!;
const hash = block.header.hash!;
const MADHUGIRI = TEST_MADHUGIRI;

const derived = `0x${bytesToHex(borStateSyncTxHash(number, hash))}`;
const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
/** keccak256 of an event signature, as topic 0. */
const topic0 = (signature: string) => `0x${bytesToHex(keccak_256(new TextEncoder().encode(signature)))}`;

/**
 * A deposit's state sync: the child token mints to the user, then the StateReceiver (0x…1001) reports the state id
 * committed.
 */
const STATE_SYNC_LOGS = [
  {
    address: '0x7ceb23fd6bc0add59e62ac25578270cff1b9f619',
    topics: [
      topic0('Transfer(address,address,uint256)'),
      `0x${word('0')}`,
      `0x${word('a1b2c3d4e5f60718293a4b5c6d7e8f9012345678')}`,
    ],
    data: `0x${word('de0b6b3a7640000')}`,
  },
  {
    address: '0x0000000000000000000000000000000000001001',
    topics: [topic0('StateCommitted(uint256,bool)'), `0x${word('1d4c1')}`],
    data: `0x${word('1')}`,
  },
];

/** The state-sync receipt as bor's eth_getBlockReceipts returns it: last, type 0, status 1, no gas. */
const stateSyncRpc = (transactionHash: string, transactionIndex = fixture.receipts.length) => ({
  transactionIndex: `0x${transactionIndex.toString(16)}`,
  transactionHash,
  type: '0x0',
  status: '0x1',
  cumulativeGasUsed: '0x0',
  logs: STATE_SYNC_LOGS,
});
/** The block with the receipt appended, its transaction listed last, as Bor lists it from v1.3.2. */
const withStateSync = (transactionHash = derived) => ({
  ...fixture,
  header: {
    ...fixture.header,
    transactions: [...(fixture.header.transactions as unknown as string[]), transactionHash],
  },
  receipts: [...fixture.receipts, stateSyncRpc(transactionHash)],
});

const expectedExclusion = [
  {
    index: 4,
    tx_hash: derived.slice(2),
    reason: expect.stringMatching(/^Bor's state-sync receipt: in blocks 0-80,084,799 \(Bor before Madhugiri\)/),
  },
];

describe("Bor's state-sync tx hash", () => {
  it('is keccak256("matic-bor-receipt-" ‖ number as 8-byte big-endian ‖ block hash)', () => {
    const key = `${Buffer.from('matic-bor-receipt-').toString('hex')}${number.toString(16).padStart(16, '0')}${bytesToHex(hash)}`;
    expect(derived.slice(2)).toBe(bytesToHex(keccak_256(Buffer.from(key, 'hex'))));
  });
});

describe('JSON-RPC blocks (verify block, lineage blocks)', () => {
  it('a block with its state-sync receipt: the receipt is left out of root and bloom, and listed; not_verifiable, as no commitment covers it (was: identical)', () => {
    const result = verifyBlockOperation(withStateSync(), context);
    expect(result.verdict).toBe('not_verifiable');
    expect(result.body).toMatchObject({
      transaction_count: 4,
      receipts_root: { matches: true },
      logs_bloom: { matches: true },
      excluded_receipts: expectedExclusion,
    });
  });

  it('the same receipt under another transaction hash is part of the root, which then differs', () => {
    const result = verifyBlockOperation(withStateSync(`0x${'ab'.repeat(32)}`), context);
    expect(result.verdict).toBe('different');
    expect(result.body).toMatchObject({
      transaction_count: 5,
      receipts_root: { matches: false },
      logs_bloom: { matches: false },
      excluded_receipts: [],
    });
  });

  it("a receipt more than the block lists, under another hash than Bor's derived one, is refused: its transaction is listed nowhere", () => {
    const other = `0x${'ab'.repeat(32)}`;
    const result = verifyBlockOperation({ ...withStateSync(other), header: fixture.header }, context);
    expect(result.status).toBe(400);
    expect((result.body as any).error.details.invalid_parameters).toEqual([
      {
        name: 'header.transactions',
        location: 'body',
        reason: 'conflict',
        expected:
          "5 transactions, one for each of the block's 5 receipts (a header and receipts of one block), got 4 transactions",
      },
    ]);
    // Under Bor's derived hash, it is the state-sync receipt, which a node need not list.
    expect(verifyBlockOperation({ ...withStateSync(), header: fixture.header }, context).verdict).toBe(
      'not_verifiable',
    );
  });

  it('readRpcBlock, as the lineage walker calls it, leaves it out too', () => {
    const read = readRpcBlock(withStateSync(), new Problems(), context)!;
    expect(read.receipts).toHaveLength(4);
    expect(read.excludedReceipts.map((r) => r.index)).toEqual([4]);
  });

  it('a state-sync receipt that is not last is a conflict, not a guess', () => {
    const receipts = [
      stateSyncRpc(derived, 0),
      ...fixture.receipts.map((r, i) => ({ ...r, transactionIndex: `0x${(i + 1).toString(16)}` })),
    ];
    const result = verifyBlockOperation({ ...fixture, receipts }, context);
    expect(result.status).toBe(400);
    expect((result.body as any).error.details.invalid_parameters).toEqual([
      {
        name: 'receipts[0].transactionHash',
        location: 'body',
        reason: 'conflict',
        expected:
          "Bor's state-sync receipt after every transaction of the block, at index 4; its transaction hash is on index 0",
      },
    ]);
  });

  it('without the hash member, or without a number, the block is refused naming it: the hash derives the receipt, the number tells the era', () => {
    const { hash: _hash, ...headerWithoutHash } = fixture.header;
    const [withoutHash] = (verifyBlockOperation({ ...withStateSync(), header: headerWithoutHash }, context).body as any)
      .error.details.invalid_parameters;
    expect(withoutHash).toMatchObject({ name: 'header.hash', reason: 'missing' });
    const { number: _number, ...headerWithoutNumber } = fixture.header;
    const [problem] = (verifyBlockOperation({ ...withStateSync(), header: headerWithoutNumber }, context).body as any)
      .error.details.invalid_parameters;
    expect(problem).toMatchObject({
      name: 'header.number',
      reason: 'missing',
      expected: expect.stringContaining('blocks from 80,084,800 (Madhugiri)'),
    });
  });

  it('from Madhugiri on nothing is left out: the same receipt is hashed', () => {
    // Polygon's rules with only the Madhugiri era, under an id of its own.
    const registry = new ChainRegistry([
      {
        chainId: 80_084_137,
        name: 'test Madhugiri',
        rules: 'polygon',
        verifiable: true,
        eras: [{ name: 'Madhugiri', from: 0, stateSync: 'transaction' }],
      },
    ]);
    expect(verifyBlockOperation({ ...withStateSync(), chain_id: 80_084_137 }, { registry })).toMatchObject({
      verdict: 'different',
      body: { transaction_count: 5, excluded_receipts: [] },
    });
  });
});

describe('receipt-root bodies: transactions[].tx_hash', () => {
  const stateSyncEntry = (over: Record<string, unknown> = {}) => ({
    index: 4,
    status: 1,
    cumulative_gas_used: 0,
    logs: STATE_SYNC_LOGS.map((l) => ({ contract_address: l.address, topics: l.topics, data: l.data })),
    tx_hash: derived,
    ...over,
  });
  const body = (over: Record<string, unknown> = {}, entry = stateSyncEntry()) => {
    const base = receiptRootBody({
      chainId: CHAIN,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
      blockNumber: Number(number),
      blockHash: hash,
    });
    return { ...base, transactions: [...base.transactions, entry], ...over };
  };
  const problemsOf = (result: OperationResult) => {
    expect(result.status).toBe(400);
    return (result.body as any).error.details.invalid_parameters;
  };

  it('the state-sync receipt named by its tx_hash is left out and listed in excluded_receipts; transaction_count counts the others; is_identical the root alone, the verdict not_verifiable (was: identical)', () => {
    const result = verifyReceiptRootOperation(body(), context);
    expect(result).toMatchObject({ status: 200, verdict: 'not_verifiable' });
    expect((result.body as any).data[0]).toMatchObject({
      is_identical: true,
      transaction_count: 4,
      excluded_receipts: expectedExclusion,
    });
  });

  it('the block hash may come from header_rlp', () => {
    const result = verifyReceiptRootOperation(
      body({
        block_number: undefined,
        block_hash: undefined,
        header_rlp: bytesToHex(encodeHeader(block.header.complete!)),
      }),
      context,
    );
    expect((result.body as any).data[0]).toMatchObject({
      is_identical: true,
      header_verified: true,
      logs_bloom_matches_header: true,
      excluded_receipts: expectedExclusion,
    });
  });

  it('another tx_hash, or none: the receipt is hashed and the root differs', () => {
    for (const entry of [stateSyncEntry({ tx_hash: 'ab'.repeat(32) }), stateSyncEntry({ tx_hash: undefined })]) {
      const result = verifyReceiptRootOperation(body({}, entry), context);
      expect(result.verdict).toBe('different');
      expect((result.body as any).data[0]).toMatchObject({ transaction_count: 5, excluded_receipts: [] });
    }
  });

  it('tx_hash without a block hash: 400 naming block_hash', () => {
    expect(problemsOf(verifyReceiptRootOperation(body({ block_hash: undefined }), context))).toEqual([
      {
        name: 'block_hash',
        location: 'body',
        reason: 'missing',
        expected:
          "the block hash: in test polygon blocks 0-80,084,799 (Bor before Madhugiri) it derives the transaction hash of Bor's state-sync receipt, which is left out of the root",
      },
    ]);
  });

  it('tx_hash without a block number: 400 naming block_number', () => {
    const [problem] = problemsOf(verifyReceiptRootOperation(body({ block_number: undefined }), context));
    expect(problem).toMatchObject({
      name: 'block_number',
      reason: 'missing',
      expected: expect.stringContaining('blocks from 80,084,800 (Madhugiri)'),
    });
  });

  it('without tx_hash nor type 0x7f a Polygon body needs no block number: every era gives the same root', () => {
    const base = receiptRootBody({
      chainId: CHAIN,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
    });
    expect(verifyReceiptRootOperation(base, context).verdict).toBe('identical');
  });

  it('a state-sync receipt that is not last is a conflict', () => {
    const base = body();
    const transactions = base.transactions.map((t: any) =>
      t.index === 4 ? { ...t, index: 0 } : { ...t, index: t.index + 1 },
    );
    expect(problemsOf(verifyReceiptRootOperation({ ...base, transactions }, context))).toEqual([
      expect.objectContaining({ name: 'transactions[4].tx_hash', reason: 'conflict' }),
    ]);
  });

  it('type 0x7f exists from Madhugiri on: before, it is an unknown type', () => {
    const typed = stateSyncEntry({ type: 0x7f, tx_hash: undefined });
    const [problem] = problemsOf(verifyReceiptRootOperation(body({}, typed), context));
    expect(problem).toMatchObject({
      name: 'transactions[4].type',
      reason: 'unknown_type',
      expected: expect.stringContaining('Madhugiri'),
    });
    const atMadhugiri = verifyReceiptRootOperation(body({ block_number: MADHUGIRI }, typed), context);
    expect(atMadhugiri.status).toBe(200);
  });

  it('from Madhugiri on, a receipt carrying the derived hash is hashed like any other', () => {
    const atMadhugiri = verifyReceiptRootOperation(
      body(
        { block_number: MADHUGIRI, block_hash: bytesToHex(hash) },
        stateSyncEntry({ tx_hash: bytesToHex(borStateSyncTxHash(BigInt(MADHUGIRI), hash)) }),
      ),
      context,
    );
    expect((atMadhugiri.body as any).data[0]).toMatchObject({ transaction_count: 5, excluded_receipts: [] });
  });
});

describe('the built-in Polygon PoS: a real block (polygon-pos-10000000) shows the state-sync receipt left out', () => {
  it('that block: not_verifiable (was: identical), the receipt named by index and hash as no commitment covers it, every commitment of the others matching', () => {
    const shown = verifyBlockOperation(loadFixture('polygon-pos-10000000'));
    expect(shown.verdict).toBe('not_verifiable');
    const report = shown.body as any;
    expect(report).toMatchObject({
      is_identical: false,
      receipts_root: { matches: true },
      logs_bloom: { matches: true },
      block_hash: { matches: true },
      excluded_receipts: [{ index: 5 }],
    });
    expect(report.reason).toBe(
      `excluded_receipts: the receipt at index 5 (transaction hash 0x${report.excluded_receipts[0].tx_hash}): Bor's state-sync receipt, which neither the receipts root nor the logs bloom nor the block hash commits to: its logs (deposits through the bridge), status, gas and type are the node's word`,
    );
    expect(commitmentsHold(report)).toBe(true);
  });

  /** polygon-pos-10000000 changed by `change`. */
  const altered = (change: (block: Record<string, any>) => void) => {
    const block = structuredClone(loadFixture('polygon-pos-10000000')) as Record<string, any>;
    change(block);
    return block;
  };
  const STATE_SYNC_AT = 5;
  it.each<[string, (receipt: Record<string, any>) => void]>([
    ['status 0', (r) => (r.status = '0x0')],
    ['type 2', (r) => (r.type = '0x2')],
    ['gas 21000', (r) => ((r.cumulativeGasUsed = '0x5208'), (r.gasUsed = '0x5208'))],
    ["its log's data", (r) => (r.logs[0].data = `0x${'00'.repeat(31)}01`)],
    ['no logs', (r) => ((r.logs = []), (r.logsBloom = `0x${'00'.repeat(256)}`))],
  ])('its state-sync receipt altered (%s): never identical, no commitment covers it (was: identical)', (_, change) => {
    const result = verifyBlockOperation(altered((b) => change(b.receipts[STATE_SYNC_AT])));
    expect(result.status).toBe(200);
    expect(result.verdict).toBe('not_verifiable');
    expect((result.body as any).reason).toContain('the receipt at index 5');
  });

  it('another receipt altered: different, the root of the others not the header one', () => {
    const result = verifyBlockOperation(
      altered((b) => (b.receipts[2].status = b.receipts[2].status === '0x1' ? '0x0' : '0x1')),
    );
    expect(result.verdict).toBe('different');
    expect((result.body as any).receipts_root.matches).toBe(false);
    expect(commitmentsHold(result.body as any)).toBe(false);
  });

  it('its receipt-root body (request receipt-root): is_identical true (the root alone), verdict not_verifiable naming the receipt; another receipt altered: different', () => {
    const read = readRpcBlock(loadFixture('polygon-pos-10000000'), new Problems())!;
    const made = receiptRootBody({
      chainId: 137,
      receiptRoot: read.header.fields.receiptsRoot!,
      receipts: read.receipts,
      excludedReceipts: read.excludedReceipts,
      blockNumber: Number(read.header.fields.number),
      blockHash: read.header.hash!,
    });
    const result = verifyReceiptRootOperation(made);
    expect(result).toMatchObject({ status: 200, verdict: 'not_verifiable' });
    expect((result.body as any).data[0]).toMatchObject({
      is_identical: true,
      excluded_receipts: [{ index: 5, tx_hash: bytesToHex(read.excludedReceipts[0]!.txHash) }],
    });
    const other = structuredClone(made);
    other.transactions[1]!.status = other.transactions[1]!.status === 1 ? 0 : 1;
    expect(verifyReceiptRootOperation(other)).toMatchObject({ status: 200, verdict: 'different' });
  });

  it('that block in consensus fields alone (no transactionHash): the receipt cannot be told apart, so neither the root nor the bloom is claimed (the bloom was different: a user check)', () => {
    const fixture = loadFixture('polygon-pos-10000000');
    const bare = consensusFieldsOnly('polygon-pos-10000000');
    const result = verifyBlockOperation(bare);
    expect(result.verdict).toBe('not_verifiable');
    const checks = result.body as any;
    for (const check of ['receipts_root', 'logs_bloom'])
      expect(checks[check], check).toMatchObject({
        matches: null,
        reason: expect.stringContaining('an untyped receipt that used no gas'),
      });
    expect(checks.block_hash.matches).toBe(true);
    // With gasUsed kept, the receipt is an ordinary one whose gas went back: refused, saying what it likely is.
    const withGas = fixture.receipts.map(({ transactionHash: _hash, ...receipt }: Record<string, unknown>) => receipt);
    const refused = verifyBlockOperation({ ...fixture, receipts: withGas });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      "is Bor's state-sync receipt, told apart by its transactionHash: give it",
    );
    // The receipt's logs are what the bloom would have been wrong about: without it, the bloom is claimed and holds.
    const withoutIt = verifyBlockOperation({ ...bare, receipts: bare.receipts.slice(0, -1) });
    expect((withoutIt.body as any).logs_bloom.matches).toBe(true);
  });

  it('verify block: another block with the receipt appended is not_verifiable (was: identical), the receipt listed as left out', () => {
    const result = verifyBlockOperation({ ...real, receipts: [...real.receipts, stateSyncRpc(derived)] });
    expect(result.verdict).toBe('not_verifiable');
    expect((result.body as any).excluded_receipts).toEqual(
      expectedExclusion.map((e) => ({ ...e, reason: expect.stringContaining('Bor before Madhugiri') })),
    );
  });

  it('a receipt-root body holding it: the root identical, the verdict not_verifiable, naming it as verify block does', () => {
    const base = receiptRootBody({
      chainId: 137,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
      blockNumber: Number(number),
      blockHash: hash,
    });
    const entry = { index: 4, status: 1, cumulative_gas_used: 0, logs: [], tx_hash: derived };
    const result = verifyReceiptRootOperation({ ...base, transactions: [...base.transactions, entry] });
    expect(result).toMatchObject({ status: 200, verdict: 'not_verifiable' });
    expect((result.body as any).data[0]).toMatchObject({ is_identical: true, excluded_receipts: expectedExclusion });
  });
});

describe("the real block's state-sync receipt (polygon-pos-10000000), read as every receipt of the block is: only the root and the bloom leave it out (was: nothing in it read but its form, a user check)", () => {
  const NAME = 'polygon-pos-10000000';
  const STATE_SYNC = 5;
  /** The real block with its state-sync receipt changed. */
  const withStateSyncReceipt = (change: (receipt: Record<string, any>) => void) => {
    const block = structuredClone(loadFixture(NAME)) as Record<string, any>;
    change(block.receipts[STATE_SYNC]);
    return block;
  };
  const refusalOf = (result: OperationResult) => {
    expect(result.status).toBe(400);
    return (result.body as any).error.details.invalid_parameters;
  };
  /** The receipt-root body `request receipt-root` builds of a block: the block as verify block reads it, into the builder. */
  const requestBody = (json: unknown) => {
    const read = readRpcBlock(json, new Problems())!;
    return receiptRootBody({
      chainId: 137,
      receiptRoot: read.header.fields.receiptsRoot!,
      receipts: read.receipts,
      excludedReceipts: read.excludedReceipts,
      blockNumber: Number(read.header.fields.number),
      blockHash: read.header.hash!,
    });
  };

  it("as Bor returns it: type 0, its logsBloom the bloom of its logs, its logs numbered after the block's; its bloom compared as every receipt's is", () => {
    const real = loadFixture(NAME);
    const receipt = real.receipts[STATE_SYNC]!;
    expect(receipt).toMatchObject({ type: '0x0', cumulativeGasUsed: '0x0', gasUsed: '0x0' });
    const logsBefore = real.receipts.slice(0, STATE_SYNC).reduce((n, r) => n + (r.logs as unknown[]).length, 0);
    expect((receipt.logs as Array<{ logIndex: string }>)[0]!.logIndex).toBe(`0x${logsBefore.toString(16)}`);
    expect(verifyBlockOperation(real).body).toMatchObject({
      verdict: 'not_verifiable',
      excluded_receipts: [{ index: STATE_SYNC }],
      receipt_blooms: { count: 6, matches: true, first_mismatch: null },
    });
  });

  it.each(['0x55', '0x7f'])(
    'of type %s, which Polygon PoS has not before Madhugiri: 400 unknown_type naming it, as the receipt-root endpoint refuses the body request would build of it',
    (type) => {
      const block = withStateSyncReceipt((receipt) => (receipt.type = type));
      const refused = refusalOf(verifyBlockOperation(block));
      expect(refused).toEqual([
        {
          name: `receipts[${STATE_SYNC}].type`,
          location: 'body',
          reason: 'unknown_type',
          expected: expect.stringContaining(`got ${Number(type)}`),
        },
      ]);
      const [endpoint] = refusalOf(verifyReceiptRootOperation(requestBody(block)));
      expect(endpoint).toEqual({ ...refused[0], name: `transactions[${STATE_SYNC}].type` });
    },
  );

  it("its logsBloom not the bloom of its logs (all 0xff): different, receipt_blooms naming it, the root and the block's bloom still matching", () => {
    const block = withStateSyncReceipt((receipt) => (receipt.logsBloom = `0x${'ff'.repeat(256)}`));
    expect(verifyBlockOperation(block).body).toMatchObject({
      verdict: 'different',
      reason: 'does not match: receipt_blooms',
      receipts_root: { matches: true },
      logs_bloom: { matches: true },
      receipt_blooms: { count: 6, matches: false, first_mismatch: STATE_SYNC },
    });
  });

  it('the user check (logsBloom all 0xff, gasUsed and logIndex "zz"): 400 naming each malformed member', () => {
    const block = withStateSyncReceipt((receipt) => {
      receipt.logsBloom = `0x${'ff'.repeat(256)}`;
      receipt.gasUsed = 'zz';
      receipt.logs[0].logIndex = 'zz';
    });
    expect(
      refusalOf(verifyBlockOperation(block)).map((p: { name: string; reason: string }) => [p.name, p.reason]),
    ).toEqual([
      [`receipts[${STATE_SYNC}].gasUsed`, 'invalid_format'],
      [`receipts[${STATE_SYNC}].logs[0].logIndex`, 'invalid_format'],
    ]);
  });
});

describe('Polygon eras', () => {
  it.each([
    [137, 80_084_800],
    [80002, 28_899_616],
  ])(
    'chain %i: state sync stands outside the root before block %i, and is a 0x7f transaction from it',
    (chainId, madhugiri) => {
      expect(defaultRegistry.verifiability(chainId, madhugiri - 1)).toMatchObject({
        status: 'verifiable',
        stateSync: 'receipt-outside-root',
      });
      expect(defaultRegistry.verifiability(chainId, madhugiri)).toMatchObject({
        status: 'verifiable',
        stateSync: 'transaction',
      });
    },
  );
});

describe("Polygon's rules where no era says where the state-sync receipt stands (--rules polygon, --add-chain ID:polygon): set aside, the root and bloom computed with it left out and in", () => {
  const NAME = 'polygon-pos-10000000';
  const ADDED = 31_337_137;
  const added = new ChainRegistry([
    { chainId: ADDED, name: 'a Polygon-like devnet', rules: 'polygon', verifiable: true },
  ]);
  /** The real block as a chain outside the registry (no chain_id) or the added chain. */
  const unnamed = () => {
    const { chain_id: _id, ...block } = structuredClone(loadFixture(NAME)) as Record<string, any>;
    return block;
  };
  const onAdded = () => ({ ...structuredClone(loadFixture(NAME)), chain_id: ADDED }) as Record<string, any>;
  const cases: Array<[string, () => Record<string, any>, Parameters<typeof verifyBlockOperation>[1]]> = [
    ['--rules polygon', unnamed, { rules: 'polygon' }],
    ['--add-chain ID:polygon', onAdded, { registry: added }],
  ];

  it.each(cases)(
    '%s: the real block matches with the receipt left out: not_verifiable naming it, its placement unknown (was: different)',
    (_, make, context) => {
      const result = verifyBlockOperation(make(), context);
      expect(result.status).toBe(200);
      const report = result.body as any;
      expect(report).toMatchObject({
        verdict: 'not_verifiable',
        transaction_count: 5,
        receipts_root: { matches: true },
        logs_bloom: { matches: true },
        excluded_receipts: [{ index: 5, reason: expect.stringContaining('its placement is unknown') }],
      });
      expect(report.reason).toMatch(
        /the receipt at index 5 \(transaction hash 0x[0-9a-f]{64}\): Bor's state-sync receipt, .*with it left out$/,
      );
      expect(commitmentsHold(report)).toBe(true);
      // The block read whole (as with raw receipts, or by a caller that keeps it) is answered alike.
      const read = readRpcBlock(make(), new Problems(), context)!;
      expect(verifyRpcBlock(read, context)).toEqual({ ok: true, value: report });
    },
  );

  it.each(cases)('%s: another receipt altered: the root differs both ways: different, exit 1', (_, make, context) => {
    const block = make();
    block.receipts[0].status = block.receipts[0].status === '0x1' ? '0x0' : '0x1';
    expect(verifyBlockOperation(block, context)).toMatchObject({
      verdict: 'different',
      body: { receipts_root: { matches: false } },
    });
  });

  it('receipt-root on the added chain: the root with the receipt left out, or with it in, is not_verifiable naming it; a root neither gives is different', () => {
    const read = readRpcBlock(onAdded(), new Problems(), { registry: added })!;
    expect(read.excludedReceipts).toHaveLength(1);
    const made = receiptRootBody({
      chainId: ADDED,
      receiptRoot: read.header.fields.receiptsRoot!,
      receipts: read.receipts,
      excludedReceipts: read.excludedReceipts,
      blockNumber: Number(read.header.fields.number),
      blockHash: read.header.hash!,
    });
    const leftOut = verifyReceiptRootOperation(made, { registry: added });
    expect(leftOut).toMatchObject({ status: 200, verdict: 'not_verifiable' });
    expect((leftOut.body as any).data[0]).toMatchObject({
      is_identical: true,
      transaction_count: 5,
      excluded_receipts: [{ index: 5 }],
    });
    // The root of all six receipts, as a chain that hashes the receipt would claim.
    const inRoot = receiptsRootAndBloom([...read.receipts, read.excludedReceipts[0]!.receipt], {
      rules: RULE_SETS.polygon,
    }).receiptsRoot;
    const withIt = verifyReceiptRootOperation({ ...made, receipt_root: bytesToHex(inRoot) }, { registry: added });
    expect(withIt).toMatchObject({ status: 200, verdict: 'not_verifiable' });
    expect((withIt.body as any).data[0]).toMatchObject({
      is_identical: true,
      computed_receipt_root: bytesToHex(inRoot),
    });
    const neither = verifyReceiptRootOperation({ ...made, receipt_root: 'ab'.repeat(32) }, { registry: added });
    expect(neither).toMatchObject({ status: 200, verdict: 'different' });
  });

  /** `make`'s block in the compact form the docs accept: no transactionHash on receipts and logs, no gasUsed. */
  const compact = (make: () => Record<string, any>) => () => {
    const block = make();
    block.receipts = block.receipts.map(({ transactionHash: _h, gasUsed: _g, ...receipt }: Record<string, any>) => ({
      ...receipt,
      logs: receipt.logs.map(({ transactionHash: _t, ...log }: Record<string, unknown>) => log),
    }));
    return block;
  };

  it.each(cases)(
    "%s, the compact form (no transactionHash, no gasUsed): the last receipt, untyped and of no gas after the block's, has the state-sync receipt's shape: set aside, not_verifiable naming it (was: different, a user check)",
    (_, make, context) => {
      const result = verifyBlockOperation(compact(make)(), context);
      expect(result.status).toBe(200);
      const report = result.body as any;
      expect(report).toMatchObject({
        verdict: 'not_verifiable',
        transaction_count: 5,
        receipts_root: { matches: true },
        logs_bloom: { matches: true },
        block_hash: { matches: true },
        excluded_receipts: [{ index: 5, reason: expect.stringContaining('by its shape') }],
      });
      // Under the hash Bor derives for the block, which the full form names.
      const full = verifyBlockOperation(make(), context).body as any;
      expect(report.excluded_receipts[0].tx_hash).toBe(full.excluded_receipts[0].tx_hash);
      const read = readRpcBlock(compact(make)(), new Problems(), context)!;
      expect(verifyRpcBlock(read, context)).toEqual({ ok: true, value: report });
    },
  );

  it.each(cases)('%s, the compact form, another receipt altered: different both ways', (_, make, context) => {
    const block = compact(make)();
    block.receipts[1].status = block.receipts[1].status === '0x1' ? '0x0' : '0x1';
    expect(verifyBlockOperation(block, context)).toMatchObject({
      verdict: 'different',
      body: { receipts_root: { matches: false } },
    });
  });

  it.each(cases)(
    '%s, the compact form without the header hash it derives from (and an incomplete header): refused naming header.hash',
    (_, make, context) => {
      const block = compact(make)();
      delete block.header.hash;
      delete block.header.mixHash;
      const result = verifyBlockOperation(block, context);
      expect(result.status).toBe(400);
      expect((result.body as any).error.details.invalid_parameters).toEqual([
        {
          name: 'header.hash',
          location: 'body',
          reason: 'missing',
          expected:
            "the block hash: under Polygon's rules the last receipt, untyped and of no gas after the block's gas, has the shape of Bor's state-sync receipt, which may be left out of the root; the block hash derives its transaction hash",
        },
      ]);
    },
  );

  it("receipt-root on the added chain, the state-sync receipt's tx_hash left out: set aside by its shape, not_verifiable; without a block hash to derive it from, 400 naming block_hash (was: is_identical false)", () => {
    const read = readRpcBlock(onAdded(), new Problems(), { registry: added })!;
    const made = receiptRootBody({
      chainId: ADDED,
      receiptRoot: read.header.fields.receiptsRoot!,
      receipts: read.receipts,
      excludedReceipts: read.excludedReceipts,
      blockNumber: Number(read.header.fields.number),
      blockHash: read.header.hash!,
    });
    const unnamed = structuredClone(made) as Record<string, any>;
    delete unnamed.transactions[5].tx_hash;
    const answer = verifyReceiptRootOperation(unnamed, { registry: added });
    expect(answer).toMatchObject({ status: 200, verdict: 'not_verifiable' });
    expect((answer.body as any).data[0]).toMatchObject({
      is_identical: true,
      transaction_count: 5,
      excluded_receipts: [{ index: 5, tx_hash: bytesToHex(read.excludedReceipts[0]!.txHash) }],
    });
    const altered = structuredClone(unnamed);
    altered.transactions[1].status = altered.transactions[1].status === 1 ? 0 : 1;
    expect(verifyReceiptRootOperation(altered, { registry: added })).toMatchObject({
      status: 200,
      verdict: 'different',
    });
    for (const body of [unnamed, made]) {
      const { block_hash: _hash, ...hashless } = body;
      const refused = verifyReceiptRootOperation(hashless, { registry: added });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('block_hash');
    }
  });
});

describe('lineage on a block holding the state-sync receipt (polygon-pos-10000000)', () => {
  const NAME = 'polygon-pos-10000000';
  const json = loadFixture(NAME) as Record<string, any>;
  const number = Number(json.header.number);
  const blocks = { block: async (_: number, n: number) => (n === number ? (json as never) : null) };
  const context = { chainId: 137, registry: defaultRegistry, source: {} as never, blocks };
  const genesisOf = (tx: number, at: number) => {
    const log = json.receipts[tx].logs[at];
    return {
      block_number: number,
      tx_index: tx,
      log_index: at,
      contract_address: log.address,
      topics: log.topics,
      data: log.data,
    };
  };

  it("the block's commitments match: though not_verifiable for its state-sync receipt, proven for the other receipts' logs", async () => {
    const { facts, checks } = await checkBlock(number, context);
    expect(checks.map((c) => c.status)).toEqual(['pass', 'pass', 'pass']);
    expect(facts).toMatchObject({ proven: true });
    expect(facts!.notVerifiable).toBeUndefined();
    const tx = json.receipts.findIndex((r: any, i: number) => i < 5 && r.logs.length > 0);
    const { checks: logChecks } = checkLog(genesisOf(tx, 0), 'genesis.logs[0]', facts!, () => {});
    expect(logChecks.map((c) => [c.check, c.status])).toEqual([
      ['log.position', 'pass'],
      ['log.bloom', 'pass'],
    ]);
  });

  it("a genesis log of the state-sync receipt's index: skipped as not verifiable, naming the receipt (was: fail, the block has no transaction 5)", async () => {
    const { facts } = await checkBlock(number, context);
    const { checks } = checkLog(genesisOf(5, 0), 'genesis.logs[0]', facts!, () => {});
    expect(checks.map((c) => [c.check, c.status])).toEqual([
      ['log.position', 'skipped'],
      ['log.bloom', 'skipped'],
    ]);
    expect(checks[0]!.reason).toMatch(/^not verifiable: the receipt at index 5 \(transaction hash 0x[0-9a-f]{64}\)/);
  });
});
