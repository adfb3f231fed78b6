/**
 * The hosted service's raw datasets checked against the chain (`--service`): the pure checks of
 * a block's records, and the CrossCheck against a loopback service serving the real fixture
 * blocks, with injected faults. Each fault is found, and reported by the check that catches it
 * and no other; a clean range never fails.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyBlock } from '../packages/core/src/index.js';
import { checkServiceBlock, SERVICE_BLOCK_CHECKS } from '../packages/core/src/audit/service-block.js';
import { serviceCrossCheck, ServiceDatasets } from '../packages/core/src/audit/service-datasets.js';
import { checkServiceLogs } from '../packages/core/src/audit/service-logs.js';
import { instantOf } from '../packages/core/src/input/values/instants.js';
import type { BlockTruth, CrossCheckFindings } from '../packages/core/src/audit/vocabulary.js';
import { SourceError } from '../packages/core/src/errors.js';
import { type BlockJson } from '../packages/core/src/sources/block-source.js';
import { loadFixture } from './helpers/fixtures.js';
import {
  blockRecord,
  logRecords,
  startLoopbackService,
  type LoopbackService,
  type ServiceFault,
} from './helpers/loopback-service.js';
import { withTxHashes } from './helpers/synthetic-tx-hash.js';
import { runs } from './helpers/runs.js';

type Json = Record<string, unknown>;

/** The two halves of a block's findings, each checked on its own below. */
const blockFailures = (truth: BlockTruth, records: readonly Json[]) => checkServiceBlock(truth, records).failures;
const blockUnchecked = (truth: BlockTruth, records: readonly Json[]) => checkServiceBlock(truth, records).unchecked;
const logFailures = (truth: BlockTruth, records: readonly Json[]) => checkServiceLogs(truth, records).failures;
const logUnchecked = (truth: BlockTruth, records: readonly Json[]) => checkServiceLogs(truth, records).unchecked;

/**
 * The chain's truth of a block as the range engine hands it over: the block as a node gives it, and its verification.
 */
function truthOf(block: BlockJson): BlockTruth {
  const report = verifyBlock(block);
  if (!report.ok) throw new Error(`fixture ${String(block.header.number)} does not verify`);
  return { chainId: block.chain_id, number: Number(block.header.number), block, report: report.value };
}

/**
 * The truth of `block` as a source that altered one byte of its first log's data gives it: verified, its receipts root
 * no longer the header's.
 */
function truthOfAltered(block: BlockJson): BlockTruth {
  const receipts = structuredClone(block.receipts) as Array<{ logs: Array<{ data: string }> }>;
  const log = receipts.find((receipt) => receipt.logs.length > 0)!.logs[0]!;
  log.data = `${log.data.slice(0, -2)}${log.data.endsWith('ff') ? '00' : 'ff'}`;
  const altered = { ...block, receipts } as BlockJson;
  const report = verifyBlock(altered);
  if (!report.ok) throw new Error('the altered block was refused');
  return { chainId: block.chain_id, number: Number(block.header.number), block: altered, report: report.value };
}

/** `list` with item `i` replaced, or removed (the target library predates Array#with and #toSpliced). */
const replaced = <T>(list: readonly T[], i: number, value: T): T[] => list.map((item, j) => (j === i ? value : item));
const without = <T>(list: readonly T[], i: number): T[] => list.filter((_, j) => j !== i);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** A consecutive run of 2015 blocks, few logs (1000010, 1000023, 1000026 have some), and a 2024 pair with 378 logs. */
const OLD = range(1000001, 1000030).map((n) => withTxHashes(loadFixture(`mainnet-${n}`)));
const NEW = [19426586, 19426587].map((n) => withTxHashes(loadFixture(`mainnet-${n}`)));
const oldTruths = OLD.map(truthOf);
const newTruths = NEW.map(truthOf);
const KEY = 'test-key';

/** The checks named in a chunk's failures, as `block: check`. */
const named = (findings: Map<number, CrossCheckFindings>) =>
  [...findings].flatMap(([n, { failures, unchecked }]) => [
    ...failures.map((f) => `${n}: ${f.check}`),
    ...unchecked.map((why) => `${n}: unchecked: ${why}`),
  ]);

