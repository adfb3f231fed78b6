/**
 * Complete-log proofs over a range (evm-integrity/proof): built from real fixture blocks of every
 * chain that has them, verified from the head hash alone, compared with the logs eth_getLogs
 * answers computed from the fixtures' JSON by the test's own matching (helpers/logs-proofs.ts);
 * and every fault the issue names refused, with the block where it is.
 */
import { decode, encode } from '@ethereumjs/rlp';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, encodeHeader, encodeReceipt } from '../packages/core/src/index.js';
import {
  compareLogs,
  compileLogsFilter,
  decodePreamble,
  decodeRecord,
  decodeReceipt,
  encodePreamble,
  LOGS_PROOF_SIGNATURE,
  LogsProofBuilder,
  LogsProofVerifier,
  logsFilterProblem,
  verifyLogsProof,
  verifyLogsProofBytes,
  type EthLog,
  type LogsProofRefusal,
  type LogsRange,
} from '../packages/core/src/proof/index.js';
import {
  buildArtifact,
  concat,
  expectedLogs,
  rangeNames,
  readFixtureBlock,
  toFilter,
  type HexFilter,
  BUSY_2016,
  THIRTY,
  TRANSFER,
} from './helpers/logs-proofs.js';
import { runs } from './helpers/runs.js';

/** Real ranges of every chain with consecutive fixture blocks (or one block), and filters over them. */
const CASES: Array<{ name: string; blocks: string[]; filter: HexFilter }> = [
  { name: '30 blocks of 2016, the busiest contract', blocks: THIRTY, filter: { address: [BUSY_2016] } },
  { name: '30 blocks of 2016, every log', blocks: THIRTY, filter: {} },
  {
    name: '30 blocks of 2016, a topic at position 2',
    blocks: THIRTY,
    filter: { topics: [null, null, ['0x000000000000000000000000939292f2b41b74ccb7261a452de556ba2c45db86']] },
  },
  {
    name: 'the Merge pair, 10,041 logs, Transfer',
    blocks: rangeNames('mainnet', 15_537_393, 15_537_394),
    filter: { topics: [[TRANSFER]] },
  },
  {
    name: 'Shanghai pair, WETH or USDT',
    blocks: rangeNames('mainnet', 17_034_869, 17_034_870),
    filter: {
      address: ['0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', '0xdac17f958d2ee523a2206206994597c13d831ec7'],
    },
  },
  {
    name: 'Cancun pair, USDT Transfer',
    blocks: rangeNames('mainnet', 19_426_586, 19_426_587),
    filter: { address: ['0xdac17f958d2ee523a2206206994597c13d831ec7'], topics: [[TRANSFER]] },
  },
  { name: 'Prague pair, every log', blocks: rangeNames('mainnet', 22_431_083, 22_431_084), filter: {} },
  {
    name: 'pre-Byzantium pair',
    blocks: rangeNames('mainnet', 1_755_634, 1_755_635),
    filter: { topics: [[TRANSFER]] },
  },
  {
    name: 'OP Mainnet, deposits, Transfer',
    blocks: ['op-mainnet-154497277'],
    filter: { topics: [[TRANSFER]] },
  },
  { name: 'Arbitrum One Nitro, every log', blocks: ['arbitrum-one-150000000'], filter: {} },
  { name: 'an address no block holds', blocks: THIRTY, filter: { address: [`0x${'ab'.repeat(20)}`] } },
];

