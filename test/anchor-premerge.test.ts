/**
 * Pre-merge blocks proven against the historical hashes accumulator (core/anchor/accumulator.ts),
 * on the Portal Network's real mainnet vectors (fixtures/anchor/portal/, sources in fixtures/SOURCES.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accumulatorRoot,
  EPOCH_SIZE,
  epochOf,
  HISTORICAL_HASHES_ACCUMULATOR_ROOT,
  MERGE_BLOCK,
  PRE_MERGE_PROOF_NODES,
  readAccumulator,
  verifyPreMergeHeader,
  type TrustedEpochRoots,
} from '../packages/core/src/anchor/accumulator.js';
import { bytesToHex, hexToBytes } from '../packages/core/src/bytes/hex.js';
import { defaultKeccak256 } from '../packages/core/src/keccak/keccak.js';
import { contentValueOf, headerWithProof, type HeaderWithProof } from './helpers/portal-vectors.js';
import { runs } from './helpers/runs.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const PORTAL = new URL('anchor/portal/', FIXTURES);
const ACCUMULATOR = new Uint8Array(readFileSync(new URL('accumulator/historical_hashes_accumulator.ssz', PORTAL)));

function trusted(): TrustedEpochRoots {
  const read = readAccumulator(ACCUMULATOR);
  if (!read.ok) throw new Error(read.error);
  return read.value;
}

/** A pre-merge vector: the block's number, the hash its content key names, its header and proof. */
interface Vector extends HeaderWithProof {
  number: number;
  keyHash: string;
}

/** The block hash a history content key (a 0x00 selector, then the hash) names. */
const keyHashOf = (key: string) => key.replace(/^0x00/, '');

const SINGLES = [1000010, 14764013, 15537392, 15537393];
const single = (number: number): Vector => {
  const file = new URL(`headers_with_proof/${number}.yaml`, PORTAL).pathname;
  const key = /^content_key:\s*"(0x[0-9a-f]+)"/m.exec(readFileSync(file, 'utf8'))![1]!;
  return { number, keyHash: keyHashOf(key), ...headerWithProof(contentValueOf(file)) };
};
const range = Object.entries(
  JSON.parse(readFileSync(new URL('headers_with_proof/1000001-1000010.json', PORTAL), 'utf8')) as Record<
    string,
    { content_key: string; content_value: string }
  >,
).map(([number, { content_key, content_value }]): Vector => ({
  number: Number(number),
  keyHash: keyHashOf(content_key),
  ...headerWithProof(hexToBytes(content_value.replace(/^0x/, ''))),
}));
const VECTORS = [...range, ...SINGLES.map(single)];

describe('the historical hashes accumulator', () => {
  it("the shipped accumulator's 1,897 epoch roots hash to EIP-7643's root", () => {
    const epochs = trusted().epochs;
    expect(epochs).toHaveLength(1897);
    expect(epochOf(MERGE_BLOCK - 1)).toBe(1896);
    expect(bytesToHex(accumulatorRoot(epochs))).toBe(bytesToHex(HISTORICAL_HASHES_ACCUMULATOR_ROOT));
  });

  it('an accumulator with any byte changed is refused', () => {
    fc.assert(
      fc.property(fc.nat(ACCUMULATOR.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const changed = ACCUMULATOR.slice();
        changed[at]! ^= flip;
        expect(readAccumulator(changed).ok).toBe(false);
      }),
      { numRuns: runs(20) },
    );
  });

  it('is refused against another root, or with a current epoch not empty', () => {
    expect(readAccumulator(ACCUMULATOR, new Uint8Array(32)).ok).toBe(false);
    const unfrozen = new Uint8Array([...ACCUMULATOR, ...new Uint8Array(64)]);
    expect(readAccumulator(unfrozen).ok).toBe(false);
  });

  it('puts 8,192 blocks in an epoch', () => {
    expect([0, EPOCH_SIZE - 1, EPOCH_SIZE, 1000010].map(epochOf)).toEqual([0, 0, 1, 122]);
  });
});

