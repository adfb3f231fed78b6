import { exportedObjectError } from '../json/show.js';
import { HEADER_FIELDS, FRONTIER_FIELD_COUNT, type BlockHeader, type HeaderFieldSpec } from './header-fields.js';

/** The header layouts the verifier knows. */
export type HeaderLayoutName = 'ethereum' | 'aura' | 'avalanche';

/**
 * Which fields a chain's header hashes, in RLP order: `required` leading fields every header of
 * the layout has, then fork fields, each present from its fork on, so that a present one after
 * an absent one is no header of any fork.
 */
export interface HeaderLayout {
  name: HeaderLayoutName;
  fields: readonly HeaderFieldSpec[];
  required: number;
  /** The seal's fields, which OpenEthereum and Nethermind also list RLP-encoded in `sealFields`, in that order. */
  seal: readonly [keyof BlockHeader, keyof BlockHeader];
  /**
   * Fields a node gives beside the layout's, always as zeros, that the layout does not hash: under any of their names
   * (`prevRandao` for `mixHash`), zeros of the field's size; any other value is a claim no hash covers and no client
   * makes, refused rather than passed unchecked.
   */
  unhashedZeros?: readonly HeaderFieldSpec[];
  /**
   * Members its nodes give beside its fields that its hash covers through one of them (Avalanche's `blockExtraData`,
   * the atomic transactions `extDataHash` commits to): checked against that field on this layout (avalanche-extdata.ts),
   * a claim no hash covers on another.
   */
  carried?: readonly string[];
}

/** Ethereum's header, Frontier to Prague (and every chain that kept it). */
export const ETHEREUM_HEADER: HeaderLayout = {
  name: 'ethereum',
  fields: HEADER_FIELDS,
  required: FRONTIER_FIELD_COUNT,
  seal: ['mixHash', 'nonce'],
};

/**
 * An AuRa header (Gnosis and Chiado before their merge): the seal fields `auraStep` and
 * `auraSeal` stand where Ethereum has `mixHash` and `nonce`, and London's `baseFeePerGas`
 * follows them (Nethermind's HeaderDecoder, erigon's AuRa header encoding). Erigon names them
 * `auraStep` and `auraSeal` (and gives zero `mixHash` and `nonce`, which are not hashed);
 * Nethermind and OpenEthereum `step` and `signature`. A header with both names of a field must
 * give them the same value: a different one is refused, never one of them hashed. A `mixHash` or `nonce` other than
 * zeros is refused too: erigon's zeros are the only ones a client gives, and nothing hashes them.
 */
export const AURA_HEADER: HeaderLayout = {
  name: 'aura',
  fields: [
    ...HEADER_FIELDS.slice(0, 13),
    { name: 'auraStep', kind: 'quantity', aliases: ['step'] },
    { name: 'auraSeal', kind: 'bytes', aliases: ['signature'] },
    { name: 'baseFeePerGas', kind: 'quantity', fork: 'London' },
  ],
  required: 15,
  seal: ['auraStep', 'auraSeal'],
  // Ethereum's mixHash (alias prevRandao) and nonce.
  unhashedZeros: HEADER_FIELDS.slice(13, 15),
};

/** A fork field of the Avalanche C-Chain's header, appended by an upgrade. */
const avalanche = (
  name: HeaderFieldSpec['name'],
  fork: string,
  kind: HeaderFieldSpec['kind'] = 'quantity',
): HeaderFieldSpec => ({ name, kind, fork });

/**
 * The Avalanche C-Chain's header (coreth, avalanchego's graft/coreth): Ethereum's 15 fields,
 * then `extDataHash` (the block's atomic transactions), then the fields its upgrades appended in
 * an order of its own: Apricot Phase 3 `baseFeePerGas`, Phase 4 `extDataGasUsed` and
 * `blockGasCost`, Etna the Cancun fields, Granite `timestampMilliseconds` and `minDelayExcess`,
 * Helicon (ACP-194) the settlement fields.
 */
export const AVALANCHE_HEADER: HeaderLayout = {
  name: 'avalanche',
  fields: [
    ...HEADER_FIELDS.slice(0, 15),
    { name: 'extDataHash', kind: 'hash' },
    avalanche('baseFeePerGas', 'Apricot Phase 3'),
    avalanche('extDataGasUsed', 'Apricot Phase 4'),
    avalanche('blockGasCost', 'Apricot Phase 4'),
    avalanche('blobGasUsed', 'Etna'),
    avalanche('excessBlobGas', 'Etna'),
    avalanche('parentBeaconBlockRoot', 'Etna', 'hash'),
    avalanche('timestampMilliseconds', 'Granite'),
    avalanche('minDelayExcess', 'Granite'),
    ...(
      [
        'targetExponent',
        'minPriceExponent',
        'settledHeight',
        'settledGasUnix',
        'settledGasNumerator',
        'settledExcess',
      ] as const
    ).map((name) => avalanche(name, 'Helicon')),
  ],
  required: 16,
  seal: ['mixHash', 'nonce'],
  carried: ['blockExtraData'],
};

export const HEADER_LAYOUTS: Readonly<Record<HeaderLayoutName, HeaderLayout>> = {
  ethereum: ETHEREUM_HEADER,
  aura: AURA_HEADER,
  avalanche: AVALANCHE_HEADER,
};

/**
 * Holds an argument to a header layout object (`ETHEREUM_HEADER`, or the `header` that `verifiability` gives), where a
 * function takes one (`options.layout`), as {@link checkRuleSet} holds a rule set: a name in its place, or anything
 * without a layout's `fields`, is a TypeError naming the argument and the object to pass (all of them, for a name of
 * none), never JavaScript's own error where the header is first read.
 * @example
 * checkHeaderLayout('ethereum', 'options.layout') // TypeError: options.layout must be a header layout object (ETHEREUM_HEADER), got the string "ethereum"
 */
