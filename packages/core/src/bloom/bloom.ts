import { checkBytes, isBytesOf } from '../bytes/check-bytes.js';
import { defaultKeccak256, transientKeccak256, type HashOptions, type Keccak256 } from '../keccak/keccak.js';
import { ADDRESS_BYTES, TOPIC_BYTES, type Log, type Receipt } from '../receipts/receipt.js';

/** Size of a logs bloom: 2048 bits. */
export const BLOOM_BYTES = 256;

/** Bloom bit i (0-2047) of the big-endian 2048-bit bloom is in byte 255 - (i >> 3). */
function setBit(bloom: Uint8Array, bit: number): void {
  bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
}

/**
 * Bloom bit number `pair` (0, 1 or 2) of an item (address or topic), as in the Yellow
 * Paper: the low 11 bits of byte pair `pair` of the item's keccak `hash`.
 */
function bloomBit(hash: Uint8Array, pair: number): number {
  return ((hash[2 * pair]! << 8) | hash[2 * pair + 1]!) & 2047;
}

/**
 * This process's secret for the table's keys: items chosen to share a key must be chosen knowing it, which a block's
 * author writing them in advance does not. From `Math.random`, which V8 seeds from the system's entropy in each process
 * and thread. The host's `crypto`, the stronger source, took a process about 9 ms to load, where `verify block` of a
 * small block takes some 50 in all; and no more is needed, since items that share keys cost a Keccak each (MAX_PROBES).
 */
const KEY_SECRET = (Math.random() * 2 ** 32) | 0;

/**
 * The hash-table key of `item`, its words (see itemWord) written to `words` as they are read, for its comparisons and
 * its entry: every word mixed in after the secret, each by a rotation and a multiplication, so that a difference in a
 * word reaches the next one through carries that depend on the secret (a shift-and-xor mix would carry a difference in
 * a word's top bit unchanged, for a later word to cancel), then murmur3's finalizer, and 30 bits kept. It once mixed
 * only the first, middle and last four bytes, so that topics alike there (a block's author can write 20,000 of them)
 * fell into one slot chain, each lookup comparing with all before it: 3.8 s for a 2.9 MB block where distinct items
 * took 0.12 s.
 */
