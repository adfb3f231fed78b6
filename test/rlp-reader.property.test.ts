/**
 * The in-place RLP reader (core/bytes/rlp-reader.ts) against @ethereumjs/rlp's decoder: any
 * encoding reads to the same items, and any bytes are refused by one exactly when the other refuses
 * them (but lists nested past MAX_RLP_DEPTH, which the reader alone refuses, by name). And the trie
 * walk that reads nodes with it follows nodes embedded in their parent (values under 32 bytes),
 * where @ethereumjs/mpt proves them.
 */
import { createMerkleProof, createMPT } from '@ethereumjs/mpt';
import { decode, encode, type NestedUint8Array } from '@ethereumjs/rlp';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRlpList, MAX_RLP_DEPTH, readRlp, readRlpItem, rlpItem } from '../packages/core/src/bytes/rlp-reader.js';
import { bytesEqual } from '../packages/core/src/index.js';
import { indexKey } from '../packages/core/src/trie/ordered-trie.js';
import { walkTrieProof } from '../packages/core/src/trie/trie-proof.js';
import { runs } from './helpers/runs.js';

type Item = Uint8Array | NestedUint8Array;

/** Byte strings of every header form: one byte, short (0-55) and long (56 and up). */
const stringArb = fc.oneof(
  fc.uint8Array({ maxLength: 1 }),
  fc.uint8Array({ minLength: 2, maxLength: 55 }),
  fc.uint8Array({ minLength: 56, maxLength: 300 }),
);
/** Nested lists of those, short and long. */
const itemArb: fc.Arbitrary<Item> = fc.letrec<{ item: Item }>((tie) => ({
  item: fc.oneof({ depthSize: 'small' }, stringArb, fc.array(tie('item'), { maxLength: 6 })),
})).item;

/** The items of `bytes` as the reader sees them, rebuilt as @ethereumjs/rlp gives them. */
function readBack(bytes: Uint8Array): Item {
  const item = rlpItem();
  readRlp(bytes, item);
  const build = (start: number, end: number, list: boolean): Item => {
    if (!list) return bytes.slice(start, end);
    const items: Item[] = [];
    const inner = rlpItem();
    for (let at = start; at < end; at = inner.end) {
      readRlpItem(bytes, at, end, inner);
      items.push(build(inner.start, inner.end, inner.list));
    }
    return items;
  };
  return build(item.start, item.end, item.list);
}

const refuses = (read: () => unknown) => {
  try {
    read();
    return false;
  } catch {
    return true;
  }
};

describe('the RLP reader', () => {
  it(`reads any encoding to the items it encodes (${runs(300)} runs)`, () => {
    fc.assert(
      fc.property(itemArb, (value) => {
        expect(readBack(encode(value))).toEqual(decode(encode(value)));
      }),
      { numRuns: runs(300) },
    );
  });

  it(`refuses bytes exactly when @ethereumjs/rlp does: random bytes and changed encodings (${runs(1000)} runs)`, () => {
    const changed = fc
      .tuple(itemArb, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.nat({ max: 3 }))
      .map(([value, pick, delta, cut]) => {
        const bytes = encode(value);
        if (bytes.length === 0) return bytes;
        bytes[pick % bytes.length]! ^= delta;
        return cut === 0 ? bytes.subarray(0, pick % bytes.length) : bytes;
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 80 }), changed), (bytes) => {
        // @ethereumjs/rlp reads no bytes as the empty string; the reader refuses them.
        fc.pre(bytes.length > 0);
        expect(refuses(() => readRlp(bytes, rlpItem()))).toBe(refuses(() => decode(bytes)));
      }),
      { numRuns: runs(1000) },
    );
  });

  it('refuses the non-canonical forms by name', () => {
    const cases: [number[], RegExp][] = [
      [[0x81, 0x05], /below 0x80 and has a prefix/],
      [[0xb8, 0x05, 1, 2, 3, 4, 5], /under 56/],
      [[0xb9, 0x00, 0x38, ...new Array<number>(56).fill(1)], /leading zeros/],
      [[0xc2, 0x01], /^the item at byte 0 runs past the end: it holds 2 bytes, and 1 is left$/],
      [
        [0xbf, 0xde, 0, 0, 0, 0, 0, 0, 0],
        /^the item at byte 0 runs past the end: it holds over 2\^53 bytes, and 0 are left$/,
      ],
      [[0xbf, 0xde, 0], /^the item at byte 0 runs past the end: its length takes 8 bytes, and 2 are left$/],
      [[0x01, 0x02], /1 bytes after the item/],
    ];
    for (const [bytes, message] of cases) expect(() => readRlp(Uint8Array.from(bytes), rlpItem())).toThrow(message);
    expect(() => checkRlpList(Uint8Array.of(0xc3, 0xc2, 0x81, 0x05), 1, 4)).toThrow(/has a prefix/);
    // Lists nest at most MAX_RLP_DEPTH levels (an empty list inside 31 more reads; one more level does not).
    const nested = (depth: number) => Uint8Array.from({ length: depth }, (_, i) => 0xc0 + depth - 1 - i);
    expect(() => readRlp(nested(MAX_RLP_DEPTH), rlpItem())).not.toThrow();
    expect(decode(nested(MAX_RLP_DEPTH))).toBeDefined();
    expect(() => readRlp(nested(MAX_RLP_DEPTH + 1), rlpItem())).toThrow(/at byte 32 nests deeper than 32 levels/);
  });
});

describe('the trie walk over embedded nodes', () => {
  it(`gives back values under 32 bytes, whose leaves sit inside their parent (${runs(40)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 300 }),
        fc.nat(),
        async (values, pick) => {
          const trie = await createMPT();
          for (const [i, value] of values.entries()) await trie.put(indexKey(i), value);
          const index = pick % values.length;
          // @ethereumjs/mpt lists embedded nodes too; a proof holds the nodes that are hashed (eth_getProof).
          const proof = (await createMerkleProof(trie, indexKey(index))).filter(
            (node, i) => i === 0 || node.length >= 32,
          );
          const walked = walkTrieProof(trie.root(), indexKey(index), proof);
          expect(walked.ok && bytesEqual(walked.value, values[index]!)).toBe(true);
          const absent = walkTrieProof(trie.root(), indexKey(values.length), proof);
          expect(absent.ok).toBe(false);
        },
      ),
      { numRuns: runs(40) },
    );
  });
});
