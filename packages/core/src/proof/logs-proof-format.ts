/**
 * The logs-proof artifact, version 1 (docs/proofs.md): an 8-byte signature, then RLP items one
 * after another, so that it is written and read as a stream.
 *
 *   signature  0x89 'E' 'L' 'P' 0x0d 0x0a 0x1a 0x0a
 *   preamble   [version, chainId, fromBlock, toBlock, [address…], [[topic…]…]]
 *   a record   [headerRlp] or [headerRlp, [receipt…]], one per block from `fromBlock` to `toBlock`
 *
 * `headerRlp` is the header's RLP as a byte string (its keccak is the block hash) and each
 * receipt is its consensus encoding, the receipts trie's leaf. Records carry receipts exactly for
 * the blocks whose bloom may match the filter.
 */
import { decode, encode, type NestedUint8Array } from '@ethereumjs/rlp';
import { isBytes } from '../bytes/check-bytes.js';
import { quantityBytes } from '../bytes/rlp-writer.js';
import type { LogsFilter } from './logs-filter.js';
import { readRlp, rlpItem, rlpLengthText } from '../bytes/rlp-reader.js';

/**
 * The artifact's first bytes. The high first byte and the CR LF, Ctrl-Z and LF after the name
 * catch a copy through a text-mode channel, as PNG's signature does.
 */
export const LOGS_PROOF_SIGNATURE = Uint8Array.of(0x89, 0x45, 0x4c, 0x50, 0x0d, 0x0a, 0x1a, 0x0a);

/** The format version this library writes and reads. */
export const LOGS_PROOF_VERSION = 1;

/**
 * Bytes a record may take at most unless the reader is told otherwise: a block's receipts are a
 * few MiB on the busiest chains, so a longer item is a damaged or hostile artifact.
 */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** What a logs proof covers: a chain, a range of blocks and a filter. */
export interface LogsRange {
  chainId: number;
  fromBlock: number;
  toBlock: number;
  filter: LogsFilter;
}

/** The preamble item of a range. */
export function encodePreamble(range: LogsRange): Uint8Array {
  const { chainId, fromBlock, toBlock, filter } = range;
  const quantity = (n: number) => quantityBytes(BigInt(n));
  return encode([
    quantity(LOGS_PROOF_VERSION),
    quantity(chainId),
    quantity(fromBlock),
    quantity(toBlock),
    [...filter.addresses],
    filter.topics.map((alternatives) => [...alternatives]),
  ]);
}

/** One block's record: its header's RLP, and its receipts' consensus encodings when it may match. */
export function encodeRecord(headerRlp: Uint8Array, receipts: readonly Uint8Array[] | null): Uint8Array {
  return encode(receipts === null ? [headerRlp] : [headerRlp, [...receipts]]);
}

/** A record read back. */
export interface LogsProofRecord {
  headerRlp: Uint8Array;
  receipts: Uint8Array[] | null;
}

type Item = Uint8Array | NestedUint8Array;

/** A quantity of at most 2^53 - 1, canonical (no leading zero), or null. */
function safeQuantity(item: Item | undefined): number | null {
  if (!isBytes(item) || item.length > 7 || item[0] === 0) return null;
  let value = 0;
  for (const byte of item) value = value * 256 + byte;
  return Number.isSafeInteger(value) ? value : null;
}

/** Why {@link safeQuantity} read no number: a canonical quantity past 2^53-1, or no canonical quantity. */
function quantityFault(item: Item | undefined): string {
  const canonical = isBytes(item) && item[0] !== 0;
  return canonical ? 'is more than 2^53-1, the largest it can be' : 'is not a canonical quantity';
}

/** Decodes an RLP item, or says why it is none. */
function decodeItem(bytes: Uint8Array): Item | string {
  try {
    // Read in place first: @ethereumjs/rlp's decoder recurses, so lists nested thousands deep would overflow the stack.
    readRlp(bytes, rlpItem());
    return decode(bytes);
  } catch (error) {
    return `not RLP (${(error as Error).message})`;
  }
}

/**
 * Reads the preamble item: the range, or why it is no preamble of this version. The filter's
 * sizes are not checked here (see logsFilterProblem).
 */