function readItem(item: Uint8Array, words: Int32Array, secret: number): number {
  let h = secret ^ item.length;
  for (let w = 0, count = (item.length + 3) >> 2; w < count; w++) {
    const word = itemWord(item, w);
    words[w] = word;
    h ^= word;
    h = Math.imul((h << 13) | (h >>> 19), 0x9e3779b1);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & 0x3fffffff;
}

/** Big-endian 32-bit word `w` of `item`, zero-padded past its end. */
function itemWord(item: Uint8Array, w: number): number {
  const i = 4 * w;
  if (i + 4 <= item.length) return (item[i]! << 24) | (item[i + 1]! << 16) | (item[i + 2]! << 8) | item[i + 3]!;
  let word = 0;
  for (let k = 0; k < 4; k++) word = (word << 8) | (i + k < item.length ? item[i + k]! : 0);
  return word;
}

/** The default Keccak as a hasher takes it: a hasher of it, and only such a one, is kept for the next block. */
const DEFAULT_TRANSIENT = transientKeccak256(defaultKeccak256);

/** Slots of a new cache: small, so that a block of a few logs zeroes 2 KB of tables, not 31; a larger one doubles them. */
const INITIAL_SLOTS = 64;
/**
 * Items the cache holds at most: past that it starts over. A block repeats its few contracts and
 * event signatures (mainnet 15537394: 10,052 distinct items of 50,188), which stay well within it;
 * a million unique receipts have millions of items that never repeat, and a table grown to hold
 * them all cost per receipt 3.2x what 10,000 receipts cost (its memory, and a cache miss a lookup).
 */
const MAX_ENTRIES = 1 << 15;
/** Topics a log has at most (consensus): the places at which the previous log's items are remembered. */
const MAX_TOPICS = 4;
/**
 * Slots a lookup probes at most. The table is at most half full and its keys spread items evenly, so a lookup probes
 * two or three; past this bound the item is hashed without being kept, so that items that share keys anyway (by chance,
 * or chosen by someone who learned the secret) cost a Keccak each, never a comparison with every item before.
 */
const MAX_PROBES = 64;
/** The entry that stands for an item hashed but not kept ({@link MAX_PROBES}): its bits are those of the last such. */
const UNKEPT = -1;
/**
 * Slots up to which a finished hasher is kept for the next block ({@link BloomHasher.borrow}): a modern block's items
 * fill 2,048 to 4,096, and emptying 8,192 slots for a small block costs a few microseconds.
 */
const KEPT_SLOTS = 1 << 13;

/**
 * Computes bloom bits of addresses and topics, remembering each distinct item.
 * Blocks repeat a few contracts and event signatures thousands of times (a token
 * `Transfer` topic, a router address), so a block-wide cache saves most hashes.
 *
 * The cache is an open-addressing table in typed arrays (linear probing, at most
 * half full): a lookup or an insertion allocates nothing, where a Map of entry
 * objects cost a measured 14-28% of the bloom step in allocation and collection.
 * Each entry keeps a copy of its item as 32-bit words, so that a lookup compares
 * 8 words with the 32 bytes of a topic read once, where comparing two byte arrays
 * read 64 bytes (measured 20% faster lookups; nearly every lookup is a repeat).
 *
 * The table holds at most {@link MAX_ENTRIES} items, then starts over. Its keys mix every word of an item with a
 * secret of the process (readItem), and a lookup follows at most {@link MAX_PROBES} slots: items written to share keys
 * cost a block linear time, not a comparison of each with all before it.
 *
 * A log whose address, or topic at a place, is the very object of the log before it
 * (the request decoder shares the view of a repeated item) takes that item's entry
 * without a lookup: 40,024 of the 50,188 items of a 10,041-log block.
 */
export class BloomHasher {
  /** The Keccak given, its digest read at once (three bits kept, see transientKeccak256). */
  readonly #keccak: Keccak256;
  /** Slot → the key (readItem) + 1 of the entry there, 0 when empty. */
  #slotKeys = new Int32Array(INITIAL_SLOTS);
  /** Slot → index of the entry there. */
  #slotEntries = new Int32Array(INITIAL_SLOTS);
  /** Entry e → its item's length at 2e, and where its words start in #words at 2e + 1. */
  #spans = new Int32Array(INITIAL_SLOTS);
  /** Every entry's item as big-endian 32-bit words (see itemWord), entry after entry. */
  #words = new Int32Array(8 * (INITIAL_SLOTS >> 1));
  #wordsUsed = 0;
  #entries = 0;
  /** Entry e → its three bloom bits at 3e, 3e + 1, 3e + 2. */
  #bits = new Uint16Array(3 * (INITIAL_SLOTS >> 1));
  /** The previous log's address and topics, by place, and their entries. */
  #lastItems = new Array<Uint8Array | undefined>(1 + MAX_TOPICS).fill(undefined);
  #lastEntries = new Int32Array(1 + MAX_TOPICS);
  /** The item looked up, as words (see itemWord), read once by readItem. */
  #itemWords = new Int32Array(8);
  /** The bits of the last item hashed but not kept. */
  readonly #unkeptBits = new Uint16Array(3);

  /** The secret of its keys: the process's, or one a test gives to play a block's author who knows it. */
  readonly #secret: number;
  #unkeptCount = 0;

  constructor(keccak: Keccak256 = defaultKeccak256, secret: number = KEY_SECRET) {
    this.#keccak = transientKeccak256(keccak);
    this.#secret = secret;
  }

  /** A hasher of the default Keccak that a block finished with ({@link giveBack}), kept for the next. */
  static #spare: BloomHasher | undefined;

  /**
   * A hasher for one block's items: of the default Keccak, the one the last block gave back, emptied, where there is
   * one. Its tables are then of the size the last block grew them to, where a new hasher grows them from 64 slots
   * again, rehashing its entries at each doubling (`blockBloom` of mainnet-15573637 0.53 -> 0.49 ms, of 22869878 0.38 ->
   * 0.36 ms). Give it back once the block's items are all added, and use it no more.
   */
  static borrow(keccak: Keccak256 = defaultKeccak256): BloomHasher {
    const spare = BloomHasher.#spare;
    if (keccak !== defaultKeccak256 || spare === undefined) return new BloomHasher(keccak);
    BloomHasher.#spare = undefined;
    spare.#forget();
    spare.#unkeptCount = 0;
    return spare;
  }

  /** Ends the use of a hasher from {@link borrow}: the next block's may be this one. */
  giveBack(): void {
    if (this.#slotKeys.length > KEPT_SLOTS || this.#keccak !== DEFAULT_TRANSIENT) return;
    // The last log's items are views of its block's bytes (a scanned text's, megabytes): not held past the block.
    this.#lastItems.fill(undefined);
    BloomHasher.#spare = this;
  }

  /** The distinct items it holds. */
  get size(): number {
    return this.#entries;
  }

  /** The items it hashed without keeping them, their slot chain past {@link MAX_PROBES}: none but for chosen items. */
  get unkept(): number {
    return this.#unkeptCount;
  }

  /** ORs the three bloom bits of `item` into `bloom`. */
  add(bloom: Uint8Array, item: Uint8Array): void {
    this.#setBits(bloom, this.#entry(item));
  }

  /** ORs the bits of `log`'s address and topics into `bloom`. */
  addLog(bloom: Uint8Array, log: Log): void {
    this.#setBits(bloom, this.#entryAt(0, log.address));
    const topics = log.topics;
    for (let i = 0; i < topics.length; i++)
      this.#setBits(bloom, i < MAX_TOPICS ? this.#entryAt(1 + i, topics[i]!) : this.#entry(topics[i]!));
  }

  #setBits(bloom: Uint8Array, entry: number): void {
    const bits = entry === UNKEPT ? this.#unkeptBits : this.#bits;
    const at = entry === UNKEPT ? 0 : 3 * entry;
    setBit(bloom, bits[at]!);
    setBit(bloom, bits[at + 1]!);
    setBit(bloom, bits[at + 2]!);
  }

  /** The entry of `item` at `place` of its log: the previous log's there when `item` is the same object. */
  #entryAt(place: number, item: Uint8Array): number {
    if (this.#lastItems[place] === item) return this.#lastEntries[place]!;
    const entry = this.#entry(item);
    // An item not kept has no entry of its own to remember.
    this.#lastItems[place] = entry === UNKEPT ? undefined : item;
    this.#lastEntries[place] = entry;
    return entry;
  }

  /** The entry of `item`, hashing it the first time it is seen; UNKEPT where its slot chain is too long to follow. */
  #entry(item: Uint8Array): number {
    if (this.#entries === MAX_ENTRIES) this.#forget();
    const count = (item.length + 3) >> 2;
    if (count > this.#itemWords.length) this.#itemWords = new Int32Array(count);
    const key = readItem(item, this.#itemWords, this.#secret) + 1;
    const mask = this.#slotKeys.length - 1;
    let slot = key & mask;
    for (let probes = 0, k = this.#slotKeys[slot]!; k !== 0; k = this.#slotKeys[slot]!) {
      if (k === key) {
        const entry = this.#slotEntries[slot]!;
        if (this.#holds(entry, item.length, count)) return entry;
      }
      if (++probes === MAX_PROBES) return this.#unkept(item);
      slot = (slot + 1) & mask;
    }
    return this.#insert(item, count, key, slot);
  }

  /** Whether `entry` is the item of `length` bytes whose `count` words are in #itemWords. */
  #holds(entry: number, length: number, count: number): boolean {
    if (this.#spans[2 * entry] !== length) return false;
    const words = this.#words;
    const item = this.#itemWords;
    const start = this.#spans[2 * entry + 1]!;
    for (let w = 0; w < count; w++) if (words[start + w] !== item[w]) return false;
    return true;
  }

  /** Hashes `item`, whose `count` words are in #itemWords, and records it as a new entry in the free `slot`. */
  #insert(item: Uint8Array, count: number, key: number, slot: number): number {
    const entry = this.#entries++;
    const hash = this.#keccak(item);
    if (this.#wordsUsed + count > this.#words.length) this.#words = grown(this.#words, this.#wordsUsed + count);
    const words = this.#words;
    const itemWords = this.#itemWords;
    for (let w = 0; w < count; w++) words[this.#wordsUsed + w] = itemWords[w]!;
    this.#spans[2 * entry] = item.length;
    this.#spans[2 * entry + 1] = this.#wordsUsed;
    this.#wordsUsed += count;
    this.#bits[3 * entry] = bloomBit(hash, 0);
    this.#bits[3 * entry + 1] = bloomBit(hash, 1);
    this.#bits[3 * entry + 2] = bloomBit(hash, 2);
    this.#slotKeys[slot] = key;
    this.#slotEntries[slot] = entry;
    if (2 * this.#entries >= this.#slotKeys.length) this.#grow();
    return entry;
  }

  /** Hashes `item` without keeping it: its bits go to #unkeptBits. */
  #unkept(item: Uint8Array): number {
    this.#unkeptCount++;
    const hash = this.#keccak(item);
    this.#unkeptBits[0] = bloomBit(hash, 0);
    this.#unkeptBits[1] = bloomBit(hash, 1);
    this.#unkeptBits[2] = bloomBit(hash, 2);
    return UNKEPT;
  }

  /** Empties the cache (its tables keep their size): every entry, and the previous log's items that name them. */
  #forget(): void {
    this.#slotKeys.fill(0);
    this.#entries = 0;
    this.#wordsUsed = 0;
    this.#lastItems.fill(undefined);
  }

  #place(key: number, entry: number): void {
    const mask = this.#slotKeys.length - 1;
    let slot = key & mask;
    while (this.#slotKeys[slot] !== 0) slot = (slot + 1) & mask;
    this.#slotKeys[slot] = key;
    this.#slotEntries[slot] = entry;
  }

  /** Doubles the table (rehashing every entry) and the per-entry stores, keeping the table under half full. */
  #grow(): void {
    const keys = this.#slotKeys;
    const entries = this.#slotEntries;
    this.#slotKeys = new Int32Array(keys.length * 2);
    this.#slotEntries = new Int32Array(keys.length * 2);
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== 0) this.#place(keys[slot]!, entries[slot]!);
    this.#spans = grown(this.#spans, this.#spans.length * 2);
    this.#bits = grown(this.#bits, this.#bits.length * 2);
  }
}

/** A copy of `array` with room for at least `length` elements (twice as many, or more). */
function grown<T extends Int32Array | Uint16Array>(array: T, length: number): T {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(length, array.length * 2));
  copy.set(array);
  return copy;
}

/**
 * Logs up to which a bloom hashes each item directly: a receipt's few logs repeat too little to
 * pay for a {@link BloomHasher}'s tables (when they started at 31 KB: measured 145 µs a receipt
 * decoded with them, 27 µs without, for a receipt of one or two logs).
 */
const DIRECT_LOGS = 8;

/**
 * Holds each log's items to the bytes a log has (a 20-byte address, 32-byte topics): a TypeError or RangeError naming
 * the first that is not (`path` names the list). A bloom of other items is no log's, and would be returned as one.
 */
function checkLogItems(logs: readonly Log[], path: string): void {
  // Each item tested first, its name made only for one that fails: a block's logs are tens of thousands of items.
  logs.forEach((log, i) => {
    if (!isBytesOf(log.address, ADDRESS_BYTES)) checkBytes(log.address, `${path}[${i}].address`, ADDRESS_BYTES);
    log.topics.forEach((topic, j) => {
      if (!isBytesOf(topic, TOPIC_BYTES)) checkBytes(topic, `${path}[${i}].topics[${j}]`, TOPIC_BYTES);
    });
  });
}

/** The sizes an item of a bloom has: a log's address or one of its topics. */
const ITEM_BYTES = [ADDRESS_BYTES, TOPIC_BYTES] as const;

/**
 * Bloom of a list of logs, as a receipt carries it.
 * @throws TypeError when an address or topic is not a Uint8Array (hex text), RangeError when an address is not 20
 * bytes or a topic not 32, naming it (`logs[0].address`).
 * @example logsBloom([]) // 256 zero bytes
 */
export function logsBloom(logs: readonly Log[], options: HashOptions = {}): Uint8Array {
  checkLogItems(logs, 'logs');
  return bloomOfLogs(logs, options);
}

/**
 * {@link logsBloom} of logs whose items are not checked here: a receipt's encoding checks them as it writes them, and
 * names a faulty one as the receipt's (InvalidReceiptError).
 */
export function bloomOfLogs(logs: readonly Log[], options: HashOptions = {}): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  if (logs.length <= DIRECT_LOGS) {
    const keccak = transientKeccak256(options.keccak ?? defaultKeccak256);
    const add = (item: Uint8Array) => {
      const hash = keccak(item);
      for (let pair = 0; pair < 3; pair++) setBit(bloom, bloomBit(hash, pair));
    };
    for (const log of logs) {
      add(log.address);
      log.topics.forEach(add);
    }
    return bloom;
  }
  const hasher = BloomHasher.borrow(options.keccak);
  for (const log of logs) hasher.addLog(bloom, log);
  hasher.giveBack();
  return bloom;
}

