import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runLineage } from '../packages/service/src/cli/lineage.js';
import { auditBundle, bundleParameter, verifyLineageOperation } from '../packages/core/src/api/lineage-operation.js';
import { BundleSource, type Bundle } from '../packages/core/src/bundle/bundle-source.js';
import { ChainMismatchError, SourceError } from '../packages/core/src/errors.js';
import type { LineageReport } from '../packages/core/src/lineage/lineage-report.js';
import { walkLineage } from '../packages/core/src/lineage/walker.js';
import { INSTANT_FORM } from '../packages/core/src/input/values/instants.js';
import { runCliBytes } from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';
import {
  buildBundle,
  buildHeldBundle,
  buildSyncBundle,
  forgeErc20Result,
  PAIR_RECORD,
  recordOf,
  SYNC_RECORD,
  WETH_RECORD,
} from './helpers/lineage-bundles.js';

async function walk(bundle: Bundle, tracingId = PAIR_RECORD): Promise<LineageReport> {
  const source = new BundleSource(bundle);
  return walkLineage({ chainId: 1, tracingId, source, blocks: source });
}

const failed = (report: LineageReport) => [
  ...new Set(report.records.flatMap((r) => r.checks.filter((c) => c.status === 'fail').map((c) => c.check))),
];
const statusOf = (report: LineageReport, name: string) =>
  report.records
    .flatMap((r) => r.checks)
    .filter((c) => c.check === name)
    .map((c) => c.status);

/** The raw block record of the bundle's block (mutable, for tampering). */
const rawBlockRecord = (bundle: Bundle): any =>
  (bundle.exchanges.find((e) => e.path === '/evm/raw/blocks')!.response as any).data[0];

/** The exchange answering `path` for `tracingId` (first page for genesis). */
function answer(bundle: Bundle, path: string, tracingId: string): any {
  return bundle.exchanges.find(
    (e) =>
      e.path === path && (e.body.tracing_id ?? e.body._tracing_id) === tracingId && (e.body.cursor ?? null) === null,
  )!.response;
}

/**
 * The genesis of `tracingId` without its logs: its function results on one page, counted (a page must count what it
 * holds, and an empty one would end paging).
 */
function withoutGenesisLogs(bundle: Bundle, tracingId: string) {
  const pages = bundle.exchanges.filter(
    (e) => e.path === '/evm/lineage/genesis' && (e.body.tracing_id ?? e.body._tracing_id) === tracingId,
  );
  const results = pages.flatMap((e) => (e.response as any).data.genesis.function_results);
  const first = pages.find((e) => (e.body.cursor ?? null) === null)!;
  Object.assign(first.response as any, { cursor: null, count: results.length });
  (first.response as any).data.genesis = { logs: [], function_results: results };
  bundle.exchanges = bundle.exchanges.filter((e) => !pages.includes(e) || e === first);
}