describe('the block record (0101) against the header', () => {
  const truth = newTruths[1]!;
  const record = blockRecord(truth.block);

  it('passes the record derived from the header, hex with or without 0x, in any case', () => {
    expect(blockFailures(truth, [record])).toEqual([]);
    const respelled = {
      ...record,
      block_hash: `0x${String(record.block_hash).toUpperCase()}`,
      miner: String(record.miner).slice(2),
    };
    expect(blockFailures(truth, [respelled])).toEqual([]);
  });

  it('accepts the instant in ISO forms with or without millis and zone, and no other instant', () => {
    const iso = String(record.timestamp_utc).replace(/(\.000)?Z$/, '');
    for (const form of [iso, `${iso}Z`, `${iso}.000Z`, `${iso}.000000+00:00`, iso.replace('T', ' ')])
      expect(blockFailures(truth, [{ ...record, timestamp_utc: form }]), form).toEqual([]);
    // PostgreSQL's text for a timestamptz, a zone of hours alone (ISO 8601's ±hh): it failed as another instant.
    for (const form of [`${iso.replace('T', ' ')}+00`, `${iso}.000000+00`, `${iso}-00`])
      expect(blockFailures(truth, [{ ...record, timestamp_utc: form }]), form).toEqual([]);
    for (const form of [
      `${iso}.001Z`,
      `${iso}+01:00`,
      `${iso}+01`,
      `${iso}+24`,
      `${iso}+0`,
      `${iso}+000`,
      `${iso}.0000001Z`,
      'yesterday',
      Number(truth.block.header.timestamp),
    ])
      expect(
        blockFailures(truth, [{ ...record, timestamp_utc: form }]).map((f) => f.check),
        String(form),
      ).toEqual(['service_block.timestamp_utc']);
    expect(instantOf('2024-03-13T13:55:35.5Z')! - instantOf('2024-03-13T13:55:35Z')!).toBe(500_000_000n);
  });

  it('reads no instant off the calendar or the clock as another one (2024-02-30 was read as March 1, 24:00:00 as the next day)', () => {
    for (const form of [
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-03-12T24:00:00Z',
      '2024-03-12 24:00:00.000+09:00',
    ])
      expect(instantOf(form), form).toBeNull();
    // The days that are on the calendar, and the last second of a day, are read.
    expect(instantOf('2024-02-29T23:59:59Z')).toBe(BigInt(Date.UTC(2024, 1, 29, 23, 59, 59)) * 1_000_000n);
    expect(instantOf('2024-03-13T22:55:35+09:00')).toBe(instantOf('2024-03-13T13:55:35Z'));
    expect(instantOf('2024-03-13T14:25:35+0030')).toBe(instantOf('2024-03-13T13:55:35Z'));
    expect(instantOf('2024-03-13T22:55:35+09')).toBe(instantOf('2024-03-13T13:55:35Z'));
    expect(instantOf('2024-03-13 04:55:35.000000-09')).toBe(instantOf('2024-03-13T13:55:35Z'));
    // Offsets that do not exist are none.
    for (const form of ['2024-03-13T13:55:35+24', '2024-03-13T13:55:35+23:60', '2024-03-13T13:55:35+00:'])
      expect(instantOf(form), form).toBeNull();
  });

  it('reports no record, or two, as service_block.present alone', () => {
    expect(blockFailures(truth, []).map((f) => f.check)).toEqual(['service_block.present']);
    expect(blockFailures(truth, [record, { ...record, miner: '0x00' }]).map((f) => f.check)).toEqual([
      'service_block.present',
    ]);
  });

  it('reports a field the record lacks, with the chain value as expected', () => {
    const { gas_limit: _, ...lacking } = record;
    expect(blockFailures(truth, [lacking])).toEqual([
      expect.objectContaining({
        check: 'service_block.gas_limit',
        evidence: { block_number: truth.number, field: 'gas_limit', expected: 30_000_000, found: null },
      }),
    ]);
  });

  it("extra_data of a header longer than the dataset's 32 bytes (a Bor seal): the whole value or its first 32 bytes pass, nothing else", () => {
    const polygon = truthOf({ ...loadFixture('polygon-pos-9013760'), chain_id: 137 });
    const extra = String(polygon.block.header.extraData);
    expect((extra.length - 2) / 2).toBeGreaterThan(32);
    const polygonRecord = blockRecord(polygon.block);
    const check = (value: unknown) =>
      blockFailures(polygon, [{ ...polygonRecord, extra_data: value }]).map((f) => f.check);
    expect(check(extra)).toEqual([]);
    expect(check(extra.slice(0, 66))).toEqual([]);
    expect(check(extra.slice(2, 66))).toEqual([]);
    for (const wrong of [
      extra.slice(0, 64),
      extra.slice(0, 68),
      `${extra.slice(0, 65)}${extra[65] === 'f' ? 'e' : 'f'}`,
      '',
    ])
      expect(check(wrong), wrong).toEqual(['service_block.extra_data']);
    // A header of at most 32 bytes must be matched whole.
    const short = String(truth.block.header.extraData);
    if (short.length > 4)
      expect(blockFailures(truth, [{ ...record, extra_data: short.slice(0, -2) }]).map((f) => f.check)).toEqual([
        'service_block.extra_data',
      ]);
  });

  it("holds the record's own chain_id, where it gives one, to the audit's chain (was: passed on chain 137: a user check)", () => {
    expect(blockFailures(truth, [{ ...record, chain_id: 1 }])).toEqual([]);
    expect(blockFailures(truth, [{ ...record, chain_id: 137 }]).map((f) => f.check)).toEqual([
      'service_block.chain_id',
    ]);
    expect(blockUnchecked(truth, [record])).toEqual([]);
  });

  it('says what the record claims that the block gives no value for: a block that otherwise passes is not verifiable', () => {
    const noExtra = { ...truth, block: { ...truth.block, header: { ...truth.block.header, extraData: undefined } } };
    expect(blockFailures(noExtra, [record])).toEqual([]);
    expect(blockUnchecked(noExtra, [record])).toEqual([
      "service_block.extra_data: the service's extra_data cannot be checked, as the block gives no value for it",
    ]);
    expect(blockUnchecked(noExtra, [{ ...record, extra_data: null }])).toEqual([]);
  });

  it('skips _computed_receipt_root when the block was not verified (no recomputed root)', () => {
    const wrong = { ...record, _computed_receipt_root: '00'.repeat(32) };
    expect(blockFailures(truth, [wrong]).map((f) => f.check)).toEqual(['service_block._computed_receipt_root']);
    expect(blockFailures({ ...truth, report: null }, [wrong])).toEqual([]);
  });

  it("skips _computed_receipt_root when the source's receipts are refuted by their header's root: the service's right root is not blamed (a user check)", () => {
    const refuted = truthOfAltered(truth.block);
    expect(refuted.report!.receipts_root.matches).toBe(false);
    expect(blockFailures(refuted, [record])).toEqual([]);
  });
});

