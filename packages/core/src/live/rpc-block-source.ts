import type { ExchangeRecorder } from '../sources/exchange.js';
import type { BlockJson, BlockSource } from '../sources/block-source.js';
import { ChainMismatchError, JsonRpcError, SourceError } from '../errors.js';
import { bytesToHex, hexToBytes } from '../bytes/hex.js';
import { borStateSyncTxHash } from '../chains/state-sync.js';
import { checkReceiptsAsked, transactionCounts } from '../input/json-rpc/restated-members.js';
import { Problems } from '../input/values/problems.js';
import { isObject, type JsonObject } from '../input/values/json-values.js';
import { HttpClient, pause } from './http-client.js';
import { JsonRpcTransport, rpcErrorOf } from './json-rpc-transport.js';
import { plain, show } from '../json/show.js';

type Json = JsonObject;

export interface RpcBlockSourceOptions {
  /** The node's JSON-RPC endpoint (http or https). */
  url: string;
  fetch?: typeof fetch;
  /** Receives every block fetched, for `--record`. */
  recorder?: ExchangeRecorder;
  /** Check once, with `eth_chainId`, that the node serves the chain asked for (default true). */
  checkChainId?: boolean;
  /** Retries of one call on HTTP 429, 5xx and network errors (default 3), by the rules of the shared HttpClient. */
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  /** `eth_getTransactionReceipt` calls in flight at once when `eth_getBlockReceipts` is unsupported (default 8). */
  concurrency?: number;
  /** One call's time limit, its whole answer read included, default 60 000 ms. */
  timeoutMs?: number;
  /**
   * JSON-RPC calls per HTTP request (a batch); 1 sends each call alone. By default as many as an answer of about 4 MiB
   * holds by the answers so far, from 16 to 100 (JsonRpcTransport's DEFAULT_BATCH, MAX_SIZED_BATCH). Halved, and
   * kept at most that for the rest of the run, each time the node refuses a batch.
   */
  batch?: number;
  /** HTTP requests in flight at once, and so the keep-alive connections to the node (default 4). */
  connections?: number;
  /** The largest answer read, in bytes (default 32 MiB): a larger one is abandoned with a SourceError. */
  maxAnswerBytes?: number;
  /**
   * Return a block whose receipts do not number its transactions instead of refusing it
   * (default false, as a lineage walk wants): a range audit reports that as its
   * `transaction_count` check, from the block's `transaction_count`.
   */
  keepMiscountedReceipts?: boolean;
  /** Headers sent with every call, e.g. the bearer key of the hosted service's `/evm/rpc` proxy. */
  headers?: Record<string, string>;
  /** Abandons every call once aborted, in flight or waiting (see the HTTP client's `signal`). */
  signal?: AbortSignal;
}

/**
 * A block's receipts as a node gave them, as members of the block: with `receipts_by_transaction` where they were asked
 * one transaction at a time (`eth_getTransactionReceipt`), each answering the transaction the header lists at its place.
 */
export interface BlockReceipts {
  receipts: unknown[];
  receipts_by_transaction?: true;
}

/** A node that does not have the method: -32601, or a message saying so (providers differ). */
const UNSUPPORTED =
  /method not found|not supported|unsupported|does not exist|not available|not implemented|unknown method/i;
const isUnsupported = (error: unknown) =>
  error instanceof JsonRpcError && (error.rpcCode === -32601 || UNSUPPORTED.test(error.rpcMessage));

/**
 * An `eth_getLogs` answer too big for the node (providers word it differently, some with -32005,
 * the code of their rate limit): the range is asked again in halves, never waited for.
 */
const TOO_MANY_LOGS =
  /more than \d|too many|too large|too big|block range|range (is )?too|response size|limited to|exceeds? (the )?(max|limit)/i;
const isTooManyLogs = (error: unknown) => error instanceof JsonRpcError && TOO_MANY_LOGS.test(error.rpcMessage);

/** A filter of `eth_getLogs` as the node reads it: 0x hex addresses and topics by position. */
export interface RpcLogsFilter {
  address?: string[];
  topics?: string[][];
}