describe('lineage walker on bundles built from a real block', () => {
  it('the untampered reserve snapshot and its parent pass every check but their fields held by no log', async () => {
    const report = await walk(buildBundle());
    expect(failed(report)).toEqual([]);
    expect(report.verdict).toBe('not_verifiable');
    expect(report.records.map((r) => r.checks.filter((c) => c.status === 'skipped'))).toEqual([
      [
        expect.objectContaining({
          check: 'record.fields',
          reason: 'not verifiable: nothing checked holds pool_uid, exchange_id to the chain',
        }),
      ],
      [
        expect.objectContaining({
          check: 'record.fields',
          reason:
            "not verifiable: name, symbol, decimals rest only on function results, which cannot be verified offline (a contract call's output is in no block header or receipt)",
        }),
      ],
    ]);
    expect(report.reason).toBe(
      `record.fields (${PAIR_RECORD}): not verifiable: nothing checked holds pool_uid, exchange_id to the chain`,
    );
    expect(report.records.map((r) => [r.tracing_id, r.dataset])).toEqual([
      [PAIR_RECORD, '0301'],
      [WETH_RECORD, '0201'],
    ]);
    for (const name of [
      'shape.tracing_id',
      'shape.id_lists',
      'shape.dataset',
      'block.header_hash',
      'block.receipts_root',
      'log.position',
      'log.bloom',
      'log.block_time',
      'function_result.selector',
      'function_result.decoded_output',
      'record.reserves',
      'record.erc20',
      'record.not_older',
      'block.raw_record',
    ]) {
      expect(statusOf(report, name), name).toContain('pass');
      expect(statusOf(report, name), name).not.toContain('fail');
    }
    // The genesis of the pair came in two pages, one counted with page_count.
    expect(report.records[0]!.checks.filter((c) => c.subject.startsWith('genesis.function_results'))).toHaveLength(2);
  });

  it('the snapshot alone, claiming only what its Sync log holds to the chain, passes', async () => {
    const report = await walk(buildHeldBundle());
    expect(report).toMatchObject({ verdict: 'pass', reason: null, summary: { fail: 0, skipped: 0 } });
    expect(report.records.map((r) => r.tracing_id)).toEqual([PAIR_RECORD]);
    expect(report.records[0]!.checks.find((c) => c.check === 'record.fields')).toMatchObject({
      status: 'pass',
      reason: 'chain_id, address, block_number, block_time, tx_index, log_index, reserves held to the chain',
    });
  });

  it.each([
    '2024-03-13T13:55:35',
    '2024-03-13 13:55:35.000',
    '2024-03-13T22:55:35+09:00',
    // PostgreSQL's text for a timestamptz, a zone of hours alone (ISO 8601's ±hh): it was not read as a time.
    '2024-03-13 13:55:35+00',
    '2024-03-13T22:55:35.000000+09',
  ])(
    "a block_time written without a zone (UTC) or with an offset is the same instant, whatever the machine's zone: %s",
    async (written) => {
      const bundle = buildHeldBundle();
      answer(bundle, '/evm/lineage/record', PAIR_RECORD).data.record.block_time = written;
      for (const log of answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs) log.block_time = written;
      const zone = process.env.TZ;
      process.env.TZ = 'Asia/Tokyo';
      try {
        expect(await walk(bundle)).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
    },
  );

  it.each([
    ['name', 'Fake Ether'],
    ['symbol', 'FAKE'],
    ['decimals', 6],
  ] as const)(
    "WETH's %s() forged as %j with the record to match: not verifiable, naming the field, never a pass",
    async (member, value) => {
      const bundle = buildBundle();
      forgeErc20Result(bundle, member, value);
      const report = await walk(bundle, WETH_RECORD);
      expect(failed(report)).toEqual([]);
      expect(report.verdict).toBe('not_verifiable');
      expect(report.reason).toMatch(
        new RegExp(
          `^record\\.fields \\(${WETH_RECORD}\\): not verifiable: name, symbol, decimals rest only on function results`,
        ),
      );
    },
  );

  it('a child inherits its parent: the held snapshot over a forged WETH record is not verifiable', async () => {
    const bundle = buildHeldBundle();
    recordOf(bundle, PAIR_RECORD)._parent_tracing_ids = [WETH_RECORD];
    forgeErc20Result(bundle, 'name', 'Fake Ether');
    const report = await walk(bundle);
    // The snapshot's own checks all pass; its parent's name rests on a function result alone.
    expect(report.records[0]!.checks.every((c) => c.status === 'pass')).toBe(true);
    expect(report.verdict).toBe('not_verifiable');
    expect(report.reason).toMatch(new RegExp(`^record\\.fields \\(${WETH_RECORD}\\): not verifiable: name, `));
    // Over a failing parent, the child fails.
    recordOf(bundle, WETH_RECORD).decimals = 6;
    expect((await walk(bundle)).verdict).toBe('fail');
  });

  const tampered: Array<[string, (b: Bundle) => void, string | string[]]> = [
    [
      'a reserve changed',
      (b) => (answer(b, '/evm/lineage/record', PAIR_RECORD).data.record.reserves[0] = '1'),
      'record.reserves',
    ],
    [
      'a log moved to another index',
      (b) => (answer(b, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0].log_index = 1),
      'log.position',
    ],
    [
      // The reserves rest on this Sync: record.reserves is skipped, not failed a second time (a user check).
      "a Sync log's data altered",
      (b) => {
        const log = answer(b, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0];
        log.data = `${log.data.slice(0, -1)}${log.data.endsWith('0') ? '1' : '0'}`;
      },
      'log.position',
    ],
    [
      'a topic altered',
      (b) => (answer(b, '/evm/lineage/genesis', WETH_RECORD).data.genesis.logs[0].topics[1] = 'ff'.repeat(32)),
      'log.position',
    ],
    [
      'a decoded output that disagrees with its bytes',
      (b) =>
        ((
          b.exchanges.find((e) => e.body.cursor === 'page-2')!.response as any
        ).data.genesis.function_results[0].decoded_output.reserve0 = '12345'),
      'function_result.decoded_output',
    ],
    ['a header field changed', (b) => (b.blocks[0]!.header.gasUsed = '0x1'), 'block.header_hash'],
    [
      'a receipt dropped from the block',
      (b) => b.blocks[0]!.receipts.pop(),
      ['block.receipts_root', 'block.logs_bloom'],
    ],
    [
      "the raw block record's block_hash altered",
      (b) => (rawBlockRecord(b).block_hash = 'ff'.repeat(32)),
      'block.raw_record',
    ],
    ["the raw block record's block_number altered", (b) => (rawBlockRecord(b).block_number += 1), 'block.raw_record'],
    [
      "the raw block record's receipt_root altered",
      (b) => (rawBlockRecord(b).receipt_root = 'ff'.repeat(32)),
      'block.raw_record',
    ],
    [
      "the record's block_time altered",
      (b) => (answer(b, '/evm/lineage/record', WETH_RECORD).data.record.block_time = '2024-03-13T13:55:36.000Z'),
      'record.fields',
    ],
    [
      "the record's chain_id altered",
      (b) => (answer(b, '/evm/lineage/record', PAIR_RECORD).data.record.chain_id = 10),
      'record.fields',
    ],
    [
      'a parent cycle',
      (b) => (answer(b, '/evm/lineage/record', WETH_RECORD).data.record.parent_tracing_ids = [PAIR_RECORD]),
      'parents.cycle',
    ],
  ];

  it.each(tampered)('%s fails exactly %s and no other check', async (_name, tamper, expected) => {
    const bundle = buildBundle();
    tamper(bundle);
    const report = await walk(bundle);
    expect(report.verdict).toBe('fail');
    expect(failed(report)).toEqual([expected].flat());
  });

  it("the raw block record's block_number as a decimal string is the number, as audit --service reads it; another number still fails (a user re-check: the string failed)", async () => {
    const as = (edit: (raw: { block_number: unknown }) => void) => {
      const bundle = buildBundle();
      edit(rawBlockRecord(bundle));
      return walk(bundle);
    };
    const string = await as((raw) => (raw.block_number = String(raw.block_number)));
    expect(statusOf(string, 'block.raw_record').every((status) => status === 'pass')).toBe(true);
    expect(failed(string)).toEqual([]);
    const other = await as((raw) => (raw.block_number = String(Number(raw.block_number) + 1)));
    expect(failed(other)).toEqual(['block.raw_record']);
    // One without its block_number gives none, said so (was: "its block_number is undefined": a user check).
    const none = await as((raw) => delete raw.block_number);
    const check = none.records.flatMap((r) => r.checks).find((c) => c.check === 'block.raw_record')!;
    expect(check.status).toBe('fail');
    expect(check.reason).toMatch(/^it gives no block_number, where the block's is \d+$/);
  });

  it("a Sync log's block_time altered fails log.block_time alone: the reserves, which rest on its position, still pass", async () => {
    const bundle = buildBundle();
    const log = answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0];
    log.block_time = log.block_time.replace(/:(\d\d)\./, (_: string, s: string) => `:${s === '00' ? '01' : '00'}.`);
    const report = await walk(bundle);
    expect(failed(report)).toEqual(['log.block_time']);
    expect(statusOf(report, 'record.reserves')).toEqual(['pass']);
  });

  it("a getReserves result of another contract than the record's pool is said beside the reserves' verdict, never counted (was: left out unsaid: a user check)", async () => {
    const bundle = buildBundle();
    const result = (bundle.exchanges.find((e) => e.body.cursor === 'page-2')!.response as any).data.genesis
      .function_results[0];
    result.contract = '0x' + '11'.repeat(20);
    const reserves = (await walk(bundle)).records[0]!.checks.find((c) => c.check === 'record.reserves')!;
    expect(reserves.status).toBe('pass');
    expect(reserves.reason).toMatch(
      /^reserves equal the Sync at genesis\.logs\[\d+\] \(the getReserves result is of another contract, "(0x)?1{40}", not of the record's address "[0-9a-fx]+"\)$/,
    );
  });

  it('a missing parent (the service answered 404) is reported', async () => {
    const bundle = buildBundle();
    const exchange = bundle.exchanges.find(
      (e) => e.path === '/evm/lineage/record' && e.body.tracing_id === WETH_RECORD,
    )!;
    exchange.status = 404;
    exchange.response = { error: { code: 'NOT_FOUND', http_status: 404, message: 'No record with this tracing id' } };
    const report = await walk(bundle);
    expect(failed(report)).toEqual(['record.exists']);
    expect(report.records[1]!.checks[0]!.reason).toBe(`parent of ${PAIR_RECORD} is missing`);
  });

  it('an unknown dataset gets the generic checks only, reported as not cross-checked, never passed', async () => {
    const bundle = buildBundle();
    // Record and genesis alike: a genesis of another dataset than its record's fails shape.dataset.
    for (const e of bundle.exchanges)
      if (e.path.startsWith('/evm/lineage/') && (e.body.tracing_id ?? e.body._tracing_id) === PAIR_RECORD)
        (e.response as any).data.dataset = '9999';
    const report = await walk(bundle);
    expect(statusOf(report, 'shape.dataset')[0]).toBe('skipped');
    const cross = report.records[0]!.checks.find((c) => c.check === 'record.cross_check')!;
    expect(cross).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/not cross-checked/) });
    expect(statusOf(report, 'record.reserves')).toEqual([]);
  });

  it.each([null, undefined])(
    'no dataset sent (%s): reported as none, not as an unknown dataset ""',
    async (dataset) => {
      const bundle = buildBundle();
      answer(bundle, '/evm/lineage/record', PAIR_RECORD).data.dataset = dataset;
      const report = await walk(bundle);
      expect(report.records[0]!.dataset).toBeNull();
      expect(report.records[0]!.checks.filter((c) => c.status === 'skipped').map((c) => c.reason)).toEqual([
        'the service sent no dataset (absent or null): generic checks only',
        'a record of no dataset is not cross-checked: generic checks only',
        expect.stringMatching(/^not verifiable: /),
      ]);
    },
  );

  it.each([null, undefined])(
    'an ERC-20 record whose name is %s beside a name() result: the name claims nothing, the others are compared',
    async (name) => {
      const bundle = buildBundle();
      const record = answer(bundle, '/evm/lineage/record', WETH_RECORD).data.record;
      if (name === undefined) delete record.name;
      else record.name = name;
      const erc20 = (await walk(bundle, WETH_RECORD)).records[0]!.checks.find((c) => c.check === 'record.erc20');
      expect(erc20).toMatchObject({ status: 'pass', reason: 'symbol, decimals equal the decoded function results' });
      // A name the record does give, and wrong, still fails.
      record.name = 'Wrapped Bitcoin';
      const wrong = (await walk(bundle, WETH_RECORD)).records[0]!.checks.find((c) => c.check === 'record.erc20');
      expect(wrong).toMatchObject({ status: 'fail', reason: expect.stringMatching(/^name is "Wrapped Bitcoin" but/) });
    },
  );

  it('an ERC-20 record that gives none of name, symbol and decimals: skipped, saying so, never failed', async () => {
    const bundle = buildBundle();
    const record = answer(bundle, '/evm/lineage/record', WETH_RECORD).data.record;
    record.name = null;
    delete record.symbol;
    record.decimals = null;
    const erc20 = (await walk(bundle, WETH_RECORD)).records[0]!.checks.find((c) => c.check === 'record.erc20');
    expect(erc20).toMatchObject({
      status: 'skipped',
      reason:
        'the record gives none of name, symbol, decimals (absent or null: it claims nothing), which the function results hold',
    });
  });

  it("ERC-20 results of another contract than the record's: said so, not that there are none", async () => {
    const bundle = buildBundle();
    for (const result of answer(bundle, '/evm/lineage/genesis', WETH_RECORD).data.genesis.function_results)
      result.contract = 'dac17f958d2ee523a2206206994597c13d831ec7';
    const report = await walk(bundle, WETH_RECORD);
    expect(report.records[0]!.checks.find((c) => c.check === 'record.erc20')).toMatchObject({
      status: 'skipped',
      reason:
        'the name, symbol, decimals results are of another contract ("dac17f958d2ee523a2206206994597c13d831ec7"), not of the record\'s address "c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"',
    });
  });

  it("a library source's record with a tx_index that is no integer: record.fields fails naming it, not 'held by nothing'", async () => {
    const bundle = buildHeldBundle();
    const source = new BundleSource(bundle);
    const own = {
      record: async (chainId: number, tracingId: string) => {
        const answer = (await source.record(chainId, tracingId))!;
        return { ...answer, record: { ...answer.record, tx_index: '0x9' } };
      },
      genesis: (chainId: number, tracingId: string) => source.genesis(chainId, tracingId),
    };
    const report = await walkLineage({ chainId: 1, tracingId: PAIR_RECORD, source: own, blocks: source });
    expect(failed(report)).toEqual(['record.fields']);
    expect(report.reason).toBe(
      `record.fields (${PAIR_RECORD}): tx_index "0x9" is not a non-negative integer: a JSON number, or a decimal string of digits`,
    );
  });

  it('without blocks, log checks are skipped, never passed, and the lineage is not verifiable', async () => {
    const bundle = buildBundle();
    bundle.blocks = [];
    const report = await walk(bundle);
    expect(statusOf(report, 'log.position').every((s) => s === 'skipped')).toBe(true);
    expect(statusOf(report, 'block.available')).toContain('skipped');
    expect(report).toMatchObject({
      verdict: 'not_verifiable',
      reason: expect.stringMatching(/^block.available \(block 19426587\): the source has no such block/),
    });
  });

  it('a lineage with no genesis log has no block checked on chain: not verifiable, never a pass', async () => {
    const bundle = buildBundle();
    for (const tracingId of [PAIR_RECORD, WETH_RECORD]) withoutGenesisLogs(bundle, tracingId);
    // The records' block_number stays; no log holds any of it to the chain.
    const report = await walk(bundle);
    expect(statusOf(report, 'block.header_hash')).toEqual([]);
    expect(report.verdict).toBe('not_verifiable');
    expect(report.reason).toMatch(/^record\.fields \(.*\): not verifiable: .*nothing checked holds .* to the chain$/);
  });

  it('one record with no genesis log: not verifiable, naming it, although its parent is held to the chain', async () => {
    // The Sync dropped from the record's genesis: its reserves then stand on getReserves, which is checked only
    // against itself, so made-up reserves with a getReserves made up to agree would pass the same way.
    const bundle = buildBundle();
    withoutGenesisLogs(bundle, PAIR_RECORD);
    const report = await walk(bundle);
    expect(failed(report)).toEqual([]);
    expect(statusOf(report, 'block.header_hash')).toEqual(['pass']); // the parent's
    expect(report).toMatchObject({
      verdict: 'not_verifiable',
      reason: `record.fields (${PAIR_RECORD}): not verifiable: reserves rests only on function results, which cannot be verified offline (a contract call's output is in no block header or receipt); nothing checked holds address, pool_uid, exchange_id, block_number, block_time, tx_index, log_index to the chain`,
    });
  });

  describe('every genesis tracing id the record lists is accounted for by an artifact delivered', () => {
    const pageTwo = (bundle: Bundle) =>
      bundle.exchanges.find((e) => e.path === '/evm/lineage/genesis' && e.body.cursor === 'page-2')!.response as any;

    it('the held snapshot: its 2 ids, 2 artifacts delivered: pass', async () => {
      const report = await walk(buildHeldBundle());
      expect(report.records[0]!.checks.find((c) => c.check === 'genesis.complete')).toMatchObject({
        status: 'pass',
        reason: 'the 2 genesis artifacts delivered account for the 2 genesis tracing ids the record lists',
      });
    });

    it('page 2 delivered empty (1 artifact for 2 ids): not verifiable, naming what is missing (it passed: a user check)', async () => {
      const bundle = buildHeldBundle();
      Object.assign(pageTwo(bundle), { page_count: 0 });
      pageTwo(bundle).data.genesis.function_results = [];
      const report = await walk(bundle);
      expect(report).toMatchObject({
        verdict: 'not_verifiable',
        reason: `genesis.complete (${PAIR_RECORD}): not verifiable: the record lists 2 genesis tracing ids, the source delivered 1 genesis artifact (1 missing)`,
      });
    });

    it('artifacts that carry their ids: a listed id none carries is named; an id the record does not list fails', async () => {
      const bundle = buildHeldBundle();
      const [syncId, reservesId] = recordOf(bundle, PAIR_RECORD)._genesis_tracing_ids;
      answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0]._tracing_id = syncId;
      pageTwo(bundle).data.genesis.function_results[0].tracing_id = reservesId.toUpperCase();
      expect(await walk(bundle)).toMatchObject({ verdict: 'pass' });

      pageTwo(bundle).data.genesis.function_results[0].tracing_id = syncId;
      expect((await walk(bundle)).reason).toBe(
        `genesis.complete (${PAIR_RECORD}): genesis.function_results[0] carries the tracing id ${syncId} of an earlier artifact`,
      );

      pageTwo(bundle).data.genesis.function_results[0].tracing_id = 'ab'.repeat(18);
      expect(await walk(bundle)).toMatchObject({
        verdict: 'fail',
        reason: `genesis.complete (${PAIR_RECORD}): genesis.function_results[0] carries the tracing id ${'ab'.repeat(18)}, which the record does not list among its genesis tracing ids`,
      });

      Object.assign(pageTwo(bundle), { page_count: 0 });
      pageTwo(bundle).data.genesis.function_results = [];
      expect(await walk(bundle)).toMatchObject({
        verdict: 'not_verifiable',
        reason: `genesis.complete (${PAIR_RECORD}): not verifiable: no artifact delivered carries the genesis tracing id ${reservesId} the record lists`,
      });
    });

    it('a copy of the Sync log in place of getReserves accounts for no second id (it passed, 2 for 2: a user re-check)', async () => {
      const bundle = buildHeldBundle();
      const sync = answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0];
      pageTwo(bundle).data.genesis.function_results = [structuredClone(sync)];
      const report = await walk(bundle);
      expect(report.records[0]!.checks.find((c) => c.check === 'genesis.complete')).toMatchObject({
        status: 'skipped',
        reason:
          'not verifiable: the record lists 2 genesis tracing ids, the source delivered 2 genesis artifacts, of which 1 counts (1 missing); genesis.function_results[0] is the same artifact as genesis.logs[0]',
      });
    });

    it('a log among the function results is no function result: it accounts for no id', async () => {
      const bundle = buildHeldBundle();
      const sync = structuredClone(answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0]);
      sync.log_index += 1;
      pageTwo(bundle).data.genesis.function_results = [sync];
      const report = await walk(bundle);
      expect(report.records[0]!.checks.find((c) => c.check === 'genesis.complete')).toMatchObject({
        status: 'skipped',
        reason:
          'not verifiable: the record lists 2 genesis tracing ids, the source delivered 2 genesis artifacts, of which 1 counts (1 missing); genesis.function_results[0] is not a function result (contract is missing)',
      });
    });

    it('one artifact carrying the id, another carrying none: the message says which (it said none carries one)', async () => {
      const bundle = buildHeldBundle();
      const [syncId, reservesId] = recordOf(bundle, PAIR_RECORD)._genesis_tracing_ids;
      recordOf(bundle, PAIR_RECORD)._genesis_tracing_ids = [reservesId];
      pageTwo(bundle).data.genesis.function_results[0].tracing_id = reservesId;
      expect(syncId).toBeDefined();
      expect((await walk(bundle)).reason).toBe(
        `genesis.complete (${PAIR_RECORD}): not verifiable: 1 genesis artifact delivered carries no id, more than the 0 genesis tracing ids the record lists that no artifact carries, so which the record rests on cannot be told`,
      );
    });

    it('the decimals result replaced by a copy of symbol: decimals is checked by nothing, and both checks say so', async () => {
      const bundle = buildBundle();
      const results = answer(bundle, '/evm/lineage/genesis', WETH_RECORD).data.genesis.function_results;
      const symbol = results.find((r: any) => r.decoded_name === 'symbol');
      results[results.findIndex((r: any) => r.decoded_name === 'decimals')] = structuredClone(symbol);
      const report = await walk(bundle, WETH_RECORD);
      const checks = report.records[0]!.checks;
      expect(checks.find((c) => c.check === 'record.erc20')).toMatchObject({
        status: 'skipped',
        reason:
          "not verifiable: no decodable decimals result of the record's address among the artifacts (name, symbol equal the decoded function results)",
      });
      expect(checks.find((c) => c.check === 'genesis.complete')).toMatchObject({
        status: 'skipped',
        reason: expect.stringMatching(
          /of which 3 count \(1 missing\); genesis\.function_results\[\d\] is the same artifact as genesis\.function_results\[\d\] \(the call of 95d89b41 on c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2\)$/,
        ),
      });
    });

    it('a record that gives no genesis id list at all: not listed (it claims no ids to account for)', async () => {
      const bundle = buildHeldBundle();
      delete recordOf(bundle, PAIR_RECORD)._genesis_tracing_ids;
      const report = await walk(bundle);
      expect(statusOf(report, 'genesis.complete')).toEqual([]);
      expect(report.verdict).toBe('pass');
    });

    it('more artifacts delivered, carrying no ids, than the ids the record lists: not verifiable', async () => {
      const bundle = buildHeldBundle();
      recordOf(bundle, PAIR_RECORD)._genesis_tracing_ids.pop();
      expect(await walk(bundle)).toMatchObject({
        verdict: 'not_verifiable',
        reason: `genesis.complete (${PAIR_RECORD}): not verifiable: the source delivered 2 genesis artifacts, more than the 1 genesis tracing id the record lists, and none carries an id to tell which the record rests on`,
      });
    });
  });

  it("a reserves record placed before its own pool's Sync: not verifiable, never passed on getReserves alone", async () => {
    const bundle = buildBundle();
    answer(bundle, '/evm/lineage/record', PAIR_RECORD).data.record.log_index = 3;
    const report = await walk(bundle);
    expect(statusOf(report, 'record.reserves')).toEqual(['skipped']);
    expect(report.verdict).toBe('not_verifiable');
    expect(report.reason).toMatch(
      /^record\.reserves \(.*\): the pool's Sync in the genesis \(genesis\.logs\[\d\]\) comes after the record's position \(block 19426587, transaction 9, log 3\)/,
    );
  });

  describe("reserves are the pool's last Sync at or before the record, as its proven block shows", () => {
    // Block 19426586: the pair's Sync at transaction 14 (log 2), again at 73 (log 3); the record stands at 73, log 4.
    it('the Sync just before the record, in the genesis: pass', async () => {
      const report = await walk(
        buildSyncBundle(
          [
            [14, 2],
            [73, 3],
            [73, 4],
          ],
          [73, 3],
        ),
        SYNC_RECORD,
      );
      expect(report).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
    });

    it('the reserves of the earlier Sync, the later one left out of the genesis: fail, naming it (a stale record passed)', async () => {
      const report = await walk(
        buildSyncBundle(
          [
            [14, 2],
            [73, 4],
          ],
          [14, 2],
        ),
        SYNC_RECORD,
      );
      expect(failed(report)).toEqual(['record.reserves']);
      expect(report.reason).toBe(
        `record.reserves (${SYNC_RECORD}): the genesis omits the pool's last Sync at or before the record's position: block 19426586, transaction 73, log 3 (the genesis's last is genesis.logs[0], block 19426586, transaction 14, log 2)`,
      );
    });

    it("genesis logs numbered block-wide (JSON-RPC's logIndex), the record within its transaction: placed by where their block has them, pass (they were placed after the record and failed: a user re-check)", async () => {
      const bundle = buildSyncBundle(
        [
          [14, 2],
          [73, 3],
          [73, 4],
        ],
        [73, 3],
      );
      const receipts = loadFixture('mainnet-19426586').receipts as Array<{ logs: unknown[] }>;
      const before = (tx: number) => receipts.slice(0, tx).reduce((n, r) => n + r.logs.length, 0);
      const genesis = bundle.exchanges[1]!.response as { data: { genesis: { logs: Array<Record<string, number>> } } };
      for (const log of genesis.data.genesis.logs) log.log_index = before(log.tx_index!) + log.log_index!;
      const report = await walk(bundle, SYNC_RECORD);
      expect(report).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
      expect(report.warnings).toHaveLength(3);
    });

    it('the later Sync in the genesis, the reserves of the earlier: fail as differing from it', async () => {
      const report = await walk(
        buildSyncBundle(
          [
            [14, 2],
            [73, 3],
            [73, 4],
          ],
          [14, 2],
        ),
        SYNC_RECORD,
      );
      expect(failed(report)).toEqual(['record.reserves']);
      expect(report.reason).toMatch(/differ from the Sync at genesis\.logs\[1\]/);
    });

    it("the record's block not proven: the reserves of its genesis's Sync are not verifiable, never a pass", async () => {
      const bundle = buildSyncBundle(
        [
          [14, 2],
          [73, 4],
        ],
        [14, 2],
      );
      bundle.blocks = [];
      const report = await walk(bundle, SYNC_RECORD);
      expect(statusOf(report, 'record.reserves')).toEqual(['skipped']);
      expect(report.records[0]!.checks.find((c) => c.check === 'record.reserves')!.reason).toBe(
        "the record's block 19426586 is not proven, so a later Sync of the pool before the record (block 19426586, transaction 73, log 4) cannot be ruled out",
      );
      expect(report.verdict).toBe('not_verifiable');
    });

    it('the Sync in an earlier block than the record: not verifiable (a Sync in between cannot be ruled out)', async () => {
      // The record placed before transaction 14, whose block holds no Sync of the pool before it.
      const bundle = buildSyncBundle(
        [
          [14, 2],
          [73, 4],
        ],
        [14, 2],
      );
      const genesis = bundle.exchanges[1]!.response as any;
      genesis.data.genesis.logs[0].block_number = 19426585;
      Object.assign(recordOf(bundle, SYNC_RECORD), { tx_index: 13, log_index: 0 });
      const report = await walk(bundle, SYNC_RECORD);
      expect(failed(report)).toEqual([]);
      expect(report.records[0]!.checks.find((c) => c.check === 'record.reserves')).toMatchObject({
        status: 'skipped',
        reason:
          "the pool's Sync at genesis.logs[0] is in block 19426585, before the record's block 19426586: a later Sync in between cannot be ruled out",
      });
    });
  });

  describe("a genesis log's tx_hash is the hash the block gives its transaction", () => {
    const hashOf = (i: number) => i.toString(16).padStart(64, '0');
    /** The held bundle, its block listing transaction hashes (header.transactions), its Sync claiming `txHash`. */
    const withHashes = (txHash: string, where: 'header' | 'receipts' = 'header') => {
      const bundle = buildHeldBundle();
      const block: any = bundle.blocks[0];
      if (where === 'header')
        block.header = {
          ...block.header,
          transactions: block.receipts.map((_: unknown, i: number) => `0x${hashOf(i)}`),
        };
      else block.receipts = block.receipts.map((r: any, i: number) => ({ ...r, transactionHash: `0x${hashOf(i)}` }));
      answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0].tx_hash = txHash;
      return bundle;
    };

    it.each(['header', 'receipts'] as const)(
      "the hash the block gives (%s): pass, saying it is the source's word (not bound by the block hash)",
      async (where) => {
        const report = await walk(withHashes(hashOf(9), where));
        expect(report.records[0]!.checks.filter((c) => c.check === 'log.tx_hash')).toEqual([
          {
            check: 'log.tx_hash',
            status: 'pass',
            subject: 'genesis.logs[0]',
            reason:
              "tx_hash is the hash the block's source gives transaction 9 (not bound by the block hash: the transactions root is not recomputed)",
          },
        ]);
        expect(report).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
      },
    );

    it.each(['header', 'receipts'] as const)(
      'another hash than the block gives (%s): fail, naming both',
      async (where) => {
        const report = await walk(withHashes('ab'.repeat(32), where));
        expect(failed(report)).toEqual(['log.tx_hash']);
        expect(report.reason).toBe(
          `log.tx_hash (genesis.logs[0]): tx_hash ${'ab'.repeat(32)} is not the hash the block gives transaction 9, ${hashOf(9)}`,
        );
      },
    );

    it('a block that gives no transaction hashes: not verifiable, never a pass', async () => {
      const bundle = buildHeldBundle();
      answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0].tx_hash = 'ab'.repeat(32);
      const report = await walk(bundle);
      expect(report).toMatchObject({
        verdict: 'not_verifiable',
        reason:
          'log.tx_hash (genesis.logs[0]): not verifiable: the block gives no hash of transaction 9 (no receipt transactionHash, no header.transactions), so tx_hash cannot be compared',
      });
    });

    it('a tx_hash that is not a 32-byte hash fails log.shape', async () => {
      const report = await walk(withHashes('abab'));
      expect(failed(report)).toContain('log.shape');
    });
  });

  it('a block in an era that cannot be verified is skipped as not verifiable, never passed nor failed', async () => {
    // The same lineage, as if on Arbitrum One: block 19,426,587 is in its classic era.
    const bundle = JSON.parse(JSON.stringify(buildBundle()).replaceAll('"chain_id":1,', '"chain_id":42161,')) as Bundle;
    const source = new BundleSource(bundle);
    const report = await walkLineage({ chainId: 42161, tracingId: PAIR_RECORD, source, blocks: source });
    const checks = report.records.flatMap((r) => r.checks);
    const rootCheck = checks.find((c) => c.check === 'block.receipts_root')!;
    expect(rootCheck).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(
        /^not verifiable: Block 19,426,587 of Arbitrum One \(chain 42161\) is in its Arbitrum classic era/,
      ),
    });
    expect(statusOf(report, 'log.position')).toEqual(['skipped', 'skipped']);
    expect(checks.find((c) => c.check === 'log.position')!.reason).toMatch(/cannot be verified/);
    expect(failed(report)).toEqual([]);
    expect(report.verdict).toBe('not_verifiable');
  });

  it('a receipt type the rule set does not know is bad input naming the member (the endpoint 400), not a crash', async () => {
    const bundle = buildBundle();
    (bundle.blocks[0]!.receipts as Array<Record<string, unknown>>)[0]!.type = '0x9';
    const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle });
    expect(audit.ok).toBe(false);
    expect(!audit.ok && bundleParameter(audit.error)).toMatchObject({
      name: 'bundle.blocks[0].receipts[0].type',
      reason: 'unknown_type',
    });
  });

  it("a block whose header lists a transaction more than it has receipts is bad input naming header.transactions (the receipts are not the block's)", async () => {
    const bundle = buildBundle();
    const block = bundle.blocks[0]! as { header: Record<string, unknown>; receipts: unknown[] };
    block.header.transactions = Array.from(
      { length: block.receipts.length + 1 },
      (_, i) => `0x${i.toString(16).padStart(64, '0')}`,
    );
    const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle });
    expect(audit.ok).toBe(false);
    expect(!audit.ok && bundleParameter(audit.error)).toMatchObject({
      name: 'bundle.blocks[0].header.transactions',
      reason: 'conflict',
      expected: expect.stringContaining(`got ${block.receipts.length + 1} transactions`),
    });
  });

  it("a block source of one's own answering with another block, or a block of another chain, is refused: its checks are never reported as the block asked for's", async () => {
    const source = new BundleSource(buildBundle());
    const other = loadFixture('mainnet-22869878');
    const shifted = { block: async () => ({ chain_id: 1, header: other.header, receipts: other.receipts }) };
    const walk = walkLineage({ chainId: 1, tracingId: PAIR_RECORD, source, blocks: shifted });
    await expect(walk).rejects.toBeInstanceOf(SourceError);
    await expect(walk).rejects.toThrow('the source answered block 19426587 with block 22869878 (its header.number)');
    const relabelled = {
      block: async (chainId: number, n: number) => ({ ...(await source.block(chainId, n))!, chain_id: 10 }),
    };
    await expect(
      walkLineage({ chainId: 1, tracingId: PAIR_RECORD, source, blocks: relabelled }),
    ).rejects.toBeInstanceOf(ChainMismatchError);
  });

  it('a chain outside the registry is not verified under a guessed rule set', async () => {
    const bundle = JSON.parse(
      JSON.stringify(buildBundle()).replaceAll('"chain_id":1,', '"chain_id":999999,'),
    ) as Bundle;
    const source = new BundleSource(bundle);
    const report = await walkLineage({ chainId: 999999, tracingId: PAIR_RECORD, source, blocks: source });
    expect(statusOf(report, 'block.receipts_root')).toEqual(['skipped', 'skipped']);
    expect(report.records.flatMap((r) => r.checks).find((c) => c.check === 'block.receipts_root')!.reason).toMatch(
      /Chain 999999 is not in/,
    );
  });

  it('a block-wide log_index is located, with a warning', async () => {
    const bundle = buildBundle();
    const log = answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0];
    const blockWide = (bundle.blocks[0]!.receipts as Array<{ transactionIndex: string; logs: unknown[] }>)
      .filter((r) => Number(r.transactionIndex) < 9)
      .reduce((n, r) => n + r.logs.length, 0);
    log.log_index = blockWide + 4;
    answer(bundle, '/evm/lineage/record', PAIR_RECORD).data.record.log_index = blockWide + 4;
    const report = await walk(bundle);
    expect(failed(report)).toEqual([]);
    expect(report.warnings.join()).toMatch(/block-wide/);
  });

  it('decoded_output members named after the function or its ABI return pass the audit; a different value fails it', async () => {
    const bundle = buildBundle();
    const results = answer(bundle, '/evm/lineage/genesis', WETH_RECORD).data.genesis.function_results;
    results[0].decoded_output = { name: 'Wrapped Ether' };
    results[1].decoded_output = { _symbol: 'WETH' };
    results[2].decoded_output = { decimals: 18 };
    const report = await walk(bundle);
    expect(failed(report)).toEqual([]);
    expect(statusOf(report, 'function_result.decoded_output')).toEqual(['pass', 'pass', 'pass', 'pass']);
    results[0].decoded_output = { name: 'Wrapped Ether 2' };
    expect(failed(await walk(bundle))).toEqual(['function_result.decoded_output']);
    results[0].decoded_output = { name: 'Wrapped Ether', value: 'Wrapped Ether' };
    expect(failed(await walk(bundle))).toEqual(['function_result.decoded_output']);
  });

  it('a malformed tracing id in the id lists fails shape.id_lists', async () => {
    const bundle = buildBundle();
    answer(bundle, '/evm/lineage/record', PAIR_RECORD).data.record._genesis_tracing_ids = ['xyz'];
    expect(failed(await walk(bundle))).toEqual(['shape.id_lists']);
  });

  it('a parent id that is no tracing id is not asked for: the record fails shape.id_lists (was: the walk stopped, the bundle having no answer for it, exit 2: a user check)', async () => {
    const bundle = buildBundle();
    answer(bundle, '/evm/lineage/record', PAIR_RECORD).data.record._parent_tracing_ids = ['xyz'];
    const report = await walk(bundle);
    expect(failed(report)).toEqual(['shape.id_lists']);
    // Named as given, with its entry that is none.
    expect(report.records[0]!.checks.find((c) => c.check === 'shape.id_lists')!.reason).toBe(
      '_parent_tracing_ids[0] is "xyz", not a 36-hex tracing id',
    );
  });
});

