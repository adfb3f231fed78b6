/**
 * An independent oracle: receipts encoded with @ethereumjs/rlp, blooms hashed with
 * @noble/hashes, and the root from @ethereumjs/mpt, one put per receipt. Nothing
 * here is shared with src/.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { encode } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Log, Receipt } from '../../packages/core/src/index.js';

export function oracleBloom(logs: readonly Log[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const item of logs.flatMap((l) => [l.address, ...l.topics])) {
    const h = keccak_256(item);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      bloom[255 - Math.floor(bit / 8)]! |= 1 << (bit % 8);
    }
  }
  return bloom;
}

/** Consensus encoding per the EIPs, for a given layout. */
export function oracleEncode(r: Receipt, layout: 'untyped' | 'typed' | 'op-deposit'): Uint8Array {
  const fields: Array<Uint8Array | bigint | Array<unknown>> = [
    r.root ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array()),
    r.cumulativeGasUsed,
    oracleBloom(r.logs),
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (layout === 'op-deposit' && r.depositReceiptVersion !== undefined)
    fields.push(r.depositNonce ?? 0n, r.depositReceiptVersion);
  const body = encode(fields as Parameters<typeof encode>[0]);
  return layout === 'untyped' ? body : Uint8Array.from([r.type, ...body]);
}

export async function oracleRoot(encoded: readonly Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < encoded.length; i++) await trie.put(encode(i), encoded[i]!);
  return trie.root();
}
