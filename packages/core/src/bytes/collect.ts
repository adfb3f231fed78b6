/**
 * A body that arrives in pieces, gathered into one array as it comes, up to a cap. Each piece is copied
 * at once and let go: a node that writes its answer a byte at a time would otherwise have every
 * piece's object kept until the end, a hundred bytes and more of memory for each byte of the answer.
 */

/** The array a body without a declared length starts in; it doubles as the body outgrows it. */
const FIRST_CAPACITY = 64 * 1024;
/** The most a declared length reserves before a byte arrives: a length can be declared and never sent. */
const MAX_RESERVED = 4 * 1024 * 1024;

/**
 * The bytes of `pieces` in one array, or null as soon as they pass `cap` bytes (the rest is not read). `declared`, a
 * length the sender announced, sizes the first array. Memory: at most twice the bytes read.
 * @example
 * await collectBytes((async function* () { yield Uint8Array.of(1); yield Uint8Array.of(2, 3) })(), 8) // Uint8Array [1, 2, 3]
 */
export async function collectBytes(
  pieces: AsyncIterable<Uint8Array>,
  cap: number,
  declared?: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const reserved = declared !== undefined && declared >= 0 ? Math.min(declared, MAX_RESERVED) : FIRST_CAPACITY;
  let body = new Uint8Array(Math.min(cap, reserved));
  let length = 0;
  for await (const piece of pieces) {
    const end = length + piece.byteLength;
    if (end > cap) return null;
    if (end > body.byteLength) {
      const grown = new Uint8Array(Math.min(cap, Math.max(end, 2 * body.byteLength)));
      grown.set(body.subarray(0, length));
      body = grown;
    }
    body.set(piece, length);
    length = end;
  }
  return body.subarray(0, length);
}
