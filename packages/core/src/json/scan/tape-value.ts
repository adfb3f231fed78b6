/**
 * Values read off a {@link JsonTape}, as `JSON.parse` gives them: what a reader of the tape builds for the parts of a
 * text it reads as objects (a block's header, its receipts' members), leaving the rest on the tape.
 */
import { NotReadFromTape } from '../../errors.js';
import type { JsonTape } from './json-tape.js';
import { TOKEN, TOKEN_WORDS } from './scan-layout.js';

/** Members an object may have for its names to be searched in a list: a set costs more below it. */
const SMALL_OBJECT = 32;

/** A set of names with an array's two methods. */
class NameSet extends Set<string> {
  includes(name: string): boolean {
    return this.has(name);
  }
  push(name: string): void {
    this.add(name);
  }
}

/** A tape with the reads its walkers make. */
export class TapeReader {
  readonly text: string;
  readonly words: Uint32Array;
  /** The bytes of the tape's hex strings. */
  readonly bytes: Uint8Array;
  constructor(tape: JsonTape) {
    this.text = tape.text;
    this.words = tape.words;
    this.bytes = tape.bytes;
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

  /** The name of the member whose name is token `i`. */
  name(i: number): string {
    const at = this.operand(i, 1);
    return this.text.slice(at, at + this.operand(i, 2));
  }

  /** The value that starts at token `i`, as JSON.parse gives it; throws NotReadFromTape (see it). */
  value(i: number): unknown {
    const text = this.text;
    switch (this.kind(i)) {
      case TOKEN.string: {
        const at = this.operand(i, 1);
        return text.slice(at, at + this.operand(i, 2));
      }
      case TOKEN.hex: {
        const at = this.operand(i, 1) - 2; // with its 0x
        return text.slice(at, at + 2 + this.operand(i, 2));
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
      default: {
        const object: Record<string, unknown> = {};
        this.members(i, (name, j) => {
          object[name] = this.value(j);
        });
        return object;
      }
    }
  }

  /**
   * Calls `read` with each member of the object that starts at token `i`, in the text's order: its name and the token
   * its value starts at. Throws NotReadFromTape for a name given twice or `__proto__`, before `read` sees it.
   */
  members(i: number, read: (name: string, value: number) => void): void {
    const count = this.operand(i, 3);
    // The names so far: a list searched for the few members of a receipt or a log, a set past that.
    const seen: { includes(name: string): boolean; push(name: string): unknown } =
      count <= SMALL_OBJECT ? [] : new NameSet();
    for (let m = 0, j = i + 1; m < count; m++, j = this.after(j + 1)) {
      const name = this.name(j);
      if (name === '__proto__' || seen.includes(name)) throw new NotReadFromTape();
      seen.push(name);
      read(name, j + 1);
    }
  }
}
