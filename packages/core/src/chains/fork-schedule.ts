/**
 * A chain's fork schedule applied to a header: which fork its block is in, and which of its layout's fork fields that
 * fork has. A field its block's fork does not have is no field of the block; one it has and the header lacks was lost.
 */
import type { BlockHeader } from '../header/header-fields.js';
import type { HeaderLayout } from '../header/layouts.js';
import type { Receipt } from '../receipts/receipt.js';
import type { ForkActivation } from './chain-info.js';

/** Where a block is: its number and timestamp, as its header gives them. */
export interface BlockAt {
  number: bigint;
  timestamp: bigint;
}

/** Whether `fork` is active at `at`. */
export const isActive = (fork: ForkActivation, at: BlockAt): boolean =>
  fork.block === undefined ? at.timestamp >= BigInt(fork.timestamp) : at.number >= BigInt(fork.block);

/**
 * The fork a block is in: the last of the schedule active at it before the first that is not. A schedule is in order,
 * so a block whose number and timestamp disagree (a block of another chain, relabelled) is in the earlier fork: an OP
 * Mainnet block before Bedrock is legacy whatever its timestamp, not in the last fork its timestamp reaches.
 */
export function forkAt(forks: readonly ForkActivation[], at: BlockAt): ForkActivation {
  let i = 0;
  while (i + 1 < forks.length && isActive(forks[i + 1]!, at)) i++;
  return forks[i]!;
}

/**
 * Whether block `number` comes before Byzantium on a chain whose schedule names it: its receipts then hash a post-state
 * root, not a status. False where the schedule does not name Byzantium (chains born after it, or without a schedule).
 */
export function beforeByzantium(forks: readonly ForkActivation[] | undefined, number: bigint | undefined): boolean {
  const byzantium = forks?.find((fork) => fork.fork === 'Byzantium');
  return byzantium?.block !== undefined && number !== undefined && number < BigInt(byzantium.block);
}

/**
 * The Byzantium activation of a chain whose schedule names it after its first block: a block without a known number
 * may then be before it, where a receipt hashes its post-state root. Undefined where no block of the chain is.
 */
export function byzantiumAfterGenesis(forks: readonly ForkActivation[] | undefined): ForkActivation | undefined {
  const byzantium = forks?.find((fork) => fork.fork === 'Byzantium');
  return byzantium?.block !== undefined && byzantium.block > 0 ? byzantium : undefined;
}

/**
 * Where a chain's typed transactions (EIP-2718) begin, by its schedule: Berlin on Ethereum's chains, Bedrock on an
 * OP-stack chain (whose legacy l2geth blocks had none). Undefined where the schedule names neither (or there is none).
 */
export function typedTransactionsFrom(forks: readonly ForkActivation[] | undefined): ForkActivation | undefined {
  return forks?.find((fork) => (fork.fork === 'Berlin' || fork.fork === 'Bedrock') && fork.block !== undefined);
}

/**
 * Whether block `number` may hold typed transactions: it is not known to come before where its chain's schedule starts
 * them (without a number, or a schedule that tells, it may).
 */
export function mayHoldTypedTransactions(
  forks: readonly ForkActivation[] | undefined,
  number: bigint | undefined,
): boolean {
  const from = typedTransactionsFrom(forks);
  return from === undefined || number === undefined || number >= BigInt(from.block!);
}

/**
 * Why a receipts root before Byzantium cannot be rebuilt when the receipt `where` names gives a status and no
 * post-state root, as reth's receipts of those blocks do: the root is what such a receipt hashes.
 */
export const rootlessBeforeByzantium = (where: string): string =>
  `${where} gives a status and no post-state root, and before Byzantium a receipt's root is what is hashed (reth's receipts give no root)`;

/**
 * What a receipt before Byzantium that gives a status and no root is expected to give, where the receipt `withRoot`
 * names, of the same block, gives one: a client's receipts of a block give a root on all or on none (reth's), so a mix
 * is refused as input rather than read as a root that cannot be rebuilt.
 */
export const mixedRoots = (withRoot: string): string =>
  `its post-state root, as ${withRoot} of the same block gives one: a client's receipts before Byzantium give a root on all or none`;

/** Canyon in a chain's schedule, where it names it. */
const canyonOf = (forks: readonly ForkActivation[] | undefined) => forks?.find((fork) => fork.fork === 'Canyon');