describe('POST /v1/evm/verify/lineage operation', () => {
  it('answers the report in the envelope {chain_id, data:[report], count:1}', async () => {
    const result = await verifyLineageOperation({ chain_id: 1, tracing_id: PAIR_RECORD, bundle: buildHeldBundle() });
    expect(result.status).toBe(200);
    expect(result.verdict).toBe('identical');
    expect(result.body).toMatchObject({ chain_id: 1, count: 1, data: [{ verdict: 'pass', tracing_id: PAIR_RECORD }] });
  });

  it('accepts the legacy _tracing_id and reports a failing lineage as 200 with verdict fail', async () => {
    const bundle = buildBundle();
    bundle.blocks[0]!.receipts.pop();
    const result = await verifyLineageOperation({ chain_id: 1, _tracing_id: PAIR_RECORD, bundle });
    expect(result.status).toBe(200);
    expect(result.verdict).toBe('different');
  });

  it.each([
    [{ tracing_id: PAIR_RECORD, bundle: {} }, 'chain_id', 'missing'],
    [{ chain_id: 1, bundle: {} }, 'tracing_id', 'missing'],
    [{ chain_id: 1, tracing_id: 'abc', bundle: {} }, 'tracing_id', 'invalid_format'],
    [{ chain_id: 1, tracing_id: PAIR_RECORD }, 'bundle', 'missing'],
    [{ chain_id: 1, tracing_id: PAIR_RECORD, bundle: { exchanges: 'no' } }, 'bundle.exchanges', 'invalid_format'],
    [{ chain_id: 1, tracing_id: PAIR_RECORD, bundle: {} }, 'bundle.exchanges', 'missing'],
  ])('%j → 400 on %s (%s)', async (body, name, reason) => {
    const result = await verifyLineageOperation(body);
    expect(result.status).toBe(400);
    expect((result.body as any).error.details.invalid_parameters).toContainEqual(
      expect.objectContaining({ name, reason }),
    );
  });
});

