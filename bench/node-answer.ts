/**
 * A fixture block as a node's answers carry it: every member `eth_getBlockReceipts` returns, where
 * the fixtures keep only what the receipts root and bloom need (plus, in some, `logsBloom`,
 * `transactionHash` and `logIndex`). The members a fixture lacks are filled in: the block's hash and
 * number from its header, each log's position in the block, each receipt's bloom from its logs (a
 * receipt's own `logsBloom` is compared with its logs'), each receipt's gas used as its step in
 * `cumulativeGasUsed` (as a node derives it, and as `verifyBlock` compares it), and made-up but
 * well-formed values for the transaction's hash (where the fixture has none), sender, recipient and
 * gas price. `verifyBlock` compares the bloom, the gas used and the members that repeat the block,
 * and reads none of the others; they are there because a real answer makes JSON.parse read them.
 */
import { bytesToHex, hexToBytes, logsBloom } from '../packages/core/src/index.js';

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
  let previousGas = 0n;
  const receipts = fixture.receipts.map((receipt: any, i: number) => {
    // The position leads a made-up hash: madeUpHex repeats every 256 seeds, and one transaction has one receipt.
    const transactionHash =
      receipt.transactionHash ?? `0x${i.toString(16).padStart(8, '0')}${madeUpHex(28, i).slice(2)}`;
    const block = { blockHash: header.hash, blockNumber: header.number, transactionHash };
    const cumulativeGas = BigInt(receipt.cumulativeGasUsed);
    const gasUsed = `0x${(cumulativeGas - previousGas).toString(16)}`;
    previousGas = cumulativeGas;
    return {
      ...block,
      transactionIndex: receipt.transactionIndex,
      from: madeUpHex(20, i + 1),
      to: madeUpHex(20, i + 2),
      contractAddress: null,
      type: receipt.type,
      status: receipt.status,
      cumulativeGasUsed: receipt.cumulativeGasUsed,
      gasUsed,
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
