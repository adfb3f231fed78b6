import type { EthLog } from './eth-log.js';

/** A difference between a node's `eth_getLogs` answer and the logs a proof proves. */
export type LogsDiscrepancy =
  /** A proven log the node did not return. */
  | { kind: 'dropped'; blockNumber: number; logIndex: number; proven: EthLog }
  /** A log the node returned that is not among the proven ones (or returned twice). */
  | { kind: 'invented'; blockNumber: number; logIndex: number; node: unknown; why: string }
  /** The node returned the log at this place with other contents: the members that differ. */
  | { kind: 'altered'; blockNumber: number; logIndex: number; proven: EthLog; node: unknown; members: string[] }
  /** A member of the node's answer that is no log: what is wrong with it. */
  | { kind: 'unreadable'; position: number; node: unknown; why: string };

/** The members compared: every member the proof proves. `blockTimestamp` only when the node gives it. */
const COMPARED = ['address', 'topics', 'data', 'blockHash', 'transactionIndex', 'blockTimestamp', 'removed'] as const;

const HEX = /^0x[0-9a-fA-F]*$/;

/** A quantity as JSON-RPC writes it, as a number, or null. */
function quantity(value: unknown): number | null {
  if (typeof value !== 'string' || !HEX.test(value) || value.length < 3 || value.length > 16) return null;
  return Number.parseInt(value.slice(2), 16);
}

/** A member in the proof's spelling (lowercase hex, quantities without leading zeros), to compare. */
function normalized(member: string, value: unknown): unknown {
  if (member === 'removed') return value === undefined ? false : value;
  if (member === 'transactionIndex' || member === 'blockTimestamp') {
    const n = typeof value === 'string' && HEX.test(value) && value.length > 2 ? BigInt(value) : null;
    return n === null ? value : `0x${n.toString(16)}`;
  }
  if (typeof value === 'string') return value.toLowerCase();
  if (Array.isArray(value)) return value.map((v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v));
  return value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const placeKey = (blockNumber: number, logIndex: number) => `${blockNumber}:${logIndex}`;

/**
 * Compares a node's `eth_getLogs` answer for a range and filter with the logs a proof of the same
 * range and filter proves, matched by block number and block-wide log index, and names every log
 * the node dropped, invented or altered. Every member the proof proves is compared;
 * `transactionHash`, which it does not prove, is not.
 *
 * @example
 * compareLogs(proven, await rpc('eth_getLogs', [{ fromBlock, toBlock, address }]), { fromBlock: 10, toBlock: 20 })
 * // [{ kind: 'dropped', blockNumber: 12, logIndex: 3, proven: { … } }]
 */
export function compareLogs(
  proven: readonly EthLog[],
  node: readonly unknown[],
  range: { fromBlock: number; toBlock: number },
): LogsDiscrepancy[] {
  const wanted = new Map<string, EthLog>();
  for (const log of proven) wanted.set(placeKey(Number(log.blockNumber), Number(log.logIndex)), log);
  const seen = new Set<string>();
  const found: LogsDiscrepancy[] = [];
  node.forEach((entry, position) => {
    const log = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : null;
    const blockNumber = quantity(log?.['blockNumber']);
    const logIndex = quantity(log?.['logIndex']);
    if (log === null || blockNumber === null || logIndex === null) {
      const why = log === null ? 'not an object' : 'its blockNumber or logIndex is not a quantity';
      found.push({ kind: 'unreadable', position, node: entry, why });
      return;
    }
    const key = placeKey(blockNumber, logIndex);
    const expected = wanted.get(key);
    if (expected === undefined || seen.has(key)) {
      const why = seen.has(key)
        ? 'returned twice'
        : blockNumber < range.fromBlock || blockNumber > range.toBlock
          ? 'outside the range'
          : 'the block holds no matching log at this index';
      found.push({ kind: 'invented', blockNumber, logIndex, node: entry, why });
      return;
    }
    seen.add(key);
    const members = COMPARED.filter(
      (member) =>
        !(member === 'blockTimestamp' && log[member] === undefined) &&
        !same(normalized(member, log[member]), expected[member]),
    );
    if (members.length > 0)
      found.push({ kind: 'altered', blockNumber, logIndex, proven: expected, node: entry, members });
  });
  for (const [key, log] of wanted)
    if (!seen.has(key))
      found.push({
        kind: 'dropped',
        blockNumber: Number(log.blockNumber),
        logIndex: Number(log.logIndex),
        proven: log,
      });
  const order = (d: LogsDiscrepancy) => (d.kind === 'unreadable' ? [-1, d.position] : [d.blockNumber, d.logIndex]);
  return found.sort((a, b) => order(a)[0]! - order(b)[0]! || order(a)[1]! - order(b)[1]!);
}
