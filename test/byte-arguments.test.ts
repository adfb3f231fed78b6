/**
 * The public proof, logs-proof, anchor and bloom entry points hold their byte arguments to their contract where they
 * are entered (core/bytes/check-bytes.ts), on real blocks and the real anchor proof file: bytes given as hex text are a
 * TypeError naming the argument and what it must be, bytes of another length a RangeError naming it and the length,
 * and a rule set given by its name a TypeError that names the rule set to pass, never a verdict on bytes the
 * function misread (a bloom said "certainly absent" of an address it held; a root given as text refused a true proof).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blockBloom, bloomContains, bytesToHex, logsBloom, RULE_SETS } from '../packages/core/src/index.js';
import { bloomBits } from '../packages/core/src/bloom/bloom.js';
import {
  logProof,
  LogsProofVerifier,
  receiptProof,
  receiptProofs,
  verifyBlockReceiptProof,
  verifyLogProof,
  verifyLogsProofBytes,
  verifyReceiptProof,
} from '../packages/core/src/proof/index.js';
import {
  anchoredHashes,
  AnchorProofVerifier,
  beaconBlockHeaderRoot,
  MAINNET,
  verifyAnchorProof,
  verifyBootstrap,
} from '../packages/core/src/anchor/index.js';
import { MAINNET_CHECKPOINT } from './helpers/anchor-files.js';
import { colibriBootstrap } from './helpers/light-client-vectors.js';
import { BUSY_2016, buildArtifact, provenBlock1000023, readFixtureBlock, TRANSFER } from './helpers/logs-proofs.js';

const { header, receipts, txIndex, proof, headerRlp, blockHash } = provenBlock1000023();
const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;
/** What a hex string in place of bytes is told. */
const TEXT = 'got a string';
const ANCHOR_TEXT = readFileSync(
  new URL('../fixtures/anchor/mainnet-checkpoint-11635710.jsonl', import.meta.url),
  'utf8',
);
/** An argument given as another type than its signature's, as JavaScript callers and `as any` give it. */
const as = <T>(value: unknown) => value as T;

