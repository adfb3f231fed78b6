import { HEADER_FIELDS, FRONTIER_FIELD_COUNT, type HeaderFieldSpec } from './fields.js';

/** The header layouts the verifier knows. */
export type HeaderLayoutName = 'ethereum' | 'aura';

/**
 * Which fields a chain's header hashes, in RLP order: `required` leading fields every header of
 * the layout has, then fork fields, each present from its fork on, so that a present one after
 * an absent one is no header of any fork.
 */
export interface HeaderLayout {
  name: HeaderLayoutName;
  fields: readonly HeaderFieldSpec[];
  required: number;
}

/** Ethereum's header, Frontier to Prague (and every chain that kept it). */
export const ETHEREUM_HEADER: HeaderLayout = { name: 'ethereum', fields: HEADER_FIELDS, required: FRONTIER_FIELD_COUNT };

/**
 * An AuRa header (Gnosis and Chiado before their merge): the seal fields `auraStep` and
 * `auraSeal` stand where Ethereum has `mixHash` and `nonce`, and London's `baseFeePerGas`
 * follows them (Nethermind's HeaderDecoder, Open Ethereum's AuRa seal of two fields).
 */
export const AURA_HEADER: HeaderLayout = {
  name: 'aura',
  fields: [
    ...HEADER_FIELDS.slice(0, 13),
    { name: 'auraStep', kind: 'quantity' },
    { name: 'auraSeal', kind: 'bytes' },
    { name: 'baseFeePerGas', kind: 'quantity', fork: 'London' },
  ],
  required: 15,
};

export const HEADER_LAYOUTS: Readonly<Record<HeaderLayoutName, HeaderLayout>> = { ethereum: ETHEREUM_HEADER, aura: AURA_HEADER };

/** Every field any layout has, each once, for readers that do not know the layout yet. */
export const ALL_HEADER_FIELDS: readonly HeaderFieldSpec[] = [
  ...new Map(Object.values(HEADER_LAYOUTS).flatMap((layout) => layout.fields.map((field) => [field.name, field] as const))).values(),
];

/** What keeps some fields from being a header of a layout. */
export interface HeaderShape {
  /** Fields every header of the layout has that are absent. */
  missing: string[];
  /** A fork field that is absent while a later one is present: no fork has such a header. */
  gap?: { field: string; presentAfter: string };
}

/** Checks which of a layout's fields are there: the required ones, and the fork fields without a gap. */
export function headerShape(fields: Readonly<Record<string, unknown>>, layout: HeaderLayout): HeaderShape {
  const missing: string[] = [];
  let absentFork: string | undefined;
  for (const [i, field] of layout.fields.entries()) {
    const present = fields[field.name] !== undefined;
    if (i < layout.required) {
      if (!present) missing.push(field.name);
    } else if (!present) absentFork ??= field.name;
    else if (absentFork !== undefined) return { missing, gap: { field: absentFork, presentAfter: field.name } };
  }
  return { missing };
}
