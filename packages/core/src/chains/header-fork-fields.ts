/**
 * A decoded header held to its chain's forks, as `verify block` holds a block's header: the receipt-root body's
 * `header_rlp`, a receipt proof's header and a logs proof's headers are judged by this one rule, so that a header one
 * refuses (another chain's block, relabelled) is refused by all.
 */
import { absentForkFields, lostForkFieldReason } from './absent-fork-fields.js';
import type { ChainInfo } from './chain-info.js';
import { fieldsAheadOfFork, scheduledFields } from './fork-schedule.js';
import type { BlockHeader } from '../header/header-fields.js';
import type { HeaderLayout } from '../header/layouts.js';

/** A fork field a header has that its block's fork lacks (`conflict`), or lacks that its block has (`missing`). */
export interface ForkFieldFault {
  kind: 'conflict' | 'missing';
  /** What the header should be, and why: `a header with baseFeePerGas: Base block 47218 is in Bedrock …`. */
  expected: string;
}

/**
 * The fork fields of a header that are not its block's, as `verify block` judges them: each its block's fork does not
 * have (by the chain's schedule), and, where the era's block hash is claimed, each it lacks that its block has (by the
 * schedule, or where the chain has none, by its real blocks).
 * @example
 * // mainnet block 47,218's header as Base's, whose blocks have baseFeePerGas from Bedrock (block 0) on:
 * forkFieldFaults(base, OP_HEADER, fields, true) // [{ kind: 'missing', expected: 'a header with baseFeePerGas: …' }]
 */
export function forkFieldFaults(
  chain: ChainInfo,
  layout: HeaderLayout,
  fields: BlockHeader,
  hashClaimed: boolean,
): ForkFieldFault[] {
  const faults: ForkFieldFault[] = [];
  const at = { number: fields.number, timestamp: fields.timestamp };
  const scheduled = chain.forks === undefined ? undefined : scheduledFields(layout, chain.forks, at);
  if (chain.forks !== undefined)
    for (const { field, why } of fieldsAheadOfFork(chain.name, chain.forks, scheduled!, fields, at))
      faults.push({ kind: 'conflict', expected: `a header without ${field}: ${why}` });
  // As verify block: a missing field is named only where the era claims the block hash, which would need it.
  if (hashClaimed)
    for (const lost of absentForkFields(fields, layout, chain.headerFields, fields.number, scheduled).lost)
      faults.push({
        kind: 'missing',
        expected: `a header with ${lost.field}: ${lostForkFieldReason(lost, chain.name, fields.number)}`,
      });
  return faults;
}
