import { listLength, stringLength, writeListHeader, writeString, writeStringHeader } from '../bytes/rlp-writer.js';
import { defaultKeccak256, pairKeccak256, type HashOptions, type Keccak256 } from '../keccak/keccak.js';
import type { Keccak256Pair } from '../keccak/wasm-keccak.js';

/** Root of the empty trie: keccak(rlp("")). */
export const EMPTY_TRIE_ROOT = Uint8Array.from(
  '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'.match(/../g)!.map((h) => parseInt(h, 16)),
);

/** RLP of a non-negative integer, as the trie key of list position `index`. */
export function indexKey(index: number): Uint8Array {
  const key = new Uint8Array(INDEX_KEY_BYTES);
  return key.slice(0, writeIndexKey(index, key));
}

/** Bytes a key rlp(i) has at most: a header byte and the 7 bytes of a safe integer. */
const INDEX_KEY_BYTES = 8;

/** Writes the key rlp(`index`) (see {@link indexKey}) at the start of `out`; returns its length. */
function writeIndexKey(index: number, out: Uint8Array): number {
  if (index === 0) {
    out[0] = 0x80;
    return 1;
  }
  if (index < 0x80) {
    out[0] = index;
    return 1;
  }
  let length = 0;
  for (let n = index; n > 0; n = Math.floor(n / 256)) length++;
  out[0] = 0x80 + length;
  for (let i = length, n = index; i > 0; i--, n = Math.floor(n / 256)) out[i] = n & 0xff;
  return 1 + length;
}

/**
 * Positions 0..count-1 in the byte order of their keys: 1..127, then 0 (key 0x80),
 * then 128 and up (keys 0x81.., 0x82.. sort by length first, then value).
 */
export function indexKeyOrder(count: number): number[] {
  const order: number[] = [];
  for (let i = 1; i < Math.min(count, 0x80); i++) order.push(i);
  if (count > 0) order.push(0);
  for (let i = 0x80; i < count; i++) order.push(i);
  return order;
}

/**
 * The nibbles of `key`, high half of each byte first: the path a key takes down the trie.
 * @example toNibbles(Uint8Array.of(0x81, 0x80)) // Uint8Array [8, 1, 8, 0]
 */
export function toNibbles(key: Uint8Array): Uint8Array {
  const nibbles = new Uint8Array(key.length * 2);
  writeNibbles(key, nibbles, 0);
  return nibbles;
}

/** Writes the nibbles of `key`'s first `length` bytes (see {@link toNibbles}) into `out` at `offset`. */
function writeNibbles(key: Uint8Array, out: Uint8Array, offset: number, length = key.length): void {
  for (let i = 0; i < length; i++) {
    out[offset + 2 * i] = key[i]! >> 4;
    out[offset + 2 * i + 1] = key[i]! & 15;
  }
}

/** Nibbles a key rlp(i) has at most. */
const KEY_NIBBLES = 2 * INDEX_KEY_BYTES;

/**
 * The nibbles of the keys rlp(i) of positions in `order`, key after key in one array (key p at
 * p * KEY_NIBBLES), with their lengths: a key each in its own array cost a surviving object per
 * value, and a million of them made the collector's full marks, which each trace the whole heap,
 * come more often as the list grew.
 */
class KeyNibbles {
  readonly nibbles: Uint8Array;
  readonly lengths: Uint8Array;

  constructor(order: readonly number[]) {
    this.nibbles = new Uint8Array(order.length * KEY_NIBBLES);
    this.lengths = new Uint8Array(order.length);
    // One scratch array for every key: an array of its own for each was an object a receipt for the collector.
    const key = new Uint8Array(INDEX_KEY_BYTES);
    for (let p = 0; p < order.length; p++) {
      const length = writeIndexKey(order[p]!, key);
      writeNibbles(key, this.nibbles, p * KEY_NIBBLES, length);
      this.lengths[p] = 2 * length;
    }
  }

  /** Nibble `depth` of key `p`. */
  at(p: number, depth: number): number {
    return this.nibbles[p * KEY_NIBBLES + depth]!;
  }
}

/** Bytes of the hex-prefix encoding (Yellow Paper, appendix C) of `count` nibbles. */
const hexPrefixLength = (count: number) => (count >> 1) + 1;

/**
 * Encoded size of the RLP string of a hex-prefix path of `count` nibbles: a path of one byte is its own encoding (its
 * flag nibble is at most 3, so the byte is below 0x80).
 */
