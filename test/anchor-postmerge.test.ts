/**
 * Post-merge block proofs (core/anchor/beacon-block-proof.ts) against the Portal Network's real mainnet
 * vectors (fixtures/anchor/portal/, sources in fixtures/SOURCES.md): each proves its header's hash under
 * the mainnet `historical_roots` entry (fixtures/anchor/portal-mainnet/) or `historical_summaries` entry
 * (the Portal list at slot 11476992) of its slot, and no changed byte of it does.
 */
import { existsSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BLOCK_HASH_GINDEX_BELLATRIX,
  BLOCK_HASH_GINDEX_DENEB,
  blockHashGindex,
  decodePostMergeProof,
  historicalEntryOf,
  verifyPostMergeBlock,
  type ExecutionBlockId,
  type PostMergeBlockProof,
  type TrustedHistoricalRoot,
} from '../packages/core/src/anchor/beacon-block-proof.js';
import { isValidBranch } from '../packages/core/src/anchor/merkle-branch.js';
import {
  MAINNET,
  forkAtSlot,
  forkSlot,
  slotTimestamp,
  type BeaconNetwork,
} from '../packages/core/src/anchor/networks.js';
import { bytes32Vector, historicalBatchRoot, vectorRoot } from '../packages/core/src/anchor/ssz.js';
import { bytesToHex } from '../packages/core/src/bytes/hex.js';
import { decodeHeader } from '../packages/core/src/header/header-decoding.js';
import { defaultKeccak256 } from '../packages/core/src/keccak/keccak.js';
import { contentValueOf, headerWithProof } from './helpers/portal-vectors.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const PORTAL = new URL('anchor/portal/headers_with_proof/', FIXTURES);
const fixture = (url: URL): Uint8Array => new Uint8Array(readFileSync(url));

const BELLATRIX_ERA = [15537394, 15539558, 15547621, 15555729, 17034869];
const CAPELLA_ON = [17034870, 17042287, 17062257, 19426586, 19426587, 22162263];

interface Vector {
  number: number;
  block: ExecutionBlockId;
  bytes: Uint8Array;
  proof: PostMergeBlockProof;
}

function vectorOf(number: number): Vector {
  const { header, proof: bytes } = headerWithProof(contentValueOf(new URL(`${number}.yaml`, PORTAL).pathname));
  const decoded = decodePostMergeProof(MAINNET, bytes);
  if (!decoded.ok) throw new Error(`${number}: ${decoded.error}`);
  const block = { hash: defaultKeccak256(header), timestamp: decodeHeader(header).timestamp };
  return { number, block, bytes, proof: decoded.value };
}

const VECTORS = [...BELLATRIX_ERA, ...CAPELLA_ON].map(vectorOf);
const vector = (number: number): Vector => VECTORS.find((v) => v.number === number)!;

// Mainnet's historical_roots, frozen at Capella; and historical_summaries (64 bytes an entry: block then state summary root).
const HISTORICAL_ROOTS = bytes32Vector(fixture(new URL('anchor/portal-mainnet/historical_roots.ssz', FIXTURES)));
const BLOCK_SUMMARY_ROOTS = bytes32Vector(
  fixture(new URL('beacon_data/historical_summaries_at_slot_11476992.ssz', PORTAL)),
).filter((_, i) => i % 2 === 0);

function trustedFor(slot: number, network: BeaconNetwork = MAINNET): TrustedHistoricalRoot {
  const entry = historicalEntryOf(network, slot);
  const list = entry.list === 'historical_roots' ? HISTORICAL_ROOTS : BLOCK_SUMMARY_ROOTS;
  return { ...entry, root: list[entry.index]! };
}

/** The `block_roots` of a vector's period, from the shipped SSZ (a HistoricalBatch begins with them). */
function blockRootsOf(number: number): Uint8Array[] {
  const dir = new URL(`beacon_data/${number}/`, PORTAL);
  const batch = new URL('historical_batch.ssz', dir);
  return bytes32Vector(fixture(existsSync(batch) ? batch : new URL('block_roots.ssz', dir))).slice(0, 8192);
}