describe('the committed example bundle', () => {
  it('fixtures/lineage/pair-reserves-19426587.bundle.json is what the builder makes from the real block', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../fixtures/lineage/pair-reserves-19426587.bundle.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildBundle())));
  });
});

const COMMITTED = new URL('../fixtures/lineage/pair-reserves-19426587.bundle.json', import.meta.url);

/**
 * The committed real bundle made to pass, as a user check made it: the fields nothing holds (`pool_uid`,
 * `exchange_id`) null, which claims nothing, and the parent (whose ERC-20 fields rest on function results) left out.
 */
function passingCommitted(): Bundle {
  const bundle = JSON.parse(readFileSync(COMMITTED, 'utf8')) as Bundle;
  Object.assign(recordOf(bundle, PAIR_RECORD), { pool_uid: null, exchange_id: null, _parent_tracing_ids: [] });
  return bundle;
}
/** The committed bundle's Sync log, genesis.logs[0] of the pair's record (mutable). */
const syncLog = (bundle: Bundle) => answer(bundle, '/evm/lineage/genesis', PAIR_RECORD).data.genesis.logs[0];

describe('a null member claims nothing, as if left out; a block_time is read one way (user checks on the committed bundle)', () => {
  it('the committed bundle, its fields held by nothing null and its parent left out, passes', async () => {
    expect(await walk(passingCommitted())).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
  });

  it('a genesis log\'s block_time null: log.block_time not listed and the lineage passes, as without it (it failed "block_time null is not the header timestamp")', async () => {
    const nulled = passingCommitted();
    syncLog(nulled).block_time = null;
    const absent = passingCommitted();
    delete syncLog(absent).block_time;
    const report = await walk(nulled);
    expect(report).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
    expect(statusOf(report, 'log.block_time')).toEqual([]);
    expect(report).toEqual(await walk(absent));
  });

  it('a record\'s block_number null: record.not_older not listed, the same report as without it (it failed "block_number null is not a block number")', async () => {
    const nulled = passingCommitted();
    recordOf(nulled, PAIR_RECORD).block_number = null;
    const absent = passingCommitted();
    delete recordOf(absent, PAIR_RECORD).block_number;
    const report = await walk(nulled);
    expect(failed(report)).toEqual([]);
    expect(statusOf(report, 'record.not_older')).toEqual([]);
    expect(report).toEqual(await walk(absent));
  });

  it('a genesis log\'s tx_index null: located by its log_index in the one transaction holding it there, and the lineage passes as with it (it failed log.shape "tx_index is null")', async () => {
    const nulled = passingCommitted();
    syncLog(nulled).tx_index = null;
    const report = await walk(nulled);
    expect(report).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
    expect(report.records[0]!.checks.find((c) => c.check === 'log.position')).toEqual({
      check: 'log.position',
      status: 'pass',
      subject: 'genesis.logs[0]',
      reason:
        'tx_index is null: transaction 9, log 4 has this address, topics and data, the only log of the block at index 4 that has them',
    });
    // Transaction 9's log 4 is the block's 15th: a block-wide log_index 14 locates it too, with the warning.
    syncLog(nulled).log_index = 14;
    const blockWide = await walk(nulled);
    expect(blockWide).toMatchObject({ verdict: 'pass', summary: { fail: 0, skipped: 0 } });
    expect(blockWide.warnings).toEqual([
      'genesis.logs[0]: log_index 14 is the block-wide position (JSON-RPC logIndex), not the position within the transaction',
    ]);
  });

  it("a genesis log's tx_index null, its data altered: log.position fails, never a pass for a log whose place was not shown", async () => {
    const nulled = passingCommitted();
    const log = syncLog(nulled);
    log.tx_index = null;
    log.data = `${log.data.slice(0, -1)}${log.data.endsWith('0') ? '1' : '0'}`;
    const report = await walk(nulled);
    expect(report.verdict).toBe('fail');
    expect(report.records[0]!.checks.find((c) => c.check === 'log.position')).toMatchObject({
      status: 'fail',
      reason:
        'tx_index is null, and no transaction of the block has this address, topics and data at log 4 (within it, or block-wide)',
    });
  });

  it("a genesis log's tx_index null where two transactions of its block hold it at its log_index (block 19426586: transactions 92 and 93, log 0): not verifiable naming both, never a pass", async () => {
    const bundle = buildSyncBundle(
      [
        [73, 3],
        [92, 0],
      ],
      [73, 3],
    );
    (bundle.exchanges[1]!.response as any).data.genesis.logs[1].tx_index = null;
    const report = await walk(bundle, SYNC_RECORD);
    expect(report.verdict).toBe('not_verifiable');
    expect(report.summary.fail).toBe(0);
    expect(report.records[0]!.checks.filter((c) => c.subject === 'genesis.logs[1]').slice(0, 1)).toEqual([
      {
        check: 'log.position',
        status: 'skipped',
        subject: 'genesis.logs[1]',
        reason:
          'not verifiable: tx_index is null, and transactions 92, 93 of the block have this address, topics and data at log 0: which one is meant cannot be told',
      },
    ]);
    // Given, the same log is checked where it says.
    (bundle.exchanges[1]!.response as any).data.genesis.logs[1].tx_index = 93;
    expect(statusOf(await walk(bundle, SYNC_RECORD), 'log.position')).toEqual(['pass', 'pass']);
  });

  it("a genesis log's block_number null: its block is not known, so log.position is skipped as not verifiable, never a pass (it failed log.shape)", async () => {
    const nulled = passingCommitted();
    syncLog(nulled).block_number = null;
    const report = await walk(nulled);
    expect(report.verdict).toBe('not_verifiable');
    expect(report.summary.fail).toBe(0);
    expect(report.records[0]!.checks.find((c) => c.check === 'log.position')).toEqual({
      check: 'log.position',
      status: 'skipped',
      subject: 'genesis.logs[0]',
      reason: "not verifiable: block_number is null, so the log's block is not known and its place cannot be checked",
    });
    expect(statusOf(report, 'log.shape')).toEqual([]);
  });

  it.each([
    [PAIR_RECORD, '_tracing_id'],
    [PAIR_RECORD, '_genesis_tracing_ids'],
    [PAIR_RECORD, 'tx_index'],
    [PAIR_RECORD, 'address'],
    [WETH_RECORD, 'address'],
  ])(
    "record %s's %s null: the same report as without it (null failed shape.tracing_id, left genesis.complete or a log_index unverifiable, or made the record's own results another contract's)",
    async (tracingId, member) => {
      const nulled = passingCommitted();
      recordOf(nulled, tracingId)[member] = null;
      const absent = passingCommitted();
      delete recordOf(absent, tracingId)[member];
      const report = await walk(nulled, tracingId);
      expect(failed(report)).toEqual([]);
      expect(report).toEqual(await walk(absent, tracingId));
    },
  );

  it.each(['1710338135', 1710338135, '+002024-03-13T13:55:35Z', '2024-03-13T13:55:35,000Z', '2024-03-13T13:55:35+24'])(
    'a block_time of %j, the right instant in a form not read as a time: not verifiable saying so, on the record and on a genesis log alike (the log failed, the record was "held by nothing")',
    async (written) => {
      const why = `not verifiable: block_time ${JSON.stringify(written)} could not be read as a time (expected ${INSTANT_FORM})`;
      const onRecord = passingCommitted();
      recordOf(onRecord, PAIR_RECORD).block_time = written;
      const record = await walk(onRecord);
      expect(record).toMatchObject({ verdict: 'not_verifiable', summary: { fail: 0, skipped: 1 } });
      expect(record.reason).toBe(`record.fields (${PAIR_RECORD}): ${why}`);
      const onLog = passingCommitted();
      syncLog(onLog).block_time = written;
      const log = await walk(onLog);
      expect(log).toMatchObject({ verdict: 'not_verifiable', summary: { fail: 0, skipped: 1 } });
      expect(log.reason).toBe(`log.block_time (genesis.logs[0]): ${why}`);
    },
  );

  it('a block_time that is read but names another instant still fails, on the record and on a genesis log', async () => {
    const onRecord = passingCommitted();
    recordOf(onRecord, PAIR_RECORD).block_time = '2024-03-13T13:55:36Z';
    expect(failed(await walk(onRecord))).toEqual(['record.fields']);
    const onLog = passingCommitted();
    syncLog(onLog).block_time = '2024-03-13T13:55:36Z';
    expect(failed(await walk(onLog))).toEqual(['log.block_time']);
  });
});

