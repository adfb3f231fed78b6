/**
 * The public proof, logs-proof and anchor entry points hold their arguments that are not bytes to their contract where
 * they are entered, on real blocks (mainnet 1,000,001-1,000,030) and the real anchor proof file: a chain id, a block
 * number, a position, a header layout, a rule set object, a filter or the file's text of another type is a TypeError
 * or RangeError naming the argument and what it must be, never a refusal that contradicts itself ("The proof is of
 * chain 1, not of chain 1") nor JavaScript's own error from deep inside ("text.charCodeAt is not a function").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  receiptsCommitment,
  receiptsRoot,
  RULE_SETS,
  type HeaderLayout,
  type RuleSet,
} from '../packages/core/src/index.js';
import {
  logProof,
  LogsProofBuilder,
  verifyBlockReceiptProof,
  verifyLogProof,
  LogsProofVerifier,
  verifyLogsProof,
  verifyLogsProofBytes,
  verifyReceiptProof,
} from '../packages/core/src/proof/index.js';
import {
  AnchorProofVerifier,
  anchoredHashes,
  executionHeaderOf,
  MAINNET,
  preMergeBlockRecord,
  readAccumulator,
  readAnchorFileHead,
  readAnchorRecord,
  readEpochRecord,
  readSignedBeaconBlock,
  verifyAnchorProof,
} from '../packages/core/src/anchor/index.js';
import { decodeReceipt } from '../packages/core/src/proof/index.js';
import { proveReceipt } from '../packages/core/src/api/index.js';
import { BundleSource } from '../packages/core/src/bundle/bundle-source.js';
import { walkLineage } from '../packages/core/src/lineage/walker.js';
import { encodeReceipt } from '../packages/core/src/index.js';
import { MAINNET_CHECKPOINT } from './helpers/anchor-files.js';
import { buildArtifact, provenBlock1000023, THIRTY } from './helpers/logs-proofs.js';

const { header, receipts, txIndex, proof, headerRlp, blockHash } = provenBlock1000023();
const address = receipts[txIndex]!.logs[0]!.address;
const ANCHOR_TEXT = readFileSync(
  new URL('../fixtures/anchor/mainnet-checkpoint-11635710.jsonl', import.meta.url),
  'utf8',
);
/** An argument given as another type than its signature's, as JavaScript callers and `as any` give it. */
const as = <T>(value: unknown) => value as T;

describe('a chain id', () => {
  const { artifact, headHash } = buildArtifact(THIRTY, { addresses: [address], topics: [] });

  it('verifyLogsProofBytes and verifyLogsProof: options.chainId of another type is a TypeError naming it (was: chain-mismatch, "The proof is of chain 1, not of chain 1.")', async () => {
    expect(verifyLogsProofBytes(artifact, { headHash, chainId: 1 }).ok).toBe(true);
    expect(verifyLogsProofBytes(artifact, { headHash, chainId: undefined }).ok).toBe(true);
    for (const [chainId, got] of [
      ['1', 'a string'],
      [1n, 'a bigint'],
      [null, 'null'],
    ] as const) {
      const named = new TypeError(`options.chainId must be a number, got ${got}`);
      expect(() => verifyLogsProofBytes(artifact, { headHash, chainId: as(chainId) })).toThrow(named);
      await expect(verifyLogsProof([artifact], { headHash, chainId: as(chainId) })).rejects.toThrow(named);
    }
    expect(() => verifyLogsProofBytes(artifact, { headHash, chainId: 1.5 })).toThrow(
      new RangeError('options.chainId must be a non-negative integer, got 1.5'),
    );
  });

  it('anchoredHashes: a chain id of another type is a TypeError naming chainId (was: "network mainnet proves blocks of chain 1, not of chain 1")', () => {
    expect(anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, 1).ok).toBe(true);
    expect(anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, null).ok).toBe(true);
    expect(() => anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, as('1'))).toThrow(
      new TypeError('chainId must be a number, got a string'),
    );
    expect(() => anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, as(1n))).toThrow(
      new TypeError('chainId must be a number, got a bigint'),
    );
  });

  it('AnchoredHashes.unproven: a chain id of another type, or none, is a TypeError naming chainId (was: "block N is of chain 1, and the anchor proof proves blocks of mainnet (chain 1)")', () => {
    const hashes = anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, 1);
    if (!hashes.ok) throw new Error(hashes.error.message);
    const proven = hashes.value.blocks[1]!;
    expect(hashes.value.unproven(proven.number, proven.hash, 1)).toBeNull();
    expect(() => hashes.value.unproven(proven.number, proven.hash, as('1'))).toThrow(
      new TypeError('chainId must be a number, got a string'),
    );
    expect(() => hashes.value.unproven(proven.number, proven.hash, as(undefined))).toThrow(
      new TypeError('chainId must be a number, got nothing'),
    );
  });
});