describe('bloom helpers', () => {
  const address = receipts[txIndex]!.logs[0]!.address;

  it('bloomContains: an address given as hex text is a TypeError naming item, not "certainly absent" of an address the bloom holds (was: false)', () => {
    expect(bloomContains(header.logsBloom, address)).toBe(true);
    expect(hex(address)).toBe(BUSY_2016);
    expect(() => bloomContains(header.logsBloom, as(BUSY_2016))).toThrow(
      new TypeError(`item must be a Uint8Array of 20 or 32 bytes, ${TEXT}`),
    );
    expect(() => bloomContains(as(hex(header.logsBloom)), address)).toThrow(
      new TypeError(`bloom must be a Uint8Array of 256 bytes, ${TEXT}`),
    );
    // An item of no log's size is in no log's bloom: named, not hashed.
    expect(() => bloomContains(header.logsBloom, address.subarray(1))).toThrow(
      new RangeError('item must be 20 or 32 bytes, got 19'),
    );
    expect(() => bloomContains(header.logsBloom, as([...address]))).toThrow(
      new TypeError('item must be a Uint8Array of 20 or 32 bytes, got an array'),
    );
  });

  it('bloomBits: an item as hex text is a TypeError naming it (was: the bits of other bytes)', () => {
    expect(() => bloomBits(as(TRANSFER))).toThrow(
      new TypeError(`item must be a Uint8Array of 20 or 32 bytes, ${TEXT}`),
    );
  });

  it("logsBloom and blockBloom: a log's address or topic as hex text is a TypeError naming it (was: a RangeError, 42 bytes)", () => {
    const log = receipts[txIndex]!.logs[0]!;
    expect(blockBloom(receipts)).toEqual(header.logsBloom);
    expect(() => logsBloom([{ ...log, address: as(hex(log.address)) }])).toThrow(
      new TypeError(`logs[0].address must be a Uint8Array of 20 bytes, ${TEXT}`),
    );
    const changed = { ...receipts[txIndex]!, logs: [{ ...log, topics: [log.topics[0]!, as<Uint8Array>(TRANSFER)] }] };
    expect(() => blockBloom([...receipts.slice(0, txIndex), changed])).toThrow(
      new TypeError(`receipts[${txIndex}].logs[0].topics[1] must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
  });
});

describe('receipt and log proofs', () => {
  it('verifyReceiptProof: a root as hex text, a node as hex text, a root of 31 bytes are named (was: a refused proof)', () => {
    expect(verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof).ok).toBe(true);
    expect(() => verifyReceiptProof(as(hex(header.receiptsRoot)), txIndex, proof.proof)).toThrow(
      new TypeError(`root must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
    expect(() => verifyReceiptProof(header.receiptsRoot.subarray(1), txIndex, proof.proof)).toThrow(
      new RangeError('root must be 32 bytes, got 31'),
    );
    const nodes = [...proof.proof];
    nodes[1] = as(hex(nodes[1]!));
    expect(() => verifyReceiptProof(header.receiptsRoot, txIndex, nodes)).toThrow(
      new TypeError(`proof[1] must be a Uint8Array, ${TEXT}`),
    );
    expect(() => verifyReceiptProof(header.receiptsRoot, txIndex, as(proof.proof.map(hex).join('')))).toThrow(
      new TypeError(`proof must be an array of Uint8Arrays, ${TEXT}`),
    );
  });

  it('verifyBlockReceiptProof and verifyLogProof: the block hash, the header and the proof are named (was: block-hash-mismatch)', () => {
    expect(verifyBlockReceiptProof(blockHash, headerRlp, proof).ok).toBe(true);
    expect(() => verifyBlockReceiptProof(as(hex(blockHash)), headerRlp, proof)).toThrow(
      new TypeError(`blockHash must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
    expect(() => verifyBlockReceiptProof(blockHash, as(hex(headerRlp)), proof)).toThrow(
      new TypeError(`headerRlp must be a Uint8Array, ${TEXT}`),
    );
    expect(() =>
      verifyBlockReceiptProof(blockHash, headerRlp, { ...proof, receiptsRoot: as(hex(proof.receiptsRoot)) }),
    ).toThrow(new TypeError(`proof.receiptsRoot must be a Uint8Array of 32 bytes, ${TEXT}`));
    const log = logProof(header, receipts, txIndex, 0);
    expect(verifyLogProof(blockHash, log).ok).toBe(true);
    expect(() => verifyLogProof(as(hex(blockHash)), log)).toThrow(
      new TypeError(`blockHash must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
    expect(() => verifyLogProof(blockHash, { ...log, headerRlp: as(hex(log.headerRlp)) })).toThrow(
      new TypeError(`proof.headerRlp must be a Uint8Array, ${TEXT}`),
    );
    expect(() =>
      verifyLogProof(blockHash, { ...log, receiptProof: { ...log.receiptProof, proof: as([hex(proof.proof[0]!)]) } }),
    ).toThrow(new TypeError(`proof.receiptProof.proof[0] must be a Uint8Array, ${TEXT}`));
  });

  it('logProof: a header whose receiptsRoot is hex text is named (was: "the receipts are not the header\'s")', () => {
    expect(() => logProof({ ...header, receiptsRoot: as(hex(header.receiptsRoot)) }, receipts, txIndex, 0)).toThrow(
      new TypeError(`header.receiptsRoot must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
  });

  it('a rule set given by its name is a TypeError naming options.rules and the rule set to pass; a name of none lists them (was: "Cannot read properties of undefined")', () => {
    const rules = as<(typeof RULE_SETS)['ethereum']>('ethereum');
    const unknown = as<(typeof RULE_SETS)['ethereum']>('Ethereum');
    const named = new TypeError(
      'options.rules must be a rule set object (RULE_SETS.ethereum), got the string "ethereum"',
    );
    const none = new TypeError(
      'options.rules must be a rule set object, one of RULE_SETS.ethereum, RULE_SETS.optimism, RULE_SETS.arbitrum, RULE_SETS.scroll, RULE_SETS.polygon; got the string "Ethereum", which names none',
    );
    expect(verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof, { rules: RULE_SETS.ethereum }).ok).toBe(true);
    expect(() => verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof, { rules })).toThrow(named);
    expect(() => verifyReceiptProof(header.receiptsRoot, txIndex, proof.proof, { rules: unknown })).toThrow(none);
    expect(() => verifyBlockReceiptProof(blockHash, headerRlp, proof, { rules })).toThrow(named);
    expect(() => verifyLogProof(blockHash, logProof(header, receipts, txIndex, 0), { rules })).toThrow(named);
    expect(() => logProof(header, receipts, txIndex, 0, { rules })).toThrow(named);
    expect(() => receiptProofs(receipts, [txIndex], { rules: unknown })).toThrow(none);
    expect(() => receiptProof(receipts, txIndex, { rules: as({ name: 'optimism' }) })).toThrow(
      new TypeError('options.rules must be a rule set object (RULE_SETS.optimism), got an object without its layouts'),
    );
    expect(() => receiptProof(receipts, txIndex, { rules: { ...RULE_SETS.ethereum, name: as('mainnet') } })).toThrow(
      new RangeError(
        'options.rules.name must name a rule set, one of ethereum, optimism, arbitrum, scroll, polygon; got "mainnet"',
      ),
    );
  });
});

describe('logs proofs', () => {
  const { artifact, headHash } = buildArtifact(['mainnet-1000022', 'mainnet-1000023'], {
    addresses: [readFixtureBlock('mainnet-1000023').receipts[txIndex]!.logs[0]!.address],
    topics: [],
  });

  it('verifyLogsProofBytes: a head hash or an artifact as hex text is named (was: "headHash must be 32 bytes, got 66")', () => {
    expect(verifyLogsProofBytes(artifact, { headHash }).ok).toBe(true);
    expect(() => verifyLogsProofBytes(artifact, { headHash: as(hex(headHash)) })).toThrow(
      new TypeError(`headHash must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
    expect(() => verifyLogsProofBytes(artifact, { headHash: headHash.subarray(1) })).toThrow(
      new RangeError('headHash must be 32 bytes, got 31'),
    );
    expect(() => verifyLogsProofBytes(as(hex(artifact)), { headHash })).toThrow(
      new TypeError(`artifact must be a Uint8Array, ${TEXT}`),
    );
    expect(() => new LogsProofVerifier({ headHash }).write(as(hex(artifact)))).toThrow(
      new TypeError(`chunk must be a Uint8Array, ${TEXT}`),
    );
  });
});

describe('the anchor', () => {
  const checkpoint = hex(MAINNET_CHECKPOINT);

  it('verifyAnchorProof, AnchorProofVerifier.start and anchoredHashes: a checkpoint as hex text is named (was: refused, "the file hangs from checkpoint … not the trusted 0x3078…")', () => {
    expect(verifyAnchorProof(ANCHOR_TEXT, MAINNET_CHECKPOINT).ok).toBe(true);
    const named = new TypeError(`checkpoint must be a Uint8Array of 32 bytes, ${TEXT}`);
    expect(() => verifyAnchorProof(ANCHOR_TEXT, as(checkpoint))).toThrow(named);
    expect(() => AnchorProofVerifier.start(ANCHOR_TEXT.slice(0, ANCHOR_TEXT.indexOf('\n')), as(checkpoint))).toThrow(
      named,
    );
    expect(() => anchoredHashes(ANCHOR_TEXT, as(checkpoint), 1)).toThrow(named);
    expect(() => anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT.subarray(1), 1)).toThrow(
      new RangeError('checkpoint must be 32 bytes, got 31'),
    );
  });

  it('AnchoredHashes: a hash as hex text is named (was: "not among the blocks the anchor proof proves")', () => {
    const hashes = anchoredHashes(ANCHOR_TEXT, MAINNET_CHECKPOINT, 1);
    if (!hashes.ok) throw new Error(hashes.error.message);
    const proven = hashes.value.blocks[1]!;
    expect(hashes.value.unproven(proven.number, proven.hash, 1)).toBeNull();
    const named = new TypeError(`hash must be a Uint8Array of 32 bytes, ${TEXT}`);
    expect(() => hashes.value.unproven(proven.number, as(hex(proven.hash)), 1)).toThrow(named);
    expect(() => hashes.value.proving(as(hex(proven.hash)))).toThrow(named);
  });

  it('verifyBootstrap: a checkpoint root as hex text is named (was: refused, "does not hash to the checkpoint root")', () => {
    const boot = colibriBootstrap('bootstrap-0xd9717ecc.ssz').value;
    const root = beaconBlockHeaderRoot(boot.header.beacon);
    expect(verifyBootstrap(MAINNET, root, boot).ok).toBe(true);
    expect(() => verifyBootstrap(MAINNET, as(hex(root)), boot)).toThrow(
      new TypeError(`checkpointRoot must be a Uint8Array of 32 bytes, ${TEXT}`),
    );
  });
});
