import { decode } from '@ethereumjs/rlp';
import { bytesEqual } from '../bytes/hex.js';
import { readRlp, readRlpItem, rlpItem } from '../bytes/rlp-reader.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { err, ok, type Result } from '../result.js';
import { toNibbles } from './ordered-trie.js';

/** Why a node of a trie proof fails. */
export type TrieProofFault =
  /** The node's hash is not the root (node 0) or not the hash its parent names. */
  | 'hash-mismatch'
  /** The node's bytes are not RLP. */
  | 'bad-rlp'
  /** The node is RLP but no trie node: not a branch of 17 items nor a leaf or extension of 2, or a bad reference. */
  | 'bad-node'
  /** The node leads away from the key: an empty branch slot, or a path that is not the key's. */
  | 'path-mismatch'
  /** The proof ends before the leaf: the node the last one names is not there. */
  | 'missing-node'
  /** The proof goes on after the leaf. */
  | 'extra-node';

/** A refused trie proof: which node fails (its index in the proof) and why. */
export interface TrieProofRefusal {
  reason: TrieProofFault;
  /** Index in the proof of the node that fails (the proof's length when a node is missing). */
  node: number;
  message: string;
}

/** The items a branch node has: 16 slots and a value. */
const BRANCH_ITEMS = 17;
/** A child node's RLP this long or longer is named by its hash; only a shorter one is embedded in its parent. */
const HASHED_NODE_BYTES = 32;

/**
 * Walks a proof (RLP nodes from the root to the leaf) down the path of `key`, checking each node
 * against the hash its parent names, and returns the value at the leaf, or which node fails.
 * A node under 32 bytes is read inside its parent, as the trie hashes it; one of 32 bytes or more
 * embedded there, or a path whose hex-prefix padding nibble is not 0, is no node the trie makes.
 *
 * The nodes are read in place (src/bytes/rlp-reader.ts), every item of each checked as RLP: only
 * the item on the key's path is taken, and only the leaf's value is copied out.
 *
 * @example
 * const walked = walkTrieProof(root, indexKey(3), proof) // walked.ok ? walked.value : walked.error.node
 */
export function walkTrieProof(
  root: Uint8Array,
  key: Uint8Array,
  proof: readonly Uint8Array[],
  options: HashOptions = {},
): Result<Uint8Array, TrieProofRefusal> {
  const keccak = options.keccak ?? defaultKeccak256;
  const nibbles = toNibbles(key);
  const refuse = (reason: TrieProofFault, node: number, message: string) =>
    err({ reason, node, message: `Proof node ${node}: ${message}` });
  // The items of the node being read: where each begins (its header), its payload's start and end,
  // and whether it is a list.
  const heads = new Int32Array(BRANCH_ITEMS);
  const starts = new Int32Array(BRANCH_ITEMS);
  const ends = new Int32Array(BRANCH_ITEMS);
  const lists = new Uint8Array(BRANCH_ITEMS);
  const item = rlpItem();
  // What the last node names next: a hash (`reference`), or a node embedded in it (`reference`
  // undefined, its list payload from `start` to `end` of `bytes`).
  let reference: Uint8Array | undefined = root;
  let bytes: Uint8Array = root;
  let start = 0;
  let end = 0;
  let next = 0;
  let depth = 0;
  for (;;) {
    let at: number;
    if (reference !== undefined) {
      at = next++;
      const node = proof[at];
      if (node === undefined) return refuse('missing-node', at, `missing: the proof ends before the leaf.`);
      if (!bytesEqual(keccak(node), reference))
        return refuse(
          'hash-mismatch',
          at,
          at === 0 ? 'its hash is not the root.' : `its hash is not the one node ${at - 1} names.`,
        );
      // No bytes read as an empty string in RLP, which is no trie node.
      if (node.length === 0) return refuse('bad-node', at, 'a string, not a trie node (a list).');
      try {
        readRlp(node, item);
      } catch (error) {
        return refuse('bad-rlp', at, `not RLP (${(error as Error).message}).`);
      }
      if (!item.list) return refuse('bad-node', at, 'a string, not a trie node (a list).');
      bytes = node;
      start = item.start;
      end = item.end;
    } else {
      // An embedded node: read inside its parent, which is the last node taken from the proof.
      at = next - 1;
    }
    let count = 0;
    for (let i = start; i < end; i = item.end, count++) {
      readRlpItem(bytes, i, end, item);
      if (count < BRANCH_ITEMS) {
        heads[count] = i;
        starts[count] = item.start;
        ends[count] = item.end;
        lists[count] = item.list ? 1 : 0;
      }
    }
    if (count === BRANCH_ITEMS) {
      if (depth === nibbles.length)
        return refuse('bad-node', at, 'a branch where the key ends (no key is a prefix of another).');
      const slot = nibbles[depth]!;
      const length = ends[slot]! - starts[slot]!;
      if (lists[slot] === 0 && length === 0)
        return refuse('path-mismatch', at, `its slot ${slot.toString(16)} is empty: the key is not in the trie.`);
      if (lists[slot] === 0 && length !== 32)
        return refuse('bad-node', at, `slot ${slot.toString(16)} holds ${length} bytes, not a 32-byte hash.`);
      if (lists[slot] === 1 && ends[slot]! - heads[slot]! >= HASHED_NODE_BYTES)
        return refuse(
          'bad-node',
          at,
          `slot ${slot.toString(16)} embeds a node of ${ends[slot]! - heads[slot]!} bytes, not under 32.`,
        );
      depth++;
      start = starts[slot]!;
      end = ends[slot]!;
      reference = lists[slot] === 1 ? undefined : bytes.subarray(start, end);
      continue;
    }
    if (count !== 2) return refuse('bad-node', at, `a list of ${count} items, not 17 (branch) or 2 (leaf, extension).`);
    const pathStart = starts[0]!;
    const pathLength = ends[0]! - pathStart;
    if (lists[0] === 1 || pathLength === 0 || bytes[pathStart]! >> 4 > 3)
      return refuse('bad-node', at, 'its path is not hex-prefix encoded.');
    const flag = bytes[pathStart]! >> 4;
    // An even nibble count (flag 0 or 2) pads the first byte's low nibble with 0.
    if ((flag & 1) === 0 && (bytes[pathStart]! & 15) !== 0)
      return refuse(
        'bad-node',
        at,
        `its path is not hex-prefix encoded (padding nibble ${bytes[pathStart]! & 15}, not 0).`,
      );
    const leaf = flag >= 2;
    // The path's nibbles, after the flag's (and its padding nibble when the count is even).
    const first = flag & 1 ? 1 : 2;
    const pathNibbles = 2 * pathLength - first;
    const rest = nibbles.length - depth;
    let matches = leaf ? pathNibbles === rest : pathNibbles > 0 && pathNibbles <= rest;
    for (let n = 0; matches && n < pathNibbles; n++) {
      const j = first + n;
      const byte = bytes[pathStart + (j >> 1)]!;
      matches = (j & 1 ? byte & 15 : byte >> 4) === nibbles[depth + n];
    }
    if (!matches)
      return refuse('path-mismatch', at, `its path leads elsewhere than the key: the key is not in the trie.`);
    if (leaf) {
      if (lists[1] === 1) return refuse('bad-node', at, 'a leaf whose value is a list.');
      if (next < proof.length) return refuse('extra-node', next, 'after the leaf (node ' + at + ').');
      return ok(bytes.slice(starts[1], ends[1]));
    }
    const valueLength = ends[1]! - starts[1]!;
    if (lists[1] === 0 && valueLength !== 32)
      return refuse('bad-node', at, `an extension whose child is ${valueLength} bytes, not a 32-byte hash.`);
    if (lists[1] === 1 && ends[1]! - heads[1]! >= HASHED_NODE_BYTES)
      return refuse('bad-node', at, `an extension that embeds a node of ${ends[1]! - heads[1]!} bytes, not under 32.`);
    depth += pathNibbles;
    start = starts[1]!;
    end = ends[1]!;
    reference = lists[1] === 1 ? undefined : bytes.subarray(start, end);
  }
}

