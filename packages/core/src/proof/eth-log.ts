import { bytesToHex } from '../bytes/hex.js';
import type { Log } from '../receipts/receipt.js';

/**
 * A log in the form of `eth_getLogs` (lowercase hex, quantities without leading zeros), with the
 * members a logs proof proves. `transactionHash` is absent: the proof holds receipts, not
 * transactions, so it cannot show which transaction has a hash.
 */
export interface EthLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp: string;
  transactionIndex: string;
  /** The log's position among all the logs of its block. */
  logIndex: string;
  removed: false;
}

/** Where a log is: its block and its positions. */
export interface LogPlace {
  blockNumber: number;
  blockHash: Uint8Array;
  timestamp: bigint;
  transactionIndex: number;
  logIndex: number;
}

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;
const quantity = (n: number | bigint) => `0x${n.toString(16)}`;

/**
 * A log in the form of `eth_getLogs`.
 * @example ethLog(log, { blockNumber: 1, blockHash, timestamp: 1438269988n, transactionIndex: 0, logIndex: 0 }).logIndex // '0x0'
 */
export function ethLog(log: Log, place: LogPlace): EthLog {
  return {
    address: hex(log.address),
    topics: log.topics.map(hex),
    data: hex(log.data),
    blockNumber: quantity(place.blockNumber),
    blockHash: hex(place.blockHash),
    blockTimestamp: quantity(place.timestamp),
    transactionIndex: quantity(place.transactionIndex),
    logIndex: quantity(place.logIndex),
    removed: false,
  };
}
