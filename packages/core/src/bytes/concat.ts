/**
 * Byte arrays joined end to end: a body read chunk by chunk, made one array to decode or hash at once.
 */

/**
 * `chunks` joined in one new array; `length` is their total when the caller counted it as they came.
 * @example
 * concatBytes([Uint8Array.of(1, 2), Uint8Array.of(3)]) // Uint8Array [1, 2, 3]
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0),
): Uint8Array<ArrayBuffer> {
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}
