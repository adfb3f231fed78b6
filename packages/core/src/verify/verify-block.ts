import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import {
  ChainRegistry,
  CHECK_NAMES,
  defaultRegistry,
  describeEvidenceUsed,
  describeNotVerifiable,
  outsideRegistry,
  type CheckClaim,
  type CheckName,
  type EvidenceUsed,
  type NotVerifiable,
  type Verifiability,
} from '../chains/registry.js';
import { claimFor, receiptKinds } from '../chains/claims.js';
import type { ChainInfo } from '../chains/chain-info.js';
import {
  beforeByzantium,
  fromCanyon,
  mixedRoots,
  rootlessBeforeByzantium,
  unversionedDepositFromCanyon,
  fieldsAheadOfFork,
  scheduledFields,
  type ScheduledField,
} from '../chains/fork-schedule.js';
import {
  absentForkFields,
  lostForkFieldReason,
  unknownForkFieldReason,
  type AbsentForkFields,
} from '../chains/absent-fork-fields.js';
import { untypedDoubt, untypedRootReason } from '../chains/untyped-receipts.js';
import { encodeHeader } from '../header/header-encoding.js';
import { withdrawalsRoot } from '../header/body-roots.js';
import { counted } from '../input/json-rpc/body-lists.js';
import { aHeaderOf, ETHEREUM_HEADER, type HeaderLayout, type HeaderLayoutName } from '../header/layouts.js';
import {
  readReceiptBloom,
  readRpcBlock,
  streamRpcBlock,
  type ReceiptOutline,
  type RpcBlock,
  type StreamedRpcBlock,
} from '../input/json-rpc/json-rpc.js';
import { Problems, type InvalidInput } from '../input/values/problems.js';
import { defaultKeccak256, type HashOptions, type Keccak256 } from '../keccak/keccak.js';
import { checkRuleSetName, RULE_SET_NAMES, RULE_SETS, type RuleSet, type RuleSetName } from '../receipts/rules.js';
import { checkType } from '../input/values/receipt-rules.js';
import {
  receiptsCommitment,
  receiptsRootAndBloom,
  receiptsRootAndBloomOf,
  type CommitmentOptions,
  type ReceiptsCommitment,
} from '../receipts/root.js';
import type { Receipt } from '../receipts/receipt.js';
import { BLOOM_BYTES, logsBloom } from '../bloom/bloom.js';
import {
  excludedReceiptResult,
  excludedReceiptsReason,
  placedReading,
  type ExcludedReceipt,
  type ExcludedReceiptResult,
  type ReceiptsReading,
} from '../chains/state-sync.js';
import { err, ok, type Result } from '../result.js';
import { ReceiptNotPlainlyValid, UnknownReceiptTypeError } from '../errors.js';
import { kindOf } from '../json/show.js';

export interface BlockVerifyContext extends HashOptions {
  registry?: ChainRegistry;
  /** Rule set to use, for blocks of chains outside the registry or without a chain id. */
  rules?: RuleSetName;
}

/**
 * Holds the context to the function's contract: an object whose `registry` is a ChainRegistry and whose `rules` name a
 * rule set, where given; else a TypeError or RangeError naming the argument (a mistake in the calling code, which
 * would otherwise fail deep inside, naming nothing).
 */
function checkContext(context: BlockVerifyContext): void {
  if (typeof context !== 'object' || context === null)
    throw new TypeError(`context must be an object (or absent), got ${kindOf(context)}`);
  if (context.registry !== undefined && !(context.registry instanceof ChainRegistry))
    throw new TypeError(`context.registry must be a ChainRegistry, got ${kindOf(context.registry)}`);
  if (context.rules !== undefined) checkRuleSetName(context.rules, 'context.rules');
}

/** One commitment compared: what the block claims and what its data give. */
export interface Comparison {
  expected: string | null;
  computed: string | null;
  /** null when the check did not run (its rule is not verified for the block's chain and era), with the reason. */
  matches: boolean | null;
  reason?: string;
  /** Where the check ran: the evidence its rule stands on for this block (shipped, registry, operator, configured). */
  evidence?: EvidenceUsed;
}

/** Why a block was not verified at all: its input is invalid, or its chain cannot be named or verified. */
export type BlockRefusal = InvalidInput | { kind: 'chain_not_supported'; subject: NotVerifiable | null; hint: string };

