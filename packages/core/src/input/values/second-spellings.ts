/**
 * A member given beside another spelling of a member the reader reads (json-values.ts' spelledBeside: case, `_` and
 * `-` aside), in objects a reader takes whole from another program (a node's JSON-RPC block), where unknown members
 * are otherwise ignored: nodes add members, but `Status` beside `status` is two claims of one member, and reading one
 * would pass over the other.
 */
import { join, oneSpelling, spelledBeside, type JsonObject } from './json-values.js';
import type { Problems } from './problems.js';

/**
 * The second spellings of one kind of object's members (`known`: those its reader reads), for a reader that meets
 * thousands of such objects. The answer depends on the members' names alone, and the objects of a block (and of the
 * next block) mostly have the very names, in the same order, of one found plain before: those are told by comparing
 * names with its (property names are interned: each compare is of two pointers), no name looked up. An instance holds
 * only those names, so one serves every block read: a block's first receipt then costs no more than the others.
 */
export class SecondSpellings {
  readonly #known: readonly string[];
  /** The members, in order, of the last object found to give no second spelling. */
  #plain: readonly string[] = [];

  constructor(known: readonly string[]) {
    this.#known = known;
  }

  /** Whether `obj` gives no member beside another spelling of it ({@link check} names those). */
  none(obj: JsonObject): boolean {
    // The names of the last plain object compared here, not in a method of their own: this runs for every log.
    const plain = this.#plain;
    let i = 0;
    for (const member in obj) if (member !== plain[i++]) return this.#lookedUp(obj);
    return i === plain.length || this.#lookedUp(obj);
  }

  /** {@link none} for an object of other names than the last plain one: each name looked up, and kept when plain. */
  #lookedUp(obj: JsonObject): boolean {
    const members = Object.keys(obj);
    for (const member of members) if (spelledBeside(obj, member, this.#known) !== undefined) return false;
    this.#plain = members;
    return true;
  }

  /** Names each member of `obj` (at `path`) given beside another spelling of it, as a problem. */
  check(obj: JsonObject, path: string, problems: Problems): void {
    if (this.none(obj)) return;
    for (const member of Object.keys(obj)) {
      const spelled = spelledBeside(obj, member, this.#known);
      if (spelled !== undefined) problems.add(join(path, member), 'invalid_format', oneSpelling(member, spelled));
    }
  }
}
