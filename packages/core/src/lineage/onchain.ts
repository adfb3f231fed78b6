/**
 * The on-chain checks of a lineage: a genesis log's block (header hash, receipts roots, bloom),
 * once per block, and the log itself in that block (position and content, bloom, block time).
 */
import { INSTANT_FORM, instantOf } from '../input/values/instants.js';
import { bytesEqual, bytesToHex, parseHex } from '../bytes/hex.js';
import { bloomContains } from '../bloom/bloom.js';
import { claims, isObject, quantityValue } from '../input/values/json-values.js';
import { readRpcBlock, type RpcBlock } from '../input/json-rpc/json-rpc.js';
import { describeProblems, Problems, type InvalidInput } from '../input/values/problems.js';
import { describeNotVerifiable, type ChainRegistry } from '../chains/registry.js';
import type { Log } from '../receipts/receipt.js';
import { err, ok, type Result } from '../result.js';
import { commitmentsHold, verifyRpcBlock, type BlockReport, type Comparison } from '../verify/verify-block.js';
import { excludedReceiptsReason } from '../chains/state-sync.js';
import { check, type Check } from './lineage-report.js';
import { show } from '../json/show.js';
import { exactInteger, INTEGER_FORM } from './sources/integers.js';
import { SourceError } from '../errors.js';
import { notTheBlockAsked, withChainAsked, type BlockJson, type BlockSource } from '../sources/block-source.js';
import { type LineageSource } from './sources/lineage-source.js';
import type { BlockVerifier } from '../verify/block-verifier.js';

/** A genesis log as the service sends it (spec "Genesis artifacts"), its place in the chain given. */
export interface GenesisLog {
  block_number: number;
  tx_index: number;
  log_index: number;
  contract_address: string;
  topics: string[];
  data: string;
  block_time?: unknown;
  /** The hash of the log's transaction, where the genesis gives it (32-byte hex). */
  tx_hash?: string | null;
}

/**
 * A genesis log as read: its `block_number` or `tx_index` may be null, which claims nothing (a log of no block in
 * particular cannot be found; one of no transaction in particular is looked for by its `log_index`: {@link checkLog}).
 */
export type GivenLog = Omit<GenesisLog, 'block_number' | 'tx_index'> & {
  block_number: number | null;
  tx_index: number | null;
};

/** The log with its place given (a block and a transaction); undefined where either is null. */
export function placedLog(log: GivenLog): GenesisLog | undefined {
  return log.block_number === null || log.tx_index === null ? undefined : (log as GenesisLog);
}

/**
 * A `block_time` as a time, to the nanosecond, or why it cannot be read: the one reading of a genesis log's
 * (`log.block_time`) and a record's (`record.fields`), by the service's instants' reader. A value not read is no claim
 * this tool can judge, true or false: not verifiable, never a pass nor a fail.
 */
export function readBlockTime(value: unknown): Result<bigint, string> {
  const instant = instantOf(value);
  return instant === null
    ? err(`block_time ${show(value)} could not be read as a time (expected ${INSTANT_FORM})`)
    : ok(instant);
}

/** A header's `timestamp` (seconds) as an instant in nanoseconds, as {@link readBlockTime} reads a `block_time`. */
export const timestampInstant = (seconds: bigint | number): bigint => BigInt(seconds) * 1_000_000_000n;

/** The bytes of hex text (with or without `0x`); null when it is not hex text. */
export const hexOf = (v: unknown) => (typeof v === 'string' ? parseHex(v) : null);

/**
 * Reads a genesis log's members: the log, or the problem, naming the member. A `block_number` or `tx_index` given as
 * null claims nothing, and is read as null ({@link GivenLog}).
 */
