import { BLOOM_BYTES } from '../bloom/bloom.js';
import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { claimFor, receiptKinds } from '../chains/claims.js';
import {
  defaultRegistry,
  describeNotVerifiable,
  formatBlock,
  isChainWide,
  uncheckable,
  type ChainRegistry,
  type NotVerifiable,
  type Verifiability,
} from '../chains/registry.js';
import { EvmIntegrityError, InvalidHeaderError } from '../errors.js';
import { forkFieldFaults } from '../chains/header-fork-fields.js';
import { decodeHeaderItems, headerFromItems, headerItemsNumber, type HeaderItems } from '../header/header-decoding.js';
import type { BlockHeader } from '../header/header-fields.js';
import { defaultKeccak256, type HashOptions, type Keccak256 } from '../keccak/keccak.js';
import { decodeReceiptWithBloom } from '../receipts/receipt-decoding.js';
import type { Receipt } from '../receipts/receipt.js';
import { err, ok, type Result } from '../result.js';
import { orderedTrieRoot } from '../trie/ordered-trie.js';
import { ethLog, type EthLog } from './eth-log.js';
import { compileLogsFilter, type CompiledLogsFilter } from './logs-filter.js';
import type { LogsRange } from './logs-proof-format.js';

/** Why a logs proof is refused. */
export type LogsProofFault =
  /** The bytes are no logs proof of a version this library reads (bad signature, version or preamble). */
  | 'malformed'
  /** The proof covers another chain than the one asked for. */
  | 'chain-mismatch'
  /** The proof covers another range or filter than the one asked for (`expected`). */
  | 'range-mismatch'
  /** A record is no record (not RLP, not a header and receipts) or over the size limit. */
  | 'bad-record'
  /** A record is not the block that comes next: a block missing, repeated or out of order. */
  | 'block-number'
  /** A header does not decode in its era's layout. */
  | 'header-invalid'
  /** A header's parentHash is not the hash of the block before it. */
  | 'parent-mismatch'
  /** The last block does not hash to the head hash. */
  | 'head-mismatch'
  /** A block whose bloom may match the filter comes without its receipts. */
  | 'receipts-missing'
  /** A block whose bloom rules the filter out comes with receipts (the format carries them only where needed). */
  | 'receipts-unexpected'
  /** A receipt is no receipt of the era's rules, or not in its canonical encoding. */
  | 'receipt-invalid'
  /** A block's receipts do not make its receiptsRoot: one dropped, added or altered. */
  | 'root-mismatch'
  /** A block's receipts' blooms do not make its logsBloom. */
  | 'bloom-mismatch'
  /** The proof ends before its last block, or a record is cut short. */
  | 'blocks-missing'
  /** Bytes follow the last block. */
  | 'trailing-data'
  /** A block of the range cannot be proven on this chain's rules, and why. */
  | 'not-verifiable';

/** A refused logs proof: the fault, the block where it is when it is at one, and why in words. */
export interface LogsProofRefusal {
  reason: LogsProofFault;
  block?: number;
  message: string;
  /**
   * With `not-verifiable`: the chain, the era and the first later block a proof can rest on, as the
   * registry tells a block that cannot be verified (the service's 422 details).
   */
  notVerifiable?: NotVerifiable;
}

/** What a proof that holds proves, besides its logs. */
export interface LogsProofSummary extends LogsRange {
  /** The hash of `toBlock`, that the whole range hangs from. */
  headHash: Uint8Array;
  /** Blocks in the range. */
  blocks: number;
  /** Blocks whose bloom may match: their receipts were checked against their receiptsRoot. */
  candidateBlocks: number;
  receipts: number;
  /** Logs that match the filter. */
  logs: number;
}

/** Options of a range check: the chains (the built-in registry when absent) and the keccak. */
export interface LogsRangeOptions extends HashOptions {
  registry?: ChainRegistry;
}

/** Bor's state-sync logs before Madhugiri are what no header commits to. */
const STATE_SYNC_OUTSIDE =
  "Bor's state-sync receipts of this era are in neither the receipts root nor the logs bloom, yet eth_getLogs returns their logs (from any contract), so no header proves a range's logs complete";