/** The committed, passing bundle with the pair's genesis pages (both) naming `dataset`. */
function genesisOfDataset(dataset: string): Bundle {
  const bundle = passingCommitted();
  for (const e of bundle.exchanges)
    if (e.path === '/evm/lineage/genesis' && (e.body.tracing_id ?? e.body._tracing_id) === PAIR_RECORD)
      (e.response as any).data.dataset = dataset;
  return bundle;
}

describe("an answer that names another chain, or a genesis of another dataset, is not taken as this record's (both passed: a user check)", () => {
  it.each([
    ['the record answer', 0],
    ['a genesis page', 1],
    ['the raw block record answer', 5],
  ])(
    '%s naming chain 137 in a chain-1 walk: bad input naming its chain_id and the chain asked',
    async (_what, index) => {
      const bundle = passingCommitted();
      (bundle.exchanges[index]!.response as any).chain_id = 137;
      const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle });
      expect(audit.ok).toBe(false);
      const error = (audit as { error: SourceError }).error;
      expect(error.message).toBe(
        `exchanges[${index}].response.chain_id: expected chain 1, the chain asked for (the request's chain_id): an answer for another chain is not this chain's, got 137`,
      );
      expect(bundleParameter(error)).toMatchObject({
        name: `bundle.exchanges[${index}].response.chain_id`,
        reason: 'conflict',
      });
    },
  );

  it('an answer that names no chain (absent or null) claims nothing, and chain 1 as a decimal string is chain 1: the same report', async () => {
    const passing = await walk(passingCommitted());
    expect(passing.verdict).toBe('pass');
    for (const value of [undefined, null, '1']) {
      const bundle = passingCommitted();
      for (const e of bundle.exchanges) (e.response as any).chain_id = value;
      expect(await walk(bundle)).toEqual(passing);
    }
  });

  it('a chain_id that is not read as a chain (0x1, a fraction) is bad input naming it, not taken for chain 1', async () => {
    for (const value of ['0x1', 1.5]) {
      const bundle = passingCommitted();
      (bundle.exchanges[0]!.response as any).chain_id = value;
      const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle });
      expect(audit.ok).toBe(false);
      expect((audit as { error: SourceError }).error.message).toMatch(
        /^exchanges\[0\]\.response\.chain_id: expected chain 1/,
      );
    }
  });

  it('a genesis of dataset 0201 under a 0301 record: shape.dataset fails naming both', async () => {
    const report = await walk(genesisOfDataset('0201'));
    expect(report.verdict).toBe('fail');
    expect(failed(report)).toEqual(['shape.dataset']);
    expect(report.reason).toBe(
      `shape.dataset (${PAIR_RECORD}): the genesis answer names dataset 0201 (svc_evm.b0201_erc20_tokens_v1), not the record's 0301: a genesis of another dataset is not this record's`,
    );
  });

  it("a genesis naming the same dataset by its table name, or none, is the record's: the same report", async () => {
    const passing = await walk(passingCommitted());
    expect(await walk(genesisOfDataset('svc_evm.b0301_liquidity_pools_reserves_v1'))).toEqual(passing);
    expect(await walk(genesisOfDataset(null as unknown as string))).toEqual(passing);
  });

  it('one page of the genesis naming dataset 0201, the other 0301: bad input naming both pages', async () => {
    const bundle = passingCommitted();
    (bundle.exchanges[1]!.response as any).data.dataset = '0201';
    const audit = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle });
    expect(audit.ok).toBe(false);
    const error = (audit as { error: SourceError }).error;
    expect(error.message).toBe(
      'exchanges[2].response.data.dataset: expected the dataset of the earlier pages of this genesis, "0201" (exchanges[1].response.data.dataset): the pages of one genesis are of one dataset, got "0301"',
    );
    expect(bundleParameter(error)).toMatchObject({
      name: 'bundle.exchanges[2].response.data.dataset',
      reason: 'conflict',
    });
  });
});