describe("the log records (0103) of Bor's state-sync receipt (polygon-pos-10000000), which no commitment covers", () => {
  const truth = truthOf(loadFixture('polygon-pos-10000000') as unknown as BlockJson);
  const records = logRecords(truth.block);
  const STATE_SYNC = 5;
  const ofStateSync = (record: Json) => record.tx_index === STATE_SYNC;

  it("neither required nor refuted: records of its logs left out, or altered, fail no check (was: service_logs.missing); the other receipts' records are still held to them", () => {
    expect(truth.report!.excluded_receipts.map((r) => r.index)).toEqual([STATE_SYNC]);
    expect(records.filter(ofStateSync).length).toBeGreaterThan(0);
    expect(logFailures(truth, records)).toEqual([]);
    expect(
      logFailures(
        truth,
        records.filter((r) => !ofStateSync(r)),
      ),
    ).toEqual([]);
    const altered = records.map((r) => (ofStateSync(r) ? { ...r, data: '00' } : r));
    expect(logFailures(truth, altered)).toEqual([]);
    const other = records.findIndex((r) => !ofStateSync(r));
    expect(logFailures(truth, without(records, other)).map((f) => f.check)).toEqual(['service_logs.missing']);
    expect(
      logFailures(truth, replaced(records, other, { ...records[other]!, data: '00' })).map((f) => f.check),
    ).toEqual(['service_logs.altered']);
  });
});

