import { checkBytes, HASH_BYTES } from '../bytes/check-bytes.js';
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { err, ok, type Result } from '../result.js';
import type { EthLog } from './eth-log.js';
import { checkChainId } from '../chains/chain-arguments.js';
import { kindOf } from '../json/show.js';
import { formatBlock } from '../chains/registry.js';
import { logsFilterProblem, sameLogsFilter, type LogsFilter } from './logs-filter.js';
import {
  decodePreamble,
  decodeRecord,
  ItemReader,
  LOGS_PROOF_SIGNATURE,
  MAX_RECORD_BYTES,
  type LogsRange,
} from './logs-proof-format.js';
import {
  LogsRangeCheck,
  type LogsProofRefusal,
  type LogsProofSummary,
  type LogsRangeOptions,
} from './logs-range-check.js';

/**
 * A judge of the head a proof gives, for a caller that trusts a set of hashes rather than one (an anchor proof's
 * blocks): null when block `block` with hash `hash` is trusted, else why not, in a sentence.
 */
export type HeadCheck = (block: number, hash: Uint8Array, chainId: number) => string | null;

/** What a verifier needs: the hash of the range's last block, and what it may assume. */
export interface LogsProofVerifyOptions extends LogsRangeOptions {
  /**
   * The hash of block `toBlock`, the one thing the verifier trusts; or a {@link HeadCheck} that judges the head the
   * proof ends at (a refusal is `head-mismatch` with its sentence).
   */
  headHash: Uint8Array | HeadCheck;
  /**
   * The chain the head hash is of. The artifact names its chain, and that chain's rules decide how
   * its blocks are read; give the chain to refuse an artifact that names another.
   */
  chainId?: number;
  /** Bytes a record may take at most ({@link MAX_RECORD_BYTES} when absent). */
  maxRecordBytes?: number;
  /**
   * The range and filter the caller asked for, each where given: a proof of another is refused (`range-mismatch`).
   * A proof holds for the range and filter it names, and its logs are all of those; without this, a proof of a shorter
   * range or of another filter holds too, and only its summary says so.
   */
  expected?: { fromBlock?: number; toBlock?: number; filter?: LogsFilter };
}

/**
 * Checks a logs proof as it streams in: feed it chunks with {@link write}, then call {@link end}.
 * `write` returns the matching logs of the blocks its chunk completes, each already shown to be
 * in the block the record says; that the range is whole and hangs from the head hash is known
 * only when `end` holds, so a caller keeps the logs aside until then.
 *
 * @example
 * const verifier = new LogsProofVerifier({ headHash })
 * for await (const chunk of stream) {
 *   const step = verifier.write(chunk)
 *   if (!step.ok) throw new Error(step.error.message)
 *   pending.push(...step.value)
 * }
 * const verdict = verifier.end() // { ok: true, value: { logs: 17, … } }
 */
export class LogsProofVerifier {
  readonly #options: LogsProofVerifyOptions;
  readonly #reader: ItemReader;
  #signed = false;
  #check: LogsRangeCheck | null = null;
  #refusal: LogsProofRefusal | null = null;
  /** What {@link end} answered: a verifier reads one proof, and says the same of it however often it is asked. */
  #ended: Result<LogsProofSummary, LogsProofRefusal> | null = null;

  /**
   * @throws TypeError when `options` is not an object, or `options.headHash` is neither a {@link HeadCheck} nor a
   * Uint8Array (hex text among others), RangeError when it is not 32 bytes; TypeError or RangeError naming
   * `options.chainId`, where given, when it is not a chain id (a non-negative integer): a `'1'` would be "chain 1, not
   * chain 1"; naming `options.maxRecordBytes`, where given, when it is not a positive integer (a limit that is none is
   * the caller's mistake, not the proof's); TypeError naming `options.onLogs` (verifyLogsProof's) when it is no function.
   */
  constructor(options: LogsProofVerifyOptions) {
    const given: unknown = options;
    if (typeof given !== 'object' || given === null)
      throw new TypeError(`options must be an object with the head's hash (headHash), got ${kindOf(given)}`);
    if (typeof options.headHash !== 'function') checkBytes(options.headHash, 'headHash', HASH_BYTES);
    if (options.chainId !== undefined) checkChainId(options.chainId, 'options.chainId');
    const limit: unknown = options.maxRecordBytes;
    if (limit !== undefined) {
      if (typeof limit !== 'number')
        throw new TypeError(`options.maxRecordBytes must be a number, got ${kindOf(limit)}`);
      if (!Number.isSafeInteger(limit) || limit < 1)
        throw new RangeError(`options.maxRecordBytes must be a positive integer, got ${limit}`);
    }
    const onLogs: unknown = (options as { onLogs?: unknown }).onLogs;
    if (onLogs !== undefined && typeof onLogs !== 'function')
      throw new TypeError(`options.onLogs must be a function, given each block's logs, got ${kindOf(onLogs)}`);
    this.#options = options;
    this.#reader = new ItemReader(options.maxRecordBytes ?? MAX_RECORD_BYTES);
  }