export function readGenesisLog(value: unknown): Result<GivenLog, string> {
  if (!isObject(value)) return err('not an object');
  for (const member of ['block_number', 'tx_index', 'log_index'] as const) {
    if (member !== 'log_index' && value[member] === null) continue;
    if (!Number.isSafeInteger(value[member]) || (value[member] as number) < 0)
      return err(`${member} is ${show(value[member])}, not ${INTEGER_FORM}`);
  }
  if (hexOf(value.contract_address)?.length !== 20) return err('contract_address is not a 20-byte hex address');
  if (!Array.isArray(value.topics) || value.topics.some((t) => hexOf(t)?.length !== 32))
    return err('topics is not an array of 32-byte hex topics');
  if (typeof value.data !== 'string' || hexOf(value.data) === null) return err('data is not hex');
  if (claims(value.tx_hash) && hexOf(value.tx_hash)?.length !== 32)
    return err('tx_hash is not a 32-byte hex transaction hash (or null)');
  return ok(value as unknown as GivenLog);
}

/** Verified facts about one block, computed once however many logs point into it. */
export interface BlockFacts {
  block: RpcBlock;
  /** The block is proven: its header hashes to its hash, its receipts reproduce its roots. */
  proven: boolean;
  /** Why the block cannot be proven (a chain, era or check that cannot be verified), when it cannot. */
  notVerifiable?: string;
  /** Every log of the block in order, with its transaction: for a block-wide `log_index`; built on first need. */
  blockWide?: Array<{ log: Log; tx: number }>;
  /**
   * Each transaction's hash as a proven block gives it (hex, lower case, no `0x`), by index; undefined where it gives
   * none. Only a proven block's are read: a log's tx_hash is compared only where the log was found in it.
   */
  txHashes?: Array<string | undefined>;
}

/**
 * Each transaction's hash as the block's JSON gives it, by transaction index: its receipt's `transactionHash` (at its
 * `transactionIndex`, else its place in the list), else the header's `transactions[i]` (a hash or a transaction's
 * `hash`). The block reader refused a block in which the two disagree.
 */
function transactionHashes(json: BlockJson): Array<string | undefined> {
  const hashes: Array<string | undefined> = [];
  const listed = isObject(json.header) && Array.isArray(json.header.transactions) ? json.header.transactions : [];
  for (const [i, entry] of listed.entries()) hashes[i] = rawHex(isObject(entry) ? entry.hash : entry) ?? undefined;
  const receipts = Array.isArray(json.receipts) ? json.receipts : [];
  for (const [i, receipt] of receipts.entries()) {
    if (!isObject(receipt)) continue;
    const index = quantityValue(receipt.transactionIndex);
    const hash = rawHex(receipt.transactionHash);
    if (hash !== null) hashes[index === undefined ? i : Number(index)] = hash;
  }
  return hashes;
}

export interface BlockContext {
  chainId: number;
  /** Which blocks of the chain can be verified, and under which rules. */
  registry: ChainRegistry;
  source: LineageSource;
  blocks?: BlockSource;
  /** Verifies the block elsewhere (a pool of worker threads); absent, it is verified here. */
  verify?: BlockVerifier;
  /** The hashes an anchor proof proves, which a block's hash must be where the proof proves its number. */
  anchors?: BlockAnchors;
}

/**
 * What the walk asks of the hashes an anchor proof proves (the anchor's `AnchoredHashes` gives it, its SHA-256 and BLS
 * code left out of a walk that has none): the block proven at a number, the checkpoint, and whether the proof is of
 * another chain.
 */
export interface BlockAnchors {
  at(number: number): { readonly hash: Uint8Array; readonly via: string } | undefined;
  readonly checkpoint: string;
  chainRefusal(chainId: number): { readonly message: string } | null;
}

/**
 * A block the source gave that cannot be read is bad input, never a check's failure: a SourceError naming the member
 * where the block has a place in the input (in a bundle, `blocks[i].header.baseFeePerGas`: the endpoint's 400), else
 * naming the source that gave it (`block 19426587 of the JSON-RPC node at …`), whose failure it is, not the input's
 * (no `problem`: `lineage --bundle F --rpc URL` then blames the node, not the bundle).
 */
