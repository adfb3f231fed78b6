/**
 * A member name that spells a known one another way (case, `_` and `-` aside): the one rule of a request body's members,
 * a JSON-RPC block's and an anchor proof file's, with the words each refusal says.
 */

/** Member names compared loosely: case, `_` and `-` ignored (`receiptRoot` ~ `receipt_root`). */
export function loose(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** A list of known members' names, as {@link spelledAnotherWay} looks them up. */
interface KnownNames {
  names: ReadonlySet<string>;
  /** The names of each loose spelling. */
  byLoose: ReadonlyMap<string, readonly string[]>;
}

/** Each list of known members' names, built once a list (the lists are constants). */
const KNOWN_NAMES = new WeakMap<readonly string[], KnownNames>();

function knownNames(known: readonly string[]): KnownNames {
  let names = KNOWN_NAMES.get(known);
  if (names === undefined) {
    const byLoose = new Map<string, string[]>();
    for (const k of known) byLoose.set(loose(k), [...(byLoose.get(loose(k)) ?? []), k]);
    KNOWN_NAMES.set(known, (names = { names: new Set(known), byLoose }));
  }
  return names;
}

/**
 * The known member that `member` of `obj` spells another way (case, `_` and `-` aside): one `obj` gives too, null
 * included, where there is one (two claims of one member, and reading either would ignore the other), else the one
 * `obj` lacks (a claim of it that reading would pass over). Undefined for a known member itself and for one that spells
 * none. The one rule of a request body's members (checkMisspelledMembers) and of a JSON-RPC block's
 * (second-spellings.ts); {@link spellingRefusal} says which.
 */
export function spelledAnotherWay(
  obj: Record<string, unknown>,
  member: string,
  known: readonly string[],
): string | undefined {
  const { names, byLoose } = knownNames(known);
  if (names.has(member)) return undefined;
  const spellings = byLoose.get(loose(member));
  return spellings?.find((k) => k in obj) ?? spellings?.[0];
}

/**
 * Whether `member` is refused in any object ({@link spelledAnotherWay}): not a known member itself, and spelling one of
 * them another way. One that is not is never refused for its spelling, whatever else its object gives.
 */
export function spellsAnother(member: string, known: readonly string[]): boolean {
  const { names, byLoose } = knownNames(known);
  return !names.has(member) && byLoose.has(loose(member));
}

/** What a second spelling `member` of the known member `known` is refused with. */
const oneSpelling = (member: string, known: string): string =>
  `one spelling of each member: "${member}" is "${known}" spelled another way, and "${known}" is given too; give one`;

/** What `member`, a near-miss of the known member `near` that its object lacks, is refused with. */
export const didYouMean = (member: string, near: string): string =>
  `a known member name; "${member}" is not one: did you mean "${near}"?`;

/** What `member` of `obj`, spelling the known member `known` another way ({@link spelledAnotherWay}), is refused with. */
export const spellingRefusal = (obj: Record<string, unknown>, member: string, known: string): string =>
  known in obj ? oneSpelling(member, known) : didYouMean(member, known);