describe("a logs proof verifier's options, and its end", () => {
  const { artifact, headHash } = buildArtifact(THIRTY, { addresses: [address], topics: [] });

  it('no options at all is a TypeError naming options (was: "Cannot read properties of undefined (reading \'headHash\')": a user check)', async () => {
    const named = new TypeError("options must be an object with the head's hash (headHash), got nothing");
    expect(() => verifyLogsProofBytes(artifact, as(undefined))).toThrow(named);
    await expect(verifyLogsProof([artifact], as(undefined))).rejects.toThrow(named);
    expect(() => new LogsProofVerifier(as(null))).toThrow(
      new TypeError("options must be an object with the head's hash (headHash), got null"),
    );
  });

  it('options.maxRecordBytes that is no positive integer is a TypeError or RangeError naming it (was: NaN verified with no limit, -1 refused the proof as "over the limit of -1 bytes": a user check)', () => {
    expect(verifyLogsProofBytes(artifact, { headHash, maxRecordBytes: 1 << 20 }).ok).toBe(true);
    expect(verifyLogsProofBytes(artifact, { headHash, maxRecordBytes: undefined }).ok).toBe(true);
    for (const [limit, got] of [
      ['100', 'a string'],
      [10n, 'a bigint'],
      [null, 'null'],
    ] as const)
      expect(() => verifyLogsProofBytes(artifact, { headHash, maxRecordBytes: as(limit) })).toThrow(
        new TypeError(`options.maxRecordBytes must be a number, got ${got}`),
      );
    for (const limit of [Number.NaN, -1, 0, 0.5, Infinity])
      expect(() => verifyLogsProofBytes(artifact, { headHash, maxRecordBytes: limit })).toThrow(
        new RangeError(`options.maxRecordBytes must be a positive integer, got ${limit}`),
      );
    // onLogs that is no function was taken, and threw from inside only once a block had logs (a user re-check).
    expect(() => verifyLogsProofBytes(artifact, { headHash, onLogs: as(5) } as never)).toThrow(
      new TypeError("options.onLogs must be a function, given each block's logs, got the number 5"),
    );
  });

  it('end() says the same however often it is asked, and a chunk after it throws (was: taken, and a second end() said trailing-data of a proof that had held: a user check)', () => {
    const verifier = new LogsProofVerifier({ headHash });
    expect(verifier.write(artifact).ok).toBe(true);
    const first = verifier.end();
    expect(first.ok).toBe(true);
    expect(() => verifier.write(artifact)).toThrow(/write after end\(\)/);
    expect(verifier.end()).toBe(first);
    const cut = new LogsProofVerifier({ headHash });
    cut.write(artifact.subarray(0, artifact.length - 1));
    const refused = cut.end();
    expect(refused).toMatchObject({ ok: false, error: { reason: 'blocks-missing' } });
    expect(cut.end()).toBe(refused);
  });
});