describe('the log records (0103) against the receipts', () => {
  const truth = oldTruths[22]!; // 1000023: transactions 1, 2, 3 with 4 logs each
  const records = logRecords(truth.block);
  const at = (tx: number, log: number) => records.findIndex((r) => r.tx_index === tx && r.log_index === log);
  const checks = (list: Json[]) => logFailures(truth, list).map((f) => f.check);

  it("holds no record to receipts their header refutes (a log's data altered at the source): the block fails receipts_root, not the service (a user check)", () => {
    const refuted = truthOfAltered(truth.block);
    expect(refuted.report!.receipts_root.matches).toBe(false);
    expect(logFailures(refuted, records)).toEqual([]);
    // The same altered receipts, were they the truth, would blame the service's right record.
    expect(logFailures({ ...refuted, report: truth.report }, records).map((f) => f.check)).toEqual([
      'service_logs.altered',
    ]);
  });

  it('holds no record to a block the source gave with a receipt missing from the middle (refused as input): block_input fails it, not the service (a user re-check)', () => {
    const receipts = truth.block.receipts.filter((_, i) => i !== 2);
    const block = { ...truth.block, receipts } as BlockJson;
    const verified = verifyBlock(block);
    expect(!verified.ok && verified.error.kind).toBe('invalid');
    const refused: BlockTruth = { ...truth, block, report: null, refused: true };
    expect(logFailures(refused, records)).toEqual([]);
    // Held to those receipts, the service's right records were called extra.
    expect(logFailures({ ...refused, refused: undefined }, records).map((f) => f.check)).toContain(
      'service_logs.extra',
    );
  });

  it('passes the records derived from the receipts, and fails none of a block without logs', () => {
    expect(records).toHaveLength(12);
    expect(logFailures(truth, records)).toEqual([]);
    expect(logFailures(oldTruths[0]!, [])).toEqual([]);
  });

  it('reports a dropped record as missing, with its place and the log it should hold', () => {
    const failures = logFailures(truth, without(records, at(2, 1)));
    expect(failures.map((f) => f.check)).toEqual(['service_logs.missing']);
    expect(failures[0]!.evidence.logs).toEqual([expect.objectContaining({ tx_index: 2, log_index: 1 })]);
  });

  it('reports an added record as extra, also an exact duplicate at a place already held', () => {
    expect(checks([...records, { ...records[at(1, 0)]!, log_index: 4 }])).toEqual(['service_logs.extra']);
    expect(checks([...records, { ...records[at(1, 0)]! }])).toEqual(['service_logs.extra']);
  });

  it('reports a changed record as altered, naming the field, expected and found', () => {
    const changed = replaced(records, at(3, 2), { ...records[at(3, 2)]!, data: 'ff' });
    const failures = logFailures(truth, changed);
    expect(failures.map((f) => f.check)).toEqual(['service_logs.altered']);
    expect(failures[0]!.evidence.logs).toEqual([
      { tx_index: 3, log_index: 2, fields: { data: { expected: expect.stringMatching(/^0x/), found: 'ff' } } },
    ]);
  });

  it('reports a record moved to another place (tx_index, log_index changed) as altered, not missing and extra', () => {
    const moved = replaced(records, at(2, 0), { ...records[at(2, 0)]!, log_index: 1 });
    const failures = logFailures(truth, moved);
    expect(failures.map((f) => f.check)).toEqual(['service_logs.altered']);
    expect(failures[0]!.evidence.logs).toEqual([
      { tx_index: 2, log_index: 0, fields: { log_index: { expected: 0, found: 1 } } },
    ]);
  });

  it(
    'matches a block of 10 041 logs whose records are all elsewhere by lookup, not a scan per log (a scan took 400 s on it)',
    { timeout: 60_000 },
    () => {
      const big = truthOf(withTxHashes(loadFixture('mainnet-15537394')));
      const all = logRecords(big.block);
      const moved = all.map((r) => ({ ...r, tx_index: (r.tx_index as number) + 1000 }));
      const replaced = moved.map((r) => ({ ...r, data: 'ff' }));
      expect(logFailures(big, all)).toEqual([]);
      expect(logFailures(big, moved).map((f) => f.check)).toEqual(['service_logs.altered']);
      const failures = logFailures(big, replaced);
      expect(
        failures
          .map((f) => [f.check, (f.evidence.logs ?? f.evidence.records) as unknown[]])
          .map(([c, l]) => [c, (l as unknown[]).length]),
      ).toEqual([
        ['service_logs.missing', 10041],
        ['service_logs.extra', 10041],
      ]);
    },
  );

  it('holds an anonymous log (no topics) equal to a record whose topic_zero is null or absent, and to no text', () => {
    const receipts = truth.block.receipts.map((r, i) =>
      i === 1 ? { ...(r as Json), logs: [{ ...((r as Json).logs as Json[])[0]!, topics: [] }] } : r,
    );
    const anonymous = { ...truth, block: { ...truth.block, receipts } };
    const all = logRecords(anonymous.block);
    const record = all.find((r) => r.tx_index === 1)!;
    const others = all.filter((r) => r !== record);
    expect(record.topic_zero).toBeNull();
    for (const topic_zero of [null, undefined])
      expect(logFailures(anonymous, [...others, { ...record, topic_zero }])).toEqual([]);
    for (const topic_zero of ['none', '', '0x'])
      expect(
        logFailures(anonymous, [...others, { ...record, topic_zero }]).map((f) => f.check),
        topic_zero,
      ).toEqual(['service_logs.altered']);
  });

  it('skips tx_hash when the block gives no transaction hashes (the fixtures as published), never failing on it, and says it is unchecked (was: the block passed, any tx_hash forged: a user check)', () => {
    const bare = loadFixture('mainnet-1000023');
    const truthWithout = truthOf({ chain_id: 1, header: bare.header, receipts: bare.receipts });
    const otherHashes = records.map((r) => ({ ...r, tx_hash: 'ab'.repeat(32) }));
    expect(logFailures(truthWithout, otherHashes)).toEqual([]);
    const unchecked = [
      "service_logs: the tx_hash of the records of transactions 1, 2, 3 cannot be checked, as the block gives no hash for them (no receipt's transactionHash, no entry in its transactions)",
    ];
    expect(logUnchecked(truthWithout, otherHashes)).toEqual(unchecked);
    expect(logUnchecked(truthWithout, records)).toEqual(unchecked);
    // Named by transaction: only the one whose hash the block lacks.
    const oneMissing = {
      ...truth,
      block: {
        ...truth.block,
        header: { ...truth.block.header, transactions: undefined },
        receipts: truth.block.receipts.map((r, i) => (i === 2 ? { ...(r as Json), transactionHash: undefined } : r)),
      },
    };
    expect(logUnchecked(oneMissing, records)).toEqual([
      "service_logs: the tx_hash of the records of transaction 2 cannot be checked, as the block gives no hash for it (no receipt's transactionHash, no entry in its transactions)",
    ]);
    // Records that claim no hash claim nothing unchecked; with the hashes, every claim is checked.
    expect(
      logUnchecked(
        truthWithout,
        records.map((r) => ({ ...r, tx_hash: null })),
      ),
    ).toEqual([]);
    expect(logUnchecked(truth, records)).toEqual([]);
    expect(logFailures(truth, otherHashes).map((f) => f.check)).toEqual(['service_logs.altered']);
  });

  it("holds a record's own chain_id, where it gives one, to the audit's chain (was: every record of chain 137 passed a chain-1 audit: a user check)", () => {
    expect(
      logFailures(
        truth,
        records.map((r) => ({ ...r, chain_id: 1 })),
      ),
    ).toEqual([]);
    expect(
      logFailures(
        truth,
        records.map((r) => ({ ...r, chain_id: '0x1' })),
      ),
    ).toEqual([]);
    const other = logFailures(truth, replaced(records, 2, { ...records[2]!, chain_id: 137 }));
    expect(other.map((f) => f.check)).toEqual(['service_logs.altered']);
    expect(other[0]!.evidence.logs).toEqual([
      {
        tx_index: records[2]!.tx_index,
        log_index: records[2]!.log_index,
        fields: { chain_id: { expected: 1, found: 137 } },
      },
    ]);
  });

  it('takes the transaction hash from the block when the receipts lack it', () => {
    const receipts = truth.block.receipts.map((r) => ({ ...(r as Json), transactionHash: undefined }));
    const fromBlock = { ...truth, block: { ...truth.block, receipts } };
    expect(logFailures(fromBlock, records)).toEqual([]);
    expect(
      logFailures(fromBlock, replaced(records, 0, { ...records[0]!, tx_hash: 'ab'.repeat(32) })).map((f) => f.check),
    ).toEqual(['service_logs.altered']);
  });
});

