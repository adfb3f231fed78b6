/**
 * From a checkpoint root alone to a receipt and a log, on real mainnet blocks of each era the
 * anchor covers here (before the merge, Capella, Deneb, Electra): the anchor proof file proves the block hash, and the receipt and log proofs
 * hold under that hash and no other. No hash in these tests is taken on trust but the checkpoint.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyAnchorProof, type ProvenBlock } from '../packages/core/src/anchor/index.js';
import {
  bytesToHex,
  decodeHeader,
  defaultRegistry,
  encodeHeader,
  Problems,
  readRpcBlock,
  readRpcReceipts,
  type RpcBlock,
} from '../packages/core/src/index.js';
import { logProof, receiptProof, verifyBlockReceiptProof, verifyLogProof } from '../packages/core/src/proof/index.js';
import {
  ELECTRA_BLOCK_CHECKPOINT,
  electraWalkFile,
  electraWalkRecords,
  MAINNET_CHECKPOINT,
} from './helpers/anchor-files.js';
import { loadFixture } from './helpers/fixtures.js';

const TEXT = readFileSync(new URL('../fixtures/anchor/mainnet-checkpoint-11635710.jsonl', import.meta.url), 'utf8');

function provenBlocks(): Map<bigint, ProvenBlock> {
  const verdict = verifyAnchorProof(TEXT, MAINNET_CHECKPOINT);
  if (!verdict.ok) throw new Error(verdict.error.message);
  return new Map(verdict.value.blocks.map((block) => [block.number, block]));
}

function readBlock(number: number): RpcBlock {
  const problems = new Problems();
  const block = readRpcBlock(loadFixture(`mainnet-${number}`), problems);
  expect(problems.list).toEqual([]);
  return block!;
}

const ERAS = [
  [14764013, 'before the merge', 'pre-merge'],
  [17034870, 'the first block of Capella', 'historical-summaries'],
  [17062257, 'Capella', 'historical-summaries'],
  [19426587, 'the first block of Deneb', 'historical-summaries'],
  [22162263, 'Deneb', 'historical-summaries'],
] as const;

describe.each(ERAS)('block %i (%s), from checkpoint 0x5ab5b374… alone', (number, _era, via) => {
  const proven = provenBlocks().get(BigInt(number))!;
  const block = readBlock(number);
  const era = defaultRegistry.verifiability(1, BigInt(number));
  if (era.status !== 'verifiable') throw new Error(`block ${number} is not verifiable`);
  const options = { rules: era.rules };
  const header = block.header.complete!;
  const headerRlp = encodeHeader(header);
  const withLogs = block.receipts.findIndex((receipt) => receipt.logs.length > 0);

  it(`is proven ${via}, with the hash its header has`, () => {
    expect(proven.via).toBe(via);
    expect(bytesToHex(proven.hash)).toBe(bytesToHex(block.header.hash!));
  });

  it('a receipt proof holds under the proven hash', () => {
    const index = block.receipts.length - 1;
    const verdict = verifyBlockReceiptProof(
      proven.hash,
      headerRlp,
      receiptProof(block.receipts, index, options),
      options,
    );
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.transactionIndex).toBe(index);
    expect(verdict.value.receipt).toEqual(block.receipts[index]);
  });

  it('a log proof holds under the proven hash, and not under another proven block’s', () => {
    expect(withLogs).toBeGreaterThanOrEqual(0);
    const proof = logProof(header, block.receipts, withLogs, 0, options);
    const verdict = verifyLogProof(proven.hash, proof, options);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.log).toEqual(block.receipts[withLogs]!.logs[0]);
    const otherHash = provenBlocks().get(BigInt(number === 14764013 ? 17034870 : 14764013))!.hash;
    expect(verifyLogProof(otherHash, proof, options).ok).toBe(false);
  });
});

describe('block 22,432,102 (Electra), from checkpoint 0x79565f02… alone: one header back, then its receipts and logs', () => {
  const dir = new URL('../fixtures/anchor/colibri/block-22432102/', import.meta.url);
  const text = readFileSync(new URL('../../mainnet-electra-22432102.jsonl', dir), 'utf8');
  const problems = new Problems();
  const receipts = readRpcReceipts(
    JSON.parse(readFileSync(new URL('eth_getBlockReceipts_0x1564966.json', dir), 'utf8')).result,
    'receipts',
    problems,
  )!;
  const era = defaultRegistry.verifiability(1, 22432102n);
  if (era.status !== 'verifiable') throw new Error('block 22432102 is not verifiable');
  const options = { rules: era.rules };

  it('is what its sources build', () => {
    expect(problems.list).toEqual([]);
    expect(text).toBe(electraWalkFile());
  });

  it('proves the block’s hash, which the next block names as its parent', () => {
    const verdict = verifyAnchorProof(text, ELECTRA_BLOCK_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    const [block] = verdict.value.blocks;
    expect([block!.number, block!.via, block!.slot]).toEqual([22432102n, 'beacon-block', 11650091]);
    const next = JSON.parse(readFileSync(new URL('eth_getBlockByNumber_0x1564967_false.json', dir), 'utf8'));
    expect(`0x${bytesToHex(block!.hash)}`).toBe(next.result.parentHash);
  });

  it('a receipt proof and a log proof of its USDC transfers hold under the proven hash, and a changed log does not', () => {
    const verdict = verifyAnchorProof(text, ELECTRA_BLOCK_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    const { hash } = verdict.value.blocks[0]!;
    const record = electraWalkRecords()[2]!;
    if (record.kind !== 'block') throw new Error('expected the block record');
    const header = decodeHeader(record.header);
    const usdc = receipts.findIndex((receipt) =>
      receipt.logs.some((log) => bytesToHex(log.address) === 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'),
    );
    expect(usdc).toBeGreaterThanOrEqual(0);
    const proven = verifyBlockReceiptProof(hash, record.header, receiptProof(receipts, usdc, options), options);
    if (!proven.ok) throw new Error(proven.error.message);
    const position = receipts[usdc]!.logs.findIndex(
      (log) => bytesToHex(log.address) === 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    );
    const proof = logProof(header, receipts, usdc, position, options);
    const log = verifyLogProof(hash, proof, options);
    if (!log.ok) throw new Error(log.error.message);
    expect(bytesToHex(log.value.log.address)).toBe('a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    const forged = receipts.map((receipt, i) =>
      i === usdc
        ? { ...receipt, logs: receipt.logs.map((l, j) => (j === position ? { ...l, data: Uint8Array.of(1) } : l)) }
        : receipt,
    );
    expect(() => logProof(header, forged, usdc, position, options)).toThrow();
  });
});