describe('a proof of real blocks', () => {
  for (const { name, blocks, filter } of CASES)
    it(`${name}: the logs eth_getLogs answers, from the head hash alone`, () => {
      const { artifact, headHash } = buildArtifact(blocks, toFilter(filter));
      const last = readFixtureBlock(blocks.at(-1)!);
      expect(bytesToHex(headHash)).toBe(bytesToHex(last.header.hash!));
      const verified = verifyLogsProofBytes(artifact, { headHash });
      if (!verified.ok) throw new Error(verified.error.message);
      expect(verified.value.logs).toEqual(expectedLogs(blocks, filter));
      expect(verified.value.summary.blocks).toBe(blocks.length);
    });

  it('carries receipts exactly for the blocks whose bloom may match', () => {
    const filter = toFilter({ address: [BUSY_2016] });
    const { records } = buildArtifact(THIRTY, filter);
    const compiled = compileLogsFilter(filter);
    const withReceipts = records.slice(1).map((record) => (decode(record) as unknown[]).length === 2);
    const mayMatch = THIRTY.map((n) => compiled.mayMatch(readFixtureBlock(n).header.complete!.logsBloom));
    expect(withReceipts).toEqual(mayMatch);
    // The contract logs in one block of the thirty; a bloom's false positives may add a few more.
    expect(withReceipts.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(withReceipts.filter(Boolean).length).toBeLessThan(30);
  });

  it('is the same whatever the chunks it streams in', async () => {
    const { artifact, headHash } = buildArtifact(THIRTY, toFilter({}));
    const whole = verifyLogsProofBytes(artifact, { headHash });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 50 }), async (sizes) => {
        const chunks: Uint8Array[] = [];
        for (let at = 0, i = 0; at < artifact.length; i++) {
          const size = sizes[i % sizes.length]!;
          chunks.push(artifact.subarray(at, at + size));
          at += size;
        }
        const logs: unknown[] = [];
        const verdict = await verifyLogsProof(chunks, { headHash, onLogs: (l) => void logs.push(...l) });
        expect(verdict.ok && whole.ok && verdict.value).toEqual(whole.ok && whole.value.summary);
        expect(logs).toEqual(whole.ok && whole.value.logs);
      }),
      { numRuns: runs(40) },
    );
  });
});

/** The first refusal of an artifact. */
function refusalOf(artifact: Uint8Array, headHash: Uint8Array, chainId?: number): LogsProofRefusal {
  const verified = verifyLogsProofBytes(artifact, chainId === undefined ? { headHash } : { headHash, chainId });
  if (verified.ok) throw new Error('the proof held');
  return verified.error;
}

/** An artifact whose records are changed by `edit` (records[0] is the signature and preamble). */
function edited(records: Uint8Array[], edit: (records: Uint8Array[]) => Uint8Array[]): Uint8Array {
  return concat(edit(records.slice()));
}

/** Record i's items, changed and re-encoded. */
function reRecord(record: Uint8Array, change: (items: [Uint8Array, Uint8Array[]?]) => unknown[]): Uint8Array {
  return encode(change(decode(record) as unknown as [Uint8Array, Uint8Array[]?]) as Uint8Array[]);
}