describe('post-merge block proofs: the Portal mainnet vectors', () => {
  it('the trusted lists are what they say: 758 historical roots, 643 summaries at slot 11476992', () => {
    expect(HISTORICAL_ROOTS).toHaveLength(forkSlot(MAINNET, 'capella') / 8192);
    expect(BLOCK_SUMMARY_ROOTS).toHaveLength((11476992 - forkSlot(MAINNET, 'capella')) / 8192);
  });

  it.each(VECTORS.map((v) => [v.number, v] as const))('block %i verifies under its slot’s entry', (number, v) => {
    const proven = verifyPostMergeBlock(MAINNET, v.block, v.proof, trustedFor(v.proof.slot));
    expect(proven).toEqual({ ok: true, value: { blockHash: v.block.hash, slot: v.proof.slot } });
    const file = new URL(`blocks/mainnet-${number}.json`, FIXTURES);
    if (existsSync(file)) {
      const block = JSON.parse(readFileSync(file, 'utf8')) as { header: { hash: string } };
      expect(bytesToHex(v.block.hash)).toBe(block.header.hash.replace(/^0x/, ''));
    }
  });

  it('proof sizes: 840 bytes (14 + 1 + 11 nodes) before Capella, 808 (13 + 1 + 11) through Capella, 840 (13 + 1 + 12) from Deneb', () => {
    const shape = (v: Vector): string =>
      `${v.bytes.length}:${v.proof.beaconBlockProof.length}+${v.proof.executionBlockProof.length}`;
    expect(Object.fromEntries(VECTORS.map((v) => [v.number, shape(v)]))).toEqual({
      15537394: '840:14+11',
      15539558: '840:14+11',
      15547621: '840:14+11',
      15555729: '840:14+11',
      17034869: '840:14+11',
      17034870: '808:13+11',
      17042287: '808:13+11',
      17062257: '808:13+11',
      19426586: '808:13+11',
      19426587: '840:13+12',
      22162263: '840:13+12',
    });
  });

  it.each([15537394, 17034869])(
    'block %i: the shipped HistoricalBatch hashes to the historical_roots entry',
    (number) => {
      const v = vector(number);
      const nodes = bytes32Vector(fixture(new URL(`beacon_data/${number}/historical_batch.ssz`, PORTAL)));
      const root = historicalBatchRoot(nodes.slice(0, 8192), nodes.slice(8192));
      expect(bytesToHex(root)).toBe(bytesToHex(trustedFor(v.proof.slot).root));
      expect(bytesToHex(nodes[v.proof.slot % 8192]!)).toBe(bytesToHex(v.proof.beaconBlockRoot));
    },
  );

  it.each([17034870, 19426587, 22162263])(
    'block %i: the shipped block_roots hash to the block_summary_root',
    (number) => {
      const v = vector(number);
      const nodes = bytes32Vector(fixture(new URL(`beacon_data/${number}/block_roots.ssz`, PORTAL)));
      expect(bytesToHex(vectorRoot(nodes))).toBe(bytesToHex(trustedFor(v.proof.slot).root));
      expect(bytesToHex(nodes[v.proof.slot % 8192]!)).toBe(bytesToHex(v.proof.beaconBlockRoot));
    },
  );
});

describe('post-merge block proofs: fork boundaries', () => {
  const capella = forkSlot(MAINNET, 'capella');
  const deneb = forkSlot(MAINNET, 'deneb');

  it('15537394, the first merge block, is Bellatrix and ends in historical_roots', () => {
    const { slot } = vector(15537394).proof;
    expect(forkAtSlot(MAINNET, slot)).toBe('bellatrix');
    expect(historicalEntryOf(MAINNET, slot)).toEqual({ list: 'historical_roots', index: Math.floor(slot / 8192) });
  });

  it('17034869 is the last before Capella, 17034870 the first in it: the two lists meet at the Capella slot', () => {
    const last = vector(17034869).proof.slot;
    const first = vector(17034870).proof.slot;
    expect(last).toBe(capella - 1);
    expect(first).toBeGreaterThanOrEqual(capella);
    expect(historicalEntryOf(MAINNET, last)).toEqual({ list: 'historical_roots', index: 757 });
    expect(historicalEntryOf(MAINNET, first)).toEqual({ list: 'historical_summaries', index: 0 });
    expect(blockHashGindex(MAINNET, first)).toBe(BLOCK_HASH_GINDEX_BELLATRIX);
  });

  it('19426586 is Capella (3228); 19426587, at the first Deneb slot, and 22162263 are Deneb (6444)', () => {
    expect(vector(19426587).proof.slot).toBe(deneb);
    expect(blockHashGindex(MAINNET, vector(19426586).proof.slot)).toBe(BLOCK_HASH_GINDEX_BELLATRIX);
    expect(blockHashGindex(MAINNET, vector(19426587).proof.slot)).toBe(BLOCK_HASH_GINDEX_DENEB);
    expect(blockHashGindex(MAINNET, vector(22162263).proof.slot)).toBe(BLOCK_HASH_GINDEX_DENEB);
  });

  it.each(VECTORS.map((v) => [v.number, v] as const))(
    'block %i: the other fork’s gindex is refused (a network with Deneb moved, from Capella on)',
    (_, v) => {
      const { slot, executionBlockProof, beaconBlockRoot } = v.proof;
      const other =
        blockHashGindex(MAINNET, slot) === BLOCK_HASH_GINDEX_DENEB
          ? BLOCK_HASH_GINDEX_BELLATRIX
          : BLOCK_HASH_GINDEX_DENEB;
      // The branch made as long as the other index is deep: cut at its top, or with a zero node on it.
      const fitted =
        other === BLOCK_HASH_GINDEX_DENEB
          ? [...executionBlockProof, new Uint8Array(32)]
          : executionBlockProof.slice(0, -1);
      expect(isValidBranch(v.block.hash, executionBlockProof, other, beaconBlockRoot)).toBe(false);
      expect(isValidBranch(v.block.hash, fitted, other, beaconBlockRoot)).toBe(false);
      if (slot < capella) return;
      // The same proof on a network whose Deneb began on the other side of its slot.
      const moved = Math.floor(slot / 32) + (slot >= deneb ? 1 : 0);
      const network = { ...MAINNET, forkEpochs: { ...MAINNET.forkEpochs, deneb: moved } };
      expect(verifyPostMergeBlock(network, v.block, v.proof, trustedFor(slot))).toEqual({
        ok: false,
        error: { kind: 'branch', branch: 'execution' },
      });
    },
  );

  it('a slot before the merge, or an entry of the wrong list or index, is refused', () => {
    const v = vector(17034870);
    const trusted = trustedFor(v.proof.slot);
    const early = { ...v.proof, slot: forkSlot(MAINNET, 'bellatrix') - 1 };
    expect(verifyPostMergeBlock(MAINNET, v.block, early, trusted)).toMatchObject({
      ok: false,
      error: { kind: 'not-post-merge' },
    });
    for (const wrong of [
      { ...trusted, index: 1 },
      { ...trusted, list: 'historical_roots' as const },
    ])
      expect(verifyPostMergeBlock(MAINNET, v.block, v.proof, wrong)).toMatchObject({
        ok: false,
        error: { kind: 'wrong-entry' },
      });
  });

  it('a proof of the wrong length for its slot is not decoded', () => {
    const v = vector(17034870);
    const longer = new Uint8Array(v.bytes.length + 32);
    longer.set(v.bytes, 32);
    expect(decodePostMergeProof(MAINNET, longer).ok).toBe(false);
    expect(decodePostMergeProof(MAINNET, v.bytes.subarray(32)).ok).toBe(false);
  });
});