/**
 * The key whose path a proof's nodes follow, each node the one its parent names by hash, down to a leaf at the last
 * node; undefined where they follow none so (a node that is no trie node, one its parent does not name, one embedded in
 * its parent, a proof without its leaf). Not a check (the nodes are not held to a root): what a refusal of
 * {@link walkTrieProof} can add, where the proof holds another key than the one asked for.
 *
 * @example
 * trieProofKey(receiptProof(receipts, 128).proof) // Uint8Array [0x81, 0x80]: rlp(128)
 */
export function trieProofKey(proof: readonly Uint8Array[], options: HashOptions = {}): Uint8Array | undefined {
  const keccak = options.keccak ?? defaultKeccak256;
  const nibbles: number[] = [];
  for (let at = 0; at < proof.length; at++) {
    let node: unknown;
    try {
      // Read in place first: @ethereumjs/rlp's decoder recurses, and a node nested thousands deep would overflow it.
      readRlp(proof[at]!, rlpItem());
      node = decode(proof[at]);
    } catch {
      return undefined;
    }
    if (!Array.isArray(node) || !node.every((part) => part instanceof Uint8Array)) return undefined;
    const parts: Uint8Array[] = node;
    const child = proof[at + 1];
    if (parts.length === BRANCH_ITEMS) {
      if (child === undefined) return undefined;
      const hash = keccak(child);
      const slot = parts.findIndex((part, i) => i < 16 && bytesEqual(part, hash));
      if (slot === -1) return undefined;
      nibbles.push(slot);
      continue;
    }
    const path = parts[0];
    if (parts.length !== 2 || path === undefined || path.length === 0 || path[0]! >> 4 > 3) return undefined;
    if (path[0]! & 0x10) nibbles.push(path[0]! & 15);
    for (const byte of path.subarray(1)) nibbles.push(byte >> 4, byte & 15);
    if (path[0]! >> 4 >= 2) {
      if (at !== proof.length - 1 || nibbles.length % 2 !== 0) return undefined;
      return Uint8Array.from({ length: nibbles.length / 2 }, (_, i) => (nibbles[2 * i]! << 4) | nibbles[2 * i + 1]!);
    }
    if (child === undefined || !bytesEqual(parts[1]!, keccak(child))) return undefined;
  }
  return undefined;
}