describe('refusals', () => {
  const filter = toFilter({ address: [BUSY_2016] });
  const { records, headHash, artifact } = buildArtifact(THIRTY, filter);
  // Block 1,000,023 (record 23) holds the contract's 9 logs.
  const busy = 23;
  expect((decode(records[busy]) as unknown[]).length).toBe(2);
  const withLogs = readFixtureBlock('mainnet-1000023').receipts.findIndex((r) => r.logs.length > 0);
  const quiet = records.findIndex((r, i) => i > 0 && (decode(r) as unknown[]).length === 1);

  const cases: Array<[string, Uint8Array, Partial<LogsProofRefusal>]> = [
    [
      'a dropped log: a receipt without its last log (and with its bloom made to fit)',
      edited(records, (r) => {
        r[busy] = reRecord(r[busy]!, ([header, receipts]) => {
          const items = receipts!.slice();
          const receipt = decodeReceipt(items[withLogs]!);
          receipt.logs.pop();
          items[withLogs] = encodeReceipt(receipt);
          return [header, items];
        });
        return r;
      }),
      { reason: 'root-mismatch', block: 1_000_023 },
    ],
    [
      'a dropped log, the bloom left as it was',
      edited(records, (r) => {
        r[busy] = reRecord(r[busy]!, ([header, receipts]) => {
          const items = receipts!.slice();
          const body = decode(items[withLogs]) as unknown as unknown[][];
          body[3]!.pop();
          items[withLogs] = encode(body as never);
          return [header, items];
        });
        return r;
      }),
      { reason: 'receipt-invalid', block: 1_000_023 },
    ],
    [
      'a dropped receipt',
      edited(records, (r) => {
        r[busy] = reRecord(r[busy]!, ([header, receipts]) => [header, receipts!.slice(1)]);
        return r;
      }),
      { reason: 'root-mismatch', block: 1_000_023 },
    ],
    [
      'an altered log byte',
      edited(records, (r) => {
        r[busy] = reRecord(r[busy]!, ([header, receipts]) => {
          const items = receipts!.map((x) => x.slice());
          items[withLogs]![items[withLogs]!.length - 1]! ^= 1;
          return [header, items];
        });
        return r;
      }),
      { reason: 'root-mismatch', block: 1_000_023 },
    ],
    [
      'a candidate block without its receipts',
      edited(records, (r) => {
        r[busy] = reRecord(r[busy]!, ([header]) => [header]);
        return r;
      }),
      { reason: 'receipts-missing', block: 1_000_023 },
    ],
    [
      'receipts on a block whose bloom rules the filter out',
      edited(records, (r) => {
        r[quiet] = reRecord(r[quiet]!, ([header]) => [header, []]);
        return r;
      }),
      { reason: 'receipts-unexpected', block: 1_000_000 + quiet },
    ],
    [
      'a block missing',
      edited(records, (r) => {
        r.splice(10, 1);
        return r;
      }),
      { reason: 'block-number', block: 1_000_010 },
    ],
    [
      'two blocks swapped',
      edited(records, (r) => {
        [r[10], r[11]] = [r[11]!, r[10]!];
        return r;
      }),
      { reason: 'block-number', block: 1_000_010 },
    ],
    [
      'a header altered (its bloom cleared): the next block does not name it',
      edited(records, (r) => {
        r[busy] = reRecord(r[busy]!, ([header]) => {
          const fields = decode(header) as Uint8Array[];
          fields[6] = new Uint8Array(256);
          return [encode(fields)];
        });
        return r;
      }),
      { reason: 'parent-mismatch', block: 1_000_024 },
    ],
    ['the last blocks cut off', edited(records, (r) => r.slice(0, 28)), { reason: 'blocks-missing', block: 1_000_028 }],
    ['a record cut short', artifact.subarray(0, artifact.length - 5), { reason: 'blocks-missing', block: 1_000_030 }],
    ['bytes after the last block', concat([artifact, Uint8Array.of(0xc0)]), { reason: 'trailing-data' }],
    [
      'no signature',
      artifact.subarray(LOGS_PROOF_SIGNATURE.length),
      { reason: 'malformed', message: 'The input is not a logs proof: it does not begin with its signature.' },
    ],
    [
      'a version this library does not read',
      edited(records, (r) => {
        const preamble = decode(r[0]!.subarray(LOGS_PROOF_SIGNATURE.length)) as Uint8Array[];
        preamble[0] = Uint8Array.of(2);
        r[0] = concat([LOGS_PROOF_SIGNATURE, encode(preamble)]);
        return r;
      }),
      { reason: 'malformed' },
    ],
    ['a record that is no RLP', concat([records[0]!, Uint8Array.of(0xf9, 0xff)]), { reason: 'blocks-missing' }],
  ];
  for (const [name, bytes, expected] of cases)
    it(`${name}: ${expected.reason}`, () => {
      expect(refusalOf(bytes, headHash)).toMatchObject(expected);
    });

  it("bytes after the last block: the message names where the proof's last block ends, whole or in chunks alike (it gave the chunk's count: a user check)", () => {
    const tail = artifact.subarray(artifact.length - 5000);
    const longer = concat([artifact, tail]);
    const message = `Data follows the range's last block, whose record ends at byte ${artifact.length.toLocaleString('en-US')} of the proof.`;
    expect(refusalOf(longer, headHash)).toEqual({ reason: 'trailing-data', message });
    for (const size of [1000, 4096, 65536]) {
      const verifier = new LogsProofVerifier({ headHash });
      let refusal: LogsProofRefusal | undefined;
      for (let at = 0; at < longer.length && refusal === undefined; at += size) {
        const step = verifier.write(longer.subarray(at, at + size));
        if (!step.ok) refusal = step.error;
      }
      const ended = verifier.end();
      expect(ended.ok ? undefined : ended.error, `chunks of ${size}`).toEqual({ reason: 'trailing-data', message });
      if (refusal !== undefined) expect(refusal).toEqual(ended.ok ? undefined : ended.error);
    }
  });

  it('another head hash: head-mismatch at the last block', () => {
    const other = readFixtureBlock('mainnet-1000029').header.hash!;
    expect(refusalOf(artifact, other)).toMatchObject({ reason: 'head-mismatch', block: 1_000_030 });
  });

  it('the proof of another chain than the one asked: chain-mismatch', () => {
    expect(refusalOf(artifact, headHash, 137)).toMatchObject({ reason: 'chain-mismatch' });
    expect(verifyLogsProofBytes(artifact, { headHash, chainId: 1 }).ok).toBe(true);
  });

  it("mainnet's blocks relabelled as Base's: header-invalid at the first block, naming the field its fork has, as verify block does (it held: a user check)", () => {
    const preamble = decodePreamble(records[0]!.subarray(LOGS_PROOF_SIGNATURE.length)) as LogsRange;
    const relabelled = edited(records, (r) => {
      r[0] = concat([LOGS_PROOF_SIGNATURE, encodePreamble({ ...preamble, chainId: 8453 })]);
      return r;
    });
    const refused = refusalOf(relabelled, headHash, 8453);
    expect(refused).toMatchObject({ reason: 'header-invalid', block: 1_000_001 });
    expect(refused.message).toBe(
      'The header of block 1,000,001: expected a header with baseFeePerGas: Base block 1000001 is in Bedrock (from block 0), which has it.',
    );
  });

  it('a preamble whose last block is past 2^53-1 is refused saying so, not as a quantity that is not canonical (a user check)', () => {
    const preamble = decodePreamble(records[0]!.subarray(LOGS_PROOF_SIGNATURE.length)) as LogsRange;
    const huge = edited(records, (r) => {
      r[0] = concat([LOGS_PROOF_SIGNATURE, encodePreamble({ ...preamble, toBlock: 2 ** 53 })]);
      return r;
    });
    expect(refusalOf(huge, headHash).message).toContain("the preamble's last block is more than 2^53-1");
    const padded = encode([1, 1, 1_000_001, Uint8Array.of(0, 1), [], []]);
    expect(decodePreamble(padded)).toBe("the preamble's last block is not a canonical quantity");
  });

  it('a preamble whose version is written with a leading zero says so (was: "format version unreadable is not supported": a user check)', () => {
    expect(decodePreamble(encode([Uint8Array.of(0, 1), 1, 1_000_001, 1_000_002, [], []]))).toBe(
      "the preamble's format version is not a canonical quantity",
    );
    expect(decodePreamble(encode([2, 1, 1_000_001, 1_000_002, [], []]))).toBe(
      'format version 2 is not supported; this library reads version 1',
    );
  });

  it('a record over the size limit is refused before it is buffered', () => {
    const verifier = new LogsProofVerifier({ headHash, maxRecordBytes: 1000 });
    expect(verifier.write(records[0]!).ok).toBe(true);
    expect(verifier.write(records[busy - 1]!.subarray(0, 0)).ok).toBe(true);
    const big = concat(records.slice(1, busy + 1));
    const step = verifier.write(big);
    expect(step.ok ? null : step.error).toMatchObject({ reason: 'bad-record', block: 1_000_023 });
    expect(step.ok ? '' : step.error.message).toContain('over the limit of 1000 bytes');
  });

  it('a record whose length prefix is corrupted to 8 bytes of 0xff: its size named as over 2^53, not a rounded number', () => {
    const verifier = new LogsProofVerifier({ headHash });
    expect(verifier.write(records[0]!).ok).toBe(true);
    const step = verifier.write(Uint8Array.of(0xff, ...new Array<number>(8).fill(0xff), 0xc0));
    expect(step.ok ? null : step.error).toMatchObject({ reason: 'bad-record' });
    expect(step.ok ? '' : step.error.message).toContain(
      'an item of over 2^53 bytes is over the limit of 67108864 bytes a record may take',
    );
  });

  it('a bloom that lies about its receipts: bloom-mismatch', () => {
    // A block whose header names the receipts' root but a bloom with one more bit set: hashed
    // into a chain of its own, so that only the bloom check can refuse it.
    const real = readFixtureBlock('mainnet-1000023');
    const header = { ...real.header.complete!, logsBloom: real.header.complete!.logsBloom.slice() };
    header.logsBloom[0]! |= 0x80;
    const builder = new LogsProofBuilder({ chainId: 1, fromBlock: 1_000_023, toBlock: 1_000_023, filter });
    const built = builder.block(header, real.receipts);
    expect(built.ok ? null : built.error).toMatchObject({ reason: 'bloom-mismatch', block: 1_000_023 });
  });

  it('every changed byte of a record is refused', () => {
    const start = records[0]!.length;
    fc.assert(
      fc.property(fc.integer({ min: start, max: artifact.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, x) => {
        const changed = artifact.slice();
        changed[at]! ^= x;
        expect(verifyLogsProofBytes(changed, { headHash }).ok).toBe(false);
      }),
      { numRuns: runs(300) },
    );
  });

  it('a changed byte of the preamble is refused, or proves what the changed preamble says (never the original)', () => {
    const original = decodePreamble(records[0]!.subarray(LOGS_PROOF_SIGNATURE.length));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: records[0]!.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, x) => {
        const changed = artifact.slice();
        changed[at]! ^= x;
        const verified = verifyLogsProofBytes(changed, { headHash });
        if (verified.ok) expect(encodePreamble(verified.value.summary)).not.toEqual(encodePreamble(original as never));
      }),
      { numRuns: runs(300) },
    );
  });
});