/** The verification of one block: every commitment it carries compared with its data. */
export interface BlockReport {
  id: string | null;
  chain_id: number | null;
  /** The era of the chain the block is in; null for a chain without eras. */
  era: string | null;
  rules: RuleSetName;
  /** The layout its header hashes in. */
  header_layout: HeaderLayoutName;
  block_number: number | null;
  /** Receipts hashed into the root; `excluded_receipts` are not counted. */
  transaction_count: number;
  receipts_root: Comparison;
  logs_bloom: Comparison;
  block_hash: Comparison;
  /** Our encoding of each receipt against the source's raw consensus receipts, when it had them. */
  raw_receipts: { count: number; matches: boolean; first_mismatch: number | null } | null;
  /**
   * Each receipt's own `logsBloom`, where the source gave one, against the bloom of its logs: `count` compared, the
   * first mismatch's transaction index. Null when no receipt had one, or when the logs bloom's rule is not verified
   * for the block's chain and era.
   */
  receipt_blooms: { count: number; matches: boolean; first_mismatch: number | null } | null;
  /**
   * The withdrawals the header object lists (`withdrawals`, EIP-4895), where it lists any, against its
   * `withdrawalsRoot`: `count` listed, the root `expected` (the header's) and `computed` (of the list). Null where the
   * list is absent or empty (some clients send [] on blocks without withdrawals), or the chain is not verified.
   */
  withdrawals: { count: number; expected: string; computed: string; matches: boolean } | null;
  /** Receipts the source returned that the chain leaves out of the root (Bor's state-sync receipt). */
  excluded_receipts: ExcludedReceiptResult[];
  /** The verdict is identical. */
  is_identical: boolean;
  /**
   * identical: every check ran and matched. different: a check that ran does not match.
   * not_verifiable: no check failed, but one did not run (its rule is not verified for the
   * block's chain or era), or the block holds a receipt no commitment covers (`excluded_receipts`,
   * Bor's state-sync receipt), so the block is not proven.
   */
  verdict: 'identical' | 'different' | 'not_verifiable';
  /** Why the verdict is not identical; null when it is. */
  reason: string | null;
}

/** A block read, but for its receipts. */
type BlockRead = Omit<RpcBlock, 'receipts' | 'excludedReceipts'> & Pick<StreamedRpcBlock, 'excludedReceipts'>;

/** A block's receipts in the root (in transaction order) as verifying the block reads them. */
interface ReceiptsRead {
  /** The type and gas of each: the rules and the claims read these before any receipt is hashed. */
  outlines: readonly ReceiptOutline[];
  hasLogs: boolean;
  /**
   * Reads receipt `i`'s own `logsBloom`, as the source gave it, into `out`, `i` counting the receipts in the root, then
   * those left out of it: false when it gave none.
   */
  readBloom: (i: number, out: Uint8Array) => boolean;
  /** The receipts left out of the root (Bor's state-sync receipt), which come after those in it. */
  leftOut: () => readonly Receipt[];
  /** The first receipt that gives a status and no post-state root (-1: none); asked only of a block before Byzantium. */
  firstWithStatus: () => number;
  /** The first receipt that gives a post-state root (-1: none); asked only of a block before Byzantium. */
  firstWithRoot: () => number;
  /** Whether any receipt gives a post-state root, whatever the block's era. */
  rootGiven: () => boolean;
  /** The first deposit receipt without its nonce or version, from Canyon on (-1: none). */
  firstUnversionedDeposit: () => number;
  /** Their root and bloom, with their encodings where the block has raw receipts to compare them with. */
  commitment(hashing: Hashing): Partial<ReceiptsCommitment> & Omit<ReceiptsCommitment, 'encodedReceipts'>;
  /** The root and bloom of every receipt, those left out of the root after the others (a placement unknown). */
  commitmentWithLeftOut(hashing: Hashing): ReceiptsReading;
}

/** How a block's receipts are hashed: its rule set and the Keccak, and who sees each receipt's bloom. */
interface Hashing extends Pick<CommitmentOptions, 'onReceiptBloom'> {
  rules: RuleSet;
  keccak: Keccak256;
}

/** Compares each receipt's bloom, as the commitment computes it, with the one its source gave. */
class ReceiptBloomCheck {
  count = 0;
  firstMismatch = -1;
  readonly #given = new Uint8Array(BLOOM_BYTES);

  constructor(readonly readBloom: ReceiptsRead['readBloom']) {}