describe("a proven block's number", () => {
  const hashes = anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, 1);
  if (!hashes.ok) throw new Error(hashes.error.message);
  const anchored = hashes.value;
  const proven = anchored.blocks[1]!;

  it('AnchoredHashes.at and unproven take a number or a bigint, as their signature says', () => {
    expect(anchored.at(Number(proven.number))).toBe(proven);
    expect(anchored.at(proven.number)).toBe(proven);
    expect(anchored.unproven(Number(proven.number), proven.hash, 1)).toBeNull();
    expect(anchored.unproven(proven.number, proven.hash, 1)).toBeNull();
  });

  it('AnchoredHashes.at and unproven: a number of another type, or none, is a TypeError naming number (was: "Cannot convert undefined to a BigInt", a string taken)', () => {
    for (const [number, got] of [
      [undefined, 'nothing'],
      [null, 'null'],
      [true, 'the boolean true'],
      [String(proven.number), 'a string'],
      [`0x${proven.number.toString(16)}`, 'a string'],
    ] as const) {
      const named = new TypeError(`number must be a number or a bigint, got ${got}`);
      expect(() => anchored.at(as(number))).toThrow(named);
      expect(() => anchored.unproven(as(number), proven.hash, 1)).toThrow(named);
    }
  });

  it('AnchoredHashes.at and unproven: a number that is no block number is a RangeError naming number (was: "The number 1.5 cannot be converted to a BigInt", -1 answered)', () => {
    for (const number of [-1, 1.5, Number.NaN, -1n]) {
      const named = new RangeError(`number must be a non-negative integer, got ${number}`);
      expect(() => anchored.at(number)).toThrow(named);
      expect(() => anchored.unproven(number, proven.hash, 1)).toThrow(named);
    }
  });
});

describe('proof options and positions', () => {
  it('verifyBlockReceiptProof, verifyLogProof and logProof: options.layout that is no layout object is a TypeError naming it (was: "Cannot read properties of undefined")', () => {
    expect(verifyBlockReceiptProof(blockHash, headerRlp, proof, { layout: as<HeaderLayout>(undefined) }).ok).toBe(true);
    const log = logProof(header, receipts, txIndex, 0);
    for (const [layout, message] of [
      ['ethereum', 'a header layout object (ETHEREUM_HEADER), got the string "ethereum"'],
      [
        'Ethereum',
        'a header layout object, one of ETHEREUM_HEADER, AURA_HEADER, AVALANCHE_HEADER; got the string "Ethereum", which names none',
      ],
      [
        {},
        'a header layout object, one of ETHEREUM_HEADER, AURA_HEADER, AVALANCHE_HEADER; got an object without its fields',
      ],
      [{ name: 'aura' }, 'a header layout object (AURA_HEADER), got an object without its fields'],
      [42, 'a header layout object, one of ETHEREUM_HEADER, AURA_HEADER, AVALANCHE_HEADER; got the number 42'],
    ] as const) {
      const named = new TypeError(`options.layout must be ${message}`);
      expect(() => verifyBlockReceiptProof(blockHash, headerRlp, proof, { layout: as(layout) })).toThrow(named);
      expect(() => verifyLogProof(blockHash, log, { layout: as(layout) })).toThrow(named);
      expect(() => logProof(header, receipts, txIndex, 0, { layout: as(layout) })).toThrow(named);
    }
  });

  it('verifyLogProof: a proof that is no object, or lacks its receipt proof, is a TypeError naming it (was: "Cannot read properties of null (reading \'logIndex\')": a user check)', () => {
    const log = logProof(header, receipts, txIndex, 0);
    expect(verifyLogProof(blockHash, log).ok).toBe(true);
    expect(() => verifyLogProof(blockHash, as(null))).toThrow(
      new TypeError('proof must be a log proof {headerRlp, receiptProof, logIndex}, got null'),
    );
    expect(() => verifyLogProof(blockHash, { ...log, receiptProof: as(undefined) })).toThrow(
      new TypeError('proof.receiptProof must be a receipt proof {index, receiptsRoot, proof}, got nothing'),
    );
  });

  it('verifyReceiptProof: a rule set object whose name names none is the RangeError naming options.rules.name (was: a TypeError, "an object without its layouts")', () => {
    expect(() => verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof, { rules: as({ name: 'foo' }) })).toThrow(
      new RangeError(
        'options.rules.name must name a rule set, one of ethereum, optimism, arbitrum, scroll, polygon; got "foo"',
      ),
    );
    // A name of a rule set, in an object without its layouts, still names the object to pass.
    expect(() =>
      verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof, { rules: as({ name: 'ethereum' }) }),
    ).toThrow(
      new TypeError('options.rules must be a rule set object (RULE_SETS.ethereum), got an object without its layouts'),
    );
    expect(verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof, { rules: RULE_SETS.ethereum }).ok).toBe(true);
  });

  it('logProof: a txIndex or logIndex of another type is named, not blamed on logIndex (was: "logIndex must be a position of the 4 logs of receipt 1, got 1")', () => {
    expect(logProof(header, receipts, txIndex, 0).logIndex).toBe(0);
    expect(() => logProof(header, receipts, as(String(txIndex)), 0)).toThrow(
      new RangeError(`txIndex must be a non-negative integer (a number), got the string "${txIndex}".`),
    );
    expect(() => logProof(header, receipts, txIndex, as('0'))).toThrow(
      new RangeError('logIndex must be a non-negative integer (a number), got the string "0".'),
    );
    expect(() => logProof(header, receipts, -1, 0)).toThrow(
      new RangeError('txIndex must be a non-negative integer, got -1.'),
    );
    expect(() => logProof(header, receipts, receipts.length, 0)).toThrow(
      new RangeError(`txIndex must be a position of the ${receipts.length} receipts, got ${receipts.length}.`),
    );
  });
});