  /** The range and filter the proof covers, once its preamble has come. */
  get range(): LogsRange | null {
    return this.#check?.range ?? null;
  }

  /**
   * Reads a chunk: the matching logs of the blocks it completes, or the first fault (and that fault from then on).
   * @throws TypeError when `chunk` is not a Uint8Array (a string, of hex or of text, among others); Error after
   * {@link end}, whose answer a later chunk would contradict.
   */
  write(chunk: Uint8Array): Result<EthLog[], LogsProofRefusal> {
    checkBytes(chunk, 'chunk');
    if (this.#ended !== null)
      throw new Error('write after end(): a LogsProofVerifier reads one proof, and it has ended; make another');
    if (this.#refusal !== null) return err(this.#refusal);
    this.#reader.push(chunk);
    const logs: EthLog[] = [];
    for (;;) {
      const step = this.#step();
      if (step === null) return ok(logs);
      if (!step.ok) {
        this.#refusal = step.error;
        return step;
      }
      for (const log of step.value) logs.push(log);
    }
  }

  /** After the last chunk: the summary when the proof holds, else its first fault; the same answer when asked again. */
  end(): Result<LogsProofSummary, LogsProofRefusal> {
    this.#ended ??= this.#conclude();
    return this.#ended;
  }

  #conclude(): Result<LogsProofSummary, LogsProofRefusal> {
    if (this.#refusal !== null) return err(this.#refusal);
    const fail = (refusal: LogsProofRefusal) => {
      this.#refusal = refusal;
      return err(refusal);
    };
    if (this.#check === null)
      return fail({
        reason: 'malformed',
        message: this.#signed
          ? "The input ends before the logs proof's preamble is whole."
          : `The input is not a logs proof: it ends before its ${LOGS_PROOF_SIGNATURE.length}-byte signature.`,
      });
    if (this.#reader.buffered > 0) {
      const block = this.#check.nextBlock;
      return fail(
        block > this.#check.range.toBlock
          ? this.#trailingData()
          : { reason: 'blocks-missing', block, message: `The record of block ${block} is cut short.` },
      );
    }
    const summary = this.#check.finish();
    if (!summary.ok) return fail(summary.error);
    const untrusted = this.#untrustedHead(summary.value.toBlock, summary.value.headHash, this.#check.range.chainId);
    if (untrusted !== null) return fail({ reason: 'head-mismatch', block: summary.value.toBlock, message: untrusted });
    return ok(summary.value);
  }

  /** Why the head the proof ends at is not the one trusted; null when it is. */
  #untrustedHead(block: number, hash: Uint8Array, chainId: number): string | null {
    const trusted = this.#options.headHash;
    if (typeof trusted === 'function') return trusted(block, hash, chainId);
    return bytesEqual(hash, trusted)
      ? null
      : `Block ${block} hashes to 0x${bytesToHex(hash)}, not to the head hash 0x${bytesToHex(trusted)}.`;
  }

  /**
   * The refusal of bytes after the range's last block, named by where that block's record ends: how many follow is
   * known only once the input has ended, and a stream is refused at its first chunk past it.
   */
  #trailingData(): LogsProofRefusal {
    return {
      reason: 'trailing-data',
      message: `Data follows the range's last block, whose record ends at byte ${this.#reader.handedOut.toLocaleString('en-US')} of the proof.`,
    };
  }

  /** The next item's outcome: null when more bytes are needed. */
  #step(): Result<EthLog[], LogsProofRefusal> | null {
    if (!this.#signed) {
      const signature = this.#reader.take(LOGS_PROOF_SIGNATURE.length);
      if (signature === null) return null;
      if (!bytesEqual(signature, LOGS_PROOF_SIGNATURE))
        return err({
          reason: 'malformed',
          message: 'The input is not a logs proof: it does not begin with its signature.',
        });
      this.#signed = true;
    }
    const check = this.#check;
    if (this.#reader.buffered === 0) return null;
    if (check !== null && check.nextBlock > check.range.toBlock) return err(this.#trailingData());
    const item = this.#reader.nextItem();
    if (item === null) return null;
    if (typeof item === 'string')
      return err(
        check === null
          ? { reason: 'malformed', message: `The preamble: ${item}.` }
          : {
              reason: 'bad-record',
              block: check.nextBlock,
              message: `The record of block ${check.nextBlock}: ${item}.`,
            },
      );
    return check === null ? this.#preamble(item) : this.#record(check, item);
  }

  #preamble(item: Uint8Array): Result<EthLog[], LogsProofRefusal> {
    const range = decodePreamble(item);
    if (typeof range === 'string')
      return err({ reason: 'malformed', message: `The input is no logs proof: ${range}.` });
    const problem = logsFilterProblem(range.filter);
    if (problem !== null) return err({ reason: 'malformed', message: `The preamble's filter: ${problem}.` });
    const { chainId } = this.#options;
    if (chainId !== undefined && chainId !== range.chainId)
      return err({
        reason: 'chain-mismatch',
        message: `The proof is of chain ${range.chainId}, not of chain ${chainId}.`,
      });
    const asked = askedFor(range, this.#options.expected);
    if (asked !== null) return err({ reason: 'range-mismatch', message: asked });
    this.#check = new LogsRangeCheck(range, this.#options);
    return ok([]);
  }

  #record(check: LogsRangeCheck, item: Uint8Array): Result<EthLog[], LogsProofRefusal> {
    const record = decodeRecord(item);
    if (typeof record === 'string')
      return err({
        reason: 'bad-record',
        block: check.nextBlock,
        message: `The record of block ${check.nextBlock}: ${record}.`,
      });
    return check.block(record.headerRlp, record.receipts);
  }
}

/** Why the proof's `range` is not the one `expected` asks for, in a sentence; null when it is (or nothing is asked). */
function askedFor(range: LogsRange, expected: LogsProofVerifyOptions['expected']): string | null {
  if (expected === undefined) return null;
  const { fromBlock = range.fromBlock, toBlock = range.toBlock, filter } = expected;
  const blocks = (from: number, to: number) => `blocks ${formatBlock(from)} to ${formatBlock(to)}`;
  if (fromBlock !== range.fromBlock || toBlock !== range.toBlock)
    return `The proof is of ${blocks(range.fromBlock, range.toBlock)}, not of ${blocks(fromBlock, toBlock)} as asked.`;
  if (filter !== undefined && !sameLogsFilter(filter, range.filter))
    return `The proof's filter is ${describeFilter(range.filter)}, not ${describeFilter(filter)} as asked.`;
  return null;
}

/** A filter in the form of `eth_getLogs`, for a message. */
const describeFilter = (filter: LogsFilter): string =>
  JSON.stringify({
    address: filter.addresses.map((a) => `0x${bytesToHex(a)}`),
    topics: filter.topics.map((alternatives) => alternatives.map((t) => `0x${bytesToHex(t)}`)),
  });

/**
 * Verifies a logs proof from a stream of chunks (a file, a request body), handing the logs of each
 * block to `onLogs` as they are proven in their blocks; the range is whole and hangs from the head
 * hash only when the result is ok, so `onLogs` keeps them aside until then. A chunk that is not a Uint8Array, or a head
 * hash that is not 32 bytes, or a chain id that is none, throws as {@link LogsProofVerifier} does.
 *
 * @example
 * const verdict = await verifyLogsProof(createReadStream('usdt.elp'), { headHash, onLogs: (logs) => out.push(...logs) })
 * verdict.ok ? verdict.value.logs : verdict.error.message
 */
export async function verifyLogsProof(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  // What onLogs returns is awaited, and nothing else: `(logs) => out.push(...logs)`, a number, is as welcome as a promise.
  options: LogsProofVerifyOptions & { onLogs?: (logs: EthLog[]) => unknown },
): Promise<Result<LogsProofSummary, LogsProofRefusal>> {
  const verifier = new LogsProofVerifier(options);
  for await (const chunk of source) {
    const step = verifier.write(chunk);
    if (!step.ok) return step;
    if (step.value.length > 0) await options.onLogs?.(step.value);
  }
  return verifier.end();
}

/**
 * Verifies a logs proof held whole in memory: the summary and every matching log, or the first fault.
 * @throws TypeError when `artifact` or `options.headHash` is not a Uint8Array (hex text among others), RangeError when
 * the head hash is not 32 bytes; TypeError or RangeError naming `options.chainId` as {@link LogsProofVerifier}.
 * @example verifyLogsProofBytes(artifact, { headHash }).ok
 */
export function verifyLogsProofBytes(
  artifact: Uint8Array,
  options: LogsProofVerifyOptions,
): Result<{ summary: LogsProofSummary; logs: EthLog[] }, LogsProofRefusal> {
  checkBytes(artifact, 'artifact');
  const verifier = new LogsProofVerifier(options);
  const logs = verifier.write(artifact);
  if (!logs.ok) return logs;
  const summary = verifier.end();
  return summary.ok ? ok({ summary: summary.value, logs: logs.value }) : summary;
}
