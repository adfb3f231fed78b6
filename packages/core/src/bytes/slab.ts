import { hexByteLength, parseHexInto } from './hex.js';

/**
 * Bytes of a slab's first buffer and of its largest, unless it is told how much it will hold: each
 * buffer is twice the one before, so that a small block (most of a range audit's) takes a few KiB,
 * not 64, of memory that the system must fault in afresh for every block.
 */
const FIRST_CHUNK = 4096;
const LARGEST_CHUNK = 65536;

/**
 * Byte arrays handed out as views of a few large buffers, for the tens of thousands of addresses,
 * topics, data and hashes a block's JSON decodes to: a buffer each cost a measured third of
 * decoding a block of 10,041 logs in allocation and collection, and at a million receipts the
 * collector's share grows with the heap. A view keeps its whole buffer alive, so a slab serves
 * what lives as long as the block read from it.
 *
 * @example
 * const slab = new Slab()
 * slab.hex('0xcafe') // Uint8Array [0xca, 0xfe], a view into the slab's buffer
 */
export class Slab {
  #chunk: number;
  readonly #largest: number;
  #buffer: ArrayBuffer | undefined;
  #used = 0;

  /** `chunk`: bytes of each buffer; a caller that knows what it will take asks for exactly that. */
  constructor(chunk?: number) {
    this.#chunk = chunk === undefined ? FIRST_CHUNK : Math.max(1, chunk);
    this.#largest = chunk === undefined ? LARGEST_CHUNK : this.#chunk;
  }

  /** A view of `length` zero bytes; one as long as the largest buffer gets a buffer of its own. */
  take(length: number): Uint8Array {
    if (length >= this.#largest) return new Uint8Array(length);
    if (this.#buffer === undefined || this.#used + length > this.#buffer.byteLength) {
      if (this.#buffer !== undefined) this.#chunk = Math.min(2 * this.#chunk, this.#largest);
      while (this.#chunk < length) this.#chunk *= 2;
      this.#buffer = new ArrayBuffer(this.#chunk);
      this.#used = 0;
    }
    const view = new Uint8Array(this.#buffer, this.#used, length);
    this.#used += length;
    return view;
  }

  /**
   * The bytes `value` stands for when it is hex (with or without `0x`, any case) of an even number
   * of digits, and of `size` bytes when `size` is given; else undefined (what text that is not hex
   * took of the slab stays unused: such a block is refused).
   */
  hex(value: unknown, size?: number): Uint8Array | undefined {
    if (typeof value !== 'string') return undefined;
    const length = hexByteLength(value);
    if (length < 0 || (size !== undefined && length !== size)) return undefined;
    const view = this.take(length);
    return parseHexInto(value, view, 0) ? view : undefined;
  }
}