describe('a logs filter', () => {
  const range = { chainId: 1, fromBlock: 1_000_001, toBlock: 1_000_030 };

  it('LogsProofBuilder: a filter without topics is a TypeError naming filter.topics (was: "Cannot read properties of undefined")', () => {
    expect(() => new LogsProofBuilder({ ...range, filter: { addresses: [address], topics: [] } })).not.toThrow();
    expect(() => new LogsProofBuilder({ ...range, filter: as({ addresses: [address] }) })).toThrow(
      new TypeError(
        'filter.topics must be an array of topic positions, each an array of 32-byte Uint8Arrays ([] for any topics), got nothing',
      ),
    );
    expect(() => new LogsProofBuilder({ ...range, filter: as({ topics: [] }) })).toThrow(
      new TypeError('filter.addresses must be an array of Uint8Arrays, got nothing'),
    );
    expect(() => new LogsProofBuilder({ ...range, filter: as({ addresses: [address], topics: ['0xddf2'] }) })).toThrow(
      new TypeError('filter.topics[0] must be an array of Uint8Arrays, got a string'),
    );
  });
});

describe("the anchor proof file's text", () => {
  it('verifyAnchorProof and anchoredHashes: bytes in place of the text are a TypeError naming text (was: "text.charCodeAt is not a function")', () => {
    const named = new TypeError("text must be a string (the file's text, read as UTF-8), got a Uint8Array");
    const bytes = Buffer.from(ANCHOR_TEXT);
    expect(() => verifyAnchorProof(as(bytes), MAINNET_CHECKPOINT)).toThrow(named);
    expect(() => verifyAnchorProof(as(new Uint8Array(bytes)), MAINNET_CHECKPOINT)).toThrow(named);
    expect(() => anchoredHashes(as(bytes), MAINNET_CHECKPOINT, 1)).toThrow(named);
    expect(() => anchoredHashes(as(bytes), MAINNET_CHECKPOINT, null)).toThrow(named);
  });
});

describe("the anchor's lower-level readers", () => {
  it('a line, a network or a beacon block of another type is a TypeError naming it (was: "reading \'charCodeAt\'", "reading \'length\'", "a undefined block has no execution payload": a user check)', () => {
    expect(() => AnchorProofVerifier.start(as(null), MAINNET_CHECKPOINT)).toThrow(
      new TypeError('headLine must be a string (a line of the file), got null'),
    );
    expect(() => readAnchorRecord(as(null), 2)).toThrow(
      new TypeError('text must be a string (a line of the file), got null'),
    );
    const started = AnchorProofVerifier.start(ANCHOR_TEXT.split('\n')[0]!, MAINNET_CHECKPOINT);
    if (!started.ok) throw new Error(started.error.message);
    expect(() => started.value.push(as(undefined), 2)).toThrow(
      new TypeError('text must be a string (a line of the file), got nothing'),
    );
    expect(() => readSignedBeaconBlock(as(new Uint8Array(200)), as(undefined))).toThrow(
      new TypeError('network must be a beacon network (MAINNET, SEPOLIA, HOLESKY, HOODI), got a Uint8Array'),
    );
    expect(() => readSignedBeaconBlock(MAINNET, as('0x00'))).toThrow(
      new TypeError('signed must be a Uint8Array, got a string'),
    );
    expect(() => executionHeaderOf(as({}))).toThrow(
      new TypeError('block must be a beacon block as readSignedBeaconBlock reads it, got an object'),
    );
    // A user re-check: the line's number, the readers of the files beside, and a file's bytes for its text.
    const head = ANCHOR_TEXT.split('\n')[0]!;
    expect(() => AnchorProofVerifier.start(head, MAINNET_CHECKPOINT, 0)).toThrow(
      new RangeError('line must be a line number, 1 or more, got 0'),
    );
    expect(() => started.value.push('{}', as('2'))).toThrow(
      new TypeError("line must be a number (the line's, from 1), got a string"),
    );
    expect(() => started.value.push('', as(undefined))).toThrow(
      new TypeError("line must be a number (the line's, from 1), got nothing"),
    );
    expect(() => readAnchorRecord('{}', -3)).toThrow(new RangeError('line must be a line number, 1 or more, got -3'));
    expect(() => readAnchorFileHead(as(Buffer.from(ANCHOR_TEXT)))).toThrow(
      new TypeError("text must be a string (the file's text, read as UTF-8), got a Uint8Array"),
    );
    expect(() => readEpochRecord(as(null))).toThrow(new TypeError('ssz must be a Uint8Array, got null'));
    expect(() => readAccumulator(as('abc'))).toThrow(new TypeError('ssz must be a Uint8Array, got a string'));
    expect(() => preMergeBlockRecord(new Uint8Array(1), as(null), as(null))).toThrow(
      new TypeError('record must be an epoch record as readEpochRecord reads it, got null'),
    );
  });
});