const pathStringLength = (count: number) => (count < 2 ? 1 : 1 + hexPrefixLength(count));

/**
 * Writes the hex-prefix encoding of `nibbles[from..to)` as an RLP string into `out` at `offset`, where it is a node's
 * path (no array made for it, where one was made for every leaf); returns the offset after it.
 */
function writePath(
  out: Uint8Array,
  offset: number,
  nibbles: Uint8Array,
  from: number,
  to: number,
  leaf: boolean,
): number {
  const length = to - from;
  const odd = length & 1;
  const bytes = hexPrefixLength(length);
  let o = bytes === 1 ? offset : writeStringHeader(out, offset, bytes);
  const flag = (leaf ? 2 : 0) + odd;
  let n = from;
  out[o++] = odd ? (flag << 4) | nibbles[n++]! : flag << 4;
  for (let i = 1; i < bytes; i++, n += 2) out[o++] = (nibbles[n]! << 4) | nibbles[n + 1]!;
  return o;
}

/**
 * A child reference: the node's own encoding when it is shorter than 32 bytes
 * (embedded in its parent), else its 32-byte hash. The length tells them apart.
 */
type NodeRef = Uint8Array;

function refSize(ref: NodeRef): number {
  return ref.length === 32 ? 33 : ref.length;
}

function writeRef(out: Uint8Array, offset: number, ref: NodeRef): number {
  if (ref.length === 32) out[offset++] = 0xa0;
  out.set(ref, offset);
  return offset + ref.length;
}

/**
 * Builds the trie over keys already in byte order, bottom-up in one pass: each
 * subtree is encoded and hashed exactly once, when it is complete. No database,
 * no intermediate nodes kept, no promises.
 */
class OrderedTrieBuilder {
  constructor(
    private readonly keys: KeyNibbles,
    /** The value of key `p` (in byte order); asked for once, when its leaf is written and hashed. */
    private readonly valueAt: (p: number) => Uint8Array,
    private readonly keccak: Keccak256,
    /** Hashes two sibling leaves at once, where `keccak` has such a way (pairKeccak256); undefined: one at a time. */
    private readonly pair: Keccak256Pair | undefined,
    /** Each value has LEAF_HEADROOM free bytes before it in its buffer, where its leaf is written. */
    private readonly inPlace: boolean,
    /** Whether the node over sorted positions [lo, hi) is on a path being proven; none when absent. */
    private readonly onProvenPath: (lo: number, hi: number) => boolean = () => false,
    /** The nodes on the proven paths, each with its span, children first (each is complete before its parent). */
    readonly collected: Array<{ lo: number; hi: number; encoding: Uint8Array }> = [],
  ) {}

  private ref(encoding: Uint8Array): NodeRef {
    // A short leaf written in place is embedded: a copy, as its value's buffer may be written again.
    if (encoding.length < 32) return this.inPlace ? encoding.slice() : encoding;
    return this.keccak(encoding);
  }

  /** Encoding of the node holding keys[lo..hi), which share their first `depth` nibbles. */
  node(lo: number, hi: number, depth: number): Uint8Array {
    const encoding = this.encode(lo, hi, depth);
    if (this.onProvenPath(lo, hi)) this.collected.push({ lo, hi, encoding });
    return encoding;
  }

  private encode(lo: number, hi: number, depth: number): Uint8Array {
    const keys = this.keys;
    if (hi - lo === 1) return this.leaf(lo, depth, this.valueAt(lo));
    const length = keys.lengths[lo]!;
    let shared = depth;
    while (shared < length && keys.at(lo, shared) === keys.at(hi - 1, shared)) shared++;
    if (shared > depth) return this.extension(lo, depth, shared, this.ref(this.node(lo, hi, shared)));
    return this.branch(lo, hi, depth);
  }

  /** Writes the hex-prefix path of key `p` from nibble `from` to `to` into `out` at `offset` (see writePath). */
  private writePath(out: Uint8Array, offset: number, p: number, from: number, to: number, leaf: boolean): number {
    return writePath(out, offset, this.keys.nibbles, p * KEY_NIBBLES + from, p * KEY_NIBBLES + to, leaf);
  }