const refusal = (reason: LogsProofFault, block: number | undefined, message: string): LogsProofRefusal =>
  block === undefined ? { reason, message } : { reason, block, message };

/** What the registry says of a block a range proof can rest on. */
export type ProvableEra = Extract<Verifiability, { status: 'verifiable' }>;

/** A block a range proof cannot rest on: why in words, and the registry's account of it. */
export interface UnprovableEra {
  status: 'unprovable';
  message: string;
  notVerifiable: NotVerifiable;
}

const unprovable = (notVerifiable: NotVerifiable, block: number): UnprovableEra => ({
  status: 'unprovable',
  message: describeNotVerifiable(notVerifiable, BigInt(block)),
  notVerifiable,
});

/** The refusal of block `block`, whose era is `era`: at the block, unless the chain is the cause. */
const notVerifiableAt = (era: UnprovableEra, block: number): LogsProofRefusal => ({
  ...refusal('not-verifiable', isChainWide(era.notVerifiable) ? undefined : block, era.message),
  notVerifiable: era.notVerifiable,
});

/** The era of a block, when a range proof can rest on it: its hash, its bloom and (given its receipts) its root. */
function provableEra(registry: ChainRegistry, chainId: number, block: number): ProvableEra | UnprovableEra {
  const era = registry.verifiability(chainId, block);
  if (era.status !== 'verifiable') return unprovable(era as NotVerifiable, block);
  if (era.stateSync === 'receipt-outside-root')
    return {
      status: 'unprovable',
      message: `Block ${formatBlock(block)}: ${STATE_SYNC_OUTSIDE}.`,
      notVerifiable: stateSyncOutside(registry, era),
    };
  // A header-only block is ruled out by its bloom: the era must show that a bloom holds every log.
  const bloomClaim = claimFor('logs_bloom', era.checks.logs_bloom, { kinds: [], hasLogs: true });
  const unproven = uncheckable(era, 'block_hash') ?? uncheckable(era, 'logs_bloom', bloomClaim);
  return unproven === null ? era : unprovable(unproven, block);
}

/** An era whose state-sync logs are outside root and bloom, as the registry tells an era that cannot be verified. */
function stateSyncOutside(registry: ChainRegistry, era: ProvableEra): NotVerifiable {
  const { chain } = era;
  const first = era.era?.firstBlock ?? 0;
  const later = (chain.eras ?? []).find(
    (e) => e.from > first && provableEra(registry, chain.chainId, e.from).status === 'verifiable',
  );
  return {
    status: 'not_verifiable',
    chainId: chain.chainId,
    chain,
    reason: STATE_SYNC_OUTSIDE,
    era: era.era,
    firstVerifiableBlock: later?.from ?? null,
  };
}

/**
 * The rule a logs proof is checked by, block after block: shared by the verifier and the builder,
 * which checks each record it writes. Each block must be the next of the range, be the child of
 * the block before, and, when its bloom may match the filter, come with receipts that make its
 * receiptsRoot and its logsBloom; its matching logs are returned in the form of `eth_getLogs`.
 */
export class LogsRangeCheck {
  readonly range: LogsRange;
  readonly #filter: CompiledLogsFilter;
  readonly #registry: ChainRegistry;
  readonly #keccak: Keccak256;
  #next: number;
  #lastHash: Uint8Array | null = null;
  #era: { era: ProvableEra; first: number; last: number } | null = null;
  #candidateBlocks = 0;
  #receipts = 0;
  #logs = 0;

  /** @throws RangeError when the range's filter is not one. */
  constructor(range: LogsRange, options: LogsRangeOptions = {}) {
    this.range = range;
    this.#keccak = options.keccak ?? defaultKeccak256;
    this.#filter = compileLogsFilter(range.filter, { keccak: this.#keccak });
    this.#registry = options.registry ?? defaultRegistry;
    this.#next = range.fromBlock;
  }

  /** The number of the block expected next. */
  get nextBlock(): number {
    return this.#next;
  }

