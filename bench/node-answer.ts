/**
 * A fixture block as a node's answers carry it: every member `eth_getBlockReceipts` returns, where
 * the fixtures keep only what the receipts root and bloom need (plus, in some, `logsBloom`,
 * `transactionHash` and `logIndex`). The members a fixture lacks are filled in: the block's hash and
 * number from its header, each log's position in the block, each receipt's bloom from its logs (a
 * receipt's own `logsBloom` is compared with its logs'), and made-up but well-formed values for the
 * transaction's hash (where the fixture has none), sender, recipient and gas price; the gas used is
 * the receipt's step in `cumulativeGasUsed`, as a node gives it (`verifyBlock` compares it on a
 * verifiable chain). `verifyBlock` reads none of the others but the bloom; they are there because a
 * real answer makes JSON.parse read them.
 */
import { bytesToHex, defaultKeccak256, hexToBytes, logsBloom } from '../packages/core/src/index.js';

/** The bloom of a JSON-RPC receipt's logs, as a node gives it. */
function bloomOfLogs(logs: any[]): string {
  const decoded = logs.map((log) => ({
    address: hexToBytes(log.address),
    topics: log.topics.map((topic: string) => hexToBytes(topic)),
    data: hexToBytes(log.data),
  }));
  return `0x${bytesToHex(logsBloom(decoded))}`;
}

/** 0x-hex of `bytes` bytes, each a function of its position and `seed`. */
function madeUpHex(bytes: number, seed: number): string {
  let out = '0x';
  for (let i = 0; i < bytes; i++) out += ((i * 7 + seed * 13) & 255).toString(16).padStart(2, '0');
  return out;
}

/** The JSON text of `fixture`'s chain id, header and receipts, each receipt and log with a node's every member. */
export function fullNodeAnswer(fixture: any): string {
  const { header } = fixture;
  let logIndex = 0;
  const place = (receipt: any, i: number) =>
    receipt.transactionIndex === undefined ? i : Number(receipt.transactionIndex);
  // Each receipt's cumulative gas by its place in the block (the fixture may list them in another order).
  const cumulative = new Map<number, bigint>(
    fixture.receipts.map((receipt: any, i: number) => [place(receipt, i), BigInt(receipt.cumulativeGasUsed)]),
  );
  const receipts = fixture.receipts.map((receipt: any, i: number) => {
    // A hash of the receipt's index, not madeUpHex, whose bytes repeat every 256 receipts: a block's hashes are distinct.
    const transactionHash =
      receipt.transactionHash ?? `0x${bytesToHex(defaultKeccak256(new TextEncoder().encode(`tx ${i}`)))}`;
    const block = { blockHash: header.hash, blockNumber: header.number, transactionHash };
    return {
      ...block,
      transactionIndex: receipt.transactionIndex,
      from: madeUpHex(20, i + 1),
      to: madeUpHex(20, i + 2),
      contractAddress: null,
      type: receipt.type,
      status: receipt.status,
      // Before Byzantium a receipt has its post-state root in place of a status (undefined members are not written).
      root: receipt.root,
      cumulativeGasUsed: receipt.cumulativeGasUsed,
      gasUsed: `0x${(BigInt(receipt.cumulativeGasUsed) - (cumulative.get(place(receipt, i) - 1) ?? 0n)).toString(16)}`,
      effectiveGasPrice: '0x3b9aca00',
      logsBloom: receipt.logsBloom ?? bloomOfLogs(receipt.logs),
      logs: receipt.logs.map((log: any) => ({
        address: log.address,
        topics: log.topics,
        data: log.data,
        ...block,
        transactionIndex: receipt.transactionIndex,
        logIndex: `0x${(logIndex++).toString(16)}`,
        removed: false,
      })),
    };
  });
  return JSON.stringify({ chain_id: fixture.chain_id, header, receipts });
}