/** One change to one record of a block's datasets, and the check that must catch it. */
interface Mutation {
  blocks: readonly Json[];
  logs: readonly Json[];
  check: string;
}

/** A hex text with one digit changed (or a byte added to empty hex), so it differs in any spelling. */
function flipHex(text: string, at: number, by: number): string {
  const digits = text.replace(/^0x/, '');
  if (digits === '') return '00';
  const i = at % digits.length;
  return `${digits.slice(0, i)}${((parseInt(digits[i]!, 16) + by) % 16).toString(16)}${digits.slice(i + 1)}`;
}

/** How each field of a record can change: `pick` and `by` (1..15) choose the change. */
function mutateValue(field: string, value: unknown, pick: number, by: number): unknown {
  switch (field) {
    case 'gas_limit':
      return (value as number) + by;
    case 'timestamp_utc':
    case 'block_time':
      return new Date(Date.parse(String(value)) + by * 1000).toISOString();
    case 'tx_index':
    case 'log_index':
      if (pick % 4 === 0) return null;
      return pick % 4 === 1 && (value as number) >= by ? (value as number) - by : (value as number) + by;
    case 'topic_zero':
      return value === null ? 'ab'.repeat(32) : pick % 3 === 0 ? null : flipHex(value as string, pick, by);
    case 'data_topics': {
      const topics = value as string[];
      if (topics.length === 0 || pick % 3 === 0) return [...topics, 'cd'.repeat(32)];
      if (pick % 3 === 1) return topics.slice(1);
      return replaced(topics, pick % topics.length, flipHex(topics[pick % topics.length]!, pick, by));
    }
    default:
      return flipHex(String(value), pick, by);
  }
}

const BLOCK_FIELDS = SERVICE_BLOCK_CHECKS.filter((c) => c !== 'service_block.present').map((c) =>
  c.slice('service_block.'.length),
);
const LOG_FIELDS = [
  'tx_hash',
  'tx_index',
  'log_index',
  'contract_address',
  'topic_zero',
  'data_topics',
  'data',
  'block_hash',
  'block_time',
];