describe('RLP nested past any record', () => {
  it('a preamble or a record nested 20,000 lists deep is refused by name, not by a stack overflow', () => {
    // Built from the inside out: each list holds the one before, its length in the short or long form.
    let item = new Uint8Array([0xc0]);
    for (let i = 1; i < 20_000; i++) {
      const n = item.length;
      const header =
        n < 56
          ? [0xc0 + n]
          : n < 256
            ? [0xf8, n]
            : n < 65_536
              ? [0xf9, n >> 8, n & 255]
              : [0xfa, n >> 16, (n >> 8) & 255, n & 255];
      const next = new Uint8Array(header.length + n);
      next.set(header);
      next.set(item, header.length);
      item = next;
    }
    expect(decodePreamble(item)).toMatch(/^the preamble is not RLP \(.*nests deeper than 32 levels\)$/);
    expect(decodeRecord(item)).toMatch(/nests deeper than 32 levels/);
  });
});

describe('what cannot be proven', () => {
  it('Polygon PoS before Madhugiri: state-sync logs are in neither root nor bloom, so no range is complete', () => {
    const blocks = rangeNames('polygon-pos', 9_013_765, 9_013_767);
    expect(() => buildArtifact(blocks, toFilter({}))).toThrow(/state-sync receipts of this era are in neither/);
    const builder = new LogsProofBuilder({
      chainId: 137,
      fromBlock: 9_013_765,
      toBlock: 9_013_767,
      filter: toFilter({}),
    });
    expect(builder.unprovable(9_013_765)).toMatch(/eth_getLogs returns their logs/);
  });

  it('a chain outside the registry, and an era that cannot be verified', () => {
    expect(() => buildArtifact(['hive-generated-1'], toFilter({}))).toThrow(/not in the chain registry/);
    const builder = new LogsProofBuilder({ chainId: 42161, fromBlock: 1000, toBlock: 1001, filter: toFilter({}) });
    expect(builder.unprovable(1000)).toMatch(/Arbitrum classic/);
  });

  it.each([0, 61])(
    'a proof whose preamble names chain %i, outside the registry: not-verifiable naming the chain, not a block',
    (chainId) => {
      const { artifact, headHash } = buildArtifact(rangeNames('mainnet', 1_000_001, 1_000_002), toFilter({}));
      // The records after the preamble, kept; the preamble written again with another chain.
      const { remainder } = decode(artifact.subarray(LOGS_PROOF_SIGNATURE.length), true);
      const preamble = encodePreamble({ chainId, fromBlock: 1_000_001, toBlock: 1_000_002, filter: toFilter({}) });
      const relabelled = concat([LOGS_PROOF_SIGNATURE, preamble, remainder]);
      const refusal = refusalOf(relabelled, headHash);
      expect(refusal).toMatchObject({
        reason: 'not-verifiable',
        message: `Chain ${chainId} is not in the chain registry.`,
      });
      expect(refusal.block).toBeUndefined();
    },
  );

  it('a verifier meeting such a block answers not-verifiable, naming the block', () => {
    // The artifact of a Polygon range, written by hand: the builder will not write one.
    const blocks = rangeNames('polygon-pos', 9_013_765, 9_013_766).map(readFixtureBlock);
    const preamble = encodePreamble({ chainId: 137, fromBlock: 9_013_765, toBlock: 9_013_766, filter: toFilter({}) });
    const head = encode([encodeHeader(blocks[0]!.header.complete!, blocks[0]!.header.layout)]);
    const artifact = concat([LOGS_PROOF_SIGNATURE, preamble, head]);
    expect(refusalOf(artifact, blocks[1]!.header.hash!)).toMatchObject({ reason: 'not-verifiable', block: 9_013_765 });
  });
});