/**
 * Whether a block comes at or after Canyon on a chain whose schedule names it: its deposit receipts then hash their
 * nonce and version (op-geth gives every deposit receipt version 1 from Canyon on). False where the schedule does not
 * name Canyon, or the header gives no number or timestamp.
 */
export function fromCanyon(
  forks: readonly ForkActivation[] | undefined,
  number: bigint | undefined,
  timestamp: bigint | undefined,
): boolean {
  const canyon = canyonOf(forks);
  return (
    canyon !== undefined && number !== undefined && timestamp !== undefined && isActive(canyon, { number, timestamp })
  );
}

/** Whether a chain's schedule names Canyon: from it on, a deposit receipt hashes its nonce and version. */
export const namesCanyon = (forks: readonly ForkActivation[] | undefined): boolean => canyonOf(forks) !== undefined;

/** Whether `receipt` is an OP-stack deposit (0x7e) without its nonce or its version, which it hashes from Canyon on. */
export const isUnversionedDeposit = (receipt: Receipt): boolean =>
  receipt.type === 0x7e && (receipt.depositReceiptVersion === undefined || receipt.depositNonce === undefined);

/**
 * Why a receipts root from Canyon on cannot be rebuilt when the deposit receipt `where` names lacks its nonce or its
 * version: both are what such a receipt hashes, and a client that drops them leaves nothing to hash in their place.
 */
export const unversionedDepositFromCanyon = (where: string): string =>
  `${where} is a deposit without its depositNonce or depositReceiptVersion, and from Canyon on a deposit receipt hashes both`;

/** When a fork activates, as people write it: "block 12,965,000" or "timestamp 1681338455". */
export const describeActivation = (fork: ForkActivation): string =>
  fork.block === undefined ? `timestamp ${fork.timestamp}` : `block ${fork.block.toLocaleString('en-US')}`;

/** A fork field of a layout, judged by a chain's schedule: the fork that appends it (none: no fork of the chain does). */
export interface ScheduledField {
  field: keyof BlockHeader;
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
  // Due where its fork is the block's fork or one before it ({@link forkAt}): one fork for every field of a block
  // whose number and timestamp disagree, not London absent by the number and Shanghai due by the timestamp.
  const current = forks.indexOf(forkAt(forks, at));
  return layout.fields.slice(layout.required).map(({ name, fork }) => {
    const appendedBy = forks.find((f) => (f.appends ?? f.fork) === fork);
    return {
      field: name,
      ...(appendedBy && { appendedBy }),
      due: appendedBy !== undefined && forks.indexOf(appendedBy) <= current && isActive(appendedBy, at),
    };
  });
}

/** A fork field a header has that its block's fork does not, and why, naming the block's fork and the field's. */
export interface FieldAheadOfFork {
  field: string;
  why: string;
}

/**
 * The fork fields `fields` has that the fork of its block (at `at`) does not have, by the schedule `forks` of the chain
 * named `chain` (`scheduled`: its layout's fork fields judged at `at`, {@link scheduledFields}): no field of the block,
 * whatever its hash.
 * @example
 * const at = { number: 54n, timestamp: 1_700_000_000n };
 * fieldsAheadOfFork('Ethereum Mainnet', mainnet.forks, scheduledFields(ETHEREUM_HEADER, mainnet.forks, at), devnetPragueHeader, at)[5].why
 * // 'Ethereum Mainnet block 54 is in Frontier, which has no requestsHash (Prague, from timestamp 1746612311)'
 */
export function fieldsAheadOfFork(
  chain: string,
  forks: readonly ForkActivation[],
  scheduled: readonly ScheduledField[],
  fields: Readonly<Partial<BlockHeader>>,
  at: BlockAt,
): FieldAheadOfFork[] {
  const fork = forkAt(forks, at).fork;
  return scheduled
    .filter(({ field, due }) => !due && fields[field] !== undefined)
    .map(({ field, appendedBy }) => {
      const from =
        appendedBy === undefined
          ? `no fork of ${chain} appends it`
          : `${appendedBy.fork}, from ${describeActivation(appendedBy)}`;
      return { field, why: `${chain} block ${at.number} is in ${fork}, which has no ${field} (${from})` };
    });
}
