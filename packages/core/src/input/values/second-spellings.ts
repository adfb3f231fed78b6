/**
 * A member that is a member the reader reads spelled another way (json-values.ts' spelledAnotherWay: case, `_` and `-`
 * aside), in objects a reader takes whole from another program (a node's JSON-RPC block), where unknown members are
 * otherwise ignored: nodes add members, but `Status` beside `status` is two claims of one member, and `Status` without
 * it a claim that reading `status` would pass over. Near-misses by edits are not refused here: a node's own members
 * may be a letter from one the reader reads.
 */
import { spelledAnotherWay, spellingRefusal, spellsAnother } from '../../json/member-names.js';
import { join, type JsonObject } from './json-values.js';
import type { Problems } from './problems.js';

/** The most names an instance keeps as spelling no known member: more than any node's objects give. */
const MAX_NAMES = 256;

/** Whether `obj`'s members are `names`, in order: pointer compares, the names being interned. */
function hasNames(obj: JsonObject, names: readonly string[]): boolean {
  let i = 0;
  for (const member in obj) if (member !== names[i++]) return false;
  return i === names.length;
}

/** Whether `names` are `plain`, in order: pointer compares, as in {@link hasNames}. */
function sameNames(names: readonly string[], plain: readonly string[]): boolean {
  if (names.length !== plain.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== plain[i]) return false;
  return true;
}

/**
 * The second spellings of one kind of object's members (`known`: those its reader reads), for a reader that meets
 * thousands of such objects. The answer depends on the members' names alone, and the objects of a block (and of the
 * next block) mostly have the very names, in the same order, of one found plain before: those are told by comparing
 * names with its (property names are interned: each compare is of two pointers), no name looked up. An instance holds
 * only those names, so one serves every block read: a block's first receipt then costs no more than the others.
 */
export class SecondSpellings {
  readonly #known: readonly string[];
  /**
   * The members, in order, of the last two objects of other names found to give no second spelling, the later first: a
   * block's receipts come in two shapes where some are a blob transaction's (two members more), and its logs where a
   * node gives some a member more.
   */
  #plain: readonly string[] = [];
  #plainBefore: readonly string[] = [];
  /**
   * Names seen that spell no known member another way ({@link spellsAnother}): told again by a lookup, not by lowering
   * their case, where a block's objects of one kind come in a few shapes (a blob transaction's receipt has two members
   * more). Emptied past {@link MAX_NAMES}: names come from the input, and an instance serves every block read.
   */
  readonly #harmless = new Set<string>();

  constructor(known: readonly string[]) {
    this.#known = known;
  }

  /** Whether `obj` gives no member that is a known one spelled another way ({@link check} names those). */
  none(obj: JsonObject): boolean {
    if (hasNames(obj, this.#plain)) return true;
    if (!hasNames(obj, this.#plainBefore)) return this.#lookedUp(Object.keys(obj));
    [this.#plain, this.#plainBefore] = [this.#plainBefore, this.#plain];
    return true;
  }

  /** {@link none} for an object whose members' names are `names`, in order (a log left on a tape: log-list.ts). */
  noneNamed(names: readonly string[]): boolean {
    if (sameNames(names, this.#plain)) return true;
    if (!sameNames(names, this.#plainBefore)) return this.#lookedUp(names);
    [this.#plain, this.#plainBefore] = [this.#plainBefore, this.#plain];
    return true;
  }

  /**
   * {@link none} for an object of other names than the last plain ones, `members`: each name looked up, and kept when
   * harmless. A name is refused or not whatever else its object gives, so the names alone answer.
   */
  #lookedUp(members: readonly string[]): boolean {
    const harmless = this.#harmless;
    for (const member of members) {
      if (harmless.has(member)) continue;
      if (spellsAnother(member, this.#known)) return false;
      if (harmless.size >= MAX_NAMES) harmless.clear();
      harmless.add(member);
    }
    this.#plainBefore = this.#plain;
    this.#plain = members;
    return true;
  }

  /** Names each member of `obj` (at `path`) that is a known one spelled another way, as a problem. */
  check(obj: JsonObject, path: string, problems: Problems): void {
    if (this.none(obj)) return;
    for (const member of Object.keys(obj)) {
      const spelled = spelledAnotherWay(obj, member, this.#known);
      if (spelled !== undefined)
        problems.add(join(path, member), 'invalid_format', spellingRefusal(obj, member, spelled));
    }
  }
}
