import { bytesEqual } from '../bytes/hex.js';
import { defaultKeccak256, type HashOptions, type Keccak256 } from '../keccak/keccak.js';
import type { Log, Receipt } from '../receipts/types.js';

/** Size of a logs bloom: 2048 bits. */
export const BLOOM_BYTES = 256;

/**
 * The three bloom bit indexes of an item (address or topic), as in the Yellow Paper:
 * the low 11 bits of each of the first three byte pairs of keccak(item).
 * Packed into one number (3 x 11 bits) so a cache entry costs no allocation.
 */
function bloomBits(hash: Uint8Array): number {
  const b0 = ((hash[0]! << 8) | hash[1]!) & 2047;
  const b1 = ((hash[2]! << 8) | hash[3]!) & 2047;
  const b2 = ((hash[4]! << 8) | hash[5]!) & 2047;
  return b0 * 4194304 + b1 * 2048 + b2;
}

function setBit(bloom: Uint8Array, bit: number): void {
  // Bit i of the 2048-bit big-endian integer lives in byte 255 - (i >> 3).
  bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
}

function setBits(bloom: Uint8Array, packed: number): void {
  setBit(bloom, Math.floor(packed / 4194304));
  setBit(bloom, Math.floor(packed / 2048) & 2047);
  setBit(bloom, packed & 2047);
}

/** FNV-1a over the item's bytes: the cache's bucket key. */
function itemHash(item: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < item.length; i++) h = Math.imul(h ^ item[i]!, 0x01000193);
  return h;
}

interface CacheEntry {
  item: Uint8Array;
  packed: number;
  next: CacheEntry | undefined;
}

/**
 * Computes bloom bits of addresses and topics, remembering each distinct item.
 * Blocks repeat a few contracts and event signatures thousands of times (a token
 * `Transfer` topic, a router address), so a block-wide cache saves most hashes.
 * Keyed by a cheap numeric hash with byte comparison: building a string key per
 * item costs more than the lookup saves.
 */
export class BloomHasher {
  readonly #keccak: Keccak256;
  readonly #cache = new Map<number, CacheEntry>();

  constructor(keccak: Keccak256 = defaultKeccak256) {
    this.#keccak = keccak;
  }

  /** Packed bit indexes of `item`. */
  bits(item: Uint8Array): number {
    const key = itemHash(item);
    const head = this.#cache.get(key);
    for (let entry = head; entry !== undefined; entry = entry.next) {
      if (bytesEqual(entry.item, item)) return entry.packed;
    }
    const packed = bloomBits(this.#keccak(item));
    this.#cache.set(key, { item, packed, next: head });
    return packed;
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
  const packed = bloomBits((options.keccak ?? defaultKeccak256)(item));
  const probe = new Uint8Array(BLOOM_BYTES);
  setBits(probe, packed);
  for (let i = 0; i < BLOOM_BYTES; i++) if ((bloom[i]! & probe[i]!) !== probe[i]) return false;
  return true;
}
