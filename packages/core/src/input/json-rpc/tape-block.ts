/**
 * A block's JSON text read off the WebAssembly scanner's tape (json/scan/) into the value `JSON.parse` would give, but
 * for its logs and its receipts' own `logsBloom`: where they are hex, they stay on the tape (a {@link TapeLog}, a
 * {@link TapeHex}), their bytes already decoded there, where `JSON.parse` would make a string of each and the reader
 * decode them again, and so do a log's other members, built only where a reader asks for them (logMembers).
 * Everything else is built as `JSON.parse` builds it, so that the block's readers (json-rpc.ts, restated-members.ts)
 * read it by their own rules; a log on the tape is read by the rule a log's text is (LogDecoder), a bloom by the rule a
 * bloom's (readReceiptBloom). It exists for speed: on a modern block the logs' hex is most of the text, a node's
 * receipts restate a bloom of 512 digits each, and its logs their block and transaction.
 */
import type { JsonTape } from '../../json/scan/json-tape.js';
import { TOKEN } from '../../json/scan/scan-layout.js';
import { NotReadFromTape } from '../../errors.js';
import { TapeReader } from '../../json/scan/tape-value.js';
import { TapeLog } from './tape-log.js';
import { TapeHex } from '../values/tape-hex.js';
import type { JsonObject } from '../values/json-values.js';

/**
 * The block a scanned text holds (`tape`: scanJson's, json/scan/json-tape.ts), its logs' hex left on the tape; undefined
 * where an object in it names a member twice, or where it is not an object or holds `raw_receipts` (read whole: the
 * streamed reader does not take them). The caller then reads the text with `JSON.parse` and the readers that name its
 * problems.
 * @example
 * const tape = scanJson(text)
 * const block = tape && tapeBlock(tape)
 * if (block !== undefined) streamRpcBlock(block) // its logs decoded from the tape when the trie asks for them
 */
export function tapeBlock(tape: JsonTape): JsonObject | undefined {
  const reader = new TapeReader(tape);
  if (reader.kind(0) !== TOKEN.objectStart) return undefined;
  // Asked before the receipts are built: such a block is parsed and read whole all the same.
  const raw = reader.member(0, 'raw_receipts');
  if (raw !== -1 && reader.kind(raw) !== TOKEN.null) return undefined;
  try {
    const receiptOf = receiptReader(reader, logReader());
    return reader.object(0, (value, name) =>
      name === 'receipts' ? listOf(reader, value, receiptOf) : reader.value(value),
    );
  } catch (error) {
    if (error instanceof NotReadFromTape) return undefined;
    throw error;
  }
}

/** The array at token `i`, each object in it built by `objectOf`; another value as JSON.parse gives it. */
function listOf(reader: TapeReader, i: number, objectOf: (reader: TapeReader, i: number) => unknown): unknown {
  if (reader.kind(i) !== TOKEN.arrayStart) return reader.value(i);
  const list = new Array<unknown>(reader.operand(i, 3));
  for (let k = 0, j = i + 1; k < list.length; k++, j = reader.after(j))
    list[k] = reader.kind(j) === TOKEN.objectStart ? objectOf(reader, j) : reader.value(j);
  return list;
}

/**
 * The reader of a block's receipts: the receipt at token `i`, its logs as `logOf` leaves them (logReader), its own
 * `logsBloom` on the tape where it is hex. Its reader of members is made once a block, not once a receipt.
 */
function receiptReader(
  reader: TapeReader,
  logOf: (reader: TapeReader, i: number) => unknown,
): (reader: TapeReader, i: number) => JsonObject {
  const memberOf = (value: number, name: string): unknown =>
    name === 'logs'
      ? listOf(reader, value, logOf)
      : name === 'logsBloom' && reader.kind(value) === TOKEN.hex
        ? new TapeHex(reader, value)
        : reader.value(value);
  return (_, i) => reader.object(i, memberOf);
}

/** A log's member names, in the text's order, and where its address, topics and data are among them. */
interface LogShape {
  readonly names: readonly string[];
  readonly address: number;
  readonly topics: number;
  readonly data: number;
  /** The names other than those three, in order: each once (refused otherwise). */
  readonly others: readonly string[];
}

/**
 * The reader of a block's logs: the log at token `i`, where its address and data are hex and its topics an array, a
 * {@link TapeLog} (its other members left on the tape too, their names and tokens kept); else built whole. A node
 * writes every log of a block with the same members in one order: a log whose names are the previous log's, told by
 * their characters, takes its shape (the names not looked up, nor checked for one given twice again), which on a
 * node's answer, ten members a log, was the busiest function of the text's reading.
 */
function logReader(): (reader: TapeReader, i: number) => unknown {
  let previous: LogShape | undefined;
  return (reader, i) => {
    const count = reader.operand(i, 3);
    const shape =
      previous !== undefined && membersNamed(reader, i, count, previous.names) ? previous : shapeOf(reader, i, count);
    previous = shape;
    let address = -1;
    let topics = -1;
    let data = -1;
    const values = shape.others.length === 0 ? undefined : new Array<number>(shape.others.length);
    for (let m = 0, o = 0, j = i + 1; m < count; m++, j = reader.after(j + 1))
      if (m === shape.address) address = j + 1;
      else if (m === shape.topics) topics = j + 1;
      else if (m === shape.data) data = j + 1;
      else values![o++] = j + 1;
    const onTape =
      address !== -1 &&
      reader.kind(address) === TOKEN.hex &&
      topics !== -1 &&
      reader.kind(topics) === TOKEN.arrayStart &&
      data !== -1 &&
      reader.kind(data) === TOKEN.hex;
    if (!onTape) return reader.value(i);
    return values === undefined
      ? new TapeLog(reader, address, topics, data)
      : new TapeLog(reader, address, topics, data, shape.others, values);
  };
}

/** Whether the `count` members of the object at token `i` are named `names`, in that order. */
function membersNamed(reader: TapeReader, i: number, count: number, names: readonly string[]): boolean {
  if (count !== names.length) return false;
  for (let m = 0, j = i + 1; m < count; m++, j = reader.after(j + 1)) if (!reader.isName(j, names[m]!)) return false;
  return true;
}

/** The shape of the log at token `i`, of `count` members; refuses one that names a member twice. */
function shapeOf(reader: TapeReader, i: number, count: number): LogShape {
  const names = new Array<string>(count);
  const others: string[] = [];
  let address = -1;
  let topics = -1;
  let data = -1;
  for (let m = 0, j = i + 1; m < count; m++, j = reader.after(j + 1)) {
    const name = (names[m] = reader.name(j));
    // A name given twice goes to JSON.parse, as reader.object sends it (a second address, topics or data among them).
    if (name === 'address') address = address === -1 ? m : twice();
    else if (name === 'topics') topics = topics === -1 ? m : twice();
    else if (name === 'data') data = data === -1 ? m : twice();
    else {
      if (name === '__proto__') twice();
      others.push(name);
    }
  }
  if (givenTwice(others)) twice();
  return { names, address, topics, data, others };
}

/** Refuses a log that names a member twice (or `__proto__`): the text is then parsed, and the duplicate named. */
function twice(): never {
  throw new NotReadFromTape();
}

/** Whether a name is given twice in `names` (each the very string the reader keeps for it: compared as pointers). */
function givenTwice(names: readonly string[]): boolean {
  // A node's log adds under ten; a text may hold thousands, which a Set tells in linear time.
  if (names.length > 16) return new Set(names).size !== names.length;
  for (let a = 1; a < names.length; a++) for (let b = 0; b < a; b++) if (names[a] === names[b]) return true;
  return false;
}