/**
 * The committed bundle with its getReserves page dropped and its Sync log delivered twice, the copy edited: 2 artifacts
 * for the record's 2 genesis ids, one of them standing in for the one left out.
 */
function syncTwiceCommitted(edit: (copy: any) => void): Bundle {
  const bundle = passingCommitted();
  const first = answer(bundle, '/evm/lineage/genesis', PAIR_RECORD);
  const copy = structuredClone(first.data.genesis.logs[0]);
  edit(copy);
  first.data.genesis.logs.push(copy);
  Object.assign(first, { cursor: null, count: 2 });
  bundle.exchanges = bundle.exchanges.filter((e) => !(e.path === '/evm/lineage/genesis' && e.body.cursor === 'page-2'));
  return bundle;
}
const SYNC_AT = '(the log of block 19426587, transaction 9, log 4)';
const syncTwiceReason = (same: string) =>
  `genesis.complete (${PAIR_RECORD}): not verifiable: the record lists 2 genesis tracing ids, the source delivered 2 genesis artifacts, of which 1 counts (1 missing); genesis.logs[1] is the same artifact as genesis.logs[0]${same}`;
const SYNC_COPIES: Array<[string, (copy: any) => void]> = [
  ['tx_hash null', (copy) => (copy.tx_hash = null)],
  ['block_time null', (copy) => (copy.block_time = null)],
  ['block_time spelled …:35Z', (copy) => (copy.block_time = '2024-03-13T13:55:35Z')],
  ['_tracing_id null', (copy) => (copy._tracing_id = null)],
  ['address 0x-prefixed in upper case', (copy) => (copy.contract_address = `0x${copy.contract_address.toUpperCase()}`)],
  [
    'topics and data 0x-prefixed in upper case',
    (copy) => {
      copy.topics = copy.topics.map((t: string) => `0x${t.toUpperCase()}`);
      copy.data = `0X${copy.data.toUpperCase()}`;
    },
  ],
  // Transaction 9's log 4 is the block's 15th: JSON-RPC's logIndex 14.
  ['a block-wide log_index', (copy) => (copy.log_index = 14)],
];

