/**
 * Values read off a {@link JsonTape}, as `JSON.parse` gives them: what a reader of the tape builds for the parts of a
 * text it reads as objects (a block's header, its receipts' members), leaving the rest on the tape.
 */
import { NotReadFromTape } from '../../errors.js';
import type { JsonTape } from './json-tape.js';
import { TOKEN, TOKEN_WORDS } from './scan-layout.js';

/** Slots of a reader's table of member names (a power of two). */
const NAME_SLOTS = 256;

/**
 * `name` as V8 keeps a property's name: the key an object literal was given. Objects made with it then take it as it is,
 * where a name sliced from the text is looked up in V8's table of names at each object it is set on.
 */
const internalized = (name: string): string => Object.keys({ [name]: 0 })[0]!;

/** A tape with the reads its walkers make. */
export class TapeReader {
  readonly text: string;
  readonly words: Uint32Array;
  /** The bytes of the tape's hex strings. */
  readonly bytes: Uint8Array;
  /** {@link bytes}, read a word at a time. */
  readonly byteView: DataView;
  /** Member names seen, by a hash of their length and ends: a block's objects repeat a few dozen names. */
  readonly #names = new Array<string | undefined>(NAME_SLOTS).fill(undefined);
  constructor(tape: JsonTape) {
    this.text = tape.text;
    this.words = tape.words;
    this.bytes = tape.bytes;
    this.byteView = new DataView(tape.bytes.buffer, tape.bytes.byteOffset, tape.bytes.byteLength);
  }

  /** Token `i`'s kind, one of {@link TOKEN}. */
  kind(i: number): number {
    return this.words[i * TOKEN_WORDS]!;
  }

  /** Token `i`'s operand `n` (1 to 3). */
  operand(i: number, n: number): number {
    return this.words[i * TOKEN_WORDS + n]!;
  }

  /** The token after the value that starts at token `i`. */
  after(i: number): number {
    const kind = this.kind(i);
    return kind === TOKEN.objectStart || kind === TOKEN.arrayStart ? this.operand(i, 1) + 1 : i + 1;
  }

  /**
   * The name of the member whose name is token `i`. A name read before is given again, the very string (as JSON.parse
   * does): a node's answer repeats a few dozen names in every receipt and log, and a fresh one for each object took
   * 7 to 8% of verifying such a text (docs/speed.md).
   */
  name(i: number): string {
    const at = this.operand(i, 1);
    const length = this.operand(i, 2);
    const text = this.text;
    const slot = (length * 31 + text.charCodeAt(at) * 7 + text.charCodeAt(at + length - 1)) & (NAME_SLOTS - 1);
    const seen = this.#names[slot];
    if (seen !== undefined && seen.length === length && text.startsWith(seen, at)) return seen;
    const name = internalized(text.slice(at, at + length));
    this.#names[slot] = name;
    return name;
  }

  /** Whether the member name at token `i` is `name`, told by its characters: no string made or looked up. */
  isName(i: number, name: string): boolean {
    return this.operand(i, 2) === name.length && this.text.startsWith(name, this.operand(i, 1));
  }

  /** Where token `i`'s bytes start in {@link bytes}, where it is a hex string of exactly `size` bytes; else -1. */
  hexAt(i: number, size: number): number {
    return this.kind(i) === TOKEN.hex && this.operand(i, 2) === 2 * size ? this.operand(i, 3) : -1;
  }

  /**
   * A view of `length` of {@link bytes} from `at`, made by its constructor: `subarray`, which looks up the array's
   * species, costs about twice as much, and a block's logs take a view for each item.
   */
  view(at: number, length: number): Uint8Array {
    const bytes = this.bytes;
    return new Uint8Array(bytes.buffer, bytes.byteOffset + at, length);
  }

  /**
   * Where the characters of token `i` start in the text, where it is a string (its `0x` counted, for hex); -1 for
   * another value. The scanner reads no escape, so they are the string's own.
   */
  stringAt(i: number): number {
    const kind = this.kind(i);
    return kind === TOKEN.string ? this.operand(i, 1) : kind === TOKEN.hex ? this.operand(i, 1) - 2 : -1;
  }

  /** The characters of token `i`, a string ({@link stringAt}). */
  stringLength(i: number): number {
    return this.operand(i, 2) + (this.kind(i) === TOKEN.hex ? 2 : 0);
  }

  /** Whether token `i` is the string `expected`, as JSON.parse would give it. */
  isString(i: number, expected: string | undefined): boolean {
    const at = this.stringAt(i);
    if (at === -1 || expected === undefined) return false;
    const length = this.stringLength(i);
    // A slice of a long text is a view of it (nothing copied), and `===` compares natively: `startsWith(expected, at)`
    // cost twice as much on a node's answer, whose every log restates two hashes.
    return length === expected.length && this.text.slice(at, at + length) === expected;
  }

  /** The value that starts at token `i`, as JSON.parse gives it; throws NotReadFromTape (see it). */
  value(i: number): unknown {
    const text = this.text;
    switch (this.kind(i)) {
      case TOKEN.string:
      case TOKEN.hex: {
        const at = this.stringAt(i);
        return text.slice(at, at + this.stringLength(i));
      }
      case TOKEN.number: {
        const at = this.operand(i, 1);
        return Number(text.slice(at, at + this.operand(i, 2)));
      }
      case TOKEN.true:
        return true;
      case TOKEN.false:
        return false;
      case TOKEN.null:
        return null;
      case TOKEN.arrayStart: {
        const array = new Array<unknown>(this.operand(i, 3));
        for (let k = 0, j = i + 1; k < array.length; k++, j = this.after(j)) array[k] = this.value(j);
        return array;
      }
      default:
        return this.object(i, (j) => this.value(j));
    }
  }

  /**
   * The object that starts at token `i`, each member's value `valueOf` the token it starts at, in the text's order.
   * Throws NotReadFromTape for a name given twice or `__proto__`.
   */
  object(i: number, valueOf: (token: number, name: string) => unknown): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    const count = this.operand(i, 3);
    for (let m = 0, j = i + 1; m < count; m++, j = this.after(j + 1)) {
      const name = this.name(j);
      if (name === '__proto__' || Object.hasOwn(object, name)) throw new NotReadFromTape();
      object[name] = valueOf(j + 1, name);
    }
    return object;
  }

  /** The token of the value of the member `name` of the object at token `i`; -1 where it has none. */
  member(i: number, name: string): number {
    const count = this.operand(i, 3);
    for (let m = 0, j = i + 1; m < count; m++, j = this.after(j + 1)) if (this.name(j) === name) return j + 1;
    return -1;
  }
}