function unreadableBlock(n: number, refusal: InvalidInput, context: BlockContext): SourceError {
  const first = refusal.problems[0]!;
  const where = context.blocks?.pathOf?.(context.chainId, n);
  const problems = describeProblems(refusal);
  if (where === undefined)
    return new SourceError(`block ${n} of ${context.blocks?.name ?? 'the block source'} cannot be read: ${problems}`);
  const path = `${where}.${first.name}`;
  return new SourceError(`block ${n} cannot be read: ${problems}`, {
    path,
    reason: first.reason,
    expected: first.expected,
  });
}

/**
 * A comparison of the block's report as a lineage check; `gives` is what computed the value and its verb (`the header
 * gives`).
 */
function comparisonCheck(name: string, subject: string, comparison: Comparison, pass: string, gives: string): Check {
  if (comparison.matches === null) return check(name, 'skipped', subject, comparison.reason ?? 'not computed');
  if (comparison.matches) return check(name, 'pass', subject, pass);
  return check(name, 'fail', subject, `${gives} ${comparison.computed}, not ${comparison.expected}`);
}

/** `37 receipts` or `1 receipt`, with the verb (`give`, `reproduce`) that agrees: `1 receipt gives`. */
function receiptsDo(count: number, verb: string): string {
  return count === 1 ? `1 receipt ${verb}s` : `${count} receipts ${verb}`;
}

/** A raw block record's member: its hex (lower case, no `0x`), or null when it is not hex. */
const rawHex = (v: unknown) => {
  const bytes = hexOf(v);
  return bytes === null ? null : bytesToHex(bytes);
};

/**
 * The service's raw block record (dataset 0101) against the block: its `block_number`, `block_hash` and `receipt_root`
 * restate the block's, so each must agree. Null when the source has no record (nothing to compare); skipped when the
 * block is not proven (agreeing with an unproven header proves nothing).
 */
async function rawRecordCheck(
  n: number,
  subject: string,
  report: BlockReport,
  proven: boolean,
  context: BlockContext,
): Promise<Check | null> {
  // The raw block record is optional evidence: a source that cannot give it does not stop the walk.
  const raw = await (context.source.rawBlock?.(context.chainId, n) ?? Promise.resolve(null)).catch((error: unknown) => {
    if (error instanceof SourceError) return null;
    throw error;
  });
  if (raw === null) return null;
  if (!proven)
    return check(
      'block.raw_record',
      'skipped',
      subject,
      'the block is not proven (a block check did not pass), so agreeing with it proves nothing',
    );
  const members: Array<[string, string | null, string]> = [
    // Read by the lineage's one rule for integers (a decimal string is the number, as audit --service reads it).
    ['block_number', exactInteger(raw.block_number) === BigInt(n) ? String(n) : null, String(n)],
    ['block_hash', rawHex(raw.block_hash), report.block_hash.computed!],
    ['receipt_root', rawHex(raw.receipt_root), report.receipts_root.computed!],
  ];
  const wrong = members.filter(([, given, block]) => given !== block);
  if (wrong.length > 0)
    return check(
      'block.raw_record',
      'fail',
      subject,
      wrong
        .map(([name, , block]) =>
          raw[name] === undefined || raw[name] === null
            ? `it gives no ${name}, where the block's is ${block}`
            : `its ${name} is ${show(raw[name])}, not the block's ${block}`,
        )
        .join('; '),
    );
  return check(
    'block.raw_record',
    'pass',
    subject,
    "the raw block record's block_number, block_hash and receipt_root are the block's",
  );
}

/**
 * Block-level checks, from the block's verification (`verifyBlock`, here or on the context's
 * verifier): the header hashes to its hash, the receipts reproduce the claimed root and bloom.
 */