  private leaf(p: number, depth: number, value: Uint8Array): Uint8Array {
    const to = this.keys.lengths[p]!;
    const payload = pathStringLength(to - depth) + stringLength(value);
    // A value with a string header (every receipt) gets its leaf's headers written in front of it: no copy.
    if (this.inPlace && stringLength(value) > value.length) {
      const size = listLength(payload);
      const out = new Uint8Array(value.buffer, value.byteOffset + value.length - size, size);
      writeStringHeader(out, this.writePath(out, writeListHeader(out, 0, payload), p, depth, to, true), value.length);
      return out;
    }
    const out = new Uint8Array(listLength(payload));
    writeString(out, this.writePath(out, writeListHeader(out, 0, payload), p, depth, to, true), value);
    return out;
  }

  private extension(p: number, depth: number, shared: number, child: NodeRef): Uint8Array {
    const payload = pathStringLength(shared - depth) + refSize(child);
    const out = new Uint8Array(listLength(payload));
    writeRef(out, this.writePath(out, writeListHeader(out, 0, payload), p, depth, shared, false), child);
    return out;
  }

  /**
   * A branch's children are referenced in nibble order; its leaf children, hashed two at a time where there is a pair
   * hasher (a leaf waits for the next leaf child). At most two values are then held at once (orderedTrieRootOf): a
   * waiting leaf is hashed alone before a child that asks for values of its own (a subtree), or after one that cannot
   * be its partner (a leaf under 32 bytes, embedded, not hashed), since the next value asked may be written over it.
   */
  private branch(lo: number, hi: number, depth: number): Uint8Array {
    const children = new Array<NodeRef | undefined>(16);
    let waiting: Uint8Array | undefined;
    let waitingNibble = 0;
    const hashWaiting = () => {
      if (waiting !== undefined) children[waitingNibble] = this.keccak(waiting);
      waiting = undefined;
    };
    for (let start = lo; start < hi;) {
      const nibble = this.keys.at(start, depth);
      let end = start + 1;
      while (end < hi && this.keys.at(end, depth) === nibble) end++;
      const leaf = end === start + 1;
      if (!leaf) hashWaiting();
      const encoding = this.node(start, end, depth + 1);
      if (this.pair === undefined || !leaf || encoding.length < 32) {
        children[nibble] = this.ref(encoding);
        hashWaiting();
      } else if (waiting === undefined) {
        waiting = encoding;
        waitingNibble = nibble;
      } else {
        const digests = this.pair(waiting, encoding);
        children[waitingNibble] = digests.slice(0, 32);
        children[nibble] = digests.slice(32, 64);
        waiting = undefined;
      }
      start = end;
    }
    hashWaiting();
    let payload = 1; // the empty value slot: keys rlp(i) are prefix-free, so no branch holds a value
    for (let i = 0; i < 16; i++) payload += children[i] === undefined ? 1 : refSize(children[i]!);
    const out = new Uint8Array(listLength(payload));
    let o = writeListHeader(out, 0, payload);
    for (let i = 0; i < 16; i++) {
      const child = children[i];
      if (child === undefined) out[o++] = 0x80;
      else o = writeRef(out, o, child);
    }
    out[o] = 0x80;
    return out;
  }
}

/**
 * Root of the Merkle Patricia trie that maps rlp(i) to `values[i]`: the
 * receipts root, transactions root and withdrawals root of a block.
 *
 * @example
 * bytesToHex(orderedTrieRoot([])) // '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
 */
export function orderedTrieRoot(values: readonly Uint8Array[], options: HashOptions = {}): Uint8Array {
  return trieRoot(values, options.keccak ?? defaultKeccak256, false);
}

/**
 * Bytes a leaf adds in front of its value at most: a list header and a value string header
 * (5 bytes each for values under 4 GiB), and the key path (a 1-byte header, and a hex prefix
 * of at most 6 bytes for keys rlp(i) of indexes under 2^32).
 */
export const LEAF_HEADROOM = 17;

/**
 * {@link orderedTrieRoot} for values that each have {@link LEAF_HEADROOM} free bytes before
 * them in their buffer (views into one buffer, laid out so): each leaf is written there, in
 * front of its value, and hashed without a copy. The bytes in front are overwritten.
 */
export function orderedTrieRootInPlace(values: readonly Uint8Array[], options: HashOptions = {}): Uint8Array {
  return trieRoot(values, options.keccak ?? defaultKeccak256, true);
}

function trieRoot(values: readonly Uint8Array[], keccak: Keccak256, inPlace: boolean): Uint8Array {
  return rootOf(values.length, (i) => values[i]!, keccak, inPlace);
}