  /** Whether a block with this bloom may hold a matching log, and so must come with its receipts. */
  needsReceipts(logsBloom: Uint8Array): boolean {
    return this.#filter.mayMatch(logsBloom);
  }

  /**
   * The era of a block of the range, when a proof can rest on it (its rules and header layout), or
   * why not: the era is not verifiable, or does not show that a header's hash and bloom are what
   * they must be.
   */
  eraOf(block: number): ProvableEra | string {
    const era = this.#eraAt(block);
    return era.status === 'verifiable' ? era : era.message;
  }

  /**
   * The `not-verifiable` refusal of a block a proof cannot rest on, or null when one can: it names the block, unless
   * the cause is the chain (outside the registry, or none of its blocks verifiable).
   */
  notVerifiable(block: number): LogsProofRefusal | null {
    const era = this.#eraAt(block);
    return era.status === 'verifiable' ? null : notVerifiableAt(era, block);
  }

  /** The era of a block, or why a proof cannot rest on it with the registry's account of it. */
  #eraAt(block: number): ProvableEra | UnprovableEra {
    const cached = this.#era;
    if (cached !== null && block >= cached.first && block <= cached.last) return cached.era;
    const era = provableEra(this.#registry, this.range.chainId, block);
    // What an era shows holds for all its blocks: asked once an era, not once a block.
    if (era.status === 'verifiable')
      this.#era = { era, first: era.era?.firstBlock ?? 0, last: era.era?.lastBlock ?? Number.POSITIVE_INFINITY };
    return era;
  }