export async function checkBlock(
  n: number,
  context: BlockContext,
): Promise<{ facts: BlockFacts | null; checks: Check[] }> {
  const subject = `block ${n}`;
  const json = context.blocks === undefined ? null : await context.blocks.block(context.chainId, n);
  if (json === null)
    return {
      facts: null,
      checks: [
        check(
          'block.available',
          'skipped',
          subject,
          'the source has no such block (give a bundle with blocks, or a block source: the blocks option, --rpc on the command line)',
        ),
      ],
    };
  // Whatever the source: checks of another block would be reported as this one's.
  const wrong = notTheBlockAsked(json, context.chainId, n);
  if (wrong !== null) throw new SourceError(wrong);
  // The walk's chain applies to a bundle block that names none (for its eras and state-sync receipt).
  const named = withChainAsked(json, context.chainId);
  const problems = new Problems();
  const block = readRpcBlock(named, problems, { registry: context.registry });
  if (block === undefined) throw unreadableBlock(n, problems.invalidInput(), context);
  const verified =
    context.verify === undefined ? verifyRpcBlock(block, { registry: context.registry }) : await context.verify(named);
  if (!verified.ok) {
    const refusal = verified.error;
    if (refusal.kind === 'invalid') throw unreadableBlock(n, refusal, context);
    const why =
      refusal.subject === null ? refusal.hint : describeNotVerifiable(refusal.subject, block.header.fields.number);
    return {
      facts: { block, proven: false, notVerifiable: why },
      checks: [check('block.receipts_root', 'skipped', subject, `not verifiable: ${why}`)],
    };
  }
  const report = verified.value;
  const checks = [
    comparisonCheck(
      'block.header_hash',
      subject,
      report.block_hash,
      'the header hashes to the block hash',
      'the header gives',
    ),
    comparisonCheck(
      'block.receipts_root',
      subject,
      report.receipts_root,
      `${receiptsDo(report.transaction_count, 'reproduce')} the header receiptsRoot`,
      `the ${receiptsDo(report.transaction_count, 'give')}`,
    ),
    comparisonCheck(
      'block.logs_bloom',
      subject,
      report.logs_bloom,
      "the receipts' logs give the header's logsBloom",
      "the receipts' logs give",
    ),
  ];
  const anchor = anchorCheck(n, subject, report, context);
  if (anchor !== null) checks.push(anchor);
  // A block not verifiable only for receipts no commitment covers (Bor's state-sync receipt) is proven for the others.
  const proven = checks.every((c) => c.status === 'pass') && commitmentsHold(report);
  const raw = await rawRecordCheck(n, subject, report, proven, context);
  if (raw !== null) checks.push(raw);
  return {
    facts: {
      block,
      proven,
      ...(proven && { txHashes: transactionHashes(named) }),
      ...(report.verdict === 'not_verifiable' && !proven && { notVerifiable: report.reason! }),
    },
    checks,
  };
}

/**
 * `block.anchor`, where an anchor proof was given and proves block `n`: passes when the block's hash is the one proven
 * (the block is the chain's), fails when it is another (the block is not the chain's, however consistent in itself);
 * null where no proof was given or it proves no block `n` (the block stays the source's word: the report's assurance).
 */
function anchorCheck(n: number, subject: string, report: BlockReport, context: BlockContext): Check | null {
  const proven = context.anchors?.at(n);
  if (proven === undefined || !report.block_hash.matches) return null;
  const via = proven.via === 'pre-merge' ? 'the pre-merge accumulator' : `checkpoint ${context.anchors!.checkpoint}`;
  const hash = bytesToHex(proven.hash);
  return report.block_hash.computed === hash
    ? check('block.anchor', 'pass', subject, `the anchor proof proves the block's hash 0x${hash} from ${via}`)
    : check(
        'block.anchor',
        'fail',
        subject,
        `the block is not the chain's: its hash is 0x${report.block_hash.computed}, the anchor proof proves 0x${hash} from ${via}`,
      );
}