describe('genesis.complete: a copy of one artifact, however spelled, stands in for no other (it passed: a user re-check)', () => {
  it('the Sync log twice in place of getReserves, the copy identical: not verifiable, naming the copy', async () => {
    expect(await walk(syncTwiceCommitted(() => {}))).toMatchObject({
      verdict: 'not_verifiable',
      reason: syncTwiceReason(` ${SYNC_AT}`),
    });
  });

  it.each(SYNC_COPIES)(
    'the Sync log twice in place of getReserves, the copy with %s: not verifiable, naming the copy and the log',
    async (_name, edit) => {
      const report = await walk(syncTwiceCommitted(edit));
      expect(report).toMatchObject({ verdict: 'not_verifiable', reason: syncTwiceReason(` ${SYNC_AT}`) });
      expect(report.summary.fail).toBe(0);
    },
  );

  it('its block not given: a copy is told by its block, address, topics and data', async () => {
    const bundle = syncTwiceCommitted((copy) => (copy.contract_address = `0x${copy.contract_address.toUpperCase()}`));
    bundle.blocks = [];
    const log = syncLog(bundle);
    expect((await walk(bundle)).records[0]!.checks.find((c) => c.check === 'genesis.complete')!.reason).toMatch(
      `genesis.logs[1] is the same artifact as genesis.logs[0] (the log of block 19426587 by ${log.contract_address} with topics ${log.topics[0]} and data ${log.data})`,
    );
  });

  it.each([
    ['an extra null member', (copy: any) => (copy.extra = null)],
    [
      'contract and selector 0x-prefixed in upper case',
      (copy: any) => {
        copy.contract = `0x${copy.contract.toUpperCase()}`;
        copy.selector = '0x0902F1AC';
      },
    ],
  ])(
    'getReserves twice for a third id, the copy with %s: not verifiable, naming the copy and the call',
    async (_name, edit) => {
      const bundle = passingCommitted();
      recordOf(bundle, PAIR_RECORD)._genesis_tracing_ids.push('aa'.repeat(18));
      const page = bundle.exchanges.find((e) => e.path === '/evm/lineage/genesis' && e.body.cursor === 'page-2')!
        .response as any;
      const copy = structuredClone(page.data.genesis.function_results[0]);
      edit(copy);
      page.data.genesis.function_results.push(copy);
      page.page_count = 2;
      expect(await walk(bundle)).toMatchObject({
        verdict: 'not_verifiable',
        reason: `genesis.complete (${PAIR_RECORD}): not verifiable: the record lists 3 genesis tracing ids, the source delivered 3 genesis artifacts, of which 2 count (1 missing); genesis.function_results[1] is the same artifact as genesis.function_results[0] (the call of 0902f1ac on 515d459555f8c1fcf2791ded819b73b60a80b8e3)`,
      });
    },
  );
});