describe('post-merge block proofs: any change is refused', () => {
  it('a changed byte of a branch node or the beacon block root is refused, naming the branch', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VECTORS), fc.nat(), fc.integer({ min: 1, max: 255 }), (v, at, by) => {
        const position = at % (v.bytes.length - 8); // the slot's bytes have their own property
        const changed = v.bytes.slice();
        changed[position]! ^= by;
        const decoded = decodePostMergeProof(MAINNET, changed);
        if (!decoded.ok) throw new Error(decoded.error);
        const beaconNodes = v.proof.beaconBlockProof.length;
        const branch = position < 32 * beaconNodes ? 'block-roots' : 'execution';
        expect(verifyPostMergeBlock(MAINNET, v.block, decoded.value, trustedFor(v.proof.slot))).toEqual({
          ok: false,
          error: { kind: 'branch', branch },
        });
      }),
    );
  });

  it('a changed byte of the block hash is refused by the execution branch', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VECTORS), fc.nat(31), fc.integer({ min: 1, max: 255 }), (v, at, by) => {
        const hash = v.block.hash.slice();
        hash[at]! ^= by;
        expect(verifyPostMergeBlock(MAINNET, { ...v.block, hash }, v.proof, trustedFor(v.proof.slot))).toEqual({
          ok: false,
          error: { kind: 'branch', branch: 'execution' },
        });
      }),
    );
  });

  it('another slot is refused by the header’s timestamp', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VECTORS), fc.integer({ min: -2_000_000, max: 2_000_000 }), (v, by) => {
        const slot = v.proof.slot + by;
        fc.pre(by !== 0 && slot >= forkSlot(MAINNET, 'bellatrix'));
        expect(verifyPostMergeBlock(MAINNET, v.block, { ...v.proof, slot }, trustedFor(v.proof.slot))).toEqual({
          ok: false,
          error: { kind: 'slot-time', slot, timestamp: v.block.timestamp },
        });
      }),
    );
  });

  // Without the timestamp, the shipped block_roots say which slots of the period hold the same root: after a
  // skipped slot they do, and the branches cannot tell them apart.
  const WITH_ROOTS = [15537394, 17034869, 17034870, 19426587, 22162263].map((n) => ({
    v: vector(n),
    roots: blockRootsOf(n),
  }));

  it('another slot with a timestamp to match is refused, by its entry or its branch, unless block_roots holds the same root there', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WITH_ROOTS),
        fc.oneof(
          fc.integer({ min: -16, max: 16 }),
          fc.integer({ min: -8192, max: 8192 }),
          fc.integer({ min: -2_000_000, max: 2_000_000 }),
        ),
        ({ v, roots }, by) => {
          const slot = v.proof.slot + by;
          const trusted = trustedFor(v.proof.slot);
          const entry = historicalEntryOf(MAINNET, slot);
          const samePeriod = entry.list === trusted.list && entry.index === trusted.index;
          fc.pre(by !== 0 && slot >= forkSlot(MAINNET, 'bellatrix'));
          fc.pre(!samePeriod || bytesToHex(roots[slot % 8192]!) !== bytesToHex(v.proof.beaconBlockRoot));
          const block = { ...v.block, timestamp: BigInt(slotTimestamp(MAINNET, slot)) };
          const refused = verifyPostMergeBlock(MAINNET, block, { ...v.proof, slot }, trusted);
          expect(refused).toMatchObject({ ok: false, error: { kind: samePeriod ? 'branch' : 'wrong-entry' } });
        },
      ),
    );
  });
});
