/**
 * The strongest JavaScript peer of `verifyBlock` from a node's JSON text, written the way a careful
 * engineer would with the ecosystem's libraries: JSON.parse, Node's native hex decoder, each
 * receipt's bloom and the block bloom with hash-wasm's Keccak (WebAssembly, its synchronous API),
 * each receipt RLP-encoded with @ethereumjs/rlp (typed ones prefixed with their type) and put at
 * rlp(index) into an @ethereumjs/mpt trie that hashes its nodes with the same hash-wasm Keccak, then
 * the header RLP-encoded in its fork's fields and hashed. It compares the root, the bloom and the
 * hash with the header's, as `verifyBlock` does.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { encode } from '@ethereumjs/rlp';
import { createKeccak } from 'hash-wasm';

/** An Ethereum header's fields in hashing order, each fork's appended (London's base fee on). */
const HEADER_FIELDS = [
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'baseFeePerGas',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
] as const;
const QUANTITIES = new Set([
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'baseFeePerGas',
  'blobGasUsed',
  'excessBlobGas',
]);

/** What the peer computed, and whether each matches the header. */
export interface PeerVerdict {
  root: Uint8Array;
  bloom: Uint8Array;
  hash: Uint8Array;
  identical: boolean;
}

/** `0x…` hex as bytes, by Node's native decoder. */
function hex(text: string): Uint8Array {
  const buffer = Buffer.from(text.slice(2), 'hex');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/** The peer, once hash-wasm's Keccak is instantiated. */
export async function createPeer(): Promise<(text: string) => Promise<PeerVerdict>> {
  const hasher = await createKeccak(256);
  const keccak = (bytes: Uint8Array) => hasher.init().update(bytes).digest('binary');

  return async (text: string) => {
    const block = JSON.parse(text);
    const header = block.header;
    const trie = new MerklePatriciaTrie({ useKeyHashingFunction: keccak });
    const blockBloom = new Uint8Array(256);
    for (let i = 0; i < block.receipts.length; i++) {
      const receipt = block.receipts[i];
      const logs = receipt.logs.map((log: any) => [hex(log.address), log.topics.map(hex), hex(log.data)]);
      const bloom = new Uint8Array(256);
      for (const [address, topics] of logs) {
        for (const item of [address, ...topics]) {
          const digest = keccak(item);
          for (let j = 0; j < 6; j += 2) {
            const bit = ((digest[j]! << 8) | digest[j + 1]!) & 2047;
            bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
          }
        }
      }
      for (let j = 0; j < 256; j++) blockBloom[j]! |= bloom[j]!;
      const hasStatus = receipt.status !== undefined && receipt.status !== null;
      const outcome = hasStatus
        ? BigInt(receipt.status) === 1n
          ? Uint8Array.of(1)
          : new Uint8Array(0)
        : hex(receipt.root);
      const body = encode([outcome, BigInt(receipt.cumulativeGasUsed), bloom, logs]);
      const type = receipt.type === undefined || receipt.type === null ? 0 : Number(receipt.type);
      let value = body;
      if (type !== 0) {
        value = new Uint8Array(body.length + 1);
        value[0] = type;
        value.set(body, 1);
      }
      await trie.put(encode(Number(receipt.transactionIndex ?? i)), value);
    }
    const fields = HEADER_FIELDS.filter((name) => header[name] !== undefined && header[name] !== null).map((name) =>
      QUANTITIES.has(name) ? BigInt(header[name]) : hex(header[name]),
    );
    const hash = keccak(encode(fields));
    const root = trie.root();
    const identical =
      same(root, hex(header.receiptsRoot)) && same(blockBloom, hex(header.logsBloom)) && same(hash, hex(header.hash));
    return { root, bloom: blockBloom, hash, identical };
  };
}
