/**
 * The execution header rebuilt from a beacon block's payload (core/anchor/execution-header.ts), on real
 * mainnet beacon blocks a Beacon API served (fixtures/anchor/colibri/, sources in fixtures/SOURCES.md): a
 * Deneb and an Electra block rebuild the headers whose hashes the next blocks name as their parent, the
 * Electra block's 215 receipts reproduce the rebuilt header's receipts root and bloom, and no changed byte of
 * the payload or of the execution requests gives a header.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  executionBlockNumber,
  executionHashInBody,
  executionHeaderOf,
  MAINNET,
  readSignedBeaconBlock,
  SszShapeError,
  type BeaconBlockParts,
} from '../packages/core/src/anchor/index.js';
import { beaconBlockBodyType } from '../packages/core/src/anchor/beacon-block.js';
import { containerParts, fieldIndex } from '../packages/core/src/anchor/ssz-schema.js';
import {
  blockBloom,
  bytesToHex,
  decodeHeader,
  Problems,
  readRpcReceipts,
  receiptsRoot,
} from '../packages/core/src/index.js';
import { runs } from './helpers/runs.js';

const COLIBRI = new URL('../fixtures/anchor/colibri/', import.meta.url);
const read = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, COLIBRI)));
const json = (path: string): { result: Record<string, unknown> } =>
  JSON.parse(readFileSync(new URL(path, COLIBRI), 'utf8')) as { result: Record<string, unknown> };
const block = (path: string): BeaconBlockParts => readSignedBeaconBlock(MAINNET, read(path));

const DENEB = 'block-22017690/block_0xae5b4dfc.ssz';
const ELECTRA = 'block-22432102/block_0xc742b5d7.ssz';
const CHECKPOINT = 'checkpoint-11635710/block_0x5ab5b374.ssz';

const hex = (bytes: Uint8Array): string => `0x${bytesToHex(bytes)}`;

function rebuilt(parts: BeaconBlockParts) {
  const header = executionHeaderOf(parts);
  if (!header.ok) throw new Error(header.error);
  return header.value;
}

describe('the execution header rebuilt from a beacon block', () => {
  it('Deneb, slot 11,233,367: block 22,017,690, the parent that block 22,017,691 names', () => {
    const parts = block(DENEB);
    expect([parts.fork, parts.header.slot]).toEqual(['deneb', 11233367n]);
    const header = rebuilt(parts);
    expect(header.number).toBe(22017690n);
    expect(hex(header.hash)).toBe('0x32e6892ef9fb67f8a3be3ff95795a458e71d42b50af7015b975f3b032581b686');
    expect(hex(header.hash)).toBe(
      json('block-22017690/eth_getBlockByNumber_0x14ff69b_false.json').result['parentHash'],
    );
    // EIP-4788: the header commits to the beacon block's parent.
    expect(header.fields.parentBeaconBlockRoot).toEqual(parts.header.parentRoot);
    expect(header.fields.requestsHash).toBeUndefined();
  });

  it('Electra, slot 11,650,091: block 22,432,102 with its requests hash, the parent that block 22,432,103 names', () => {
    const parts = block(ELECTRA);
    expect([parts.fork, parts.header.slot]).toEqual(['electra', 11650091n]);
    const header = rebuilt(parts);
    expect(header.number).toBe(22432102n);
    expect(hex(header.hash)).toBe(
      json('block-22432102/eth_getBlockByNumber_0x1564967_false.json').result['parentHash'],
    );
    expect(header.fields.requestsHash).toHaveLength(32);
  });

  it('the checkpoint block (Deneb, slot 11,635,710) rebuilds too, and its RLP decodes to the same fields', () => {
    const header = rebuilt(block(CHECKPOINT));
    expect(header.number).toBe(22417908n);
    expect(decodeHeader(header.rlp)).toEqual(header.fields);
  });

  it('the hash is the payload block_hash the execution branch starts from', () => {
    for (const path of [DENEB, ELECTRA, CHECKPOINT]) {
      const parts = block(path);
      expect(rebuilt(parts).hash).toEqual(executionHashInBody(parts.fork, parts.body).blockHash);
      expect(executionBlockNumber(parts)).toBe(rebuilt(parts).number);
    }
  });

  it('the Electra block’s 215 receipts reproduce the rebuilt receipts root and bloom: receipts checked with no execution header', () => {
    const problems = new Problems();
    const receipts = readRpcReceipts(
      json('block-22432102/eth_getBlockReceipts_0x1564966.json').result,
      'receipts',
      problems,
    );
    if (receipts === undefined) throw new Error(problems.list.map((p) => `${p.name}: ${p.expected}`).join('; '));
    expect(receipts).toHaveLength(215);
    const header = rebuilt(block(ELECTRA));
    expect(receiptsRoot(receipts)).toEqual(header.fields.receiptsRoot);
    expect(blockBloom(receipts)).toEqual(header.fields.logsBloom);
  });
});

/** Where the body's field `name` lies in the signed block's bytes. */
function fieldSpan(signed: Uint8Array, parts: BeaconBlockParts, name: string): { start: number; end: number } {
  const bodyType = beaconBlockBodyType(parts.fork);
  const field = containerParts(bodyType, parts.body)[fieldIndex(bodyType, name)]!;
  const start = field.byteOffset - signed.byteOffset;
  return { start, end: start + field.length };
}

describe('a changed byte gives no header', () => {
  const cases: [string, string, string][] = [
    ['the Deneb payload', DENEB, 'execution_payload'],
    ['the Electra payload', ELECTRA, 'execution_payload'],
    ['the Electra execution requests', ELECTRA, 'execution_requests'],
  ];
  it.each(cases)('any byte of %s changed: refused, naming both hashes, or not SSZ', (_, path, name) => {
    const signed = read(path);
    const span = fieldSpan(signed, block(path), name);
    expect(span.end - span.start).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.integer({ min: span.start, max: span.end - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const forged = Uint8Array.from(signed);
        forged[at]! ^= flip;
        let outcome: ReturnType<typeof executionHeaderOf>;
        try {
          outcome = executionHeaderOf(readSignedBeaconBlock(MAINNET, forged));
        } catch (error) {
          expect(error).toBeInstanceOf(SszShapeError);
          return;
        }
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.error).toMatch(/hashes to 0x[0-9a-f]{64}, not its block_hash 0x[0-9a-f]{64}$/);
      }),
      { numRuns: runs(200) },
    );
  });

  it('a byte outside the payload and the requests (the graffiti) changes nothing', () => {
    const signed = read(DENEB);
    const span = fieldSpan(signed, block(DENEB), 'graffiti');
    const forged = Uint8Array.from(signed);
    forged[span.start]! ^= 0xff;
    expect(rebuilt(readSignedBeaconBlock(MAINNET, forged)).hash).toEqual(rebuilt(block(DENEB)).hash);
  });
});
