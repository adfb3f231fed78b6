/**
 * The `eth_getLogs` completeness check: a node's answer for a range, window after window, compared
 * with the logs a proof proves for the same range and filter. Memory holds one window's logs.
 */
import { compareLogs, type LogsDiscrepancy } from '../proof/logs-completeness.js';
import type { EthLog } from '../proof/eth-log.js';
import type { RpcBlockSource, RpcLogsFilter } from './rpc-block-source.js';

/** What the check counts. */
export interface NodeLogsTally {
  /** `eth_getLogs` windows asked (each may have been asked again in halves). */
  windows: number;
  provenLogs: number;
  nodeLogs: number;
  discrepancies: Record<LogsDiscrepancy['kind'], number>;
}

export interface NodeLogsCheckOptions {
  chainId: number;
  filter: RpcLogsFilter;
  fromBlock: number;
  toBlock: number;
  /** Blocks one window holds (default 2,000); the node may be asked for less when it says an answer is too big. */
  window?: number;
  /** Receives each discrepancy, in block and log order. */
  onDiscrepancy: (discrepancy: LogsDiscrepancy) => void | Promise<void>;
}

/**
 * Takes the proven logs of a range in block order ({@link add}, as a proof's blocks are verified
 * or built) and, each time a window of blocks is complete, asks the node's `eth_getLogs` for that
 * window and compares ({@link compareLogs}). {@link end} checks the windows left, up to the
 * range's last block: a window without a proven log is asked too (the node could invent one).
 *
 * @example
 * const check = new NodeLogsCheck(node, { chainId: 1, filter, fromBlock, toBlock, onDiscrepancy: report })
 * await verifyLogsProof(file, { headHash, onLogs: (logs) => check.add(logs) })
 * const tally = await check.end() // { discrepancies: { dropped: 0, … }, … }
 */
export class NodeLogsCheck {
  readonly #source: RpcBlockSource;
  readonly #options: NodeLogsCheckOptions;
  readonly #window: number;
  #start: number;
  #proven: EthLog[] = [];
  readonly #tally: NodeLogsTally = {
    windows: 0,
    provenLogs: 0,
    nodeLogs: 0,
    discrepancies: { dropped: 0, invented: 0, altered: 0, unreadable: 0 },
  };

  constructor(source: RpcBlockSource, options: NodeLogsCheckOptions) {
    this.#source = source;
    this.#options = options;
    this.#window = Math.max(1, options.window ?? 2_000);
    this.#start = options.fromBlock;
  }

  get #end(): number {
    return Math.min(this.#options.toBlock, this.#start + this.#window - 1);
  }

  /** Proven logs, in order: the windows before their block are checked first. */
  async add(logs: readonly EthLog[]): Promise<void> {
    for (const log of logs) {
      while (Number(log.blockNumber) > this.#end) await this.#flush();
      this.#proven.push(log);
    }
  }

  /** Checks the windows left, up to the range's last block; the tally. */
  async end(): Promise<NodeLogsTally> {
    while (this.#start <= this.#options.toBlock) await this.#flush();
    return this.#tally;
  }

  async #flush(): Promise<void> {
    const { chainId, filter } = this.#options;
    const [from, to] = [this.#start, this.#end];
    const node = await this.#source.logs(chainId, filter, from, to);
    const found = compareLogs(this.#proven, node, { fromBlock: from, toBlock: to });
    this.#tally.windows++;
    this.#tally.provenLogs += this.#proven.length;
    this.#tally.nodeLogs += node.length;
    for (const discrepancy of found) {
      this.#tally.discrepancies[discrepancy.kind]++;
      await this.#options.onDiscrepancy(discrepancy);
    }
    this.#proven = [];
    this.#start = to + 1;
  }
}
