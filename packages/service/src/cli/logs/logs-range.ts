/**
 * What the logs commands (`prove logs`, `audit-logs`) share: their range and filter read from the
 * flags, the node they ask, and how a range and a proof's summary are told.
 */
import { bytesToHex, ChainRegistry, defaultRegistry, hexToBytes } from 'evm-integrity';
import { RpcBlockSource } from 'evm-integrity/node';
import type { LogsFilter, LogsProofSummary, LogsRange } from 'evm-integrity/proof';
import {
  addressValue,
  MAX_CONCURRENCY,
  positiveValue,
  requiredBlockRef,
  rpcUrlOf,
  topicValue,
  type BlockRef,
} from '../flags.js';
import { UsageError } from '../io/usage-error.js';
import { addedChains, CHAIN_OPTIONS, chainValue } from '../chain-flag.js';

/** The flags of a range and filter, as parseArgs reads them. */
export const RANGE_OPTIONS = {
  ...CHAIN_OPTIONS,
  rpc: { type: 'string' },
  'rpc-url': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  address: { type: 'string', multiple: true },
  topic0: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
} as const;

/** The range and filter the flags ask for (its blocks numbers or tags), the node's URL, and blocks fetched ahead. */
export interface LogsRangeFlags {
  range: Omit<LogsRange, 'fromBlock' | 'toBlock'> & { fromBlock: BlockRef; toBlock: BlockRef };
  rpc: string;
  concurrency: number;
  /** The built-in chains and those `--add-chain` adds. */
  registry: ChainRegistry;
}

/** `--to` not before `--from`, each named as given (a tag with the block it resolved to). */
function checkOrder(from: number, to: number, given: { fromBlock: BlockRef; toBlock: BlockRef }): void {
  const named = (flag: string, block: BlockRef, n: number) =>
    typeof block === 'string' ? `${flag} (${block}: block ${n})` : `${flag} (${n})`;
  if (to < from)
    throw new UsageError(
      `${named('--to', given.toBlock, to)} must not be before ${named('--from', given.fromBlock, from)}`,
    );
}

/**
 * The filter `--address A`… and `--topic0 T`… make: any of the addresses, and any of the topics first. A value given
 * twice (in any case, with or without 0x: each is read to lowercase 0x hex) is a UsageError: it would be carried into the proof and its summary twice.
 */
export function filterOfFlags(values: { address?: string[]; topic0?: string[] }): LogsFilter {
  const addresses = onceEach('--address', values.address ?? [], addressValue);
  const topic0 = onceEach('--topic0', values.topic0 ?? [], topicValue);
  return { addresses, topics: topic0.length > 0 ? [topic0] : [] };
}

/** The values of a repeated flag as bytes, each read by `read`; one given twice is a UsageError naming both. */
function onceEach(flag: string, given: string[], read: (flag: string, value: string) => string): Uint8Array[] {
  const seen = new Map<string, string>();
  return given.map((value) => {
    const hex = read(flag, value);
    const before = seen.get(hex);
    if (before !== undefined)
      throw new UsageError(
        `${flag} ${value} is given twice${before === value ? '' : ` (as ${before} too)`}: give each value once`,
      );
    seen.set(hex, value);
    return hexToBytes(hex);
  });
}

/** Reads and checks `--chain`, the node, `--from`/`--to` and the filter (`--address`…, `--topic0`…). */
export function logsRangeFlags(
  values: { [K in keyof typeof RANGE_OPTIONS]?: K extends 'address' | 'topic0' | 'add-chain' ? string[] : string },
  env: NodeJS.ProcessEnv,
): LogsRangeFlags {
  const registry = new ChainRegistry(addedChains(values['add-chain']));
  const chainId = chainValue('--chain', values.chain);
  const rpc = rpcUrlOf(values, env);
  if (rpc === undefined) throw new UsageError('give the node: --rpc URL (or --rpc-url URL, or ETH_RPC_URL)');
  const fromBlock = requiredBlockRef('--from', values.from);
  const toBlock = requiredBlockRef('--to', values.to);
  // A range in numbers is checked before the node is asked anything; one with a tag once the node has resolved it.
  if (typeof fromBlock === 'number' && typeof toBlock === 'number')
    checkOrder(fromBlock, toBlock, { fromBlock, toBlock });
  return {
    range: { chainId, fromBlock, toBlock, filter: filterOfFlags(values) },
    rpc,
    concurrency: positiveValue('--concurrency', values.concurrency, 4, MAX_CONCURRENCY),
    registry,
  };
}

/**
 * The node, checked to serve the chain asked for (a node of another chain is a ChainMismatchError naming both: one
 * line, exit 2; one that cannot be reached a SourceError), and the range in numbers: each tag asked of the node once.
 */
export async function openNode(
  url: string,
  given: LogsRangeFlags['range'],
): Promise<{ node: RpcBlockSource; range: LogsRange }> {
  const node = new RpcBlockSource({ url });
  await node.checkChain(given.chainId);
  const number = (block: BlockRef) => (typeof block === 'number' ? block : node.blockNumberOf(block));
  const fromBlock = await number(given.fromBlock);
  const toBlock = await number(given.toBlock);
  checkOrder(fromBlock, toBlock, given);
  return { node, range: { ...given, fromBlock, toBlock } };
}

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;
const count = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;

/** A chain as messages name it: `chain 1 (Ethereum)`; an added chain is named by its id alone. */
export function chainName(chainId: number, registry: ChainRegistry = defaultRegistry): string {
  const name = registry.get(chainId)?.name;
  if (name === undefined) return `chain ${chainId} (not in the registry)`;
  return name === `chain ${chainId}` ? name : `chain ${chainId} (${name})`;
}

/** The filter as `eth_getLogs` spells it, for JSON lines. */
export function filterJson(range: LogsRange): { address: string[]; topics: string[][] } {
  return {
    address: range.filter.addresses.map(hex),
    topics: range.filter.topics.map((alternatives) => alternatives.map(hex)),
  };
}

/** The filter in words: `address 0x… or 0x…, topic0 0x…`, or `every log`. */
export function describeFilter(range: LogsRange): string {
  const { address, topics } = filterJson(range);
  const parts = [
    ...(address.length > 0 ? [`address ${address.join(' or ')}`] : []),
    ...topics.map((alternatives, i) => `topic${i} ${alternatives.length === 0 ? 'any' : alternatives.join(' or ')}`),
  ];
  return parts.length === 0 ? 'every log' : parts.join(', ');
}

/** What a proof covers and holds, in one line. */
export function describeSummary(summary: LogsProofSummary, registry?: ChainRegistry): string {
  return `${chainName(summary.chainId, registry)}, blocks ${count(summary.fromBlock)} to ${count(summary.toBlock)} (${plural(summary.blocks, 'block')}, ${plural(summary.candidateBlocks, 'candidate block')} (bloom may match), ${plural(summary.receipts, 'receipt')}), filter ${describeFilter(summary)}: ${plural(summary.logs, 'matching log')}`;
}

/** The head hash line a verifier needs. */
export function headHashLine(summary: LogsProofSummary): string {
  return `head hash ${hex(summary.headHash)} (block ${summary.toBlock})`;
}