describe('filters', () => {
  it('are refused with the member named', () => {
    expect(logsFilterProblem({ addresses: [new Uint8Array(19)], topics: [] })).toBe(
      'addresses[0]: expected 20 bytes, got 19',
    );
    expect(logsFilterProblem({ addresses: [], topics: [[], [], [], [], [new Uint8Array(32)]] })).toMatch(
      /at most 4 positions, got 5/,
    );
    expect(logsFilterProblem({ addresses: [], topics: [[new Uint8Array(32)], []] })).toMatch(
      /^topics\[1\]: the last position must name a topic/,
    );
    expect(() => new LogsProofBuilder({ chainId: 1, fromBlock: 5, toBlock: 4, filter: toFilter({}) })).toThrow(
      /range.fromBlock must be at most range.toBlock/,
    );
  });

  it('a bloom without an item rules it out; one with it may match (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (address) => {
        const filter = compileLogsFilter({ addresses: [address], topics: [] });
        expect(filter.mayMatch(new Uint8Array(256))).toBe(false);
        const hash = keccak_256(address);
        const bloom = new Uint8Array(256);
        for (let pair = 0; pair < 3; pair++) {
          const bit = ((hash[2 * pair]! << 8) | hash[2 * pair + 1]!) & 2047;
          bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
        }
        expect(filter.mayMatch(bloom)).toBe(true);
      }),
    );
  });
});