  readonly observe = (index: number, bloom: Uint8Array): void => {
    if (!this.readBloom(index, this.#given)) return;
    this.count++;
    // The trie takes receipts in its keys' order (1..127, 0, 128, ...), not in the receipts'.
    if (!bytesEqual(this.#given, bloom) && (this.firstMismatch === -1 || index < this.firstMismatch))
      this.firstMismatch = index;
  };

  /** The report's comparison, once the commitment has run; null when no receipt had a bloom. */
  comparison(): BlockReport['receipt_blooms'] {
    if (this.count === 0) return null;
    const mismatch = this.firstMismatch === -1 ? null : this.firstMismatch;
    return { count: this.count, matches: mismatch === null, first_mismatch: mismatch };
  }
}

const hex = (b: Uint8Array | undefined) => (b === undefined ? null : bytesToHex(b));

/** A claimed check's comparison; an unclaimed one's says why it did not run. */
function compare(claim: CheckClaim, expected: Uint8Array | undefined, computed: () => Uint8Array): Comparison {
  if (!claim.verified)
    return { expected: hex(expected), computed: null, matches: null, reason: `not verifiable: ${claim.reason}` };
  const value = computed();
  return {
    expected: hex(expected),
    computed: hex(value),
    matches: expected !== undefined && bytesEqual(expected, value),
    evidence: describeEvidenceUsed(claim),
  };
}

/**
 * The block hash's comparison, unless it differs while the header lacks a fork field that no real block shows its
 * block to have or not: then it is not verifiable, since the header may be whole but for that field.
 */
function blockHashComparison(
  comparison: Comparison,
  absent: AbsentForkFields,
  chain: string | undefined,
  blockNumber: bigint | undefined,
): Comparison {
  if (comparison.matches !== false || absent.unknown === undefined) return comparison;
  const reason = unknownForkFieldReason(absent.unknown, chain ?? 'this chain', blockNumber);
  return { expected: comparison.expected, computed: null, matches: null, reason: `not verifiable: ${reason}` };
}

/** The report of a block whose chain or era cannot be verified: nothing is computed, so nothing can mismatch. */
function notVerifiableReport(block: BlockRead, count: number, subject: NotVerifiable): BlockReport {
  const { fields } = block.header;
  const reason = describeNotVerifiable(subject, fields.number);
  const skipped = (expected: Uint8Array | undefined): Comparison => ({
    expected: hex(expected),
    computed: null,
    matches: null,
    reason: `not verifiable: ${reason}`,
  });
  return {
    id: block.id ?? null,
    chain_id: block.chainId,
    era: subject.era?.name ?? null,
    rules: subject.chain!.rules,
    header_layout: block.header.layout.name,
    block_number: fields.number === undefined ? null : Number(fields.number),
    transaction_count: count,
    receipts_root: skipped(fields.receiptsRoot),
    logs_bloom: skipped(fields.logsBloom),
    block_hash: skipped(block.header.hash),
    raw_receipts: null,
    receipt_blooms: null,
    withdrawals: null,
    excluded_receipts: [],
    is_identical: false,
    verdict: 'not_verifiable',
    reason,
  };
}

/** How a block is verified: its rules, header layout and claims, once its chain and era are known. */
interface Plan {
  rules: RuleSet;
  layout: HeaderLayout;
  era: string | null;
  checks: Readonly<Record<CheckName, CheckClaim>>;
  /** The registry's chain; absent for a chain verified on --rules' word. */
  chain?: ChainInfo;
}

const NAMED: CheckClaim = { verified: true, evidence: 'configured' };

/**
 * The plan for a block, or why it is refused: a chain outside the registry needs `--rules` (its
 * checks then stand on that word), a chain or era that cannot be verified gets its report, and a
 * chain with eras needs the block number.
 */
function planFor(
  block: BlockRead,
  verifiability: Verifiability | undefined,
  context: BlockVerifyContext,
  problems: Problems,
  trial: boolean,
): Result<Plan, BlockRefusal | NotVerifiable> {
  if (outsideRegistry(verifiability)) {
    if (context.rules === undefined) {
      return err({
        kind: 'chain_not_supported',
        subject: verifiability ?? null,
        hint: `Name the rule set the chain follows: the rules option (on the command line, --add-chain ID:RULES; verify block also takes --rules), one of ${RULE_SET_NAMES.join(', ')}.`,
      });
    }
    const checks = { block_hash: NAMED, receipts_root: NAMED, logs_bloom: NAMED };
    return ok({ rules: RULE_SETS[context.rules], layout: block.header.layout, era: null, checks });
  }
  if (verifiability.status === 'not_verifiable') return err(verifiability);
  if (verifiability.status === 'era_unknown') {
    problems.add('header.number', 'missing', `the block number: ${verifiability.why}`);
    return err(problems.invalidInput());
  }
  return ok({
    rules: verifiability.rules,
    layout: verifiability.header,
    era: verifiability.era?.name ?? null,
    // On trial, every check of the era runs: whether the block reproduces is the question.
    checks: trial ? { block_hash: NAMED, receipts_root: NAMED, logs_bloom: NAMED } : verifiability.checks,
    chain: verifiability.chain,
  });
}

/**
 * What the claimed checks need of the header, as problems: each of the three commitments, and for
 * the block hash every field of the header's layout, and each fork field that a real block of the
 * chain at or before this one has. Nothing claimed is missing from a report.
 */
function requireCommitments(block: BlockRead, plan: Plan, absent: AbsentForkFields, problems: Problems): void {
  const { fields, hash, missing, layout } = block.header;
  const commitments = { receiptsRoot: fields.receiptsRoot, logsBloom: fields.logsBloom, hash };
  for (const [name, value] of Object.entries(commitments)) {
    if (value === undefined)
      problems.add(`header.${name}`, 'missing', `the block's ${name}: a commitment the block is checked against`);
  }
  if (!plan.checks.block_hash.verified) return;
  const header = layout === ETHEREUM_HEADER ? 'the header' : aHeaderOf(layout);
  for (const field of missing) {
    if (field === 'receiptsRoot' || field === 'logsBloom') continue;
    problems.add(`header.${field}`, 'missing', `present: ${header} hashes ${field} into the block hash`);
  }
  for (const lost of absent.lost)
    problems.add(
      `header.${lost.field}`,
      'missing',
      `present: ${lostForkFieldReason(lost, plan.chain!.name, fields.number)}`,
    );
}

/**
 * The fork fields of the block's layout judged by its chain's fork schedule, where the chain has one and the header
 * gives its number and timestamp; each the header has that its block's fork does not have is a problem naming the
 * field and the fork.
 */
function scheduleOf(block: BlockRead, plan: Plan, problems: Problems): ScheduledField[] | undefined {
  const { fields } = block.header;
  const { number, timestamp } = fields;
  const chain = plan.chain;
  if (chain?.forks === undefined || number === undefined || timestamp === undefined) return undefined;
  const at = { number, timestamp };
  const scheduled = scheduledFields(plan.layout, chain.forks, at);
  for (const { field, why } of fieldsAheadOfFork(chain.name, chain.forks, scheduled, fields, at))
    problems.add(`header.${field}`, 'conflict', `absent: ${why}`);
  return scheduled;
}

/** Whether a receipts-root claim stands on evidence that shows every type its rules define is all the chain has. */
const typesKnown = (claim: CheckClaim): boolean =>
  claim.verified &&
  (claim.evidence === 'configured' ||
    claim.registry !== undefined ||
    claim.evidence.some((e) => e.operator === undefined));

/**
 * The receipts root's comparison as not verifiable where it differs but the types read may be why: no receipt gives
 * its type and the block may hold typed transactions (chains/untyped-receipts.ts, the receipt-root operation's rule
 * too). Undefined where the difference stands: so too where the source's raw receipts match our encodings, which shows
 * the types read right.
 */
function untypedRootDoubt(
  block: BlockRead,
  receipts: ReceiptsRead,
  chain: ChainInfo | undefined,
  root: Comparison,
  raw: BlockReport['raw_receipts'],
): Comparison | undefined {
  if (root.matches !== false || raw?.matches === true) return undefined;
  const doubt = untypedDoubt({
    chain: { name: chain?.name ?? 'this chain', forks: chain?.forks },
    number: block.header.fields.number,
    count: receipts.outlines.length,
    typesGiven: block.typesGiven,
    rootGiven: receipts.rootGiven(),
  });
  if (doubt === undefined) return undefined;
  const reason = untypedRootReason(doubt, 'receipt', "the header's receiptsRoot");
  return { expected: root.expected, computed: null, matches: null, reason: `not verifiable: ${reason}` };
}

/** The source's raw consensus receipts against our encodings of them (kept when the block has raw receipts). */
function rawReceiptsComparison(block: BlockRead, encoded: Uint8Array[] | undefined): BlockReport['raw_receipts'] {
  if (block.rawReceipts === undefined || encoded === undefined) return null;
  const mismatch = block.rawReceipts.findIndex((r, i) => !bytesEqual(r, encoded[i] ?? new Uint8Array(0)));
  const countOk = block.rawReceipts.length === encoded.length;
  return {
    count: block.rawReceipts.length,
    matches: countOk && mismatch === -1,
    first_mismatch: mismatch === -1 ? null : mismatch,
  };
}

/**
 * The block's withdrawals against its header's withdrawalsRoot (EIP-4895), where it lists any: null for an absent or
 * empty list. A list no root can cover is a problem: on an OP Stack chain (`rules` optimism), whose withdrawalsRoot is
 * the L2ToL1MessagePasser's storage root, not a list's; beside a header without withdrawalsRoot, named as the field
 * the header lost where its fork has it (`absent`, `chain`), else as the list (before Shanghai, or a chain without it).
 */
function withdrawalsComparison(
  block: BlockRead,
  rules: RuleSet,
  absent: AbsentForkFields,
  chain: string | undefined,
  problems: Problems,
  keccak: Keccak256,
): BlockReport['withdrawals'] {
  const { withdrawals, fields } = block.header;
  if (withdrawals === undefined || withdrawals.length === 0) return null;
  const got = `got ${counted(withdrawals.length, 'withdrawal')}`;
  if (rules.name === 'optimism') {
    problems.add(
      'header.withdrawals',
      'conflict',
      `absent or empty: an OP Stack block has no withdrawals (its header's withdrawalsRoot is the storage root of the L2ToL1MessagePasser, not a root of a list), ${got}`,
    );
    return null;
  }
  const root = fields.withdrawalsRoot;
  if (root !== undefined) {
    const computed = withdrawalsRoot(withdrawals, { keccak });
    return {
      count: withdrawals.length,
      expected: hex(root)!,
      computed: hex(computed)!,
      matches: bytesEqual(root, computed),
    };
  }
  const lost = absent.lost.find((field) => field.field === 'withdrawalsRoot');
  const path = 'header.withdrawalsRoot';
  if (lost === undefined)
    problems.add(
      'header.withdrawals',
      'conflict',
      `absent or empty: the header has no withdrawalsRoot, which would commit to the block's withdrawals (a block before Shanghai, or of a chain without it, has none), ${got}`,
    );
  // requireCommitments names it already where the block hash is checked.
  else if (!problems.list.some((problem) => problem.name === path))
    problems.add(
      path,
      'missing',
      `present: the header commits to the block's withdrawals in it, and ${lostForkFieldReason(lost, chain ?? 'this chain', fields.number)}`,
    );
  return null;
}

/**
 * The verdict of the comparisons: a failed one is different; else one that did not run, or a receipt set aside that no
 * commitment covers (`excluded`: Bor's state-sync receipt; `inRoot`: the root matched with it in), is not verifiable.
 */
function verdictOf(
  comparisons: Record<CheckName, Comparison>,
  raw: BlockReport['raw_receipts'],
  blooms: BlockReport['receipt_blooms'],
  withdrawals: BlockReport['withdrawals'],
  excluded: readonly ExcludedReceipt[],
  inRoot: boolean,
): Pick<BlockReport, 'verdict' | 'reason'> {
  const failed: string[] = CHECK_NAMES.filter((name) => comparisons[name].matches === false);
  if (raw?.matches === false) failed.push('raw_receipts');
  if (blooms?.matches === false) failed.push('receipt_blooms');
  if (withdrawals?.matches === false) failed.push('withdrawals');
  if (failed.length > 0) return { verdict: 'different', reason: `does not match: ${failed.join(', ')}` };
  const skipped = CHECK_NAMES.filter((name) => comparisons[name].matches === null).map(
    (name) => `${name}: ${comparisons[name].reason}`,
  );
  if (excluded.length > 0) skipped.push(`excluded_receipts: ${excludedReceiptsReason(excluded, inRoot)}`);
  if (skipped.length > 0) return { verdict: 'not_verifiable', reason: skipped.join('; ') };
  return { verdict: 'identical', reason: null };
}

/**
 * Whether a report's commitments all hold, its verdict `identical`, or `not_verifiable` only for receipts set aside
 * (Bor's state-sync receipt): then what the other receipts say is proven, the receipts set aside are not. For the
 * walkers that rest on a block's receipts (lineage, evidence).
 */
export function commitmentsHold(report: BlockReport): boolean {
  if (report.verdict === 'identical') return true;
  return (
    report.verdict === 'not_verifiable' &&
    report.excluded_receipts.length > 0 &&
    CHECK_NAMES.every((name) => report[name].matches === true) &&
    report.raw_receipts?.matches !== false &&
    report.receipt_blooms?.matches !== false
  );
}

/**
 * Verifies a block given as JSON-RPC header + complete receipts (the fixtures' format): receipts
 * root and block bloom against the header, the header against its hash, each receipt's
 * encoding against the source's raw receipts, and the withdrawals it lists against the header's root. Each check runs only where its rule is verified
 * for the block's chain and era (the registry's evidence); the verdict is `identical` only when
 * every check ran and matched. A header that lacks what a check needs is refused as input,
 * naming the field; a chain, or an era, that cannot be verified gets the verdict not_verifiable.
 *
 * @throws TypeError or RangeError naming the option for a context outside the contract: not an object, `rules` that
 * name no rule set, a `registry` that is not a ChainRegistry.
 * @example
 * const result = verifyBlock(parseJson(text)) // parseJson, not JSON.parse: it refuses a member given twice
 * if (result.ok) result.value.verdict // 'identical' | 'different' | 'not_verifiable'
 */
export function verifyBlock(input: unknown, context: BlockVerifyContext = {}): Result<BlockReport, BlockRefusal> {
  const streamed = verifyBlockStreamed(input, context);
  if (streamed !== undefined) return streamed;
  const problems = new Problems();
  const block = readRpcBlock(input, problems, readOptions(context));
  return block === undefined ? err(problems.invalidInput()) : verifyReadBlock(block, context, false);
}

/** What the block readers take of a verification's context. */
const readOptions = (context: BlockVerifyContext) => ({
  registry: context.registry ?? defaultRegistry,
  keccak: context.keccak,
  rules: context.rules,
});

/**
 * {@link verifyBlock}'s first way, for a block without raw receipts: its receipts decoded one at a time as they are
 * hashed. Only a report is taken from it: undefined where it finds anything wrong, or cannot take the block, and the
 * caller reads the block whole (verifyBlock), which refuses it as readRpcBlock does. For a caller that holds the block
 * in another form first (api/block-operation.ts, a block read off the JSON scanner's tape), then reads it whole.
 * @throws as verifyBlock does, for a context outside the contract.
 */
export function verifyBlockStreamed(
  input: unknown,
  context: BlockVerifyContext = {},
): Result<BlockReport, BlockRefusal> | undefined {
  checkContext(context);
  const streamed = streamRpcBlock(input, readOptions(context));
  if (streamed !== undefined) {
    try {
      const {
        outlines,
        hasLogs,
        firstWithStatus,
        firstWithRoot,
        rootGiven,
        firstUnversionedDeposit,
        receiptAt,
        readBloom,
        leftOut,
        readRest,
      } = streamed.receipts;
      const commitment = (hashing: Hashing) => receiptsRootAndBloomOf(outlines.length, receiptAt, hashing);
      const commitmentWithLeftOut = (hashing: Hashing) => {
        const count = outlines.length;
        const out = leftOut();
        return receiptsRootAndBloomOf(count + out.length, (i) => (i < count ? receiptAt(i) : out[i - count]!), hashing);
      };
      const read = {
        outlines,
        hasLogs,
        firstWithStatus: () => firstWithStatus,
        firstWithRoot: () => firstWithRoot,
        rootGiven: () => rootGiven,
        firstUnversionedDeposit: () => firstUnversionedDeposit,
        readBloom,
        leftOut,
        commitment,
        commitmentWithLeftOut,
      };
      const result = verifyReceipts(streamed, read, context, false);
      if (result.ok) {
        readRest();
        return result;
      }
    } catch (error) {
      if (!(error instanceof ReceiptNotPlainlyValid || error instanceof UnknownReceiptTypeError)) throw error;
    }
  }
  return undefined;
}

/**
 * {@link verifyBlock} of a block already read (with the same registry, and the same `rules` for a chain outside it: its
 * reader reads the block's dialect under them), for callers that keep the block.
 */
export function verifyRpcBlock(block: RpcBlock, context: BlockVerifyContext = {}): Result<BlockReport, BlockRefusal> {
  checkContext(context);
  return verifyReadBlock(block, context, false);
}

/**
 * {@link verifyRpcBlock} of the block's receipts alone, for a header that claims no hash (geth's t8n output, the
 * commitments alone): nothing is required of the header, the block hash is not checked (not verifiable), and the
 * receipts are compared with the commitments it gives and with the source's own claims about them, each receipt's
 * `logsBloom` and the `raw_receipts`, by the same rules and comparisons as verifyBlock's. A commitment the header
 * lacks compares as not matching. What `request` reads, so that a block whose receipts' own claims differ gets no body
 * whether or not its header can be hashed.
 */
export function verifyRpcBlockReceipts(
  block: RpcBlock,
  context: BlockVerifyContext = {},
): Result<BlockReport, BlockRefusal> {
  checkContext(context);
  return verifyReadBlock(block, context, false, 'receipts');
}

/**
 * {@link verifyRpcBlock} with every check of the block's era run, whatever evidence it has: whether a block an operator
 * vouches for reproduces under its chain's rules (`admitEvidence`). Never a verdict on its own.
 */
export function verifyRpcBlockOnTrial(
  block: RpcBlock,
  context: BlockVerifyContext = {},
): Result<BlockReport, BlockRefusal> {
  checkContext(context);
  // A chain outside the registry has no era to try: its checks would stand on --rules' word.
  const { rules: _named, ...registryOnly } = context;
  return verifyReadBlock(block, registryOnly, true);
}

function verifyReadBlock(
  block: RpcBlock,
  context: BlockVerifyContext,
  trial: boolean,
  scope: Scope = 'block',
): Result<BlockReport, BlockRefusal> {
  const { receipts } = block;
  // The encodings are kept only to be compared with the source's raw receipts: a million of them held
  // at once made the collector run a full collection of the caller's whole heap.
  const commitment = (hashing: Hashing) =>
    block.rawReceipts === undefined ? receiptsRootAndBloom(receipts, hashing) : receiptsCommitment(receipts, hashing);
  // The blooms were read as 256 bytes of hex (readRpcBlock names any other as a problem), those left out of the root last.
  const readBloom = (i: number, out: Uint8Array) => {
    const bloom = block.receiptBlooms?.[i];
    return bloom !== undefined && readReceiptBloom(bloom, out);
  };
  return verifyReceipts(
    block,
    {
      outlines: receipts,
      hasLogs: receipts.some((r) => r.logs.length > 0),
      readBloom,
      leftOut: () => block.excludedReceipts.map((excluded) => excluded.receipt),
      commitment,
      commitmentWithLeftOut: (hashing) =>
        receiptsRootAndBloom([...receipts, ...block.excludedReceipts.map((excluded) => excluded.receipt)], hashing),
      firstWithStatus: () => receipts.findIndex((r) => r.root === undefined),
      firstWithRoot: () => receipts.findIndex((r) => r.root !== undefined),
      rootGiven: () => receipts.some((r) => r.root !== undefined),
      firstUnversionedDeposit: () =>
        receipts.findIndex(
          (r) => r.type === 0x7e && (r.depositReceiptVersion === undefined || r.depositNonce === undefined),
        ),
    },
    context,
    trial,
    scope,
  );
}

/**
 * What of a block is verified: the whole block, its header required whole where its hash is checked; or its receipts
 * alone, beside a header that claims no hash (verifyRpcBlockReceipts).
 */
type Scope = 'block' | 'receipts';

/** The report of `block` whose receipts are `receipts`, or why it is refused. */
function verifyReceipts(
  block: BlockRead,
  receipts: ReceiptsRead,
  context: BlockVerifyContext,
  trial: boolean,
  scope: Scope = 'block',
): Result<BlockReport, BlockRefusal> {
  const problems = new Problems();
  const registry = context.registry ?? defaultRegistry;
  const { fields } = block.header;
  const count = receipts.outlines.length;
  const verifiability = block.chainId === null ? undefined : registry.verifiability(block.chainId, fields.number);
  const plan = planFor(block, verifiability, context, problems, trial);
  if (!plan.ok) return 'kind' in plan.error ? err(plan.error) : ok(notVerifiableReport(block, count, plan.error));
  const { rules, layout, era, chain } = plan.value;
  // The header's fields are what its hash covers: with the receipts alone, nothing is asked of them.
  const scheduled = scope === 'block' ? scheduleOf(block, plan.value, problems) : undefined;
  const absent = absentForkFields(fields, layout, chain?.headerFields, fields.number, scheduled);
  if (scope === 'block') requireCommitments(block, plan.value, absent, problems);
  // The receipts left out of the root (Bor's state-sync receipt) are read as every receipt is, their type and their own
  // bloom too: only the root and the block's bloom leave them out.
  const leftOut = receipts.leftOut();
  // A type the rules do not know is bad input where the receipts are to be hashed under rules a real block of the chain
  // or its family showed; where they are not, or where only an operator's blocks show them (a chain that may deviate
  // from its family: Celo's fee currency), nothing is guessed: the type is a kind no evidence shows.
  if (typesKnown(plan.value.checks.receipts_root)) {
    const checkTypeAt = (receipt: ReceiptOutline, i: number) =>
      checkType(receipt.type, rules, () => `receipts[${i}].type`, problems);
    receipts.outlines.forEach(checkTypeAt);
    leftOut.forEach((receipt, i) => checkTypeAt(receipt, count + i));
  }
  const withStatus = beforeByzantium(chain?.forks, fields.number) ? receipts.firstWithStatus() : -1;
  // A client's receipts of one block give a root on every receipt or on none (reth's): a mix is no client's output.
  const withRoot = withStatus >= 0 ? receipts.firstWithRoot() : -1;
  if (withRoot >= 0) problems.add(`receipts[${withStatus}].root`, 'missing', mixedRoots(`receipts[${withRoot}]`));
  const keccak = context.keccak ?? defaultKeccak256;
  const withdrawals = withdrawalsComparison(block, rules, absent, chain?.name, problems, keccak);
  if (!problems.empty) return err(problems.invalidInput());
  const shape = {
    kinds: receiptKinds(receipts.outlines, block.excludedReceipts.length > 0),
    hasLogs: receipts.hasLogs,
  };
  const checks = Object.fromEntries(
    CHECK_NAMES.map((check) => [check, claimFor(check, plan.value.checks[check], shape)]),
  ) as Record<CheckName, CheckClaim>;
  if (scope === 'receipts') checks.block_hash = { verified: false, reason: 'the receipts alone were verified' };
  // A type the rule set does not define, where it is not invalid input (typesKnown): no receipt is encoded, and the
  // bloom, computed with the root, is not either.
  const undefinedType = typesKnown(plan.value.checks.receipts_root)
    ? undefined
    : receipts.outlines.find((receipt) => !rules.layouts.has(receipt.type));
  if (undefinedType !== undefined && checks.logs_bloom.verified)
    checks.logs_bloom = {
      verified: false,
      reason: `receipts of type 0x${undefinedType.type.toString(16)}, which the ${rules.name} rule set does not define, are not encoded`,
    };
  if (withStatus >= 0)
    checks.receipts_root = {
      verified: false,
      reason: rootlessBeforeByzantium(`receipts[${withStatus}]`),
    };
  const unversioned = fromCanyon(chain?.forks, fields.number, fields.timestamp)
    ? receipts.firstUnversionedDeposit()
    : -1;
  if (unversioned >= 0)
    checks.receipts_root = { verified: false, reason: unversionedDepositFromCanyon(`receipts[${unversioned}]`) };

  // The receipts' own blooms are compared where the bloom's rule is verified, as the commitment computes each.
  const blooms = checks.logs_bloom.verified ? new ReceiptBloomCheck(receipts.readBloom) : undefined;
  let commitment: ReturnType<ReceiptsRead['commitment']> | undefined;
  const committed = () => (commitment ??= receipts.commitment({ rules, keccak, onReceiptBloom: blooms?.observe }));
  // A receipt set aside whose placement is unknown (Polygon's rules, no era saying): the root and bloom with it left
  // out, and with it in, the reading whose root is the header's compared.
  const unplaced = block.excludedReceipts.some((excluded) => excluded.placement === 'unknown');
  let placed: ReceiptsReading | undefined;
  const reading = () =>
    (placed ??= placedReading<ReceiptsReading>(
      unplaced ? [committed(), receipts.commitmentWithLeftOut({ rules, keccak })] : [committed()],
      fields.receiptsRoot,
    ).reading);
  const comparisons: Record<CheckName, Comparison> = {
    receipts_root: compare(checks.receipts_root, fields.receiptsRoot, () => reading().receiptsRoot),
    logs_bloom: compare(checks.logs_bloom, fields.logsBloom, () => reading().logsBloom),
    block_hash: blockHashComparison(
      compare(checks.block_hash, block.header.hash, () => keccak(encodeHeader(block.header.complete!, layout))),
      absent,
      chain?.name,
      fields.number,
    ),
  };
  let raw = checks.receipts_root.verified ? rawReceiptsComparison(block, committed().encodedReceipts) : null;
  const doubt = untypedRootDoubt(block, receipts, chain, comparisons.receipts_root, raw);
  if (doubt !== undefined) {
    comparisons.receipts_root = doubt;
    // Our encodings rest on the types read too.
    raw = null;
  }
  // The commitment saw the blooms of the receipts in the root; those left out of it give theirs too.
  leftOut.forEach((receipt, i) => blooms?.observe(count + i, logsBloom(receipt.logs, { keccak })));
  const receiptBlooms = blooms?.comparison() ?? null;
  const inRoot = placed !== undefined && placed !== commitment;
  const { verdict, reason } = verdictOf(comparisons, raw, receiptBlooms, withdrawals, block.excludedReceipts, inRoot);
  return ok({
    id: block.id ?? null,
    chain_id: block.chainId,
    era,
    rules: rules.name,
    header_layout: layout.name,
    block_number: fields.number === undefined ? null : Number(fields.number),
    transaction_count: count,
    ...comparisons,
    raw_receipts: raw,
    receipt_blooms: receiptBlooms,
    withdrawals,
    excluded_receipts: block.excludedReceipts.map(excludedReceiptResult),
    is_identical: verdict === 'identical',
    verdict,
    reason,
  });
}
