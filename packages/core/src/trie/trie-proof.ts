import { decode, type NestedUint8Array } from '@ethereumjs/rlp';
import { bytesEqual } from '../bytes/hex.js';
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

type Item = Uint8Array | NestedUint8Array;

/**
 * Walks a proof (RLP nodes from the root to the leaf) down the path of `key`, checking each node
 * against the hash its parent names, and returns the value at the leaf, or which node fails.
 * A node under 32 bytes is read inside its parent, as the trie hashes it.
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
  let reference: Item = root;
  let next = 0;
  let depth = 0;
  for (;;) {
    let node: Item;
    let at: number;
    if (reference instanceof Uint8Array) {
      at = next++;
      const bytes = proof[at];
      if (bytes === undefined) return refuse('missing-node', at, `missing: the proof ends before the leaf.`);
      if (!bytesEqual(keccak(bytes), reference))
        return refuse(
          'hash-mismatch',
          at,
          at === 0 ? 'its hash is not the root.' : `its hash is not the one node ${at - 1} names.`,
        );
      try {
        node = decode(bytes);
      } catch (error) {
        return refuse('bad-rlp', at, `not RLP (${(error as Error).message}).`);
      }
    } else {
      // An embedded node: read inside its parent, which is the last node taken from the proof.
      node = reference;
      at = next - 1;
    }
    if (!Array.isArray(node)) return refuse('bad-node', at, 'a string, not a trie node (a list).');
    if (node.length === 17) {
      if (depth === nibbles.length)
        return refuse('bad-node', at, 'a branch where the key ends (no key is a prefix of another).');
      const child: Item = node[nibbles[depth]!]!;
      if (child instanceof Uint8Array && child.length === 0)
        return refuse(
          'path-mismatch',
          at,
          `its slot ${nibbles[depth]!.toString(16)} is empty: the key is not in the trie.`,
        );
      if (child instanceof Uint8Array && child.length !== 32)
        return refuse(
          'bad-node',
          at,
          `slot ${nibbles[depth]!.toString(16)} holds ${child.length} bytes, not a 32-byte hash.`,
        );
      depth++;
      reference = child;
      continue;
    }
    if (node.length !== 2)
      return refuse('bad-node', at, `a list of ${node.length} items, not 17 (branch) or 2 (leaf, extension).`);
    const [path, value] = node as [Item, Item];
    if (!(path instanceof Uint8Array) || path.length === 0 || path[0]! >> 4 > 3)
      return refuse('bad-node', at, 'its path is not hex-prefix encoded.');
    const flag = path[0]! >> 4;
    const leaf = flag >= 2;
    const pathNibbles = toNibbles(path).subarray(flag & 1 ? 1 : 2);
    const rest = nibbles.subarray(depth);
    const matches = leaf
      ? bytesEqual(pathNibbles, rest)
      : pathNibbles.length > 0 && bytesEqual(pathNibbles, rest.subarray(0, pathNibbles.length));
    if (!matches)
      return refuse('path-mismatch', at, `its path leads elsewhere than the key: the key is not in the trie.`);
    if (leaf) {
      if (!(value instanceof Uint8Array)) return refuse('bad-node', at, 'a leaf whose value is a list.');
      if (next < proof.length) return refuse('extra-node', next, 'after the leaf (node ' + at + ').');
      return ok(value);
    }
    if (value instanceof Uint8Array && value.length !== 32)
      return refuse('bad-node', at, `an extension whose child is ${value.length} bytes, not a 32-byte hash.`);
    depth += pathNibbles.length;
    reference = value;
  }
}