describe("eth_getLogs completeness: a node's answer against the proof's logs", () => {
  const blocks = rangeNames('mainnet', 19_426_586, 19_426_587);
  const filter: HexFilter = { topics: [[TRANSFER]] };
  const { artifact, headHash } = buildArtifact(blocks, toFilter(filter));
  const verified = verifyLogsProofBytes(artifact, { headHash });
  const proven = verified.ok ? verified.value.logs : [];
  const range = { fromBlock: 19_426_586, toBlock: 19_426_587 };
  /** As a node writes them: checksummed addresses, a transactionHash, no blockTimestamp. */
  const asNode = (log: EthLog) => {
    const { blockTimestamp: _, ...rest } = log;
    return { ...rest, address: log.address.toUpperCase().replace('0X', '0x'), transactionHash: `0x${'11'.repeat(32)}` };
  };

  it('an answer equal in every proven member is complete', () => {
    expect(proven.length).toBe(161);
    expect(compareLogs(proven, proven.map(asNode), range)).toEqual([]);
  });

  it('names every log dropped, invented, altered or unreadable', () => {
    const node: unknown[] = proven.map(asNode);
    node.splice(5, 1);
    (node[10] as { data: string }).data = '0x00';
    node.push({ ...(node[0] as object) }, { ...(node[1] as object), logIndex: '0xfff' }, 'not a log');
    const found = compareLogs(proven, node, range);
    const places = found.map((d) => [d.kind, 'logIndex' in d ? d.logIndex : d.position]);
    expect(places[0]).toEqual(['unreadable', node.length - 1]);
    expect(places.slice(1).sort()).toEqual(
      [
        ['dropped', Number(proven[5]!.logIndex)],
        ['invented', Number(proven[0]!.logIndex)],
        ['altered', Number(proven[11]!.logIndex)],
        ['invented', 0xfff],
      ].sort(),
    );
    expect(found.find((d) => d.kind === 'altered')).toMatchObject({ members: ['data'] });
    expect(found.find((d) => d.kind === 'invented' && d.logIndex === 0xfff)).toMatchObject({
      why: 'the block holds no matching log at this index',
    });
  });
});