const toQuantity = (n: number) => `0x${n.toString(16)}`;
function quantity(v: unknown): bigint | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v !== 'string' || !/^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return undefined;
  return BigInt(v);
}
/** A block number a node can be asked for: a SourceError otherwise. */
function requireBlockNumber(blockNumber: number): void {
  if (!Number.isSafeInteger(blockNumber) || blockNumber < 0)
    throw new SourceError(`block number ${blockNumber} is not a non-negative integer`);
}
// The very string (as a node writes both) is told before either is lowered.
const sameHash = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && (a === b || a.toLowerCase() === b.toLowerCase());

/**
 * Whether a receipt's `blockHash` names another block than the header's `hash` (a header without its hash names
 * none: the verification fails it, naming header.hash).
 */
function namesAnotherBlock(receipts: unknown[], block: Json): boolean {
  if (block.hash === undefined || block.hash === null) return false;
  return receipts.some(
    (r) => isObject(r) && r.blockHash !== undefined && r.blockHash !== null && !sameHash(r.blockHash, block.hash),
  );
}

/**
 * The transaction a receipt names: its `transactionHash`, else each of its logs' (which repeat it); none given, none.
 */
function namedTransactions(receipt: Json): unknown[] {
  if (receipt.transactionHash !== undefined && receipt.transactionHash !== null) return [receipt.transactionHash];
  if (!Array.isArray(receipt.logs)) return [];
  return receipt.logs
    .filter(isObject)
    .flatMap((log) => (log.transactionHash === undefined || log.transactionHash === null ? [] : [log.transactionHash]));
}

/**
 * Whether a receipt names (by its `transactionHash`, else its logs') another transaction than the one it answers: with
 * `eth_getTransactionReceipt` (`byTransaction`), the one asked for, at its place in the list whatever its
 * `transactionIndex` says (the readers' rule, checkReceiptsAsked); with `eth_getBlockReceipts`, the one the block lists
 * at its place (its `transactionIndex` where it has one: a list need not be in that order). Only for a block whose
 * receipts count its transactions: receipts of another block, where they do not name it (no `blockHash`), are told by
 * this alone. The unlisted state-sync receipt, last, has no listed hash to match. A conflict is the reader's to name
 * (block_input).
 */
function namesAnotherTransaction(
  receipts: unknown[],
  block: Json,
  hashes: string[] | undefined,
  byTransaction: boolean,
): boolean {
  if (hashes === undefined || !countsItsReceipts(receipts as Json[], block, hashes)) return false;
  if (byTransaction) {
    const problems = new Problems();
    checkReceiptsAsked(receipts, hashes, problems);
    return !problems.empty;
  }
  return (receipts as Json[]).some((r, i) => {
    const index = quantity(r.transactionIndex);
    const at = index === undefined ? i : Number(index);
    return at < hashes.length && namedTransactions(r).some((hash) => !sameHash(hash, hashes[at]));
  });
}

/**
 * Times a block whose receipts name another block (or other transactions) is asked again, header and receipts. A reorg
 * between the two calls settles by the next ask (a second covers a node that moves again meanwhile); receipts that
 * name another block after that are the node's answer, not a race, and a retry would not mend them.
 */
const REASKS = 2;

/** Bor's derived hash of the block's state-sync transaction, where the block's number and hash are given. */
function stateSyncHash(block: Json): string | undefined {
  const number = quantity(block.number);
  const blockHash =
    typeof block.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(block.hash) ? hexToBytes(block.hash) : undefined;
  if (number === undefined || blockHash === undefined) return undefined;
  return `0x${bytesToHex(borStateSyncTxHash(number, blockHash))}`;
}

/**
 * Whether the block lists a number of transactions its receipts allow, by the reader's one rule
 * ({@link transactionCounts}): one per receipt, or Bor's state sync listed by one and not the other (its receipt last,
 * under its derived hash, not listed; or listed last without its receipt). Whether that receipt belongs in the root is
 * the era's to say (verifyBlock).
 */