describe('pre-merge headers with their proofs', () => {
  const accumulator = trusted();

  it.each(VECTORS.map((vector) => [vector.number, vector] as const))('block %i verifies', (number, vector) => {
    expect(vector.proof).toHaveLength(PRE_MERGE_PROOF_NODES * 32);
    const proven = verifyPreMergeHeader({ header: vector.header }, vector.proof, accumulator);
    expect(proven).toEqual({ ok: true, value: { blockHash: defaultKeccak256(vector.header), blockNumber: number } });
    if (!proven.ok) return;
    expect(bytesToHex(proven.value.blockHash)).toBe(vector.keyHash);
    const byHash = verifyPreMergeHeader(
      { blockHash: proven.value.blockHash, blockNumber: number },
      vector.proof,
      accumulator,
    );
    expect(byHash.ok).toBe(true);
    const fixture = new URL(`blocks/mainnet-${number}.json`, FIXTURES);
    if (existsSync(fixture)) {
      const block = JSON.parse(readFileSync(fixture, 'utf8')) as { header: { hash: string } };
      expect(`0x${bytesToHex(proven.value.blockHash)}`).toBe(block.header.hash);
    }
  });

  it('the vectors include a mainnet fixture block of each kind (range, epoch 122, last pre-merge)', () => {
    const withFixture = VECTORS.filter(({ number }) => existsSync(new URL(`blocks/mainnet-${number}.json`, FIXTURES)));
    expect(withFixture.map(({ number }) => number)).toEqual(expect.arrayContaining([1000001, 14764013, 15537393]));
  });

  const vectorArb = fc.constantFrom(...VECTORS);

  it('any changed byte of any proof node is refused, naming the branch', () => {
    fc.assert(
      fc.property(
        vectorArb,
        fc.nat(PRE_MERGE_PROOF_NODES * 32 - 1),
        fc.integer({ min: 1, max: 255 }),
        (v, at, flip) => {
          const proof = v.proof.slice();
          proof[at]! ^= flip;
          const result = verifyPreMergeHeader({ header: v.header }, proof, accumulator);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.error.reason).toBe('branch');
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('any changed byte of the header is refused', () => {
    fc.assert(
      fc.property(vectorArb, fc.nat(), fc.integer({ min: 1, max: 255 }), (v, at, flip) => {
        const header = v.header.slice();
        header[at % header.length]! ^= flip;
        expect(verifyPreMergeHeader({ header }, v.proof, accumulator).ok).toBe(false);
      }),
      { numRuns: runs(200) },
    );
  });

  it('the hash under another block number is refused: another epoch, another index, any other pre-merge block', () => {
    const otherEpoch = fc
      .tuple(vectorArb, fc.nat(epochOf(MERGE_BLOCK - 1) - 1))
      .map(([v, epoch]) => {
        const index = v.number % EPOCH_SIZE;
        return [v, (epoch >= epochOf(v.number) ? epoch + 1 : epoch) * EPOCH_SIZE + index] as const;
      })
      .filter(([, number]) => number < MERGE_BLOCK);
    const otherIndex = fc
      .tuple(vectorArb, fc.nat(EPOCH_SIZE - 2))
      .map(([v, index]) => {
        const own = v.number % EPOCH_SIZE;
        return [v, v.number - own + (index >= own ? index + 1 : index)] as const;
      })
      .filter(([, number]) => number < MERGE_BLOCK);
    const anyOther = fc
      .tuple(vectorArb, fc.nat(MERGE_BLOCK - 1))
      .filter(([v, number]) => number !== v.number)
      .map(([v, number]) => [v, number] as const);
    fc.assert(
      fc.property(fc.oneof(otherEpoch, otherIndex, anyOther), ([v, blockNumber]) => {
        const blockHash = defaultKeccak256(v.header);
        const result = verifyPreMergeHeader({ blockHash, blockNumber }, v.proof, accumulator);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.reason).toBe('branch');
      }),
      { numRuns: runs(300) },
    );
  });

  it('a proof of another size is refused', () => {
    const v = VECTORS[0]!;
    for (const proof of [v.proof.subarray(32), new Uint8Array([...v.proof, 0])]) {
      const result = verifyPreMergeHeader({ header: v.header }, proof, accumulator);
      expect(!result.ok && result.error.reason).toBe('bad-proof');
    }
  });

  it('the first block after the merge (15,537,394) is refused, as not pre-merge', () => {
    const { header, proof } = headerWithProof(
      contentValueOf(new URL('headers_with_proof/15537394.yaml', PORTAL).pathname),
    );
    const result = verifyPreMergeHeader({ header }, proof, accumulator);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.reason).toBe('not-pre-merge');
    expect(result.error.message).toMatch(/at or after the merge/);
    const byHash = verifyPreMergeHeader(
      { blockHash: defaultKeccak256(header), blockNumber: MERGE_BLOCK },
      VECTORS[0]!.proof,
      accumulator,
    );
    expect(!byHash.ok && byHash.error.reason).toBe('not-pre-merge');
  });
});
