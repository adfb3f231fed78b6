/**
 * Forgeries of real blocks, as a dishonest node or bundle would send them: receipts altered, and
 * the header's receiptsRoot and logsBloom recomputed so that they match the altered receipts.
 * The header's `hash` stays the real one unless the forgery is re-hashed as well.
 */
import {
  bytesToHex,
  Problems,
  readRpcBlock,
  receiptsCommitment,
  RULE_SETS,
  type RuleSetName,
} from '../../packages/core/src/index.js';
import type { FixtureBlock } from './fixtures.js';
import { rehash } from './loopback-rpc.js';

type RpcReceipt = { cumulativeGasUsed?: unknown; logs?: Array<{ data: string; topics: string[] }> } & Record<
  string,
  unknown
>;

/**
 * How the receipts are altered: a byte of a log's data, the gas a receipt counts, or the last receipt dropped; or a
 * member no root commits to, the roots left as they are: a receipt's `gasUsed` that is not its step in
 * `cumulativeGasUsed`, or a receipt given the `transactionHash` of another (both given one where they had none).
 */
export type Alteration =
  | { kind: 'log-data'; receipt: number }
  | { kind: 'gas'; receipt: number }
  | { kind: 'drop-last' }
  | { kind: 'gas-used'; receipt: number }
  | { kind: 'same-hash'; receipt: number; as: number };

/** The alterations of members no root commits to. */
const UNCOMMITTED: ReadonlySet<Alteration['kind']> = new Set(['gas-used', 'same-hash']);

/** Applies an alteration to a copy of the receipts; receipt indexes wrap around the list. */
function alter(receipts: RpcReceipt[], alteration: Alteration): RpcReceipt[] {
  const copy: RpcReceipt[] = receipts.map((r) => ({ ...r, logs: r.logs?.map((l) => ({ ...l })) }));
  if (alteration.kind === 'drop-last') return copy.slice(0, -1);
  const withLogs = copy.filter((r) => (r.logs?.length ?? 0) > 0);
  if (alteration.kind === 'log-data' && withLogs.length > 0) {
    const log = withLogs[alteration.receipt % withLogs.length]!.logs![0]!;
    log.data =
      log.data.length > 2
        ? `0x${(parseInt(log.data.slice(2, 4), 16) ^ 1).toString(16).padStart(2, '0')}${log.data.slice(4)}`
        : '0x01';
    return copy;
  }
  const receipt = copy[('receipt' in alteration ? alteration.receipt : 0) % copy.length]!;
  if (alteration.kind === 'gas-used') {
    // No receipt's step is 1 gas: a transaction costs 21,000 at least.
    receipt.gasUsed = '0x1';
    return copy;
  }
  if (alteration.kind === 'same-hash') {
    const other = copy[(alteration.receipt + 1 + (alteration.as % (copy.length - 1 || 1))) % copy.length]!;
    other.transactionHash ??= `0x${'5a'.repeat(32)}`;
    receipt.transactionHash = other.transactionHash;
    return copy;
  }
  receipt.cumulativeGasUsed = `0x${(BigInt(receipt.cumulativeGasUsed as string) + 1n).toString(16)}`;
  return copy;
}

/**
 * The block with its receipts altered and its receiptsRoot and logsBloom recomputed to match (on
 * Ethereum's rules, or `rules`); with `rehash`, its `hash` recomputed too: a forgery no single block can tell.
 */
export function forge(
  fixture: FixtureBlock,
  alteration: Alteration,
  options: { rehash?: boolean; rules?: RuleSetName } = {},
): FixtureBlock {
  const receipts = alter(fixture.receipts, alteration);
  // A receipt dropped, its transaction is left out of the header's list too: the block reader refuses a list that
  // names a transaction without its receipt.
  const listed: unknown = fixture.header.transactions;
  const dropped =
    alteration.kind === 'drop-last' && Array.isArray(listed)
      ? { ...fixture, header: { ...fixture.header, transactions: listed.slice(0, -1) } }
      : fixture;
  const problems = new Problems();
  // A member no root commits to leaves the roots as they were: they are computed from the real receipts.
  const committed = UNCOMMITTED.has(alteration.kind) ? fixture.receipts : receipts;
  const block = readRpcBlock({ ...dropped, receipts: committed, raw_receipts: undefined }, problems);
  if (block === undefined) throw new Error(`forge: ${JSON.stringify(problems.list)}`);
  const { receiptsRoot, logsBloom } = receiptsCommitment(block.receipts, {
    rules: RULE_SETS[options.rules ?? 'ethereum'],
  });
  const header: Record<string, unknown> = {
    ...dropped.header,
    receiptsRoot: `0x${bytesToHex(receiptsRoot)}`,
    logsBloom: `0x${bytesToHex(logsBloom)}`,
  };
  const { raw_receipts: _raw, ...rest } = dropped;
  return { ...rest, receipts, header: (options.rehash ? rehash(header) : header) as Record<string, string> };
}
