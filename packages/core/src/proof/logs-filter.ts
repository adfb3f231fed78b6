import { bloomBits, bloomHasBits } from '../bloom/bloom.js';
import { checkBytesList } from '../bytes/check-bytes.js';
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { kindOf } from '../json/show.js';
import type { HashOptions } from '../keccak/keccak.js';
import type { Log } from '../receipts/receipt.js';

/** Topic positions a log has at most, and so a filter. */
export const MAX_FILTER_TOPICS = 4;

/**
 * A filter in the form of `eth_getLogs`: a log matches when its address is one of `addresses`
 * (any address when empty) and, at each position of `topics`, its topic there is one of the
 * alternatives (any topic when the position's list is empty, but the log must have one there).
 */
export interface LogsFilter {
  /** 20 bytes each. */
  addresses: readonly Uint8Array[];
  /** Positions 0-3, each a list of 32-byte alternatives; the last position is never empty. */
  topics: ReadonlyArray<readonly Uint8Array[]>;
}

/**
 * Why `filter` is not a filter, naming the member, or null when it is one. A trailing empty
 * position is refused: clients disagree on whether it asks the log to have a topic there (geth
 * asks it, clients with fixed four positions do not), so a proof over it could not be compared
 * with every node's `eth_getLogs`.
 *
 * @example
 * logsFilterProblem({ addresses: [], topics: [[]] }) // 'topics[0]: the last position …'
 */
export function logsFilterProblem(filter: LogsFilter): string | null {
  const badAddress = filter.addresses.findIndex((a) => a.length !== 20);
  if (badAddress >= 0)
    return `addresses[${badAddress}]: expected 20 bytes, got ${filter.addresses[badAddress]!.length}`;
  if (filter.topics.length > MAX_FILTER_TOPICS)
    return `topics: expected at most ${MAX_FILTER_TOPICS} positions, got ${filter.topics.length}`;
  for (const [i, alternatives] of filter.topics.entries()) {
    const bad = alternatives.findIndex((t) => t.length !== 32);
    if (bad >= 0) return `topics[${i}][${bad}]: expected 32 bytes, got ${alternatives[bad]!.length}`;
  }
  const last = filter.topics.length - 1;
  if (last >= 0 && filter.topics[last]!.length === 0)
    return `topics[${last}]: the last position must name a topic (clients disagree on what a trailing wildcard matches); drop it`;
  return null;
}

/**
 * Holds a filter argument (`name`) to its shape: an object whose `addresses` is a list of bytes and whose `topics` is a
 * list of positions, each a list of bytes (both members required, `[]` for any). A filter that leaves a member out is a
 * TypeError naming it, not JavaScript's own error where it is first read; the items' sizes are
 * {@link logsFilterProblem}'s to judge.
 * @example checkLogsFilter({ addresses: [usdt] }, 'filter') // TypeError: filter.topics must be an array of topic positions, …
 */
export function checkLogsFilter(filter: unknown, name: string): asserts filter is LogsFilter {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw new TypeError(`${name} must be an object with addresses and topics, got ${kindOf(filter)}`);
  const { addresses, topics } = filter as Partial<Record<keyof LogsFilter, unknown>>;
  checkBytesList(addresses, `${name}.addresses`);
  if (!Array.isArray(topics))
    throw new TypeError(
      `${name}.topics must be an array of topic positions, each an array of 32-byte Uint8Arrays ([] for any topics), got ${kindOf(topics)}`,
    );
  topics.forEach((alternatives, i) => checkBytesList(alternatives, `${name}.topics[${i}]`));
}

/** A filter made ready to test many blooms and logs: every item's bloom bits computed once. */
export interface CompiledLogsFilter {
  filter: LogsFilter;
  /**
   * Whether a block with this logs bloom may hold a matching log: false proves it holds none,
   * because the bloom holds every log's address and topics.
   */
  mayMatch(bloom: Uint8Array): boolean;
  /** Whether the log matches, as `eth_getLogs` decides. */
  matches(log: Log): boolean;
}

const anyEqual = (items: readonly Uint8Array[], item: Uint8Array) => items.some((x) => bytesEqual(x, item));

/**
 * Compiles a filter (checked by {@link logsFilterProblem}) for {@link CompiledLogsFilter}'s tests.
 *
 * @throws TypeError naming the member when the filter lacks one or an item is not bytes ({@link checkLogsFilter});
 * RangeError when the filter is not one, naming the member.
 * @example
 * const filter = compileLogsFilter({ addresses: [usdt], topics: [[transferTopic]] })
 * filter.mayMatch(header.logsBloom) // false: no USDT Transfer in this block
 */
export function compileLogsFilter(filter: LogsFilter, options: HashOptions = {}): CompiledLogsFilter {
  checkLogsFilter(filter, 'filter');
  const problem = logsFilterProblem(filter);
  if (problem !== null) throw new RangeError(`filter.${problem}.`);
  const bits = (items: readonly Uint8Array[]) => items.map((item) => bloomBits(item, options));
  // A wildcard (an empty list) asks nothing of the bloom.
  const groups = [filter.addresses, ...filter.topics].filter((items) => items.length > 0).map(bits);
  return {
    filter,
    mayMatch: (bloom) => groups.every((group) => group.some((itemBits) => bloomHasBits(bloom, itemBits))),
    matches: (log) =>
      (filter.addresses.length === 0 || anyEqual(filter.addresses, log.address)) &&
      log.topics.length >= filter.topics.length &&
      filter.topics.every((alternatives, i) => alternatives.length === 0 || anyEqual(alternatives, log.topics[i]!)),
  };
}

/**
 * Whether two filters match the same logs: the same addresses and, at each position, the same alternatives, in any
 * order (a filter's lists are sets: `eth_getLogs` reads them as alternatives).
 *
 * @example sameLogsFilter({ addresses: [a, b], topics: [] }, { addresses: [b, a], topics: [] }) // true
 */
export function sameLogsFilter(a: LogsFilter, b: LogsFilter): boolean {
  const set = (list: readonly Uint8Array[]) => [...new Set(list.map((item) => bytesToHex(item)))].sort().join(',');
  return (
    set(a.addresses) === set(b.addresses) &&
    a.topics.length === b.topics.length &&
    a.topics.every((alternatives, i) => set(alternatives) === set(b.topics[i]!))
  );
}
