import { hexByteLength, parseHexInto } from '../../bytes/hex.js';
import { listLength, stringSize, writeListHeader, writeStringHeader } from '../../bytes/rlp-writer.js';
import type { Slab } from '../../bytes/slab.js';
import {
  bloomOffset,
  logPayloadSize,
  planReceiptOf,
  receiptLayout,
  writeReceiptHead,
  writeReceiptTail,
} from '../../receipts/receipt-encoding.js';
import type { ReceiptRoom } from '../../receipts/root.js';
import { LEAF_HEADROOM } from '../../trie/ordered-trie.js';
import { isObject } from '../values/json-values.js';
import { ADDRESS_BYTES, MAX_TOPICS, TOPIC_BYTES } from '../values/log-list.js';
import { plainReceiptFields } from './receipt-fields.js';

/** Places in a log whose previous text is remembered: the address, then topics 0-3. */
const PLACES = 1 + MAX_TOPICS;

/**
 * Writes a JSON-RPC receipt's consensus encoding straight from its JSON, each address, topic and data decoded from hex
 * where it lies in the encoding, and each address and topic's bloom bits taken from there: no object, array or view a
 * log. Reading the logs into the core's receipts first (a view for each item, an object and a topics array for each
 * log), then copying each item into the encoding, cost more than the rest of the path but for hashing and JSON.parse
 * on a block of 10,041 logs (docs/speed.md). It writes exactly what json-rpc.ts's `validReceipt` then the core's
 * `writeReceipt` write, and refuses (undefined) at least whatever `validReceipt` refuses, so that its caller reads the
 * block again with the reader that names each problem (test/receipt-encoder.property.test.ts holds it to both).
 *
 * An address, or a topic at a place, whose text is the previous log's there (across receipts too) is copied from the
 * bytes it decoded to, and its bloom entry taken without a lookup, as LogDecoder shares its view.
 */
export class JsonReceiptEncoder {
  readonly #slab: Slab;
  /** The text of the previous log's item at each place, and its bytes. */
  readonly #lastText = new Array<unknown>(PLACES).fill(undefined);
  readonly #lastBytes = Array.from(
    { length: PLACES },
    (_, place) => new Uint8Array(place === 0 ? ADDRESS_BYTES : TOPIC_BYTES),
  );
  /** A single byte of data, decoded to measure its string (one below 0x80 is its own encoding). */
  readonly #byte = new Uint8Array(1);

  /** `slab`: where a pre-Byzantium receipt's root is decoded. */
  constructor(slab: Slab) {
    this.#slab = slab;
  }

  /**
   * Writes the receipt `value` into `room` as receiptsRootAndBloomWritten asks (see WriteReceiptAt); undefined, with
   * nothing of it counted, when it is not plainly valid. Throws UnknownReceiptTypeError for a type the rules lack.
   */
  write(value: unknown, room: ReceiptRoom): number | undefined {
    const fields = plainReceiptFields(value, this.#slab);
    if (fields === undefined) return undefined;
    const logs = (value as { logs?: unknown }).logs ?? [];
    if (!Array.isArray(logs)) return undefined;
    let logsPayload = 0;
    for (let i = 0; i < logs.length; i++) {
      const size = this.#logPayload(logs[i]);
      if (size < 0) return undefined;
      logsPayload += listLength(size);
    }
    const plan = planReceiptOf(fields, receiptLayout(fields, room.rules), logsPayload);
    const out = room.room(plan.size);
    let o = writeReceiptHead(out, LEAF_HEADROOM, fields.type, plan, room.bloom);
    const bloomAt = bloomOffset(plan, o);
    for (let i = 0; i < logs.length; i++) {
      o = this.#writeLog(logs[i] as Record<string, unknown>, out, o, room);
      if (o < 0) return undefined;
    }
    out.set(room.bloom, bloomAt);
    o = writeReceiptTail(out, o, plan);
    if (o !== LEAF_HEADROOM + plan.size) throw new Error(`a receipt's encoding took ${o} bytes, not ${plan.size}`);
    return o;
  }

  /** The payload of `rlp([address, topics, data])` of the log `value` when its members have the form; else -1. */
  #logPayload(value: unknown): number {
    if (!isObject(value)) return -1;
    const { address, topics, data } = value;
    if (typeof address !== 'string' || hexByteLength(address) !== ADDRESS_BYTES) return -1;
    if (!Array.isArray(topics) || topics.length > MAX_TOPICS) return -1;
    for (let t = 0; t < topics.length; t++) {
      const topic: unknown = topics[t];
      if (typeof topic !== 'string' || hexByteLength(topic) !== TOPIC_BYTES) return -1;
    }
    const dataSize = this.#dataSize(data);
    return dataSize < 0 ? -1 : logPayloadSize(topics.length, dataSize);
  }

  /** The size of the string that the hex `data` encodes to; -1 when it is not even-length hex. */
  #dataSize(data: unknown): number {
    if (typeof data !== 'string') return -1;
    const length = hexByteLength(data);
    if (length < 0) return -1;
    if (length !== 1) return stringSize(length, 0);
    return parseHexInto(data, this.#byte, 0) ? stringSize(1, this.#byte[0]!) : -1;
  }

  /** Writes the log `log` (measured by #logPayload) into `out` at `o`; the offset after it, -1 when its hex is not. */
  #writeLog(log: Record<string, unknown>, out: Uint8Array, o: number, room: ReceiptRoom): number {
    const topics = log.topics as string[];
    const data = log.data as string;
    const dataSize = this.#dataSize(data);
    o = writeListHeader(out, o, logPayloadSize(topics.length, dataSize));
    out[o++] = 0x80 + ADDRESS_BYTES;
    o = this.#item(log.address as string, 0, ADDRESS_BYTES, out, o, room);
    if (o < 0) return -1;
    o = writeListHeader(out, o, (1 + TOPIC_BYTES) * topics.length);
    for (let t = 0; t < topics.length; t++) {
      out[o++] = 0x80 + TOPIC_BYTES;
      o = this.#item(topics[t]!, 1 + t, TOPIC_BYTES, out, o, room);
      if (o < 0) return -1;
    }
    const length = hexByteLength(data);
    // A single byte below 0x80 is its own string: #dataSize decoded it.
    if (length === 1 && dataSize === 1) {
      out[o] = this.#byte[0]!;
      return o + 1;
    }
    o = writeStringHeader(out, o, length);
    return parseHexInto(data, out, o) ? o + length : -1;
  }

  /**
   * Writes the item `text` (of `size` bytes) at `place` of its log into `out` at `o`, and ORs its bloom bits into the
   * room's bloom; the offset after it, -1 when it is not hex.
   */
  #item(text: string, place: number, size: number, out: Uint8Array, o: number, room: ReceiptRoom): number {
    const bytes = this.#lastBytes[place]!;
    const same = text === this.#lastText[place];
    if (!same) {
      if (!parseHexInto(text, bytes, 0)) {
        this.#lastText[place] = undefined;
        return -1;
      }
      this.#lastText[place] = text;
    }
    // Decoded once into the place's own bytes, then copied natively: copying a repeated item byte by byte, in a loop,
    // cost a block of 10,041 logs 2.5 ms.
    out.set(bytes, o);
    room.hasher.addItemAt(room.bloom, place, same, out, o, size);
    return o + size;
  }
}