/**
 * Any single change of a block's records: a field of the block record or of a log record, or a record dropped or added.
 */
function mutations(truth: BlockTruth): fc.Arbitrary<Mutation> {
  const blocks = [blockRecord(truth.block)];
  const logs = logRecords(truth.block);
  const change = fc.record({ pick: fc.nat(1000), by: fc.integer({ min: 1, max: 15 }) });
  const blockField = fc.tuple(fc.constantFrom(...BLOCK_FIELDS), change).map(([field, { pick, by }]) => ({
    blocks: [{ ...blocks[0]!, [field]: mutateValue(field, blocks[0]![field], pick, by) }],
    logs,
    check: `service_block.${field}`,
  }));
  const presence = fc.constantFrom(
    { blocks: [], logs, check: 'service_block.present' },
    { blocks: [...blocks, ...blocks], logs, check: 'service_block.present' },
  );
  if (logs.length === 0) return fc.oneof(blockField, presence);
  const logIndex = fc.nat(logs.length - 1);
  const logField = fc.tuple(logIndex, fc.constantFrom(...LOG_FIELDS), change).map(([i, field, { pick, by }]) => ({
    blocks,
    logs: replaced(logs, i, { ...logs[i]!, [field]: mutateValue(field, logs[i]![field], pick, by) }),
    check: 'service_logs.altered',
  }));
  const dropped = logIndex.map((i) => ({ blocks, logs: without(logs, i), check: 'service_logs.missing' }));
  const added = fc.tuple(logIndex, fc.nat(3)).map(([i, past]) => ({
    blocks,
    logs: [...logs, { ...logs[i]!, log_index: 1000 + past }],
    check: 'service_logs.extra',
  }));
  return fc.oneof(blockField, presence, logField, dropped, added);
}

describe('property: single changes of a block’s records', () => {
  const truths = [newTruths[1]!, oldTruths[22]!, oldTruths[9]!, oldTruths[0]!];
  const failuresOf = (truth: BlockTruth, blocks: readonly Json[], logs: readonly Json[]) => [
    ...blockFailures(truth, blocks),
    ...logFailures(truth, logs),
  ];

  it('any single change of any record is caught by exactly one check, the one that names it', () => {
    const cases = fc
      .constantFrom(...truths)
      .chain((truth) => mutations(truth).map((mutation) => ({ truth, mutation })));
    fc.assert(
      fc.property(cases, ({ truth, mutation }) => {
        expect(failuresOf(truth, mutation.blocks, mutation.logs).map((f) => f.check)).toEqual([mutation.check]);
      }),
      { numRuns: runs(400) },
    );
  });

  it('an untouched block never fails, whatever the order of its records', () => {
    const cases = fc.constantFrom(...truths).chain((truth) => {
      const logs = logRecords(truth.block);
      return fc
        .shuffledSubarray(logs, { minLength: logs.length, maxLength: logs.length })
        .map((shuffled) => ({ truth, shuffled }));
    });
    fc.assert(
      fc.property(cases, ({ truth, shuffled }) => {
        expect(failuresOf(truth, [blockRecord(truth.block)], shuffled)).toEqual([]);
      }),
    );
  });
});

