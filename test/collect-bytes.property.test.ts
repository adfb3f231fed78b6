/**
 * collectBytes (core/bytes/collect.ts), the one reader of a body that arrives in pieces (a node's answer, a beacon
 * node's): any pieces, of any sizes, are gathered to their concatenation, or refused once they pass the cap without a
 * piece read past it; a declared length, true or false, changes nothing but the first array's size; large pieces, held
 * until the end, and views into larger buffers, copied, come out alike; and the array given is the body's size, however
 * small the pieces (a node writing a byte at a time must not cost a hundred times its answer).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectBytes } from '../packages/core/src/bytes/collect.js';
import { runs } from './helpers/runs.js';

/** `pieces` as a body arrives, counting the pieces taken from it. */
function arriving(pieces: readonly Uint8Array[]) {
  const seen = { taken: 0 };
  const body = (async function* () {
    for (const piece of pieces) {
      seen.taken++;
      yield piece;
    }
  })();
  return { body, seen };
}

const joined = (pieces: readonly Uint8Array[]) => Uint8Array.from(pieces.flatMap((piece) => [...piece]));

/** Pieces of 0 to 300 bytes, most of them tiny, up to about 40 KB in all. */
const piecesArb = fc.array(fc.oneof(fc.uint8Array({ maxLength: 2 }), fc.uint8Array({ maxLength: 300 })), {
  maxLength: 200,
});

describe('collectBytes', () => {
  it('gives the pieces joined when they fit the cap, null at the first piece past it, whatever length was declared', async () => {
    await fc.assert(
      fc.asyncProperty(
        piecesArb,
        fc.nat({ max: 50_000 }),
        fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
        async (pieces, cap, declared) => {
          const { body, seen } = arriving(pieces);
          const total = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
          const read = await collectBytes(body, cap, declared);
          if (total <= cap) {
            expect(read).toEqual(joined(pieces));
            expect(seen.taken).toBe(pieces.length);
          } else {
            expect(read).toBeNull();
            // Stopped at the piece that crossed the cap: none after it was asked for.
            let sum = 0;
            const crossing = pieces.findIndex((piece) => (sum += piece.byteLength) > cap);
            expect(seen.taken).toBe(crossing + 1);
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('gives the pieces joined when large ones (held) and small ones (copied) come in any order, a view of a larger buffer among them', async () => {
    // Sizes around the 16 KiB from which a piece is held; some pieces are views into a buffer four times their size.
    const pieceArb = fc.record({
      size: fc.oneof(fc.nat({ max: 40 }), fc.integer({ min: 16 * 1024 - 2, max: 40_000 })),
      fill: fc.nat({ max: 255 }),
      view: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(pieceArb, { maxLength: 12 }),
        fc.option(fc.nat({ max: 200_000 }), { nil: undefined }),
        async (specs, declared) => {
          const pieces = specs.map(({ size, fill, view }, i) => {
            const piece = view ? new Uint8Array(4 * size + 8).subarray(size, 2 * size) : new Uint8Array(size);
            return piece.fill(fill).fill(i & 0xff, 0, 1);
          });
          const total = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
          const read = (await collectBytes(arriving(pieces).body, 1 << 20, declared))!;
          expect(read).toEqual(joined(pieces));
          if (declared === undefined || declared < total) expect(read.buffer.byteLength).toBe(total);
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it('gives an array of exactly the bytes read, for pieces of one byte as for large ones', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 300_000 }), async (size, total) => {
        const pieces = Array.from({ length: Math.ceil(total / size) }, (_, i) =>
          new Uint8Array(Math.min(size, total - i * size)).fill(i & 0xff),
        );
        const read = (await collectBytes(arriving(pieces).body, 32 * 1024 * 1024))!;
        expect(read.byteLength).toBe(total);
        expect(read.buffer.byteLength).toBe(total);
      }),
      { numRuns: runs(50) },
    );
  });

  it('a declared length reserves no more than 4 MiB before the bytes come, and never more than the cap', async () => {
    const read = (await collectBytes(arriving([Uint8Array.of(1, 2, 3)]).body, 100 * 1024 * 1024, 64 * 1024 * 1024))!;
    expect(read).toEqual(Uint8Array.of(1, 2, 3));
    expect(read.buffer.byteLength).toBe(4 * 1024 * 1024);
    const small = (await collectBytes(arriving([Uint8Array.of(9)]).body, 10, 64 * 1024 * 1024))!;
    expect(small.buffer.byteLength).toBe(10);
  });
});