  /** Checks the next block: its header's RLP and, when its bloom may match, its receipts' encodings. */
  block(headerRlp: Uint8Array, encodedReceipts: readonly Uint8Array[] | null): Result<EthLog[], LogsProofRefusal> {
    const expected = this.#next;
    if (expected > this.range.toBlock)
      return err(
        refusal(
          'trailing-data',
          undefined,
          `A record follows block ${formatBlock(this.range.toBlock)}, the range's last.`,
        ),
      );
    let items: HeaderItems;
    let number: bigint;
    try {
      items = decodeHeaderItems(headerRlp);
      number = headerItemsNumber(items);
    } catch (error) {
      if (!(error instanceof InvalidHeaderError)) throw error;
      return err(refusal('header-invalid', expected, `The header of block ${formatBlock(expected)}: ${error.message}`));
    }
    if (number !== BigInt(expected))
      return err(
        refusal(
          'block-number',
          expected,
          `Block ${formatBlock(expected)} is missing: the record in its place is block ${number.toLocaleString('en-US')}.`,
        ),
      );
    const era = this.#eraAt(expected);
    if (era.status === 'unprovable') return err(notVerifiableAt(era, expected));
    let header: BlockHeader;
    try {
      header = headerFromItems(items, era.header);
    } catch (error) {
      if (!(error instanceof InvalidHeaderError)) throw error;
      return err(refusal('header-invalid', expected, `The header of block ${formatBlock(expected)}: ${error.message}`));
    }
    // A header its chain's forks refuse is no block of the chain (another chain's, relabelled): as verify block says.
    const [fault] = forkFieldFaults(era.chain, era.header, header, true);
    if (fault !== undefined)
      return err(
        refusal(
          'header-invalid',
          expected,
          `The header of block ${formatBlock(expected)}: expected ${fault.expected}.`,
        ),
      );
    if (this.#lastHash !== null && !bytesEqual(header.parentHash, this.#lastHash))
      return err(
        refusal(
          'parent-mismatch',
          expected,
          `Block ${formatBlock(expected)}'s parentHash 0x${bytesToHex(header.parentHash)} is not the hash of block ${formatBlock(expected - 1)} before it (0x${bytesToHex(this.#lastHash)}).`,
        ),
      );
    const candidate = this.#filter.mayMatch(header.logsBloom);
    let logs: EthLog[] = [];
    if (candidate !== (encodedReceipts !== null))
      return err(
        candidate
          ? refusal(
              'receipts-missing',
              expected,
              `Block ${formatBlock(expected)}'s bloom may match the filter, and its receipts are not in the proof.`,
            )
          : refusal(
              'receipts-unexpected',
              expected,
              `Block ${formatBlock(expected)}'s bloom rules the filter out, yet the proof carries its receipts.`,
            ),
      );
    const hash = this.#keccak(headerRlp);
    if (encodedReceipts !== null) {
      const checked = this.#receiptsOf(era, header, encodedReceipts, hash);
      if (!checked.ok) return checked;
      logs = checked.value;
      this.#candidateBlocks++;
      this.#receipts += encodedReceipts.length;
      this.#logs += logs.length;
    }
    this.#lastHash = hash;
    this.#next++;
    return ok(logs);
  }

  /** After the last record: the summary, with the hash of the last block, or the blocks missing. */
  finish(): Result<LogsProofSummary, LogsProofRefusal> {
    const { fromBlock, toBlock } = this.range;
    if (this.#next <= toBlock || this.#lastHash === null)
      return err(
        refusal(
          'blocks-missing',
          this.#next,
          this.#next === fromBlock
            ? `The proof holds no block; it should hold blocks ${formatBlock(fromBlock)} to ${formatBlock(toBlock)}.`
            : `The proof ends after block ${formatBlock(this.#next - 1)}; blocks ${formatBlock(this.#next)} to ${formatBlock(toBlock)} are missing.`,
        ),
      );
    return ok({
      ...this.range,
      headHash: this.#lastHash,
      blocks: toBlock - fromBlock + 1,
      candidateBlocks: this.#candidateBlocks,
      receipts: this.#receipts,
      logs: this.#logs,
    });
  }

  /** A candidate block's receipts: each a receipt of the era, together its root and its bloom; its matching logs. */
  #receiptsOf(
    era: ProvableEra,
    header: BlockHeader,
    encoded: readonly Uint8Array[],
    blockHash: Uint8Array,
  ): Result<EthLog[], LogsProofRefusal> {
    const block = Number(header.number);
    const receipts: Receipt[] = [];
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const [i, bytes] of encoded.entries()) {
      try {
        const decoded = decodeReceiptWithBloom(bytes, { rules: era.rules, keccak: this.#keccak });
        receipts.push(decoded.receipt);
        for (let b = 0; b < BLOOM_BYTES; b++) bloom[b]! |= decoded.logsBloom[b]!;
      } catch (error) {
        if (!(error instanceof EvmIntegrityError)) throw error;
        return err(refusal('receipt-invalid', block, `Block ${formatBlock(block)}, receipt ${i}: ${error.message}`));
      }
    }
    const shape = { kinds: receiptKinds(receipts, false), hasLogs: receipts.some((r) => r.logs.length > 0) };
    const unshown = uncheckable(era, 'receipts_root', claimFor('receipts_root', era.checks.receipts_root, shape));
    if (unshown !== null) {
      const { message, notVerifiable } = unprovable(unshown, block);
      return err({ ...refusal('not-verifiable', block, message), notVerifiable });
    }
    if (!bytesEqual(orderedTrieRoot(encoded, { keccak: this.#keccak }), header.receiptsRoot))
      return err(
        refusal(
          'root-mismatch',
          block,
          `Block ${formatBlock(block)}'s ${encoded.length} receipts do not make its receiptsRoot 0x${bytesToHex(header.receiptsRoot)}: a receipt or a log is missing, added or altered.`,
        ),
      );
    if (!bytesEqual(bloom, header.logsBloom))
      return err(refusal('bloom-mismatch', block, `Block ${formatBlock(block)}'s receipts do not make its logsBloom.`));
    const logs: EthLog[] = [];
    let logIndex = 0;
    for (const [transactionIndex, receipt] of receipts.entries())
      for (const log of receipt.logs) {
        if (this.#filter.matches(log))
          logs.push(
            ethLog(log, { blockNumber: block, blockHash, timestamp: header.timestamp, transactionIndex, logIndex }),
          );
        logIndex++;
      }
    return ok(logs);
  }
}