describe('serviceCrossCheck against a loopback hosted service', () => {
  let service: LoopbackService;
  const sleeps: number[] = [];
  const crossCheck = (options: { apiKey?: string; timeoutMs?: number } = {}) =>
    serviceCrossCheck({
      url: service.url,
      apiKey: options.apiKey ?? KEY,
      sleep: async (ms) => void sleeps.push(ms),
      timeoutMs: options.timeoutMs,
    });

  beforeAll(async () => {
    service = await startLoopbackService({ blocks: [...OLD, ...NEW], apiKey: KEY, pageSize: 7 });
  });
  afterAll(() => service.close());
  beforeEach(() => {
    service.faults = [];
    service.requests.length = 0;
    sleeps.length = 0;
  });

  it('finds nothing wrong with a clean range, reading every page of both datasets with the bearer key', async () => {
    expect(await crossCheck().checkChunk(oldTruths)).toEqual(new Map());
    expect(await crossCheck().checkChunk(newTruths)).toEqual(new Map());
    const blockPages = service.requests.filter((r) => r.path === '/v1/evm/raw/blocks');
    const logPages = service.requests.filter((r) => r.path === '/v1/evm/raw/logs');
    // 30 + 2 block records and 14 + 378 log records, 7 to a page: a few requests per chunk, not one per block.
    expect(blockPages).toHaveLength(5 + 1);
    expect(logPages).toHaveLength(2 + 54);
    expect(blockPages.slice(0, 5).map((r) => r.body)).toEqual(
      [undefined, 'after-7', 'after-14', 'after-21', 'after-28'].map((cursor) => ({
        chain_id: 1,
        from_block: 1000001,
        to_block: 1000030,
        limit: 1000,
        ...(cursor !== undefined && { cursor }),
      })),
    );
    expect(new Set(service.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${KEY}`]));
  });

  const FAULTS: Array<{ name: string; fault: ServiceFault; check: string }> = [
    {
      name: 'a dropped log record',
      fault: { kind: 'drop_log', block: 1000023, txIndex: 2, logIndex: 1 },
      check: 'service_logs.missing',
    },
    {
      name: 'an extra log record',
      fault: { kind: 'extra_log', block: 1000023, txIndex: 3, logIndex: 0 },
      check: 'service_logs.extra',
    },
    {
      name: 'a wrong receipt_root',
      fault: { kind: 'alter_block', block: 1000017, field: 'receipt_root', value: '11'.repeat(32) },
      check: 'service_block.receipt_root',
    },
    {
      name: 'a wrong _computed_receipt_root',
      fault: { kind: 'alter_block', block: 1000017, field: '_computed_receipt_root', value: '11'.repeat(32) },
      check: 'service_block._computed_receipt_root',
    },
    {
      name: 'no block record',
      fault: { kind: 'alter_block', block: 1000005, field: 'block_number', value: 999 },
      check: 'service_block.present',
    },
    ...(
      [
        ['tx_hash', 'ab'.repeat(32)],
        ['tx_index', 6],
        ['log_index', 9],
        ['contract_address', '00'.repeat(20)],
        ['topic_zero', null],
        ['data_topics', []],
        ['data', ''],
        ['block_hash', '00'.repeat(32)],
        ['block_time', '2016-02-13T22:54:00Z'],
      ] as const
    ).map(([field, value]) => ({
      name: `an altered log record (${field})`,
      fault: { kind: 'alter_log', block: 1000023, txIndex: 1, logIndex: 3, field, value } as const,
      check: 'service_logs.altered',
    })),
    ...(
      [
        ['block_hash', '00'.repeat(32)],
        ['parent_block_hash', '00'.repeat(32)],
        ['miner', '0x' + '00'.repeat(20)],
        ['gas_limit', 1],
        ['extra_data', ''],
        ['timestamp_utc', '2016-02-13T22:54:00.000Z'],
      ] as const
    ).map(([field, value]) => ({
      name: `an altered block record (${field})`,
      fault: { kind: 'alter_block', block: 1000002, field, value } as const,
      check: `service_block.${field}`,
    })),
  ];

  it.each(FAULTS)('finds $name, reported as $check and nothing else', async ({ fault, check }) => {
    service.faults = [fault];
    const failures = await crossCheck().checkChunk(oldTruths);
    expect(named(failures)).toEqual([`${'block' in fault ? fault.block : ''}: ${check}`]);
  });

  it("refuses pages that name another chain than the one asked, naming both: never checked as this chain's (a chain-1 audit passed on chain 137's pages: a user check)", async () => {
    service.faults = [{ kind: 'answer_chain', chainId: 137 }];
    await expect(crossCheck().checkChunk(oldTruths)).rejects.toThrow(
      /^the service's answer to raw\/(blocks|logs) 1000001-1000030 \(page 1\) is unusable: chain_id: expected chain 1, the chain asked for \(the request's chain_id\): an answer for another chain is not this chain's, got 137$/,
    );
    // A page that names no chain claims nothing; chain 1 in a form integers are read in is chain 1.
    for (const chainId of [null, '1', '0x1']) {
      service.faults = [{ kind: 'answer_chain', chainId }];
      expect(await crossCheck().checkChunk(oldTruths)).toEqual(new Map());
    }
  });

  it('waits what a 429 asks (Retry-After), then reads on', async () => {
    service.faults = [{ kind: 'rate_limit', requests: 2, retryAfterSeconds: 7 }];
    expect(await crossCheck().checkChunk(newTruths)).toEqual(new Map());
    expect(sleeps.filter((ms) => ms >= 7000)).toHaveLength(2);
    expect(sleeps.length).toBe(2);
  });

  it('retries a request left unanswered past its time limit', async () => {
    service.faults = [{ kind: 'hang', requests: 1 }];
    expect(await crossCheck({ timeoutMs: 250 }).checkChunk(newTruths)).toEqual(new Map());
    expect(sleeps).toHaveLength(1);
    expect(service.requests.length).toBe(1 + 54 + 1);
  });

  it('refuses a rejected key with a SourceError naming the key, not retried', async () => {
    const error = await crossCheck({ apiKey: 'wrong' })
      .checkChunk(newTruths)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toMatch(
      /^the service answered POST \/evm\/raw\/(blocks|logs) with HTTP 401 UNAUTHORIZED: invalid API key \(the API key was refused\); not retried$/,
    );
    expect(sleeps).toEqual([]);
  });

  it('asks nothing for an empty chunk, and names every check it may report', async () => {
    expect(await crossCheck().checkChunk([])).toEqual(new Map());
    expect(service.requests).toEqual([]);
    expect(crossCheck().checks).toEqual([
      ...SERVICE_BLOCK_CHECKS,
      'service_logs.missing',
      'service_logs.extra',
      'service_logs.altered',
    ]);
  });
});

describe('ServiceDatasets: reading the pages', () => {
  /** A service that answers each request with the next of `pages` (as JSON), and keeps the bodies it was sent. */
  function scripted(pages: unknown[]) {
    const bodies: Json[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      bodies.push(JSON.parse(init.body as string) as Json);
      return new Response(JSON.stringify(pages[bodies.length - 1]), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    return {
      bodies,
      datasets: new ServiceDatasets({ url: 'http://127.0.0.1:9/v1', apiKey: KEY, fetch, pageLimit: 2 }),
    };
  }
  const record = (n: number) => ({ block_number: n });

  it('stops at an empty page even when it carries a cursor, and sends each cursor back', async () => {
    const { bodies, datasets } = scripted([
      { data: [record(1), record(2)], cursor: 'c1', count: 2 },
      { data: [], cursor: 'c2', page_count: 0 },
    ]);
    expect(await datasets.records('blocks', 1, 1, 5)).toEqual([record(1), record(2)]);
    expect(bodies).toEqual([
      { chain_id: 1, from_block: 1, to_block: 5, limit: 2 },
      { chain_id: 1, from_block: 1, to_block: 5, limit: 2, cursor: 'c1' },
    ]);
  });

  it('refuses pages that loop (a cursor given twice)', async () => {
    const { datasets } = scripted([
      { data: [record(1)], cursor: 'again', count: 1 },
      { data: [record(2)], cursor: 'again', count: 1 },
    ]);
    await expect(datasets.records('logs', 1, 1, 5)).rejects.toThrow(
      new SourceError('the service gave cursor "again" twice for raw/logs 1-5: its pages loop'),
    );
  });

  it('refuses pages that never end (a new cursor every time) after 10,000 pages', async () => {
    let asked = 0;
    const endless = new ServiceDatasets(async () => ({ data: [record(1)], cursor: `c${++asked}`, count: 1 }));
    await expect(endless.records('logs', 1, 1, 5)).rejects.toThrow(
      /^the service gave more than 10000 pages of raw\/logs for blocks 1-5 and its cursor does not end/,
    );
    expect(asked).toBe(10_000);
  });

  it('refuses an answer without its records, or a record without its block number, naming the member', async () => {
    await expect(scripted([{ cursor: null }]).datasets.records('blocks', 1, 1, 5)).rejects.toThrow(
      "the service's answer to raw/blocks 1-5 (page 1) is unusable: data: expected an array of records, got undefined",
    );
    await expect(
      scripted([{ data: [record(1), { block: 2 }], cursor: null }]).datasets.records('logs', 1, 1, 5),
    ).rejects.toThrow(
      /^the service's answer to raw\/logs 1-5 \(page 1\) is unusable: data\[1\]: expected a record with its block_number/,
    );
  });

  it('refuses a page whose count is not its number of records (a count of 0 over records and a cursor ended the paging: a user check)', async () => {
    const { bodies, datasets } = scripted([
      { data: [record(1)], cursor: 'c1', count: 0 },
      { data: [record(2)], cursor: null, count: 1 },
    ]);
    await expect(datasets.records('logs', 1, 1, 5)).rejects.toThrow(
      "the service's answer to raw/logs 1-5 (page 1) is unusable: count: expected the number of records on the page, 1, got 0",
    );
    expect(bodies).toHaveLength(1);
    // Under both names, each must say it (page_count 0 beside a right count was taken: a user re-check).
    await expect(
      scripted([{ data: [record(1)], cursor: 'c1', count: 1, page_count: 0 }]).datasets.records('logs', 1, 1, 5),
    ).rejects.toThrow('page_count: expected the number of records on the page, 1, got 0');
  });

  it('stops before the next page once the audit is aborted', async () => {
    const { bodies, datasets } = scripted([{ data: [record(1)], cursor: null, count: 1 }]);
    await expect(datasets.records('blocks', 1, 1, 5, AbortSignal.abort())).rejects.toThrow(/abort/i);
    expect(bodies).toEqual([]);
  });
});
