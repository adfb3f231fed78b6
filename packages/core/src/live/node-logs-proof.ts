/**
 * A complete-log proof built from a JSON-RPC node, block after block: the one way `prove logs` and
 * `audit-logs` get a proof from a node. Blocks are fetched ahead, a few at a time, and handed out
 * in order, so that memory holds a handful of blocks whatever the range.
 */
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, formatBlock, type ChainRegistry } from '../chains/registry.js';
import type { BlockHeader } from '../header/header-fields.js';
import { readRpcBlock, readRpcBlockHead } from '../input/json-rpc/json-rpc.js';
import { describeProblems, Problems } from '../input/values/problems.js';
import type { JsonObject } from '../input/values/json-values.js';
import { LogsProofBuilder, type LogsProofBlock } from '../proof/logs-proof-builder.js';
import type { LogsFilter } from '../proof/logs-filter.js';
import type { LogsRange } from '../proof/logs-proof-format.js';
import type { LogsProofSummary } from '../proof/logs-range-check.js';
import type { Receipt } from '../receipts/receipt.js';
import { SourceError } from '../errors.js';
import type { BlockReceipts, RpcBlockSource, RpcLogsFilter } from './rpc-block-source.js';

/** One block of the proof: its number, its record and matching logs. */
export interface NodeProofBlock extends LogsProofBlock {
  number: number;
}

/** A block as fetched: its header read in its era's layout, its receipts when its bloom may match. */
export interface FetchedBlock {
  number: number;
  header: BlockHeader;
  /** The node's `hash` of the block. */
  hash: Uint8Array | undefined;
  receipts: Receipt[] | undefined;
}

export interface NodeLogsProofOptions {
  /** Blocks fetched ahead of the one being written (default 4). */
  concurrency?: number;
  /** The chains (the built-in registry when absent). */
  registry?: ChainRegistry;
}

const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;

/** The filter as `eth_getLogs` takes it: members left out where they ask nothing. */
export function rpcLogsFilter(filter: LogsFilter): RpcLogsFilter {
  return {
    ...(filter.addresses.length > 0 && { address: filter.addresses.map(hex) }),
    ...(filter.topics.length > 0 && { topics: filter.topics.map((alternatives) => alternatives.map(hex)) }),
  };
}

/**
 * Builds a logs proof of `range` from a node: {@link start}'s bytes, then each block's record
 * from {@link blocks}, then {@link finish}'s summary. Each header is fetched with
 * `eth_getBlockByNumber`, and its receipts only when its bloom may match the filter. A node fault
 * (a block it lacks, a header that does not hash to the node's own `hash`, receipts that do not
 * make the header's root, a chain that does not link) is a SourceError naming the block; so is a
 * block whose era cannot be proven.
 *
 * @example
 * const proof = new NodeLogsProof(new RpcBlockSource({ url }), { chainId: 1, fromBlock, toBlock, filter })
 * if (proof.unprovable() !== null) throw new Error(proof.unprovable()!)
 * out.write(proof.start())
 * for await (const block of proof.blocks()) out.write(block.record)
 * proof.finish().headHash
 */
export class NodeLogsProof {
  readonly range: LogsRange;
  readonly #source: RpcBlockSource;
  readonly #builder: LogsProofBuilder;
  readonly #registry: ChainRegistry;
  readonly #concurrency: number;

  /** @throws RangeError when the range runs backwards or its filter is not one. */
  constructor(source: RpcBlockSource, range: LogsRange, options: NodeLogsProofOptions = {}) {
    this.range = range;
    this.#source = source;
    this.#registry = options.registry ?? defaultRegistry;
    this.#builder = new LogsProofBuilder(range, { registry: this.#registry });
    this.#concurrency = Math.max(1, options.concurrency ?? 4);
  }

  /** Why the range cannot be proven (its first or last block is of an era that cannot be), or null. */
  unprovable(): string | null {
    return this.#builder.unprovable(this.range.fromBlock) ?? this.#builder.unprovable(this.range.toBlock);
  }

  /** The artifact's first bytes. */
  start(): Uint8Array {
    return this.#builder.start();
  }

  /** Each block of the range in order, fetched up to `concurrency` blocks ahead. */
  async *blocks(): AsyncGenerator<NodeProofBlock> {
    const pending: Array<Promise<FetchedBlock>> = [];
    let next = this.range.fromBlock;
    const fill = () => {
      while (pending.length < this.#concurrency && next <= this.range.toBlock) {
        const fetching = this.#fetch(next++);
        // Marked handled: a fetch that fails while an earlier block is awaited is thrown when its turn comes.
        fetching.catch(() => undefined);
        pending.push(fetching);
      }
    };
    fill();
    while (pending.length > 0) {
      const fetched = await pending.shift()!;
      fill();
      yield this.#build(fetched);
    }
  }

  /** After the last block: the summary, with the head hash a verifier needs. */
  finish(): LogsProofSummary {
    const summary = this.#builder.finish();
    if (!summary.ok) throw new SourceError(summary.error.message);
    return summary.value;
  }

  /** A block's header, and its receipts when its bloom may match the filter. */
  async #fetch(number: number): Promise<FetchedBlock> {
    const { chainId } = this.range;
    const header = await this.#source.header(chainId, number);
    if (header === null) throw new SourceError(`the node has no block ${formatBlock(number)}`);
    const headerOnly = this.#read(header, undefined, number);
    if (!this.#builder.needsReceipts(headerOnly.header)) return headerOnly;
    return this.#read(header, await this.#source.receiptsOf(header, number), number);
  }

  /**
   * The node's block read as every source's block is read (its era's header layout, its receipts); without `receipts`,
   * its header alone, as a block's head is read (its list of transactions then names receipts not fetched).
   */
  #read(header: JsonObject, receipts: BlockReceipts | undefined, number: number): FetchedBlock {
    const problems = new Problems();
    const input = { chain_id: this.range.chainId, header, ...receipts };
    const options = { registry: this.#registry };
    const block =
      receipts === undefined ? readRpcBlockHead(input, problems, options) : readRpcBlock(input, problems, options);
    const read = block?.header;
    if (!problems.empty || read === undefined)
      throw new SourceError(
        `the node's block ${formatBlock(number)} cannot be read: ${describeProblems(problems.invalidInput())}`,
      );
    if (read.complete === undefined)
      throw new SourceError(
        `the node's block ${formatBlock(number)} cannot be read: it lacks ${read.missing.join(', ')}`,
      );
    return {
      number,
      header: read.complete,
      hash: read.hash,
      receipts: block && 'receipts' in block ? block.receipts : undefined,
    };
  }

  /** The block's record, checked by the builder, and its hash checked against the node's. */
  #build(fetched: FetchedBlock): NodeProofBlock {
    const built = this.#builder.block(fetched.header, fetched.receipts);
    if (!built.ok)
      throw new SourceError(
        built.error.reason === 'not-verifiable'
          ? built.error.message
          : `the node's blocks make no proof (${built.error.reason}): ${built.error.message}`,
      );
    if (fetched.hash === undefined || !bytesEqual(fetched.hash, built.value.hash))
      throw new SourceError(
        `the node's block ${formatBlock(fetched.number)} ${fetched.hash === undefined ? 'has no hash' : `has hash ${hex(fetched.hash)}`}, but its header hashes to ${hex(built.value.hash)}: the node serves a header that is not its block's`,
      );
    return { number: fetched.number, ...built.value };
  }
}