/** A log's bytes as the block holds them: its address, topics and data. */
interface LogBytes {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

const sameLog = (l: Log | undefined, want: LogBytes) =>
  l !== undefined &&
  bytesEqual(l.address, want.address) &&
  l.topics.length === want.topics.length &&
  l.topics.every((t, i) => bytesEqual(t, want.topics[i]!)) &&
  bytesEqual(l.data, want.data);

/** What {@link checkLog} found of a log. */
export interface LogChecked {
  checks: Check[];
  /**
   * Where its proven block holds the log within its transaction (undefined where it does not, or the block is not
   * proven), so that the log is placed among a record's positions, which count within the transaction.
   */
  logIndex: number | undefined;
  /** The log with its place: its transaction as given, or, given as null, as its block shows it; undefined where not shown. */
  placed: GenesisLog | undefined;
}

/**
 * Per-log checks: position and content, bloom, block time. A block-wide `log_index` is located with a warning. A log
 * whose `tx_index` is null is located by its `log_index` where the block holds it there unambiguously (in one
 * transaction, within it or block-wide), then checked there; held nowhere it fails `log.position`, at several places
 * it is not verifiable: never a pass for a log whose place was not shown.
 */
export function checkLog(
  given: GivenLog & { block_number: number },
  subject: string,
  facts: BlockFacts,
  warn: (warning: string) => void,
): LogChecked {
  const bytes: LogBytes = {
    address: hexOf(given.contract_address)!,
    topics: given.topics.map((t) => hexOf(t)!),
    data: hexOf(given.data)!,
  };
  const log = placedLog(given);
  if (log === undefined) return checkUnindexedLog(given, bytes, subject, facts, warn);
  const provable = facts.notVerifiable === undefined && facts.proven;
  // A log of a receipt set aside (Bor's state-sync receipt): no commitment of its proven block covers it.
  const setAside = provable ? facts.block.excludedReceipts.find((r) => r.index === log.tx_index) : undefined;
  if (setAside !== undefined) {
    const why = `not verifiable: ${excludedReceiptsReason([setAside])}`;
    const checks = [check('log.position', 'skipped', subject, why), check('log.bloom', 'skipped', subject, why)];
    const time = blockTimeCheck(log, subject, facts);
    return { checks: time === null ? checks : [...checks, time], logIndex: undefined, placed: log };
  }
  const logIndex = provable ? placeInTransaction(log, bytes, facts) : undefined;
  const position = positionCheck(log, logIndex, subject, facts, warn);
  const found = position.status === 'pass';
  const checks = [position, bloomCheck(bytes, subject, facts, found)];
  const txHash = txHashCheck(log, subject, facts, found);
  if (txHash !== null) checks.push(txHash);
  const time = blockTimeCheck(log, subject, facts);
  return { checks: time === null ? checks : [...checks, time], logIndex, placed: log };
}

/**
 * The checks of a log whose `tx_index` is null ({@link checkLog}): those of the log at the transaction its proven block
 * holds it in, where {@link locateUnindexed} finds one, `log.position` saying so; else `log.position` failed or
 * skipped, and what rests on the log's place skipped.
 */
function checkUnindexedLog(
  given: GivenLog & { block_number: number },
  bytes: LogBytes,
  subject: string,
  facts: BlockFacts,
  warn: (warning: string) => void,
): LogChecked {
  const located = facts.notVerifiable === undefined && facts.proven ? locateUnindexed(given, bytes, facts) : undefined;
  if (typeof located === 'number') {
    const checked = checkLog({ ...given, tx_index: located }, subject, facts, warn);
    const [position, ...rest] = checked.checks;
    const only =
      position!.status === 'pass' ? `, the only log of the block at index ${given.log_index} that has them` : '';
    return { ...checked, checks: [{ ...position!, reason: `tx_index is null: ${position!.reason}${only}` }, ...rest] };
  }
  const position =
    located === undefined
      ? unprovenPosition(subject, facts)!
      : check('log.position', located.status, subject, located.reason);
  const checks = [position, bloomCheck(bytes, subject, facts, false)];
  const txHash = txHashCheck(given, subject, facts, false);
  if (txHash !== null) checks.push(txHash);
  const time = blockTimeCheck(given, subject, facts);
  return { checks: time === null ? checks : [...checks, time], logIndex: undefined, placed: undefined };
}

/**
 * The transaction of a proven block holding a log whose `tx_index` is null at its `log_index`, within the transaction or
 * block-wide (JSON-RPC's `logIndex`), where exactly one log of the block is there with its address, topics and data;
 * else why it cannot be placed: held at no such place fails, held at several is not verifiable (which one is meant
 * cannot be told).
 */
function locateUnindexed(
  log: GivenLog,
  bytes: LogBytes,
  facts: BlockFacts,
): number | { status: 'fail' | 'skipped'; reason: string } {
  const at = new Map<Log, number>();
  for (const [tx, receipt] of facts.block.receipts.entries()) {
    const candidate = receipt.logs[log.log_index];
    if (candidate !== undefined && sameLog(candidate, bytes)) at.set(candidate, tx);
  }
  const wide = blockWideLogs(facts)[log.log_index];
  if (wide !== undefined && sameLog(wide.log, bytes)) at.set(wide.log, wide.tx);
  const txs = [...at.values()];
  if (txs.length === 1) return txs[0]!;
  const what = `this address, topics and data at log ${log.log_index}`;
  if (txs.length > 1)
    return {
      status: 'skipped',
      reason: `not verifiable: tx_index is null, and transactions ${txs.join(', ')} of the block have ${what}: which one is meant cannot be told`,
    };
  // A receipt set aside (Bor's state-sync receipt) is covered by no commitment: the log may be one of its.
  const aside = facts.block.excludedReceipts;
  return aside.length > 0
    ? {
        status: 'skipped',
        reason: `not verifiable: tx_index is null, and no receipt the block's commitments cover has ${what}; ${excludedReceiptsReason(aside)}`,
      }
    : {
        status: 'fail',
        reason: `tx_index is null, and no transaction of the block has ${what} (within it, or block-wide)`,
      };
}

/** Every log of the block in order, with its transaction (JSON-RPC's `logIndex` is a place in it): built on first need. */
const blockWideLogs = (facts: BlockFacts) =>
  (facts.blockWide ??= facts.block.receipts.flatMap((r, tx) => r.logs.map((l) => ({ log: l, tx }))));

/**
 * Where the block holds this log within transaction `tx_index`: at its `log_index`, or at the place within the
 * transaction of its `log_index` read as a block-wide position (JSON-RPC's `logIndex`); undefined where it is at
 * neither.
 */
function placeInTransaction(log: GenesisLog, bytes: LogBytes, facts: BlockFacts): number | undefined {
  const logs = facts.block.receipts[log.tx_index]?.logs;
  if (sameLog(logs?.[log.log_index], bytes)) return log.log_index;
  const blockWide = blockWideLogs(facts)[log.log_index];
  if (blockWide === undefined || blockWide.tx !== log.tx_index || !sameLog(blockWide.log, bytes)) return undefined;
  return logs!.indexOf(blockWide.log);
}

/** `log.position` skipped where the block is not proven (positions in it prove nothing); null where it is. */
function unprovenPosition(subject: string, facts: BlockFacts): Check | null {
  if (facts.notVerifiable !== undefined)
    return check(
      'log.position',
      'skipped',
      subject,
      `the block's receipts cannot be verified, so positions in them prove nothing: ${facts.notVerifiable}`,
    );
  if (!facts.proven)
    return check(
      'log.position',
      'skipped',
      subject,
      'the block is not proven (a block check failed), so positions in it prove nothing',
    );
  return null;
}

/**
 * Whether the block holds this log where it says (`logIndex`, {@link placeInTransaction}): at `log_index` within
 * transaction `tx_index`, or, with a warning, at that block-wide index in the same transaction. Only a proven block's
 * positions prove anything.
 */
function positionCheck(
  log: GenesisLog,
  logIndex: number | undefined,
  subject: string,
  facts: BlockFacts,
  warn: (warning: string) => void,
): Check {
  const unproven = unprovenPosition(subject, facts);
  if (unproven !== null) return unproven;
  if (logIndex === log.log_index)
    return check(
      'log.position',
      'pass',
      subject,
      `transaction ${log.tx_index}, log ${log.log_index} has this address, topics and data`,
    );
  if (logIndex !== undefined) {
    warn(
      `${subject}: log_index ${log.log_index} is the block-wide position (JSON-RPC logIndex), not the position within the transaction`,
    );
    return check(
      'log.position',
      'pass',
      subject,
      `transaction ${log.tx_index} has this log at block-wide index ${log.log_index}`,
    );
  }
  const why =
    facts.block.receipts[log.tx_index] === undefined
      ? `the block has no transaction ${log.tx_index}`
      : `transaction ${log.tx_index} has no log ${log.log_index} with this address, topics and data`;
  return check('log.position', 'fail', subject, why);
}

/** Whether the log's address and topics are in the block bloom; only for a log the block was shown to hold. */
function bloomCheck(bytes: LogBytes, subject: string, facts: BlockFacts, found: boolean): Check {
  if (!found)
    return check('log.bloom', 'skipped', subject, "the log is not the chain's, so its bloom bits prove nothing");
  // A proven block has its logsBloom: the block's report required it.
  const bloom = facts.block.header.fields.logsBloom!;
  const missing = [bytes.address, ...bytes.topics].findIndex((item) => !bloomContains(bloom, item));
  return missing === -1
    ? check('log.bloom', 'pass', subject, 'its address and topics are in the block bloom')
    : check(
        'log.bloom',
        'fail',
        subject,
        `${missing === 0 ? 'its address' : `topic ${missing - 1}`} is not in the block bloom`,
      );
}

/**
 * Whether the log's `tx_hash` is the hash the block gives its transaction; null when the log gives none (it claims
 * nothing). Skipped where the block gives no hash for it (a bundle recorded without them): the claim cannot be compared,
 * so it is not verifiable, never passed.
 */
function txHashCheck(log: GivenLog, subject: string, facts: BlockFacts, found: boolean): Check | null {
  if (!claims(log.tx_hash)) return null;
  // A log found in its block has its transaction (a null tx_index located).
  if (!found || log.tx_index === null)
    return check(
      'log.tx_hash',
      'skipped',
      subject,
      "the log is not shown in its block, so its transaction's hash proves nothing",
    );
  const given = rawHex(log.tx_hash)!;
  const hash = facts.txHashes?.[log.tx_index];
  if (hash === undefined)
    return check(
      'log.tx_hash',
      'skipped',
      subject,
      `not verifiable: the block gives no hash of transaction ${log.tx_index} (no receipt transactionHash, no header.transactions), so tx_hash cannot be compared`,
    );
  return hash === given
    ? check(
        'log.tx_hash',
        'pass',
        subject,
        // The pass says whose word the hash is: no root rebuilt here binds a block's transaction hashes.
        `tx_hash is the hash the block's source gives transaction ${log.tx_index} (not bound by the block hash: the transactions root is not recomputed)`,
      )
    : check(
        'log.tx_hash',
        'fail',
        subject,
        `tx_hash ${given} is not the hash the block gives transaction ${log.tx_index}, ${hash}`,
      );
}

/**
 * Whether the log's `block_time` is the header's timestamp; null when the log gives none (absent or null: it claims
 * nothing). Skipped as not verifiable when it cannot be read as a time ({@link readBlockTime}).
 */
function blockTimeCheck(log: Pick<GivenLog, 'block_time'>, subject: string, facts: BlockFacts): Check | null {
  if (!claims(log.block_time)) return null;
  const read = readBlockTime(log.block_time);
  if (!read.ok) return check('log.block_time', 'skipped', subject, `not verifiable: ${read.error}`);
  const timestamp = facts.block.header.fields.timestamp;
  if (timestamp === undefined) return check('log.block_time', 'skipped', subject, 'the header has no timestamp');
  const expected = new Date(Number(timestamp) * 1000).toISOString();
  // The service's instants, zone or none (UTC), whatever the machine's own zone.
  return read.value === timestampInstant(timestamp)
    ? check('log.block_time', 'pass', subject, `block_time is the header timestamp ${expected}`)
    : check(
        'log.block_time',
        'fail',
        subject,
        `block_time ${show(log.block_time)} is not the header timestamp ${expected}`,
      );
}
