/**
 * verifyBlock reads a block without raw receipts one receipt at a time, as the trie hashes them, and falls back on
 * readRpcBlock for anything that path does not take as plainly valid. Its answer must be exactly the one of the whole
 * reader, readRpcBlock then verifyRpcBlock, on every real block and on any alteration of one: a report, or a refusal
 * naming the same problems.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  ChainRegistry,
  Problems,
  readRpcBlock,
  verifyBlock,
  type BlockVerifyContext,
} from '../packages/core/src/index.js';
import { verifyRpcBlock } from '../packages/core/src/verify/verify-block.js';
import { streamRpcBlock } from '../packages/core/src/input/json-rpc/json-rpc.js';
import { ReceiptNotPlainlyValid } from '../packages/core/src/errors.js';
import { err } from '../packages/core/src/result.js';
import { borStateSyncTxHash } from '../packages/core/src/chains/state-sync.js';
import { fixtureNames, loadFixture, unverifiableNames, type FixtureBlock } from './helpers/fixtures.js';
import { TEST_CHAINS, testRegistry } from './helpers/test-chains.js';
import { runs } from './helpers/runs.js';

/** The whole reader's answer: what verifyBlock answered before it read receipts one at a time. */
function wholeAnswer(input: unknown, context: BlockVerifyContext = {}) {
  const problems = new Problems();
  // Read as verifyBlock reads it: with the registry, and the rules a chain outside it is verified under.
  const block = readRpcBlock(input, problems, { registry: context.registry, rules: context.rules });
  return block === undefined ? err(problems.invalidInput()) : verifyRpcBlock(block, context);
}

/** The block without its raw receipts, which verifyBlock reads whole. */
function withoutRaw(fixture: FixtureBlock): Record<string, unknown> {
  const { raw_receipts: _raw, ...block } = fixture;
  return block;
}

/**
 * A real Polygon block on the test chain with Bor's state-sync receipt appended, as bor's eth_getBlockReceipts gives it:
 * last, under the transaction hash derived from the block, left out of the root.
 */
function stateSyncBlock() {
  const context = { registry: testRegistry };
  const block: Record<string, unknown> = {
    ...withoutRaw(loadFixture('polygon-pos-9013760')),
    chain_id: TEST_CHAINS.polygon,
  };
  const header = readRpcBlock(block, new Problems(), context)!.header;
  const receipts = block.receipts as Array<Record<string, unknown>>;
  const stateSync = {
    transactionIndex: `0x${receipts.length.toString(16)}`,
    transactionHash: `0x${bytesToHex(borStateSyncTxHash(header.fields.number!, header.hash!))}`,
    type: '0x0',
    status: '0x1',
    cumulativeGasUsed: '0x0',
    logs: [{ address: `0x${'00'.repeat(18)}1001`, topics: [`0x${'11'.repeat(32)}`], data: '0x01' }],
  };
  return { block: { ...block, receipts: [...receipts, stateSync] }, context };
}

const PROPERTY_RUNS = runs(300);