describe('a receipt encoding and its rules', () => {
  it('receiptsRoot, receiptsCommitment and encodeReceipt: a rule set by its name is a TypeError naming options.rules (was: "Cannot read properties of undefined (reading \'get\')", and an empty list taken: a user check)', () => {
    const named = /^options\.rules must be a rule set object \(RULE_SETS\.optimism\), got the string "optimism"/;
    const rules = as<RuleSet>('optimism');
    expect(() => receiptsRoot(receipts, { rules })).toThrow(named);
    expect(() => receiptsRoot([], { rules })).toThrow(named);
    expect(() => receiptsCommitment(receipts, { rules })).toThrow(named);
    expect(() => encodeReceipt(receipts[txIndex]!, { rules })).toThrow(named);
    expect(bytesToHex(receiptsRoot(receipts, { rules: RULE_SETS.ethereum }))).toBe(bytesToHex(header.receiptsRoot));
    // The options themselves: null threw from inside, a rule set in their place was read as none (a user re-check).
    expect(() => receiptsRoot(receipts, as(null))).toThrow(
      new TypeError('options must be an object ({ rules, keccak }) or absent, got null'),
    );
    expect(() => receiptsCommitment(receipts, as(RULE_SETS.optimism))).toThrow(
      new TypeError('options must be { rules, keccak }, got a rule set: give it as { rules: RULE_SETS.optimism }'),
    );
  });

  it('decodeReceipt: hex text in place of the bytes is a TypeError naming encoded, a rule set name one naming options.rules (was: "Receipt type 0 is not known to the ethereum rule set (known: 0, 1, 2, 3, 4)", "reading \'get\'")', () => {
    const encoded = encodeReceipt(receipts[txIndex]!, { rules: RULE_SETS.ethereum });
    expect(decodeReceipt(encoded, { rules: RULE_SETS.ethereum })).toEqual(receipts[txIndex]);
    for (const [given, got] of [
      [`0x${Buffer.from(encoded).toString('hex')}`, 'a string'],
      ['0x00', 'a string'],
      [null, 'null'],
    ] as const)
      expect(() => decodeReceipt(as(given), { rules: RULE_SETS.ethereum })).toThrow(
        new TypeError(`encoded must be a Uint8Array, got ${got}`),
      );
    expect(() => decodeReceipt(encoded, { rules: as('ethereum') })).toThrow(
      new TypeError('options.rules must be a rule set object (RULE_SETS.ethereum), got the string "ethereum"'),
    );
  });
});