export function decodePreamble(bytes: Uint8Array): LogsRange | string {
  const item = decodeItem(bytes);
  if (typeof item === 'string') return `the preamble is ${item}`;
  if (!Array.isArray(item) || item.length === 0) return 'the preamble is not a list';
  const version = safeQuantity(item[0]);
  if (version === null || version === undefined) return `the preamble's format version ${quantityFault(item[0])}`;
  if (version !== LOGS_PROOF_VERSION)
    return `format version ${version} is not supported; this library reads version ${LOGS_PROOF_VERSION}`;
  if (item.length !== 6) return `the preamble has ${item.length} items, expected 6`;
  const [chainId, fromBlock, toBlock] = [item[1], item[2], item[3]].map(safeQuantity);
  if (chainId === null || chainId === undefined) return `the preamble chain id ${quantityFault(item[1])}`;
  if (fromBlock === null || fromBlock === undefined) return `the preamble's first block ${quantityFault(item[2])}`;
  if (toBlock === null || toBlock === undefined) return `the preamble's last block ${quantityFault(item[3])}`;
  if (fromBlock > toBlock) return `the preamble range runs backwards (${fromBlock} to ${toBlock})`;
  const addresses = item[4];
  const topics = item[5];
  if (!Array.isArray(addresses) || !addresses.every(isBytes))
    return 'the preamble addresses are not a list of byte strings';
  if (!Array.isArray(topics) || !topics.every((p) => Array.isArray(p) && p.every(isBytes)))
    return 'the preamble topics are not a list of lists of byte strings';
  return { chainId, fromBlock, toBlock, filter: { addresses, topics: topics } };
}

/** Reads a record: the header's RLP and the receipts, or why it is no record. */
export function decodeRecord(bytes: Uint8Array): LogsProofRecord | string {
  const item = decodeItem(bytes);
  if (typeof item === 'string') return `the record is ${item}`;
  if (!Array.isArray(item) || (item.length !== 1 && item.length !== 2))
    return 'the record is not a list of a header and, at most, its receipts';
  const [headerRlp, receipts] = item;
  if (!isBytes(headerRlp)) return "the record's header is not a byte string";
  if (receipts === undefined) return { headerRlp, receipts: null };
  if (!Array.isArray(receipts) || !receipts.every(isBytes))
    return "the record's receipts are not a list of byte strings";
  return { headerRlp, receipts };
}

/**
 * Collects a stream's chunks and hands out its items whole: the signature, then one RLP item at a
 * time. Our own framing, because an RLP decoder needs the whole item and a stream gives chunks.
 */
export class ItemReader {
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #handedOut = 0;
  readonly #maxItemBytes: number;

  constructor(maxItemBytes = MAX_RECORD_BYTES) {
    this.#maxItemBytes = maxItemBytes;
  }

  /** Bytes received and not yet handed out. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Bytes handed out: where in the stream the next item begins. */
  get handedOut(): number {
    return this.#handedOut;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
  }

  /** The next `n` bytes, or null until that many have come. */
  take(n: number): Uint8Array | null {
    if (this.#buffered < n) return null;
    const out = this.#peek(n);
    this.#drop(n);
    return out;
  }

  /**
   * The next whole RLP item, null until all of it has come, or why the bytes can be no item
   * (a length over the limit).
   */
  nextItem(): Uint8Array | null | string {
    if (this.#buffered === 0) return null;
    const first = this.#peek(1)[0]!;
    let lengthOfLength = 0;
    let headerBytes = 1;
    let payload = 0;
    if (first >= 0xf8) lengthOfLength = first - 0xf7;
    else if (first >= 0xc0) payload = first - 0xc0;
    else if (first >= 0xb8) lengthOfLength = first - 0xb7;
    else if (first >= 0x80) payload = first - 0x80;
    if (lengthOfLength > 0) {
      if (this.#buffered < 1 + lengthOfLength) return null;
      const prefix = this.#peek(1 + lengthOfLength);
      for (let i = 1; i <= lengthOfLength; i++) payload = payload * 256 + prefix[i]!;
      headerBytes += lengthOfLength;
    }
    const total = headerBytes + payload;
    if (total > this.#maxItemBytes)
      return `an item of ${rlpLengthText(total)} bytes is over the limit of ${this.#maxItemBytes} bytes a record may take`;
    return this.take(total);
  }

  /** The first `n` buffered bytes, copied together only when they span chunks. */
  #peek(n: number): Uint8Array {
    const head = this.#chunks[0]!;
    if (head.length >= n) return head.subarray(0, n);
    const out = new Uint8Array(n);
    let filled = 0;
    for (const chunk of this.#chunks) {
      const part = chunk.subarray(0, n - filled);
      out.set(part, filled);
      filled += part.length;
      if (filled === n) break;
    }
    return out;
  }

  #drop(n: number): void {
    this.#buffered -= n;
    this.#handedOut += n;
    while (n > 0) {
      const head = this.#chunks[0]!;
      if (head.length > n) {
        this.#chunks[0] = head.subarray(n);
        return;
      }
      n -= head.length;
      this.#chunks.shift();
    }
  }
}