describe('verifyBlock reading receipts as it hashes them', () => {
  it.each([...fixtureNames, ...unverifiableNames])('%s: the same answer as the whole reader', (name) => {
    const block = withoutRaw(loadFixture(name));
    expect(streamRpcBlock(block)).toBeDefined();
    const answer = verifyBlock(block);
    expect(answer).toEqual(wholeAnswer(block));
    // A real block of a chain the registry knows is reported on, never refused.
    expect(answer.ok || answer.error.kind === 'chain_not_supported').toBe(true);
  });

  it('a block with raw receipts is read whole', () => {
    const fixture = loadFixture('mainnet-15040641');
    expect(fixture.raw_receipts).toBeDefined();
    expect(streamRpcBlock(fixture)).toBeUndefined();
  });

  it('decodes each receipt as readRpcBlock does, the one left out of the root read too', () => {
    const { block, context } = stateSyncBlock();
    const whole = readRpcBlock(block, new Problems(), context)!;
    const streamed = streamRpcBlock(block, context)!;
    expect(whole.excludedReceipts).toHaveLength(1);
    // The streamed block leaves the excluded receipt's fields in the JSON.
    expect(streamed.excludedReceipts).toEqual(
      whole.excludedReceipts.map(({ receipt: _receipt, ...excluded }) => excluded),
    );
    expect(streamed.receipts.outlines.length).toBe(whole.receipts.length);
    whole.receipts.forEach((receipt, i) => expect(streamed.receipts.receiptAt(i)).toEqual(receipt));
    expect(verifyBlock(block, context)).toEqual(wholeAnswer(block, context));
    // Not proven for the receipt no commitment covers; the others' root and bloom match.
    expect(verifyBlock(block, context)).toMatchObject({
      ok: true,
      value: { verdict: 'not_verifiable', receipts_root: { matches: true }, logs_bloom: { matches: true } },
    });
    // The receipt left out is decoded by readRest: malformed, it is found there, and the block refused.
    const receipts = block.receipts.map((r, i) =>
      i === whole.excludedReceipts[0]!.index ? { ...r, logs: [{ address: '0x12', topics: [], data: '0x' }] } : r,
    );
    const altered = { ...block, receipts };
    expect(() => streamRpcBlock(altered, context)!.receipts.readRest()).toThrow(ReceiptNotPlainlyValid);
    expect(verifyBlock(altered, context)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expect(verifyBlock(altered, context)).toEqual(wholeAnswer(altered, context));
  });

  it('a receipt that is not plainly valid is found even when nothing is hashed (a chain that is not verifiable)', () => {
    const block = withoutRaw(loadFixture('cronos-10000'));
    const receipts = (block.receipts as Array<Record<string, unknown>>).map((r) => ({ ...r }));
    receipts[0] = { ...receipts[0], cumulativeGasUsed: '0xzz' };
    const altered = { ...block, receipts };
    expect(verifyBlock(block)).toMatchObject({ ok: true, value: { verdict: 'not_verifiable' } });
    expect(verifyBlock(altered)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expect(verifyBlock(altered)).toEqual(wholeAnswer(altered));
  });

  // Small real blocks of every kind the fixtures hold: each run alters one at a few places.
  const small = fixtureNames.filter((name) => {
    const { receipts } = loadFixture(name);
    return receipts.length > 0 && receipts.length <= 60;
  });
  const junk = fc.constantFrom<unknown>(
    null,
    undefined,
    0,
    true,
    false,
    '0x',
    '0xzz',
    '0x0',
    '0x1',
    '0x2',
    '0x7e',
    '0xff',
    '0x100',
    '12',
    '0x' + '00'.repeat(20),
    '0x' + 'ab'.repeat(32),
    '0X' + 'AB'.repeat(32),
    '0x' + 'ab'.repeat(33),
    // A receipt's own logsBloom: well-formed (the empty bloom matches a receipt without logs), and a byte short.
    '0x' + '00'.repeat(256),
    '0x' + 'ff'.repeat(256),
    '0x' + '00'.repeat(255),
    [],
    {},
    [{}],
    [{ address: '0x' + '11'.repeat(20), topics: [], data: '0x' }],
    [{ address: '0x' + '11'.repeat(20), topics: ['0x' + '22'.repeat(32)], data: '0xabc' }],
    [{ address: '0x' + '11'.repeat(20), topics: Array(5).fill('0x' + '22'.repeat(32)), data: '0x' }],
  );
  const member = fc.constantFrom(
    'type',
    'status',
    'root',
    'cumulativeGasUsed',
    'logs',
    'transactionIndex',
    'transactionHash',
    'depositNonce',
    'depositReceiptVersion',
    'logsBloom',
    // Members that repeat the block or the receipts (restated-members.ts).
    'blockHash',
    'blockNumber',
    'gasUsed',
  );
  const logMember = fc.constantFrom(
    'address',
    'topics',
    'data',
    'blockHash',
    'blockNumber',
    'blockTimestamp',
    'transactionHash',
    'transactionIndex',
    'logIndex',
    'removed',
  );
  const alteration = fc.oneof(
    fc.record({ at: fc.nat(), member, value: junk }).map((a) => ({ kind: 'member' as const, ...a })),
    fc
      .record({ at: fc.nat(), log: fc.nat(), member: logMember, value: junk })
      .map((a) => ({ kind: 'log' as const, ...a })),
    fc.record({ at: fc.nat(), to: fc.nat() }).map((a) => ({ kind: 'swap' as const, ...a })),
    // One receipt given another's transactionHash.
    fc.record({ at: fc.nat(), to: fc.nat() }).map((a) => ({ kind: 'sameHash' as const, ...a })),
    // The first receipt's own bloom and another's made wrong: two mismatches (which one the report names, on a block
    // read either way, is test/receipt-blooms.test.ts's).
    fc.record({ to: fc.nat() }).map((a) => ({ kind: 'twoBlooms' as const, ...a })),
    fc.record({ at: fc.nat(), value: junk }).map((a) => ({ kind: 'receipt' as const, ...a })),
    fc.record({ value: junk }).map((a) => ({ kind: 'chain' as const, ...a })),
    fc.record({ value: junk }).map((a) => ({ kind: 'raw' as const, ...a })),
  );
  type Alteration = typeof alteration extends fc.Arbitrary<infer T> ? T : never;

  function alter(base: Record<string, unknown>, alterations: Alteration[]): Record<string, unknown> {
    const block = { ...base };
    const receipts = (base.receipts as Array<Record<string, unknown>>).map((r) => ({
      ...r,
      ...(Array.isArray(r.logs) && { logs: r.logs.map((l: Record<string, unknown>) => ({ ...l })) }),
    })) as Array<Record<string, any>>;
    for (const a of alterations) {
      const i = 'at' in a ? a.at % receipts.length : 0;
      const isObject = typeof receipts[i] === 'object' && receipts[i] !== null;
      if (a.kind === 'member' && isObject) receipts[i]![a.member] = a.value;
      if (a.kind === 'log' && isObject && Array.isArray(receipts[i]!.logs) && receipts[i]!.logs.length > 0) {
        const logs = receipts[i]!.logs as Array<Record<string, unknown>>;
        const log = logs[a.log % logs.length];
        if (typeof log === 'object' && log !== null) log[a.member] = a.value;
      }
      if (a.kind === 'swap')
        [receipts[i], receipts[a.to % receipts.length]] = [receipts[a.to % receipts.length]!, receipts[i]!];
      if (a.kind === 'sameHash' && isObject) {
        const other = receipts[a.to % receipts.length];
        if (typeof other === 'object' && other !== null) receipts[i]!.transactionHash = other.transactionHash;
      }
      if (a.kind === 'twoBlooms')
        for (const r of [receipts[0], receipts[a.to % receipts.length]])
          if (typeof r === 'object' && r !== null) r.logsBloom = `0x${'ff'.repeat(256)}`;
      if (a.kind === 'receipt') receipts[i] = a.value as Record<string, any>;
      if (a.kind === 'chain') block.chain_id = a.value;
      if (a.kind === 'raw') block.raw_receipts = a.value;
    }
    return { ...block, receipts };
  }

  it(`any alteration of a real block: the same answer as the whole reader (${PROPERTY_RUNS} runs)`, () => {
    const registry = new ChainRegistry();
    const bases = [
      ...small.map((name) => ({ block: withoutRaw(loadFixture(name)), registry })),
      { block: stateSyncBlock().block, registry: testRegistry },
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.array(alteration, { minLength: 1, maxLength: 3 }),
        fc.constantFrom<BlockVerifyContext['rules']>(undefined, 'ethereum', 'optimism'),
        (base, alterations, rules) => {
          const block = alter(base.block, alterations);
          const context = { registry: base.registry, ...(rules !== undefined && { rules }) };
          expect(verifyBlock(block, context)).toEqual(wholeAnswer(block, context));
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
