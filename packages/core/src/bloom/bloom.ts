import { bytesEqual } from '../bytes/hex.js';
import { defaultKeccak256, type HashOptions, type Keccak256 } from '../keccak/keccak.js';
import type { Log, Receipt } from '../receipts/types.js';

/** Size of a logs bloom: 2048 bits. */
export const BLOOM_BYTES = 256;

/** Where an item's three bits go: bit i of the 2048-bit big-endian bloom is in byte 255 - (i >> 3). */
interface BloomBits {
  byte0: number;
  mask0: number;
  byte1: number;
  mask1: number;
  byte2: number;
  mask2: number;
}

/**
 * The three bloom bits of an item (address or topic), as in the Yellow Paper:
 * the low 11 bits of each of the first three byte pairs of keccak(item).
 */
function bloomBits(hash: Uint8Array): BloomBits {
  const bit0 = ((hash[0]! << 8) | hash[1]!) & 2047;
  const bit1 = ((hash[2]! << 8) | hash[3]!) & 2047;
  const bit2 = ((hash[4]! << 8) | hash[5]!) & 2047;
  return {
    byte0: BLOOM_BYTES - 1 - (bit0 >> 3),
    mask0: 1 << (bit0 & 7),
    byte1: BLOOM_BYTES - 1 - (bit1 >> 3),
    mask1: 1 << (bit1 & 7),
    byte2: BLOOM_BYTES - 1 - (bit2 >> 3),
    mask2: 1 << (bit2 & 7),
  };
}

function setBits(bloom: Uint8Array, bits: BloomBits): void {
  bloom[bits.byte0]! |= bits.mask0;
  bloom[bits.byte1]! |= bits.mask1;
  bloom[bits.byte2]! |= bits.mask2;
}

/**
 * Bucket key of an item: its first, middle and last four bytes mixed, kept
 * within V8's small-integer range so the Map key needs no allocation. Collisions
 * only cost a byte comparison.
 */
function itemKey(item: Uint8Array): number {
  const n = item.length;
  if (n < 4) return n;
  const word = (i: number) => (item[i]! << 24) | (item[i + 1]! << 16) | (item[i + 2]! << 8) | item[i + 3]!;
  const h = Math.imul(word(n - 4), 0x9e3779b1) ^ Math.imul(word((n >> 1) - 2), 0x85ebca6b) ^ word(0) ^ n;
  return h & 0x3fffffff;
}

interface CacheEntry {
  item: Uint8Array;
  bits: BloomBits;
  next: CacheEntry | undefined;
}

/**
 * Computes bloom bits of addresses and topics, remembering each distinct item.
 * Blocks repeat a few contracts and event signatures thousands of times (a token
 * `Transfer` topic, a router address), so a block-wide cache saves most hashes.
 */
export class BloomHasher {
  readonly #keccak: Keccak256;
  readonly #cache = new Map<number, CacheEntry>();

  constructor(keccak: Keccak256 = defaultKeccak256) {
    this.#keccak = keccak;
  }

  /** The bloom bits of `item`. */
  bits(item: Uint8Array): BloomBits {
    const key = itemKey(item);
    const head = this.#cache.get(key);
    for (let entry = head; entry !== undefined; entry = entry.next) {
      if (bytesEqual(entry.item, item)) return entry.bits;
    }
    const bits = bloomBits(this.#keccak(item));
    this.#cache.set(key, { item, bits, next: head });
    return bits;
  }

  /** ORs the bits of `log`'s address and topics into `bloom`. */
  addLog(bloom: Uint8Array, log: Log): void {
    setBits(bloom, this.bits(log.address));
    for (const topic of log.topics) setBits(bloom, this.bits(topic));
  }
}

/** ORs `source` into `target`. */
export function orBloom(target: Uint8Array, source: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) target[i]! |= source[i]!;
}

/**
 * Bloom of a list of logs, as a receipt carries it.
 * @example logsBloom([]) // 256 zero bytes
 */
export function logsBloom(logs: readonly Log[], options: HashOptions = {}): Uint8Array {
  const hasher = new BloomHasher(options.keccak);
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) hasher.addLog(bloom, log);
  return bloom;
}

/** Block bloom: the OR of every receipt's logs bloom. */
export function blockBloom(receipts: readonly Receipt[], options: HashOptions = {}): Uint8Array {
  const hasher = new BloomHasher(options.keccak);
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const receipt of receipts) for (const log of receipt.logs) hasher.addLog(bloom, log);
  return bloom;
}

/**
 * Whether `item` (an address or a topic) may be in `bloom`: false means certainly
 * absent, true means present or a false positive.
 */
export function bloomContains(bloom: Uint8Array, item: Uint8Array, options: HashOptions = {}): boolean {
  if (bloom.length !== BLOOM_BYTES) throw new RangeError(`bloom must be ${BLOOM_BYTES} bytes, got ${bloom.length}`);
  const bits = bloomBits((options.keccak ?? defaultKeccak256)(item));
  return (bloom[bits.byte0]! & bits.mask0) !== 0 && (bloom[bits.byte1]! & bits.mask1) !== 0 && (bloom[bits.byte2]! & bits.mask2) !== 0;
}
