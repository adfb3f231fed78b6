/**
 * What a header that lacks fields a fork appended says, given the chain's fork schedule or, for a
 * chain without one, what its real blocks show of them: a field its block must have (the header
 * lost it: invalid input), or one of which no real block tells whether its block has it, so that a
 * hash that differs cannot be told from a header that lost the field.
 */
import type { EvidenceBlock, ForkActivation, ForkFieldEvidence } from './chain-info.js';
import { describeActivation, type ScheduledField } from './fork-schedule.js';
import type { BlockHeader } from '../header/header-fields.js';
import type { HeaderLayout } from '../header/layouts.js';

/**
 * A fork field the header lacks that its block has: its fork is active at the block (`fork`), or the chain's blocks
 * have it from `from` on, `from` at or before the block.
 */
export type LostForkField = { field: string } & ({ from: EvidenceBlock } | { fork: ForkActivation });

/** A fork field the header lacks, of which no real block shows whether its block has it. */
export interface UnknownForkField {
  field: string;
  evidence: ForkFieldEvidence;
}

/** The fork fields a header lacks, judged by what real blocks show. */
export interface AbsentForkFields {
  lost: LostForkField[];
  /** The first absent field that cannot be judged, if any. */
  unknown?: UnknownForkField;
}

/**
 * Judges each fork field of `layout` that `fields` lacks: by the chain's schedule where it has one (`scheduled`, lost
 * where its fork is active at the block); else lost where a real block of the chain at or before `blockNumber` has it,
 * not lacking anything where one at or after it lacks it, and unknown otherwise (a chain without evidence, or a block
 * between the two).
 * @example
 * absentForkFields(fields, ETHEREUM_HEADER, mainnet.headerFields, 22_869_878n)
 * // { lost: [{ field: 'requestsHash', from: { fixture: 'mainnet-22431084', block: 22431084 } }] }
 */
export function absentForkFields(
  fields: Readonly<Partial<BlockHeader>>,
  layout: HeaderLayout,
  evidence: Readonly<Record<string, ForkFieldEvidence>> | undefined,
  blockNumber: bigint | undefined,
  scheduled?: readonly ScheduledField[],
): AbsentForkFields {
  const judged: AbsentForkFields = { lost: [] };
  for (const { name } of layout.fields.slice(layout.required)) {
    if (fields[name] !== undefined) continue;
    if (scheduled !== undefined) {
      const { appendedBy, due } = scheduled.find((s) => s.field === name)!;
      if (due) judged.lost.push({ field: name, fork: appendedBy! });
      continue;
    }
    const shown = evidence?.[name] ?? {};
    const { presentFrom, absentThrough } = shown;
    if (blockNumber !== undefined && presentFrom !== undefined && blockNumber >= BigInt(presentFrom.block))
      judged.lost.push({ field: name, from: presentFrom });
    else if (blockNumber === undefined || absentThrough === undefined || blockNumber > BigInt(absentThrough.block))
      judged.unknown ??= { field: name, evidence: shown };
  }
  return judged;
}

/** Why a block hash that differs is not a verdict when the header lacks `unknown.field`, for a comparison's reason. */
export function unknownForkFieldReason(
  unknown: UnknownForkField,
  chain: string,
  blockNumber: bigint | undefined,
): string {
  const { field, evidence } = unknown;
  const shown = [
    evidence.absentThrough && `block ${evidence.absentThrough.block} lacks it`,
    evidence.presentFrom && `block ${evidence.presentFrom.block} has it`,
  ].filter(Boolean);
  const block = blockNumber === undefined ? 'this block' : `block ${blockNumber}`;
  return (
    `the header has no ${field}, and no real block of ${chain} shows whether ${block} has it` +
    `${shown.length > 0 ? ` (${shown.join('; ')})` : ''}: a hash that differs cannot be told from a header that lost it`
  );
}

/**
 * Why a header must have `lost`, for a problem's `expected`: its block's fork has it, or the chain's real blocks do from
 * a block at or before this one.
 */
export function lostForkFieldReason(lost: LostForkField, chain: string, blockNumber: bigint | undefined): string {
  return 'from' in lost
    ? `blocks of ${chain} have it from block ${lost.from.block} on at the latest, and this is block ${blockNumber}`
    : `${chain} block ${blockNumber} is in ${lost.fork.fork} (from ${describeActivation(lost.fork)}), which has it`;
}