/**
 * {@link orderedTrieRootInPlace} of `count` values given one at a time: `valueAt(i)` is asked for
 * each position once, in the byte order of the keys (1..127, 0, 128 and up), and its leaf is
 * hashed before the value after next is asked for (two sibling leaves may be hashed together), so
 * that a value may be written where the one two before it was: the values of a block need not all
 * be held at once.
 */
export function orderedTrieRootOf(
  count: number,
  valueAt: (index: number) => Uint8Array,
  options: HashOptions = {},
): Uint8Array {
  return rootOf(count, valueAt, options.keccak ?? defaultKeccak256, true);
}

function rootOf(
  count: number,
  valueAt: (index: number) => Uint8Array,
  keccak: Keccak256,
  inPlace: boolean,
): Uint8Array {
  if (count === 0) return EMPTY_TRIE_ROOT.slice();
  const order = indexKeyOrder(count);
  const builder = new OrderedTrieBuilder(
    new KeyNibbles(order),
    (p) => valueAt(order[p]!),
    keccak,
    pairKeccak256(keccak),
    inPlace,
  );
  return keccak(builder.node(0, count, 0));
}

/** A trie's root and the nodes on one key's path, root first. */
export interface OrderedTrieProof {
  root: Uint8Array;
  /**
   * RLP of each node from the root to the leaf, as `eth_getProof` gives them: the root, then every
   * node its parent references by hash (a node under 32 bytes lies inside its parent, not here).
   */
  proof: Uint8Array[];
}

/**
 * The root of {@link orderedTrieRoot}'s trie and the proofs of positions `indexes` in it, built by
 * the same one pass, so that a proof always belongs to the root the library computes: one trie
 * build for any number of proofs.
 *
 * @throws RangeError when an index is not a position of `values`.
 * @example
 * const { root, proofs } = orderedTrieProofs(encodedReceipts, [0, 3]) // proofs[1][0] hashes to root
 */
export function orderedTrieProofs(
  values: readonly Uint8Array[],
  indexes: readonly number[],
  options: HashOptions = {},
): { root: Uint8Array; proofs: Uint8Array[][] } {
  for (const index of indexes)
    if (!Number.isSafeInteger(index) || index < 0 || index >= values.length)
      throw new RangeError(
        values.length === 0
          ? `index must be a position of the values, and there are none: no proof of an empty trie, got ${index}.`
          : `index must be a position of the ${values.length} values (0 to ${values.length - 1}), got ${index}.`,
      );
  if (values.length === 0) return { root: EMPTY_TRIE_ROOT.slice(), proofs: [] };
  const keccak = options.keccak ?? defaultKeccak256;
  const order = indexKeyOrder(values.length);
  const positionOf = new Int32Array(values.length);
  order.forEach((index, position) => (positionOf[index] = position));
  const proven = new Uint8Array(values.length);
  for (const index of indexes) proven[positionOf[index]!] = 1;
  // Prefix sums: whether a span of sorted positions holds a proven one, in constant time.
  const provenBefore = new Int32Array(values.length + 1);
  for (let p = 0; p < values.length; p++) provenBefore[p + 1] = provenBefore[p]! + proven[p]!;
  const builder = new OrderedTrieBuilder(
    new KeyNibbles(order),
    (p) => values[order[p]!]!,
    keccak,
    pairKeccak256(keccak),
    false,
    (lo, hi) => provenBefore[hi]! > provenBefore[lo]!,
  );
  const rootNode = builder.node(0, order.length, 0);
  const proofs = indexes.map((index) => {
    const position = positionOf[index]!;
    // Only the root and the nodes referenced by hash stand alone; smaller ones are in their parent's bytes.
    return builder.collected
      .filter(
        ({ lo, hi, encoding }) => lo <= position && position < hi && (encoding === rootNode || encoding.length >= 32),
      )
      .map(({ encoding }) => encoding)
      .reverse();
  });
  return { root: keccak(rootNode), proofs };
}

/**
 * The root of {@link orderedTrieRoot}'s trie and the proof of position `index` in it (see
 * {@link orderedTrieProofs}).
 *
 * @throws RangeError when `index` is not a position of `values`.
 * @example
 * const { root, proof } = orderedTrieProof(encodedReceipts, 3) // proof[0] hashes to root
 */
export function orderedTrieProof(
  values: readonly Uint8Array[],
  index: number,
  options: HashOptions = {},
): OrderedTrieProof {
  const { root, proofs } = orderedTrieProofs(values, [index], options);
  return { root, proof: proofs[0]! };
}
