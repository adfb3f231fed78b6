import { checkChainId, checkWholeNumber } from '../chains/chain-arguments.js';
import { EvmIntegrityError } from '../errors.js';
import { encodeHeader } from '../header/header-encoding.js';
import type { BlockHeader } from '../header/header-fields.js';
import { defaultKeccak256, type Keccak256 } from '../keccak/keccak.js';
import type { Receipt } from '../receipts/receipt.js';
import { receiptsCommitment } from '../receipts/root.js';
import { err, ok, type Result } from '../result.js';
import type { EthLog } from './eth-log.js';
import { encodePreamble, encodeRecord, LOGS_PROOF_SIGNATURE, type LogsRange } from './logs-proof-format.js';
import {
  LogsRangeCheck,
  type LogsProofRefusal,
  type LogsProofSummary,
  type LogsRangeOptions,
} from './logs-range-check.js';

/** One block's part of the artifact, with what it proves. */
export interface LogsProofBlock {
  /** The bytes to append to the artifact. */
  record: Uint8Array;
  /** The block's hash (keccak of its header's RLP): compare it with the source's. */
  hash: Uint8Array;
  /** Its logs that match the filter, in the form of `eth_getLogs`. */
  logs: EthLog[];
}

/**
 * Writes a logs proof block after block, in order from `fromBlock` to `toBlock`. Each record is
 * checked as the verifier will check it, so a builder never writes a proof that does not hold:
 * a header that is not the child of the one before, receipts that do not make the header's root,
 * or a block whose era cannot be proven is refused where it comes.
 *
 * @example
 * const builder = new LogsProofBuilder({ chainId: 1, fromBlock, toBlock, filter })
 * out.write(builder.start())
 * for (const header of headers) {
 *   const receipts = builder.needsReceipts(header) ? await fetchReceipts(header) : undefined
 *   const block = builder.block(header, receipts)
 *   if (!block.ok) throw new Error(block.error.message)
 *   out.write(block.value.record)
 * }
 * builder.finish() // the summary, with the head hash a verifier needs
 */
export class LogsProofBuilder {
  readonly #check: LogsRangeCheck;
  readonly #keccak: Keccak256;

  /**
   * @throws TypeError or RangeError naming `range.chainId`, `range.fromBlock` or `range.toBlock` where it is not a
   * non-negative integer given as a number; RangeError when the range runs backwards or its filter is not one;
   * TypeError naming the filter's member that is missing or not a list of bytes (`filter.topics`).
   */
  constructor(range: LogsRange, options: LogsRangeOptions = {}) {
    const { chainId, fromBlock, toBlock } = range;
    checkChainId(chainId, 'range.chainId');
    checkWholeNumber(fromBlock, 'range.fromBlock');
    checkWholeNumber(toBlock, 'range.toBlock');
    if (fromBlock > toBlock)
      throw new RangeError(`range.fromBlock must be at most range.toBlock; got ${fromBlock} and ${toBlock}.`);
    this.#keccak = options.keccak ?? defaultKeccak256;
    this.#check = new LogsRangeCheck(range, { ...options, keccak: this.#keccak });
  }

  /** The number of the block expected next. */
  get nextBlock(): number {
    return this.#check.nextBlock;
  }

  /** The artifact's first bytes: its signature and preamble. */
  start(): Uint8Array {
    const preamble = encodePreamble(this.#check.range);
    const out = new Uint8Array(LOGS_PROOF_SIGNATURE.length + preamble.length);
    out.set(LOGS_PROOF_SIGNATURE);
    out.set(preamble, LOGS_PROOF_SIGNATURE.length);
    return out;
  }

  /** Whether the block's bloom may match the filter, so that its receipts must come with it. */
  needsReceipts(header: Pick<BlockHeader, 'logsBloom'>): boolean {
    return this.#check.needsReceipts(header.logsBloom);
  }

  /**
   * Why the block cannot be in a proof (its era cannot be proven), or null: to stop before
   * fetching a range that cannot be proven.
   */
  unprovable(block: number): string | null {
    const era = this.#check.eraOf(block);
    return typeof era === 'string' ? era : null;
  }

  /**
   * The next block's record. `receipts`, its complete receipt list, is needed exactly when
   * {@link needsReceipts} says so (and ignored otherwise).
   */
  block(header: BlockHeader, receipts?: readonly Receipt[]): Result<LogsProofBlock, LogsProofRefusal> {
    const number = this.#check.nextBlock;
    const era = this.#check.eraOf(number);
    if (typeof era === 'string') return err(this.#check.notVerifiable(number)!);
    let headerRlp: Uint8Array;
    let encoded: Uint8Array[] | null = null;
    try {
      headerRlp = encodeHeader(header, era.header);
      if (receipts !== undefined && this.needsReceipts(header))
        encoded = receiptsCommitment(receipts, { rules: era.rules, keccak: this.#keccak }).encodedReceipts;
    } catch (error) {
      if (!(error instanceof EvmIntegrityError)) throw error;
      const reason = error.code === 'HEADER_INVALID' ? 'header-invalid' : 'receipt-invalid';
      return err({ reason, block: number, message: `Block ${number}: ${error.message}` });
    }
    const logs = this.#check.block(headerRlp, encoded);
    if (!logs.ok) return logs;
    return ok({ record: encodeRecord(headerRlp, encoded), hash: this.#keccak(headerRlp), logs: logs.value });
  }

  /** After the last block: the summary, with the head hash a verifier needs, or the blocks missing. */
  finish(): Result<LogsProofSummary, LogsProofRefusal> {
    return this.#check.finish();
  }
}
