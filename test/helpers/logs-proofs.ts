/**
 * Logs proofs of real fixture blocks, and the logs `eth_getLogs` would answer for them computed
 * here from the fixtures' JSON alone (an oracle independent of the library's matching).
 */
import { expect } from 'vitest';
import {
  defaultKeccak256,
  Problems,
  readRpcBlock,
  type ChainRegistry,
  type RpcBlock,
} from '../../packages/core/src/index.js';
import {
  logProof,
  LogsProofBuilder,
  receiptProof,
  type EthLog,
  type LogsFilter,
} from '../../packages/core/src/proof/index.js';
import { loadFixture } from './fixtures.js';

/** A fixture block read as a source gives it. */
export function readFixtureBlock(name: string): RpcBlock {
  const problems = new Problems();
  const block = readRpcBlock(loadFixture(name), problems);
  expect(problems.list).toEqual([]);
  return block!;
}

/** The fixture names of blocks `from` to `to` of a group (`mainnet`, …). */
/**
 * Mainnet block 1,000,023 (9 logs of BUSY_2016, from its first transaction with logs on) and what the proof entry points'
 * argument tests give them: the receipt proof of that first transaction, the header's RLP and the block hash.
 */
export function provenBlock1000023() {
  const block = readFixtureBlock('mainnet-1000023');
  const header = block.header.complete!;
  const receipts = block.receipts;
  const txIndex = receipts.findIndex((receipt) => receipt.logs.length > 0);
  const headerRlp = logProof(header, receipts, txIndex, 0).headerRlp;
  return {
    block,
    header,
    receipts,
    txIndex,
    proof: receiptProof(receipts, txIndex),
    headerRlp,
    blockHash: defaultKeccak256(headerRlp),
  };
}

export const rangeNames = (group: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${group}-${from + i}`);

/** ERC-20's `Transfer` topic. */
export const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** The busiest contract of the 30 consecutive mainnet fixture blocks: 9 logs, all in block 1,000,023. */
export const BUSY_2016 = '0x276c5c6ca8507ed7bac085fc9b9521f4f54b58d3';
/** The 30 consecutive mainnet fixture blocks. */
export const THIRTY = rangeNames('mainnet', 1_000_001, 1_000_030);

/** The artifact of the fixture blocks `names` (consecutive, in order) for a filter, built by the library. */
export function buildArtifact(
  names: readonly string[],
  filter: LogsFilter,
  options: { chainId?: number; registry?: ChainRegistry } = {},
): { artifact: Uint8Array; headHash: Uint8Array; records: Uint8Array[] } {
  const blocks = names.map(readFixtureBlock);
  const first = Number(blocks[0]!.header.fields.number);
  const builder = new LogsProofBuilder(
    {
      chainId: options.chainId ?? blocks[0]!.chainId!,
      fromBlock: first,
      toBlock: first + blocks.length - 1,
      filter,
    },
    options,
  );
  const records = [builder.start()];
  for (const block of blocks) {
    const built = builder.block(block.header.complete!, block.receipts);
    if (!built.ok) throw new Error(built.error.message);
    records.push(built.value.record);
  }
  const summary = builder.finish();
  if (!summary.ok) throw new Error(summary.error.message);
  return { artifact: concat(records), headHash: summary.value.headHash, records };
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A filter in the fixtures' spelling: hex addresses, and topics by position (null: any). */
export interface HexFilter {
  address?: string[];
  topics?: Array<string[] | null>;
}

const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

export const toFilter = (f: HexFilter): LogsFilter => ({
  addresses: (f.address ?? []).map(hexBytes),
  topics: (f.topics ?? []).map((alternatives) => (alternatives ?? []).map(hexBytes)),
});

/** What `eth_getLogs` answers for `names` and the filter, from the fixtures' JSON and geth's matching rule. */
export function expectedLogs(names: readonly string[], filter: HexFilter): EthLog[] {
  return matchingLogs(names.map(loadFixture), filter);
}

/** What `eth_getLogs` answers for blocks in the fixtures' format (JSON-RPC header and receipts), in order. */
export function matchingLogs(
  blocks: ReadonlyArray<{ header: Record<string, unknown>; receipts: ReadonlyArray<Record<string, unknown>> }>,
  filter: HexFilter,
): EthLog[] {
  const lower = (s: string) => s.toLowerCase();
  const logs: EthLog[] = [];
  for (const block of blocks) {
    const header = block.header as Record<string, string>;
    let logIndex = 0;
    block.receipts.forEach((receipt, transactionIndex) => {
      for (const log of (receipt as { logs: Array<{ address: string; topics: string[]; data: string }> }).logs) {
        const topics = log.topics.map(lower);
        const addressOk = !filter.address?.length || filter.address.map(lower).includes(lower(log.address));
        const wanted = filter.topics ?? [];
        const topicsOk =
          topics.length >= wanted.length &&
          wanted.every((alternatives, i) => !alternatives?.length || alternatives.map(lower).includes(topics[i]!));
        if (addressOk && topicsOk)
          logs.push({
            address: lower(log.address),
            topics,
            data: lower(log.data),
            blockNumber: `0x${BigInt(header['number']!).toString(16)}`,
            blockHash: lower(header['hash']!),
            blockTimestamp: `0x${BigInt(header['timestamp']!).toString(16)}`,
            transactionIndex: `0x${transactionIndex.toString(16)}`,
            logIndex: `0x${logIndex.toString(16)}`,
            removed: false,
          });
        logIndex++;
      }
    });
  }
  return logs;
}