function countsItsReceipts(receipts: Json[], block: Json, hashes: string[]): boolean {
  // The common case, without a hash computed.
  if (receipts.length === hashes.length) return true;
  const last = receipts.length - 1;
  const derived = () => stateSyncHash(block);
  const excluded = last >= 0 && sameHash(receipts[last]!.transactionHash, derived()) ? last : undefined;
  return transactionCounts(receipts.length, excluded, block.transactions, derived).counts.includes(hashes.length);
}

/**
 * Blocks from a JSON-RPC node, in the fixtures' format: `eth_getBlockByNumber`
 * (hashes only) for the header, `eth_getBlockReceipts` for the receipts, or,
 * when the node does not have that method, `eth_getTransactionReceipt` for
 * each transaction. Answers are kept as the node sent them (0x hex, camelCase,
 * extra members such as `blockHash` included). Receipts that name another block than the header (by
 * `blockHash`), or other transactions than the block lists or than the one asked for (by `transactionHash`, else
 * their logs'), are asked again with it (a reorg between the calls, a one-off wrong answer), else handed over for
 * the verification to fail; others must be one per transaction (whether each names its own is the verification's
 * to judge). Error messages name the node by origin only: a provider URL's path often holds an API key.
 * @example
 * const node = new RpcBlockSource({ url: 'http://127.0.0.1:8545' });
 * const block = await node.block(1, 19_000_000); // {chain_id, header, receipts} or null
 */
export class RpcBlockSource implements BlockSource {
  /** The URL without path or query, for messages. */
  private readonly where: string;
  private readonly transport: JsonRpcTransport;
  private readonly recorder: ExchangeRecorder | undefined;
  private readonly checkChainId: boolean;
  private readonly concurrency: number;
  private readonly keepMiscountedReceipts: boolean;
  private chainIdOfNode: Promise<bigint> | undefined;
  /** False once the node has said it has no eth_getBlockReceipts. */
  private blockReceipts = true;
  /** Blocks one `eth_getLogs` call asks at most: halved each time the node says an answer is too big. */
  private logsSpan = Number.POSITIVE_INFINITY;

