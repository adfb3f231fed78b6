import { Slab } from '../../bytes/slab.js';
import type { TapeReader } from '../../json/scan/tape-value.js';
import { ADDRESS_BYTES, TOPIC_BYTES, type Log } from '../../receipts/receipt.js';
import { isObject } from './json-values.js';
import { SecondSpellings } from './second-spellings.js';
import type { Spec } from './schema.js';

/** A log of the verify endpoints as read: its members decoded. */
export interface LogValues {
  contract_address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** The shape of a log, for the request schemas and the fast path alike. */
export { ADDRESS_BYTES, TOPIC_BYTES };
export const MAX_TOPICS = 4;

/**
 * Where logs come from, which says how they are spelled: a request body's (`contract_address`; a
 * member it does not know goes to the schema's reader, which reports near-misses of its names) or a
 * JSON-RPC node's (`address`; members that spell none the reader reads are ignored).
 */
export type LogSource = 'request' | 'json-rpc';

/**
 * A JSON-RPC log's second spellings, of the members its block's reader reads: its consensus fields, those that
 * repeat its block and receipt (restated-members.ts), and OpenEthereum's `type` and `transactionLogIndex`.
 */
export const RPC_LOG_SPELLINGS = new SecondSpellings([
  'address',
  'topics',
  'data',
  'blockHash',
  'blockNumber',
  'blockTimestamp',
  'transactionHash',
  'transactionIndex',
  'logIndex',
  'removed',
  'type',
  'transactionLogIndex',
]);

/** Places in a log whose previous text is remembered: the address, then topics 0-3. */
const PLACES = 1 + MAX_TOPICS;

/**
 * Decodes the logs of a block's receipts, one receipt's list at a time, when they are plainly
 * valid (else undefined, and the reader's slow path names the problems): each address, topic and
 * data is a view into a {@link Slab}, where a buffer each cost a measured third of the decoding in
 * allocation and collection on a block of 10,041 logs. An address, or a topic at a place, whose
 * text is that of the log before it (as written, across receipts too) shares that log's view: a
 * token's thousands of Transfer logs decode each item once, which cut decoding that block 4x,
 * where a Map of every item (hashing each string) cut it 3x and slowed small receipts; and the
 * bloom then takes a log's item that is the previous log's object without a lookup.
 */
export class LogDecoder {
  /** Whether the logs are JSON-RPC's (else a request's): members are read by name, as a variable key costs a lookup. */
  readonly #rpc: boolean;
  readonly #slab: Slab;
  /** The text and bytes of the previous log's item at each place. */
  readonly #lastText = new Array<unknown>(PLACES).fill(undefined);
  readonly #lastBytes = new Array<Uint8Array | undefined>(PLACES).fill(undefined);
  /** Where in its tape's bytes the previous log's item at each place lies, when it was read off a tape (else -1). */
  readonly #lastAt = new Array<number>(PLACES).fill(-1);
  #lastTape: Uint8Array | undefined;
  constructor(source: LogSource, slab: Slab = new Slab()) {
    this.#rpc = source === 'json-rpc';
    this.#slab = slab;
  }

  /** The logs of one receipt when every one is valid, else undefined. */
  decode(value: unknown): Log[] | undefined {
    if (!Array.isArray(value)) return undefined;
    const logs = new Array<Log>(value.length);
    for (let i = 0; i < value.length; i++) {
      const log = this.#log(value[i]);
      if (log === undefined) return undefined;
      logs[i] = log;
    }
    return logs;
  }

  #log(value: unknown): Log | undefined {
    if (!isObject(value)) return undefined;
    const tape = onTape(value);
    if (tape !== undefined)
      return this.#rpc && RPC_LOG_SPELLINGS.noneNamed(tape.names(value))
        ? tape.decode(value, this.#tapeItem)
        : undefined;
    if (!this.#rpc) {
      for (const member in value)
        if (member !== 'contract_address' && member !== 'topics' && member !== 'data') return undefined;
    } else if (!RPC_LOG_SPELLINGS.none(value)) return undefined;
    const address = this.#item(this.#rpc ? value.address : value.contract_address, 0, ADDRESS_BYTES);
    const list = value.topics;
    if (address === undefined || !Array.isArray(list) || list.length > MAX_TOPICS) return undefined;
    const topics = new Array<Uint8Array>(list.length);
    for (let t = 0; t < list.length; t++) {
      const topic = this.#item(list[t], 1 + t, TOPIC_BYTES);
      if (topic === undefined) return undefined;
      topics[t] = topic;
    }
    const data = this.#slab.hex(value.data);
    return data === undefined ? undefined : { address, topics, data };
  }

  /** The item at `place` of its log: the previous log's bytes there when its text is the same. */
  #item(text: unknown, place: number, size: number): Uint8Array | undefined {
    if (text === this.#lastText[place] && typeof text === 'string') return this.#lastBytes[place];
    const bytes = this.#slab.hex(text, size);
    if (bytes === undefined) return undefined;
    this.#lastText[place] = text;
    this.#lastBytes[place] = bytes;
    this.#lastAt[place] = -1;
    return bytes;
  }