/**
 * Block bloom: the OR of every receipt's logs bloom.
 * @throws TypeError or RangeError as {@link logsBloom}, naming the item (`receipts[2].logs[0].address`).
 */
export function blockBloom(receipts: readonly Receipt[], options: HashOptions = {}): Uint8Array {
  receipts.forEach((receipt, i) => checkLogItems(receipt.logs, `receipts[${i}].logs`));
  const hasher = BloomHasher.borrow(options.keccak);
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const receipt of receipts) for (const log of receipt.logs) hasher.addLog(bloom, log);
  hasher.giveBack();
  return bloom;
}

/**
 * The three bloom bits of an item (an address or a topic), to test many blooms for one item
 * without hashing it again (a range proof tests every header of a range against its filter).
 * @throws TypeError when `item` is not a Uint8Array (hex text), RangeError when it is neither 20 bytes nor 32.
 * @example bloomHasBits(header.logsBloom, bloomBits(address)) // false: no log of `address`
 */
export function bloomBits(item: Uint8Array, options: HashOptions = {}): Uint16Array {
  checkBytes(item, 'item', ITEM_BYTES);
  return itemBits(item, options);
}

/** {@link bloomBits} of an item already held to its contract. */
function itemBits(item: Uint8Array, options: HashOptions): Uint16Array {
  const hash = transientKeccak256(options.keccak ?? defaultKeccak256)(item);
  return Uint16Array.of(bloomBit(hash, 0), bloomBit(hash, 1), bloomBit(hash, 2));
}

/**
 * Whether every bit of `bits` (from {@link bloomBits}) is set in `bloom`. Not checked here: a range check calls it for
 * every header of the range, each bloom a decoded header's 256 bytes.
 */
export function bloomHasBits(bloom: Uint8Array, bits: Uint16Array): boolean {
  for (const bit of bits) if ((bloom[BLOOM_BYTES - 1 - (bit >> 3)]! & (1 << (bit & 7))) === 0) return false;
  return true;
}

/**
 * Whether `item` (an address or a topic) may be in `bloom`: false means certainly
 * absent, true means present or a false positive.
 * @throws TypeError when `bloom` or `item` is not a Uint8Array (hex text among others: its characters are no bytes),
 * RangeError when `bloom` is not 256 bytes or `item` neither 20 nor 32, naming it.
 * @example bloomContains(header.logsBloom, hexToBytes('0xdac17f958d2ee523a2206206994597c13d831ec7')) // true or false
 */
export function bloomContains(bloom: Uint8Array, item: Uint8Array, options: HashOptions = {}): boolean {
  checkBytes(bloom, 'bloom', BLOOM_BYTES);
  checkBytes(item, 'item', ITEM_BYTES);
  return bloomHasBits(bloom, itemBits(item, options));
}