  constructor(options: RpcBlockSourceOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new SourceError('the JSON-RPC URL is not a URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new SourceError(`the JSON-RPC URL must be http(s), got "${parsed.protocol}"`);
    this.where = `the JSON-RPC node at ${parsed.origin}`;
    const maxRetries = options.maxRetries ?? 3;
    const connections = Math.max(1, options.connections ?? 4);
    this.transport = new JsonRpcTransport({
      client: new HttpClient({ ...options, maxRetries, maxConnections: connections }),
      url: options.url,
      headers: { ...options.headers },
      where: this.where,
      batch: options.batch ?? 'sized',
      connections,
      maxRetries,
      sleep: options.sleep ?? ((ms) => pause(ms, options.signal)),
      // -32005: the usual "limit exceeded" of rate-limited providers; waited for like a 429
      // (unless it says an eth_getLogs answer is too big: waiting would not shrink it).
      isRateLimit: (method, code, message) =>
        code === -32005 && !(method === 'eth_getLogs' && TOO_MANY_LOGS.test(message)),
    });
    this.recorder = options.recorder;
    this.checkChainId = options.checkChainId ?? true;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.keepMiscountedReceipts = options.keepMiscountedReceipts ?? false;
  }

  /** The node by origin, for messages about a block it gave (`the JSON-RPC node at http://127.0.0.1:8545`). */
  get name(): string {
    return this.where;
  }

  /** The JSON-RPC calls per HTTP request now: the option or the answers' size, or less once the node refused a batch. */
  get batchSize(): number {
    return this.transport.batchSize;
  }

  /** One JSON-RPC call: its result, or a SourceError (JsonRpcError for an error object). */
  private async call(method: string, params: unknown[]): Promise<unknown> {
    const answer = await this.transport.call(method, params);
    if (isObject(answer.error)) {
      const { code, message } = rpcErrorOf(answer.error);
      throw new JsonRpcError(
        `${this.where} answered ${method} with error ${code ?? '(no code)'}: ${message}`,
        code,
        message,
      );
    }
    return answer.result;
  }

  /** Checks once, with `eth_chainId`, that the node serves `chainId`: ChainMismatchError when it serves another. */
  async checkChain(chainId: number): Promise<void> {
    if (!this.checkChainId) return;
    const id = await this.nodeChainId();
    if (id !== BigInt(chainId)) throw new ChainMismatchError(this.where, id, chainId);
  }

  /** The chain the node serves, from `eth_chainId` (asked once; asked again after a failure). */
  async nodeChainId(): Promise<bigint> {
    this.chainIdOfNode ??= this.call('eth_chainId', []).then((result) => {
      const id = quantity(result);
      if (id === undefined)
        throw new SourceError(`${this.where} answered eth_chainId with ${show(result)}, not a quantity`);
      return id;
    });
    try {
      return await this.chainIdOfNode;
    } catch (error) {
      this.chainIdOfNode = undefined;
      throw error;
    }
  }

  /**
   * The number of the block a tag names on the node now (`latest`, `finalized`, `safe`), from
   * `eth_getBlockByNumber(tag, false)`: a SourceError when the node has no such block or answers
   * something that is not a block.
   */
  async blockNumberOf(tag: 'latest' | 'finalized' | 'safe'): Promise<number> {
    const block = await this.call('eth_getBlockByNumber', [tag, false]);
    if (block === null)
      throw new SourceError(`${this.where} has no "${tag}" block (eth_getBlockByNumber "${tag}" answered null)`);
    const n = isObject(block) ? quantity(block.number) : undefined;
    if (n === undefined || n > BigInt(Number.MAX_SAFE_INTEGER))
      throw new SourceError(
        `${this.where} answered eth_getBlockByNumber "${tag}" with ${isObject(block) ? `number ${plain(block.number)}` : show(block)}, not a block`,
      );
    return Number(n);
  }

  /**
   * A receipt list's checks: an array of objects, one per transaction (by the reader's count). Receipts that name
   * another block are returned as they are, without the count: {@link block} asks again, then hands them over. Whether
   * each names its transaction is the reader's to judge (block_input), as for every member that repeats the block.
   */
  private checkReceipts(
    receipts: unknown,
    method: string,
    block: Json,
    hashes: string[] | undefined,
    n: number,
  ): unknown[] {
    if (!Array.isArray(receipts) || receipts.some((r) => !isObject(r)))
      throw new SourceError(
        `${this.where} answered ${method} for block ${n} with something that is not a list of receipts`,
      );
    if (namesAnotherBlock(receipts, block)) return receipts;
    const miscounted = hashes !== undefined && !countsItsReceipts(receipts as Json[], block, hashes);
    if (miscounted && !this.keepMiscountedReceipts) {
      throw new SourceError(
        `${this.where} gave ${receipts.length} receipts for block ${n}, which has ${hashes.length} transactions`,
      );
    }
    return receipts;
  }

  /** One receipt per transaction hash, in order, at most `concurrency` calls at once. */
  private async receiptsByTransaction(hashes: string[], n: number): Promise<unknown[]> {
    const receipts = new Array<unknown>(hashes.length);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < hashes.length && !failed) {
        const i = next++;
        try {
          const receipt = await this.call('eth_getTransactionReceipt', [hashes[i]]);
          if (receipt === null)
            throw new SourceError(`${this.where} has no receipt for transaction ${hashes[i]} of block ${n}`);
          receipts[i] = receipt;
        } catch (error) {
          failed = true; // the other workers stop after their call in flight
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, hashes.length) }, worker));
    return receipts;
  }

  /**
   * The header of block `blockNumber` as the node answers `eth_getBlockByNumber(n, false)` (its
   * transactions as hashes), or null when the node has no such block.
   */
  async header(chainId: number, blockNumber: number): Promise<Json | null> {
    requireBlockNumber(blockNumber);
    // Asked with the chain check, in the same batch when there is one (a round trip less to start an
    // audit); its answer is used only once the node is known to serve the chain.
    const checked = this.checkChain(chainId);
    const asked = this.call('eth_getBlockByNumber', [toQuantity(blockNumber), false]);
    asked.catch(() => undefined); // the chain's refusal comes first
    await checked;
    const block = await asked;
    if (block === null) return null;
    if (!isObject(block))
      throw new SourceError(
        `${this.where} answered eth_getBlockByNumber ${blockNumber} with something that is not a block`,
      );
    // A block without its number is the node's answer all the same: the verification fails it (block_input), where
    // calling it unreachable would stop the audit on an answer no retry mends. Another number is another block: the
    // audit's engine holds every source to that, and this names the call for it and for a lineage walk's blocks.
    const number = block.number === undefined || block.number === null ? undefined : quantity(block.number);
    if (block.number !== undefined && block.number !== null && number !== BigInt(blockNumber))
      // In decimal, as the block asked for is named; a number that is no quantity as the node gave it.
      throw new SourceError(
        `${this.where} answered eth_getBlockByNumber ${blockNumber} with block ${number ?? plain(block.number)}`,
      );
    return block;
  }

  /** The transaction hashes a block lists, or undefined when it lists none (a node may leave them out). */
  private transactionHashes(block: Json, blockNumber: number): string[] | undefined {
    if (!Array.isArray(block.transactions)) return undefined;
    const hashes = block.transactions.map((t: unknown) => (isObject(t) ? t.hash : t) as string);
    if (hashes.some((h) => typeof h !== 'string'))
      throw new SourceError(
        `${this.where} answered eth_getBlockByNumber ${blockNumber} with transactions that are not hashes`,
      );
    return hashes;
  }

  /**
   * The receipts of a block whose header {@link header} fetched, as members of its block: `eth_getBlockReceipts`, or one
   * `eth_getTransactionReceipt` per transaction when the node does not have it (then `receipts_by_transaction`, for the
   * reader to hold each to the transaction asked for); checked to be one
   * per transaction, or returned as they are when their `blockHash` names another block (a reader of
   * the block refuses them, naming it, as it does a receipt whose `transactionHash` is not its
   * transaction's). `asked`: that eth_getBlockReceipts
   * call, already made.
   * @example { chain_id: 1, header, ...(await node.receiptsOf(header, 19_000_000)) } // a block to read (readRpcBlock)
   */
  async receiptsOf(block: Json, blockNumber: number, asked?: Promise<unknown>): Promise<BlockReceipts> {
    const { receipts, byTransaction } = await this.receiptsAnswered(block, blockNumber, asked);
    return { receipts, ...(byTransaction && { receipts_by_transaction: true }) };
  }

  /** {@link receiptsOf}, and whether they were asked one transaction at a time (eth_getTransactionReceipt). */
  private async receiptsAnswered(
    block: Json,
    blockNumber: number,
    asked?: Promise<unknown>,
  ): Promise<{ receipts: unknown[]; byTransaction: boolean }> {
    const hashes = this.transactionHashes(block, blockNumber);
    if (this.blockReceipts) {
      try {
        const result = await (asked ?? this.call('eth_getBlockReceipts', [toQuantity(blockNumber)]));
        if (result === null)
          throw new SourceError(
            `${this.where} has block ${blockNumber} but no receipts for it (eth_getBlockReceipts answered null)`,
          );
        const receipts = this.checkReceipts(result, 'eth_getBlockReceipts', block, hashes, blockNumber);
        return { receipts, byTransaction: false };
      } catch (error) {
        if (!isUnsupported(error)) throw error;
        this.blockReceipts = false;
      }
    }
    if (hashes === undefined)
      throw new SourceError(
        `${this.where} has no eth_getBlockReceipts and its block ${blockNumber} lists no transactions`,
      );
    const receipts = this.checkReceipts(
      await this.receiptsByTransaction(hashes, blockNumber),
      'eth_getTransactionReceipt',
      block,
      hashes,
      blockNumber,
    );
    return { receipts, byTransaction: true };
  }

  /**
   * A block's header and its receipts asked at once (one round trip, and one request when batched);
   * null when the node has no such block.
   */
  private async headerAndReceipts(
    chainId: number,
    blockNumber: number,
  ): Promise<{ block: Json; receipts: unknown[]; byTransaction: boolean } | null> {
    // header() asks the chain id first (once), then the header; the receipts go with them (one batch
    // when batching), and no answer is used before the chain is known to be the one asked for.
    const header = this.header(chainId, blockNumber);
    const asked = this.blockReceipts ? this.call('eth_getBlockReceipts', [toQuantity(blockNumber)]) : undefined;
    asked?.catch(() => undefined); // seen by receiptsOf, or not wanted when the node has no such block
    const block = await header;
    if (block === null) return null;
    return { block, ...(await this.receiptsAnswered(block, blockNumber, asked)) };
  }

  /**
   * Block `blockNumber`: its header and its receipts, checked against the header. Receipts whose
   * `blockHash` names another block, or whose `transactionHash` (else their logs') another transaction than the
   * header's at its place or than the one asked for ({@link namesAnotherTransaction}), are asked again with the header
   * ({@link REASKS} times: a reorg between the calls, or a one-off wrong answer); still
   * so, the block is handed over as the node gave it, and verifying it fails (block_input names the
   * member): corruption is reported, not called unreachable. Receipts asked one transaction at a time say so
   * (`receipts_by_transaction`), so that each is held to the transaction it was asked for.
   */
  async block(chainId: number, blockNumber: number): Promise<BlockJson | null> {
    requireBlockNumber(blockNumber);
    let fetched = await this.headerAndReceipts(chainId, blockNumber);
    const ofAnotherBlock = () =>
      fetched !== null &&
      (namesAnotherBlock(fetched.receipts, fetched.block) ||
        namesAnotherTransaction(
          fetched.receipts,
          fetched.block,
          this.transactionHashes(fetched.block, blockNumber),
          fetched.byTransaction,
        ));
    for (let asked = 0; asked < REASKS && ofAnotherBlock(); asked++)
      fetched = await this.headerAndReceipts(chainId, blockNumber);
    if (fetched === null) return null;
    const { block, receipts, byTransaction } = fetched;
    const hashes = this.transactionHashes(block, blockNumber);

    // The count travels with the block (and into a recorded bundle) for the audit's transaction_count check; and how
    // the receipts were asked, for the readers to hold each to the transaction it was asked for (placed by its own
    // transactionIndex, another transaction's receipt can make a list the block could have).
    const result: BlockJson = {
      chain_id: chainId,
      header: block,
      receipts,
      ...(hashes !== undefined && { transaction_count: hashes.length }),
      ...(byTransaction && { receipts_by_transaction: true as const }),
    };
    this.recorder?.addBlock(result);
    return result;
  }

  /**
   * The node's `eth_getLogs` answer for blocks `from` to `to` and a filter, as it sent it (not
   * checked: comparing it is the caller's point). A range whose answer the node says is too big is
   * asked again in halves, and later calls ask at most that many blocks at once.
   * @example await node.logs(1, { address: ['0xdac1…'] }, 19_000_000, 19_001_999) // [{ address, topics, … }, …]
   */
  async logs(chainId: number, filter: RpcLogsFilter, from: number, to: number): Promise<unknown[]> {
    await this.checkChain(chainId);
    const out: unknown[] = [];
    let start = from;
    while (start <= to) {
      const end = Math.min(to, start + this.logsSpan - 1);
      let answer: unknown;
      try {
        answer = await this.call('eth_getLogs', [
          { ...filter, fromBlock: toQuantity(start), toBlock: toQuantity(end) },
        ]);
      } catch (error) {
        if (!isTooManyLogs(error) || end === start) throw error;
        this.logsSpan = Math.ceil((end - start + 1) / 2);
        continue;
      }
      if (!Array.isArray(answer))
        throw new SourceError(
          `${this.where} answered eth_getLogs for blocks ${start} to ${end} with ${show(answer)}, not a list of logs`,
        );
      for (const log of answer) out.push(log);
      start = end + 1;
    }
    return out;
  }
}