describe('a receipt index to prove', () => {
  const block = JSON.parse(readFileSync(new URL('../fixtures/blocks/mainnet-1000023.json', import.meta.url), 'utf8'));

  it('proveReceipt: an index that is no non-negative integer number is a RangeError naming index (was: "no receipt at index 0" in a block of 7)', () => {
    expect(proveReceipt(block, 0).ok).toBe(true);
    expect(proveReceipt(block, 7)).toMatchObject({ ok: false, error: { kind: 'index_out_of_range' } });
    expect(() => proveReceipt(block, as('0'))).toThrow(
      new RangeError('index must be a non-negative integer (a number), got the string "0".'),
    );
    expect(() => proveReceipt(block, -1)).toThrow(new RangeError('index must be a non-negative integer, got -1.'));
    expect(() => proveReceipt(block, 1.5)).toThrow(new RangeError('index must be a non-negative integer, got 1.5.'));
  });
});

describe("a logs proof builder's range", () => {
  const filter = { addresses: [address], topics: [] };

  it('LogsProofBuilder: chainId, fromBlock or toBlock of another type is a TypeError naming it where the builder is made (was: taken, and "Cannot convert undefined to a BigInt" or "chainId must be a number" at a later call; "got 1000001 and 1000002" for a string)', () => {
    const range = { chainId: 1, fromBlock: 1_000_001, toBlock: 1_000_002, filter };
    expect(() => new LogsProofBuilder(range)).not.toThrow();
    expect(() => new LogsProofBuilder({ ...range, chainId: as('1') })).toThrow(
      new TypeError('range.chainId must be a number, got a string'),
    );
    expect(() => new LogsProofBuilder({ ...range, chainId: as(undefined) })).toThrow(
      new TypeError('range.chainId must be a number, got nothing'),
    );
    expect(() => new LogsProofBuilder({ ...range, chainId: -1 })).toThrow(
      new RangeError('range.chainId must be a non-negative integer, got -1'),
    );
    expect(() => new LogsProofBuilder({ ...range, fromBlock: as('1000001') })).toThrow(
      new TypeError('range.fromBlock must be a number, got a string'),
    );
    expect(() => new LogsProofBuilder({ ...range, toBlock: as(1_000_002n) })).toThrow(
      new TypeError('range.toBlock must be a number, got a bigint'),
    );
  });
});

describe("a lineage walk's chain", () => {
  const bundle = JSON.parse(
    readFileSync(new URL('../fixtures/lineage/pair-reserves-19426587.bundle.json', import.meta.url), 'utf8'),
  );

  it('walkLineage: a chainId or tracingId of another type is a TypeError naming it (was: "the bundle has no answer to lineage/record … on chain 1")', async () => {
    const source = new BundleSource(bundle);
    const tracingId = bundle.exchanges[0].body.tracing_id as string;
    expect((await walkLineage({ chainId: 1, tracingId, source, blocks: source })).chain_id).toBe(1);
    await expect(walkLineage({ chainId: as('1'), tracingId, source, blocks: source })).rejects.toThrow(
      new TypeError('chainId must be a number, got a string'),
    );
    await expect(walkLineage({ chainId: 1, tracingId: as(7), source, blocks: source })).rejects.toThrow(
      new TypeError('tracingId must be a string, got the number 7'),
    );
  });

  it('walkLineage: a source or blocks that is no source is a TypeError naming it (was: "Cannot read properties of undefined (reading \'record\')")', async () => {
    const source = new BundleSource(bundle);
    const tracingId = bundle.exchanges[0].body.tracing_id as string;
    for (const [given, got] of [
      [undefined, 'nothing'],
      [null, 'null'],
      [{ record: () => null }, 'an object'],
      ['bundle.json', 'a string'],
    ] as const)
      await expect(walkLineage({ chainId: 1, tracingId, source: as(given), blocks: source })).rejects.toThrow(
        new TypeError(
          `source must be a lineage source (an object with record and genesis methods, such as a BundleSource), got ${got}`,
        ),
      );
    for (const [given, got] of [
      [null, 'null'],
      [{}, 'an object'],
      [5, 'the number 5'],
    ] as const)
      await expect(walkLineage({ chainId: 1, tracingId, source, blocks: as(given) })).rejects.toThrow(
        new TypeError(
          `blocks must be a block source (an object with a block method, such as a BundleSource), or absent, got ${got}`,
        ),
      );
    // Absent blocks: the walk runs, its block checks skipped.
    expect((await walkLineage({ chainId: 1, tracingId, source })).verdict).toBe('not_verifiable');
  });
});
