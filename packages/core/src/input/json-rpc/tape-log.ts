/**
 * A JSON-RPC log left on the tape its block's text was scanned into (tape-block.ts), and how the block's readers read it
 * ({@link LogOnTape}, under the key {@link ON_TAPE}): its address and data `0x` strings of hex digits and its topics an
 * array, those three read off the tape, where the scanner decoded their hex. Its other members (those a node adds:
 * restated-members.ts) stay on the tape too, as names and the tokens of their values, until a reader asks for them as
 * values (logMembers): a node's answer restates its block and transaction in every log, and building those values took
 * 6 to 14% of verifying its text (docs/speed.md), where the common log is told plain by comparing them on the tape
 * (restated-on-tape.ts). LogDecoder reads it by the rule it reads a log's text by.
 */
import type { TapeReader } from '../../json/scan/tape-value.js';
import { ADDRESS_BYTES, TOPIC_BYTES, type Log } from '../../receipts/receipt.js';
import { MAX_TOPICS, ON_TAPE, type LogOnTape, type LogRestates, type TapeItem } from '../values/log-list.js';
import { logIsPlainOnTape } from './restated-on-tape.js';

/** A log left on the tape. */
export class TapeLog {
  /** Its other members, once they are built (logMembers). */
  [member: string]: unknown;
  readonly #tape: TapeReader;
  /** The tokens of its address, its topics' array and its data. */
  readonly #address: number;
  readonly #topics: number;
  readonly #data: number;
  /** Its other members' names, in the text's order (each once: tape-block.ts refuses a name given twice). */
  readonly #names: readonly string[];
  /** The token of each other member's value, by the place of its name in #names. */
  readonly #values: readonly number[];
  #built = false;
  constructor(
    tape: TapeReader,
    address: number,
    topics: number,
    data: number,
    names: readonly string[] = NO_NAMES,
    values: readonly number[] = NO_VALUES,
  ) {
    this.#tape = tape;
    this.#address = address;
    this.#topics = topics;
    this.#data = data;
    this.#names = names;
    this.#values = values;
  }

  /** How a block's readers read it: see {@link LogOnTape}. Static, so that a member of the log's own cannot stand in its place. */
  static readonly reading: LogOnTape = {
    names: (log) => (log as TapeLog).#names,
    decode: (log, item) => TapeLog.#decode(log as TapeLog, item),
    isPlain: (log, restates) => TapeLog.#isPlain(log as TapeLog, restates),
    build: (log) => TapeLog.#build(log as TapeLog),
  };

  static #isPlain(log: TapeLog, restates: LogRestates): boolean {
    return logIsPlainOnTape(log.#tape, log.#names, log.#values, restates);
  }

  static #build(log: TapeLog): TapeLog {
    if (log.#built) return log;
    log.#built = true;
    for (let k = 0; k < log.#names.length; k++) log[log.#names[k]!] = log.#tape.value(log.#values[k]!);
    return log;
  }

  static #decode(log: TapeLog, item: TapeItem): Log | undefined {
    const tape = log.#tape;
    const address = TapeLog.#item(tape, log.#address, ADDRESS_BYTES, 0, item);
    const count = tape.operand(log.#topics, 3);
    if (address === undefined || count > MAX_TOPICS) return undefined;
    const topics = new Array<Uint8Array>(count);
    for (let t = 0, token = log.#topics + 1; t < count; t++, token = tape.after(token)) {
      const topic = TapeLog.#item(tape, token, TOPIC_BYTES, 1 + t, item);
      if (topic === undefined) return undefined;
      topics[t] = topic;
    }
    const digits = tape.operand(log.#data, 2);
    if (digits % 2 !== 0) return undefined;
    return { address, topics, data: tape.view(tape.operand(log.#data, 3), digits / 2) };
  }

  /** The bytes of token `token`, an item at `place` of the log (`item`); undefined where it is not hex of `size` bytes. */
  static #item(tape: TapeReader, token: number, size: number, place: number, item: TapeItem): Uint8Array | undefined {
    const at = tape.hexAt(token, size);
    return at === -1 ? undefined : item(tape, at, size, place);
  }
}

// On its prototype, under a symbol: no member of a log's JSON can shadow it, and neither for...in nor JSON sees it.
Object.defineProperty(TapeLog.prototype, ON_TAPE, { value: TapeLog.reading });

const NO_NAMES: readonly string[] = [];
const NO_VALUES: readonly number[] = [];
