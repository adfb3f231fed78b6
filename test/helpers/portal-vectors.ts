/**
 * The Portal Network's history test vectors (ethereum/portal-spec-tests, `tests/mainnet/history/`,
 * copied into fixtures/anchor/portal/ with their source): a header with its proof, as SSZ
 * `BlockHeaderWithProof { header: ByteList, proof: ByteList }`, hex in a YAML or JSON file.
 */
import { readFileSync } from 'node:fs';
import { hexToBytes } from '../../packages/core/src/bytes/hex.js';

/** A vector's content: the header's RLP and the proof's SSZ bytes, still to be read by its era's container. */
export interface HeaderWithProof {
  header: Uint8Array;
  proof: Uint8Array;
}

/** The `content_value` of a one-block YAML vector (`content_key: "0x…"`, `content_value: "0x…"`). */
export function contentValueOf(file: string): Uint8Array {
  const match = /^content_value:\s*"0x([0-9a-f]+)"/m.exec(readFileSync(file, 'utf8'));
  if (match === null) throw new Error(`${file}: no content_value`);
  return hexToBytes(match[1]!);
}

/** The two members of `BlockHeaderWithProof`: SSZ gives each variable-size member as a 4-byte little-endian offset. */
export function headerWithProof(value: Uint8Array): HeaderWithProof {
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const headerAt = view.getUint32(0, true);
  const proofAt = view.getUint32(4, true);
  if (headerAt !== 8 || proofAt < headerAt || proofAt > value.length) throw new Error('not a BlockHeaderWithProof');
  return { header: value.subarray(headerAt, proofAt), proof: value.subarray(proofAt) };
}
