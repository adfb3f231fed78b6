/**
 * A chain's fork schedule applied to a header: which fork its block is in, and which of its layout's fork fields that
 * fork has. A field its block's fork does not have is no field of the block; one it has and the header lacks was lost.
 */
import type { HeaderLayout } from '../header/layouts.js';
import type { ForkActivation } from './chain-info.js';

/** Where a block is: its number and timestamp, as its header gives them. */
export interface BlockAt {
  number: bigint;
  timestamp: bigint;
}

/** Whether `fork` is active at `at`. */
export const isActive = (fork: ForkActivation, at: BlockAt): boolean =>
  fork.block === undefined ? at.timestamp >= BigInt(fork.timestamp) : at.number >= BigInt(fork.block);

/** The fork a block is in: the last of the schedule active at it. */
export function forkAt(forks: readonly ForkActivation[], at: BlockAt): ForkActivation {
  let i = forks.length - 1;
  while (i > 0 && !isActive(forks[i]!, at)) i--;
  return forks[i]!;
}

/** When a fork activates, as people write it: "block 12,965,000" or "timestamp 1681338455". */
export const describeActivation = (fork: ForkActivation): string =>
  fork.block === undefined ? `timestamp ${fork.timestamp}` : `block ${fork.block.toLocaleString('en-US')}`;

/** A fork field of a layout, judged by a chain's schedule: the fork that appends it (none: no fork of the chain does). */
export interface ScheduledField {
  field: string;
  appendedBy?: ForkActivation;
  /** Whether the block's header has it: its fork is active at the block. */
  due: boolean;
}

/**
 * Each fork field of `layout`, with the fork of `forks` that appends it and whether that fork is active at `at`.
 * @example
 * scheduledFields(ETHEREUM_HEADER, mainnet.forks, { number: 54n, timestamp: 1438270017n })
 * // [{ field: 'baseFeePerGas', appendedBy: { fork: 'London', block: 12965000 }, due: false }, …]
 */
export function scheduledFields(layout: HeaderLayout, forks: readonly ForkActivation[], at: BlockAt): ScheduledField[] {
  return layout.fields.slice(layout.required).map(({ name, fork }) => {
    const appendedBy = forks.find((f) => (f.appends ?? f.fork) === fork);
    return {
      field: name,
      ...(appendedBy && { appendedBy }),
      due: appendedBy !== undefined && isActive(appendedBy, at),
    };
  });
}