describe('evm-integrity lineage (CLI)', () => {
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
  };
  const committedFile = fileURLToPath(
    new URL('../fixtures/lineage/pair-reserves-19426587.bundle.json', import.meta.url),
  );
  const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-lineage-held-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const written = (name: string, bundle: Bundle) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(bundle));
    return file;
  };
  const bundleFile = written('held.json', buildHeldBundle());

  it('--bundle \'\' is refused naming --bundle and that a file path was expected (it said "cannot read the bundle : no such file")', async () => {
    const { out, io: streams } = io();
    await expect(runLineage([PAIR_RECORD, '--chain', '1', '--bundle', ''], streams)).rejects.toThrow(
      '--bundle: the path is empty; give a file name',
    );
    expect(out.stdout).toBe('');
    const cli = await runCliBytes(['lineage', PAIR_RECORD, '--chain', '1', '--bundle', '']);
    expect(cli.status).toBe(2);
    expect(cli.stderr).toBe('evm-integrity: --bundle: the path is empty; give a file name\n');
  });

  it.each([
    ['a tracing id it does not hold', ['ab'.repeat(18), '--chain', '1'], `tracing id ${'ab'.repeat(18)} on chain 1`],
    ['another chain', [PAIR_RECORD, '--chain', '137'], `tracing id ${PAIR_RECORD} on chain 137`],
  ])(
    'a request the real bundle holds no answer for (%s): exit 2 saying so, not that the file is no bundle (a user check)',
    async (_name, args, request) => {
      const { out, io: streams } = io();
      expect(await runLineage([...args, '--bundle', committedFile], streams)).toBe(2);
      expect(out.stderr).toBe(
        `evm-integrity: ${committedFile}: the bundle has no answer to lineage/record for ${request}\n`,
      );
    },
  );

  it('a parent record removed from the bundle: exit 2 naming the parent the bundle has no answer for', async () => {
    const bundle = buildBundle();
    bundle.exchanges = bundle.exchanges.filter(
      (e) => !(e.path === '/evm/lineage/record' && e.body.tracing_id === WETH_RECORD),
    );
    const { out, io: streams } = io();
    expect(
      await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', written('no-parent.json', bundle)], streams),
    ).toBe(2);
    expect(out.stderr).toMatch(
      new RegExp(
        `no-parent\\.json: the bundle has no answer to lineage/record for tracing id ${WETH_RECORD} on chain 1\n$`,
      ),
    );
  });

  it('prints a table and exits 0 when every check passes', async () => {
    const { out, io: streams } = io();
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', bundleFile], streams)).toBe(0);
    expect(out.stdout).toMatch(/^lineage .* on chain 1: PASS \(16 passed, 0 failed, 0 skipped\)/);
    expect(out.stdout).toMatch(/PASS {2}record\.reserves/);
  });

  it.each(SYNC_COPIES)(
    'the Sync log twice in place of getReserves, the copy with %s: exit 2, not verifiable naming the copy',
    async (name, edit) => {
      const { out, io: streams } = io();
      const file = written(`sync-twice-${name.replace(/\W+/g, '-')}.json`, syncTwiceCommitted(edit));
      expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file, '--json'], streams)).toBe(2);
      expect(JSON.parse(out.stdout)).toMatchObject({
        verdict: 'not_verifiable',
        reason: syncTwiceReason(` ${SYNC_AT}`),
      });
    },
  );

  it('the committed real bundle exits 2: not verifiable, its fields held by no log named', async () => {
    const { out, io: streams } = io();
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', committedFile], streams)).toBe(2);
    expect(out.stdout).toMatch(/^lineage .* on chain 1: NOT VERIFIABLE \(34 passed, 0 failed, 2 skipped\)/);
    expect(out.stdout).toMatch(/skip {2}record\.fields .* name, symbol, decimals rest only on function results/);
  });

  it('a null member claims nothing, as if left out; a block_time not read as a time is not verifiable, on the record and a genesis log alike (user checks on the committed bundle)', async () => {
    const run = async (name: string, edit: (bundle: Bundle) => void) => {
      const bundle = passingCommitted();
      edit(bundle);
      const { out, io: streams } = io();
      const code = await runLineage(
        [PAIR_RECORD, '--chain', '1', '--bundle', written(name, bundle), '--json'],
        streams,
      );
      return { code, report: JSON.parse(out.stdout) as LineageReport };
    };
    // It exited 1: "block_time null is not the header timestamp".
    expect(await run('log-time-null.json', (b) => (syncLog(b).block_time = null))).toMatchObject({
      code: 0,
      report: { verdict: 'pass' },
    });
    // It exited 1: "block_number null is not a block number"; now as without it.
    const nulled = await run('block-null.json', (b) => (recordOf(b, PAIR_RECORD).block_number = null));
    const absent = await run('block-absent.json', (b) => delete recordOf(b, PAIR_RECORD).block_number);
    expect(nulled).toEqual(absent);
    expect(nulled.report.summary.fail).toBe(0);
    // It exited 1 for the log, and said "nothing checked holds block_time" for the record.
    const why = `not verifiable: block_time "1710338135" could not be read as a time (expected ${INSTANT_FORM})`;
    expect(await run('log-time-seconds.json', (b) => (syncLog(b).block_time = '1710338135'))).toMatchObject({
      code: 2,
      report: { verdict: 'not_verifiable', reason: `log.block_time (genesis.logs[0]): ${why}` },
    });
    expect(
      await run('record-time-seconds.json', (b) => (recordOf(b, PAIR_RECORD).block_time = '1710338135')),
    ).toMatchObject({
      code: 2,
      report: { verdict: 'not_verifiable', reason: `record.fields (${PAIR_RECORD}): ${why}` },
    });
  });

  it("WETH's name() forged as Fake Ether with the record to match exits 2, not 0", async () => {
    const bundle = buildBundle();
    forgeErc20Result(bundle, 'name', 'Fake Ether');
    const { out, io: streams } = io();
    const file = written('forged-name.json', bundle);
    expect(await runLineage([WETH_RECORD, '--chain', '1', '--bundle', file, '--json'], streams)).toBe(2);
    expect(JSON.parse(out.stdout)).toMatchObject({
      verdict: 'not_verifiable',
      reason: expect.stringContaining('name, symbol, decimals rest only on function results'),
    });
  });

  it('a dataset carrying terminal escapes is printed as code points by the built CLI (it could overwrite the verdict with a fake PASS: a user re-check)', async () => {
    const bundle = buildHeldBundle();
    const forged = '0301\u001b[s\u001b[H\u001b[2K\u001b[32mlineage … : PASS\u001b[0m\u001b[u';
    for (const e of bundle.exchanges.filter((e) => e.path.startsWith('/evm/lineage/')))
      (e.response as any).data.dataset = forged;
    const file = written('escapes.json', bundle);
    const run = await runCliBytes(['lineage', PAIR_RECORD, '--chain', '1', '--bundle', file]);
    const stdout = run.stdout.toString();
    expect(run.status).toBe(2);
    expect(stdout).toContain(
      `record ${PAIR_RECORD} (dataset 0301U+001B[sU+001B[HU+001B[2KU+001B[32mlineage … : PASSU+001B[0mU+001B[u)`,
    );
    expect(stdout).toMatch(/dataset "?0301U\+001B\[s.* is not cross-checked/);
    // Nothing but printable characters, spaces and the line breaks between lines.
    expect(stdout).not.toMatch(/[^\p{L}\p{M}\p{N}\p{P}\p{S} \n]/u);
  });

  it('--workers 1: the block checks on a worker thread, the same table', async () => {
    const inline = io();
    const pooled = io();
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', bundleFile], inline.io)).toBe(0);
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', bundleFile, '--workers', '1'], pooled.io)).toBe(
      0,
    );
    expect(pooled.out).toEqual(inline.out);
  });

  it.each(['gzipped.json', 'gzipped.bundle', 'gzipped'])(
    'a gzip-compressed bundle named %s is read: gzip is told by its first bytes, 1f 8b (it was refused: a user check)',
    async (name) => {
      const file = join(dir, name);
      writeFileSync(file, gzipSync(JSON.stringify(buildHeldBundle())));
      const { out, io: streams } = io();
      expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file], streams)).toBe(0);
      expect(out.stderr).toBe('');
    },
  );

  it('a file that starts as gzip but does not decompress: bad input naming it and why (exit 2)', async () => {
    const file = join(dir, 'cut.json');
    writeFileSync(file, gzipSync(JSON.stringify(buildHeldBundle())).subarray(0, 40));
    await expect(runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file], io().io)).rejects.toThrow(
      `${file}: cannot be decompressed, as its first bytes (1f 8b, gzip) ask: unexpected end of file`,
    );
  });

  it('a plain JSON bundle named .json.gz is read as JSON, whatever its name (it was refused: a user re-check)', async () => {
    const file = join(dir, 'plain.json.gz');
    writeFileSync(file, JSON.stringify(buildHeldBundle()));
    const { out, io: streams } = io();
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file], streams)).toBe(0);
    expect(out.stderr).toBe('');
  });

  it('gzip data followed by other bytes is refused naming them; more members or zero padding are read', async () => {
    const gzipped = gzipSync(JSON.stringify(buildHeldBundle()));
    const file = join(dir, 'trailing.json.gz');
    writeFileSync(file, Buffer.concat([gzipped, Buffer.from('xyz')]));
    await expect(runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file], io().io)).rejects.toThrow(
      `${file}: bytes follow its gzip data that are neither another gzip member nor zero padding (gunzip ignores them as trailing garbage; a bundle is read whole)`,
    );
    const text = JSON.stringify(buildHeldBundle());
    for (const bytes of [
      Buffer.concat([gzipped, Buffer.alloc(8)]),
      Buffer.concat([gzipSync(text.slice(0, 100)), gzipSync(text.slice(100))]),
    ]) {
      writeFileSync(file, bytes);
      expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file], io().io)).toBe(0);
    }
  });

  it('--json prints the report; a tampered gzip bundle exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-lineage-'));
    const bundle = buildBundle();
    bundle.blocks[0]!.receipts.pop();
    const file = join(dir, 'tampered.json.gz');
    writeFileSync(file, gzipSync(JSON.stringify(bundle)));
    const { out, io: streams } = io();
    expect(await runLineage([PAIR_RECORD, '--chain', '1', '--bundle', file, '--json'], streams)).toBe(1);
    // The block's root and bloom, once for each of the two records whose logs are in it.
    expect(JSON.parse(out.stdout)).toMatchObject({ verdict: 'fail', summary: { fail: 4 } });
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [[PAIR_RECORD, '--bundle', 'x.json'], /--chain is required: a chain id or name \(1 or mainnet, 8453 or base\)/],
    [['abc', '--chain', '1', '--bundle', 'x.json'], /36 hex characters/],
    [[PAIR_RECORD, '--chain', '1'], /exactly one of --bundle FILE and --service URL/],
    [[PAIR_RECORD, '--chain', '1', '--bundle', 'no/such.json'], /cannot read the bundle no\/such.json: no such file/],
    [[PAIR_RECORD, '--chain', '1', '--service', 'http://127.0.0.1:1/v1'], /EVM_DATA_SERVICE_API_KEY/],
    [
      [PAIR_RECORD, '--chain', '1', '--service', 'http://127.0.0.1:1/v1', '--record', 'no/such/dir/r.json.gz'],
      /^--record no\/such\/dir\/r.json.gz: cannot write it: no such directory$/,
    ],
  ])('%j is bad input (UsageError → exit 2)', async (args, message) => {
    const { io: streams } = io();
    await expect(runLineage(args, streams, {})).rejects.toThrow(message);
  });

  it('a service URL that is not http(s) is exit 2 with a message', async () => {
    const { out, io: streams } = io();
    const code = await runLineage([PAIR_RECORD, '--chain', '1', '--service', 'ftp://example.invalid/v1'], streams, {
      EVM_DATA_SERVICE_API_KEY: 'k',
    });
    expect(code).toBe(2);
    expect(out.stderr).toMatch(/^evm-integrity: /);
  });
});