export function checkHeaderLayout(value: unknown, argument: string): asserts value is HeaderLayout {
  if (typeof value === 'object' && value !== null && Array.isArray((value as Partial<HeaderLayout>).fields)) return;
  throw exportedObjectError(value, argument, {
    kind: 'header layout',
    part: 'fields',
    names: Object.keys(HEADER_LAYOUTS),
    constant: (layout) => `${layout.toUpperCase()}_HEADER`,
  });
}

/** "an aura header", "an avalanche header", "an ethereum header": a header of `layout`, for messages. */
export const aHeaderOf = (layout: HeaderLayout): string => `${withArticle(layout.name)} header`;

/** `word` after its indefinite article: `an aura`, `a polygon`. */
export const withArticle = (word: string): string => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;

/** A field of another layout's header (an Ethereum fork field, AuRa's seal, Avalanche's) that a layout does not hash. */
export interface UnhashedField {
  field: string;
  /** Why it cannot be certified, for a message: `an aura header does not hash withdrawalsRoot (…): no block hash covers it`. */
  why: string;
}

/** What keeps some fields from being a header of a layout. */
export interface HeaderShape {
  /** Fields every header of the layout has that are absent. */
  missing: string[];
  /** A fork field that is absent while a later one is present: no fork has such a header. */
  gap?: { field: string; presentAfter: string };
  /**
   * Fields of another layout that are present though this one hashes none of them (Shanghai's and later ones in an AuRa
   * header: Gnosis and Chiado left AuRa before Shanghai; AuRa's seal or Avalanche's fields in an Ethereum header): a
   * value there is a claim no block hash covers.
   */
  unhashed: UnhashedField[];
}

// null is how JSON-RPC says a member is absent.
const given = (value: unknown) => value !== undefined && value !== null;

/** A field's names: its own and its aliases. */
const namesOf = (field: HeaderFieldSpec): readonly string[] => [field.name, ...(field.aliases ?? [])];

/** The members a header of `layout` is read under: its fields and unhashed zeros by any name, and what it carries. */
const membersRead = (layout: HeaderLayout): ReadonlySet<string> =>
  new Set([...[...layout.fields, ...(layout.unhashedZeros ?? [])].flatMap(namesOf), ...(layout.carried ?? [])]);

/** Ethereum's members: its fork fields are told apart by the fork that appended them (headerShape). */
const ETHEREUM_MEMBERS = membersRead(ETHEREUM_HEADER);

/** Per layout, the members of the other layouts that it does not read, each with why: made once, not for every header. */
const FOREIGN_MEMBERS = new WeakMap<HeaderLayout, readonly UnhashedMember[]>();

/** A member of another layout's header that a layout does not read, and why no block hash covers it there. */
interface UnhashedMember {
  member: string;
  why: string;
}

/** The members of AuRa's and Avalanche's headers (by any name) that `layout` does not read, nor Ethereum's. */
function foreignMembers(layout: HeaderLayout): readonly UnhashedMember[] {
  let members = FOREIGN_MEMBERS.get(layout);
  if (members === undefined) {
    const read = membersRead(layout);
    members = [AURA_HEADER, AVALANCHE_HEADER]
      .filter((other) => other !== layout)
      .flatMap((other) =>
        [...other.fields.flatMap(namesOf), ...(other.carried ?? [])]
          .filter((member) => !read.has(member) && !ETHEREUM_MEMBERS.has(member))
          .map((member) => {
            const how = other.carried?.includes(member) ? 'covers it through one of its fields' : 'does';
            return {
              member,
              why: `${aHeaderOf(layout)} does not hash ${member} (${aHeaderOf(other)} ${how}): no block hash covers it`,
            };
          }),
      );
    FOREIGN_MEMBERS.set(layout, members);
  }
  return members;
}

/**
 * Checks which of a layout's fields are there: the required ones, the fork fields without a gap, and none of another
 * layout's fields (Ethereum's fork fields, AuRa's seal, Avalanche's own) that the layout does not hash, under any of
 * their names. No real header gives one (every fixture's header, of each layout, checked). `fields` may be a header's
 * JSON members: a null one is absent.
 * @example
 * headerShape({ ...gnosis10000000, withdrawalsRoot: '0x11…' }, AURA_HEADER).unhashed[0].field // 'withdrawalsRoot'
 */
export function headerShape(fields: Readonly<Record<string, unknown>>, layout: HeaderLayout): HeaderShape {
  const shape: HeaderShape = { missing: [], unhashed: [] };
  let absentFork: string | undefined;
  for (const [i, field] of layout.fields.entries()) {
    const present = given(fields[field.name]);
    if (i < layout.required) {
      if (!present) shape.missing.push(field.name);
    } else if (!present) absentFork ??= field.name;
    else if (absentFork !== undefined) shape.gap ??= { field: absentFork, presentAfter: field.name };
  }
  for (const { name, fork } of HEADER_FIELDS)
    if (fork !== undefined && given(fields[name]) && !layout.fields.some((f) => f.name === name))
      shape.unhashed.push({
        field: name,
        why: `${aHeaderOf(layout)} does not hash ${name} (Ethereum's ${fork} appended it, no fork of this layout did): no block hash covers it`,
      });
  for (const { member, why } of foreignMembers(layout))
    if (given(fields[member])) shape.unhashed.push({ field: member, why });
  return shape;
}