  /**
   * The item at `place` of a log read off a tape, `size` bytes at `at` of the tape's `bytes`: the previous log's view
   * there when its bytes are the same, as #item does for text (the bloom then takes it without a lookup).
   */
  readonly #tapeItem = (tape: TapeReader, at: number, size: number, place: number): Uint8Array => {
    const last = this.#lastAt[place]!;
    const bytes = tape.bytes;
    if (last !== -1 && this.#lastTape === bytes && sameRange(tape.byteView, at, last, size))
      return this.#lastBytes[place]!;
    const view = tape.view(at, size);
    this.#lastTape = bytes;
    this.#lastAt[place] = at;
    this.#lastBytes[place] = view;
    this.#lastText[place] = undefined;
    return view;
  };
}

/** A log's item at `place` (0 the address, then the topics): `size` bytes at `at` of a tape's bytes, as a view. */
export type TapeItem = (tape: TapeReader, at: number, size: number, place: number) => Uint8Array;

/**
 * Whether `view` holds the same `size` bytes at `a` and at `b`: a word at a time, from their ends, where the topics
 * that hold an address (12 zero bytes, then the address) differ. Byte by byte from the start, it was the busiest line
 * of verifying a block's text.
 */
function sameRange(view: DataView, a: number, b: number, size: number): boolean {
  let i = size;
  for (; i >= 4; i -= 4) if (view.getInt32(a + i - 4) !== view.getInt32(b + i - 4)) return false;
  for (; i > 0; i--) if (view.getUint8(a + i - 1) !== view.getUint8(b + i - 1)) return false;
  return true;
}

/**
 * What a log of a block restates (restated-members.ts): its block's hash (as the block gives it; undefined where none is
 * known) and its block's number and timestamp (-1 where none is known or past 2^53-1), its transaction's hash (undefined
 * where none is known) and place, its place among the block's logs and among its receipt's.
 */
export interface LogRestates {
  blockHash: string | undefined;
  blockNumber: number;
  blockTimestamp: number;
  transactionHash: string | undefined;
  transactionIndex: number;
  logIndex: number;
  transactionLogIndex: number;
}

/**
 * The key under which a JSON-RPC log left on the scanner's tape (input/json-rpc/tape-log.ts) gives its readers: a
 * symbol, so that no member of the log's JSON can stand in its place. The readers of a block meet such a log through
 * {@link onTape} and never import it: a reader of parsed JSON (`verifyBlock`, the browser's bundle) carries none of the
 * tape's code.
 */
export const ON_TAPE: unique symbol = Symbol('a JSON-RPC log left on the tape');

/** How a log left on the tape is read; each takes the log. */
export interface LogOnTape {
  /** The names of its members other than its address, topics and data, in the text's order. */
  names(log: object): readonly string[];
  /** The log, when it is plainly valid (an address of 20 bytes, at most 4 topics of 32, data of whole bytes). */
  decode(log: object, item: TapeItem): Log | undefined;
  /**
   * Whether it repeats what `restates` says as a node writes it, told where its members lie, none built: true only where
   * restated-members.ts' logIsPlain would say so of its members built; false where it cannot tell.
   */
  isPlain(log: object, restates: LogRestates): boolean;
  /** The log with its other members built as JSON.parse builds them, as its own (once): see {@link logMembers}. */
  build(log: object): object;
}

/** How `value` is read where it is a log left on the tape; undefined for any other value. */
export const onTape = (value: object): LogOnTape | undefined => (value as { [ON_TAPE]?: LogOnTape })[ON_TAPE];

/**
 * A JSON-RPC log's members as values, for a reader that reads them by name: a log left on the tape has its other members
 * built (once), any other value is as it is. Every reader of a log's members but the plain check on the tape goes
 * through it: such a log's members are not its own until then.
 * @example
 * const hash = isObject(log) ? logMembers(log).transactionHash : undefined
 */
export const logMembers = <T extends object>(log: T): T => (onTape(log)?.build(log) as T | undefined) ?? log;

/** Bytes that hex `value` would take, at most (its length over 2), or 0 when it is not text. */
const textBytes = (value: unknown) => (typeof value === 'string' ? value.length >> 1 : 0);

/** Bytes that a request body's list of logs decodes to at most: a slab of exactly this serves the receipt. */
function logsBytes(value: unknown): number {
  if (!Array.isArray(value)) return 0;
  let total = 0;
  for (const log of value) {
    if (!isObject(log)) continue;
    total += textBytes(log.contract_address) + textBytes(log.data);
    if (Array.isArray(log.topics)) for (const topic of log.topics) total += textBytes(topic);
  }
  return total;
}

/**
 * `list` (the logs of a receipt, read log by log) as the core's logs, with the fast path that
 * decodes them into one buffer. The fast path builds each log as the core takes it: a second
 * object per log, to rename its members, cost a measured 15% of decoding a block of 10,041 logs.
 */
export function logList(list: Spec<Array<Partial<LogValues>>>): Spec<Log[]> {
  return {
    schema: list.schema,
    read: (value, path, problems) =>
      list
        .read(value, path, problems)
        ?.map((log): Log => ({ address: log.contract_address!, topics: log.topics!, data: log.data! })),
    // A receipt's logs take one buffer (a decoder each): the schema reads receipts one by one.
    valid: (value) => new LogDecoder('request', new Slab(logsBytes(value))).decode(value),
  };
}
