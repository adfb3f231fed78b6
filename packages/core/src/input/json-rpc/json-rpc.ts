import { defaultRegistry, verifiedUnder, type ChainRegistry, type Verifiability } from '../../chains/registry.js';
import {
  borStateSyncTxHash,
  stateSyncOutcome,
  stateSyncPlacement,
  stateSyncShaped,
  type ExcludedReceipt,
} from '../../chains/state-sync.js';
import { beforeByzantium, fromCanyon, scheduledFields } from '../../chains/fork-schedule.js';
import { absentForkFields } from '../../chains/absent-fork-fields.js';
import { encodeHeader } from '../../header/header-encoding.js';
import { FIXED_SIZES, type BlockHeader, type HeaderFieldSpec } from '../../header/header-fields.js';
import { checkArbitrumHeaderInfo, refuseNitroMembers, refuseUncheckedNitroMembers } from './arbitrum-header.js';
import {
  checkReceiptsByTransaction,
  checkRestatedMembers,
  type RestatedHeader,
  type StateSyncFacts,
} from './restated-members.js';
import { checkSealFields } from './seal-fields.js';
import { checkUncles, readWithdrawals } from './body-lists.js';
import type { Withdrawal } from '../../header/body-roots.js';
import { checkBlockExtraData } from './avalanche-extdata.js';
import { membersOfOtherMeaning } from './header-dialects.js';
import { aHeaderOf, ETHEREUM_HEADER, headerShape, type HeaderLayout } from '../../header/layouts.js';
import { defaultKeccak256, type HashOptions } from '../../keccak/keccak.js';
import type { Log, Receipt } from '../../receipts/receipt.js';
import { RULE_SETS, type RuleSet, type RuleSetName } from '../../receipts/rules.js';
import { ReceiptNotPlainlyValid } from '../../errors.js';
import { Slab } from '../../bytes/slab.js';
import { bytesEqual, bytesToHex, hexByteLength, parseHexInto } from '../../bytes/hex.js';
import {
  describe,
  isJsonRpcResponse,
  isObject,
  join,
  MAX_UINT256,
  quantityValue,
  readArray,
  readHex,
  readObject,
  readQuantity,
  smallQuantityValue,
  type JsonObject,
} from '../values/json-values.js';
import { ADDRESS_BYTES, LogDecoder, MAX_TOPICS, RPC_LOG_SPELLINGS, TOPIC_BYTES } from '../values/log-list.js';
import { Problems } from '../values/problems.js';
import { TapeHex } from '../values/tape-hex.js';
import { BLOCK_SPELLINGS, HEADER_SPELLINGS, RECEIPT_SPELLINGS } from './rpc-members.js';
import {
  checkDepositMembers,
  checkOutcome,
  hasNoRoot,
  orderByIndex,
  outcomeProblem,
  strayDepositMember,
  type DepositMembers,
} from '../values/receipt-rules.js';

/**
 * Adapters from JSON-RPC objects (`eth_getBlockReceipts`, `eth_getBlockByNumber`):
 * 0x quantities, camelCase, `root` instead of `status` before Byzantium, and a
 * missing `type` meaning legacy. Members that repeat the block or a receipt (blockHash, gasUsed, …) are compared by
 * restated-members.ts; a member given beside another spelling of one read (rpc-members.ts) is refused; others are
 * ignored.
 */

const isAbsent = (value: unknown) => value === undefined || value === null;

/** Whether any receipt of a block's `list`, as sent, gives its type (RpcBlock.typesGiven). */
const givesType = (list: readonly unknown[]) => list.some((receipt) => isObject(receipt) && !isAbsent(receipt.type));

/** A JSON-RPC receipt's type, 0 (legacy) when it has none; undefined when it is not a type. */
const receiptType = (value: Record<string, unknown>) =>
  isAbsent(value.type) ? 0 : smallQuantityValue(value.type, 255);

/**
 * A JSON-RPC receipt's type and cumulative gas as it stands, before it is decoded (the streamed reader's state-sync
 * shape); undefined where either is not a quantity, which its reader names.
 */
function outlineOf(value: unknown): Pick<Receipt, 'type' | 'cumulativeGasUsed'> | undefined {
  if (!isObject(value)) return undefined;
  const type = receiptType(value);
  const cumulativeGasUsed = quantityValue(value.cumulativeGasUsed);
  return type === undefined || cumulativeGasUsed === undefined ? undefined : { type, cumulativeGasUsed };
}

/** The deposit members a JSON-RPC receipt gives (null is absent). */
const depositMembers = (value: Record<string, unknown>): DepositMembers => ({
  ...(!isAbsent(value.depositNonce) && { nonce: 'depositNonce' }),
  ...(!isAbsent(value.depositReceiptVersion) && { version: 'depositReceiptVersion' }),
});

/**
 * The receipt `value` when it is plainly valid, read without a path or a problem built (the common
 * case, and what a node returns), its bytes views into the decoder's slab; else undefined, and
 * {@link readReceipt} names the problems. It gives exactly what `readReceipt` gives without a problem. `outline`: its
 * type and gas where the streamed reader has read them already ({@link outlineOf}), not read twice.
 */
function validReceipt(
  value: unknown,
  slab: Slab,
  logs: LogDecoder,
  rules?: RuleSet,
  outline?: Pick<Receipt, 'type' | 'cumulativeGasUsed'>,
): Receipt | undefined {
  if (!isObject(value) || !RECEIPT_SPELLINGS.none(value)) return undefined;
  const type = outline === undefined ? receiptType(value) : outline.type;
  const hasStatus = !isAbsent(value.status);
  const hasRoot = !hasNoRoot(value.root);
  if (
    type === undefined ||
    outcomeProblem({ type, hasStatus, hasRoot, rootBesideStatus: true }) !== undefined ||
    // Read only where one is given: the common receipt gives neither, and this path runs for every receipt.
    ((!isAbsent(value.depositNonce) || !isAbsent(value.depositReceiptVersion)) &&
      strayDepositMember(type, depositMembers(value), rules) !== undefined)
  )
    return undefined;
  // A status beside a root must still be one (outcomeProblem: the root is what is hashed).
  const status = hasStatus ? smallQuantityValue(value.status, 1) : undefined;
  if (hasStatus && status === undefined) return undefined;
  const root = hasRoot ? slab.hex(value.root, 32) : undefined;
  if (hasRoot && root === undefined) return undefined;
  const cumulativeGasUsed = outline === undefined ? quantityValue(value.cumulativeGasUsed) : outline.cumulativeGasUsed;
  const decoded = logs.decode(value.logs ?? []);
  if (cumulativeGasUsed === undefined || decoded === undefined) return undefined;
  // Built as one literal, a deposit's members set after: spreading the optional members cost a tenth of reading it.
  const receipt: Receipt =
    root === undefined
      ? { type, status: status as 0 | 1, cumulativeGasUsed, logs: decoded }
      : { type, root, cumulativeGasUsed, logs: decoded };
  if (!isAbsent(value.depositNonce)) {
    receipt.depositNonce = quantityValue(value.depositNonce);
    if (receipt.depositNonce === undefined) return undefined;
  }
  if (!isAbsent(value.depositReceiptVersion)) {
    receipt.depositReceiptVersion = quantityValue(value.depositReceiptVersion);
    if (receipt.depositReceiptVersion === undefined) return undefined;
  }
  return receipt;
}

function readRpcLog(value: unknown, path: string, problems: Problems): Log | undefined {
  const log = readObject(value, path, problems, 'a log object with address, topics and data');
  if (log === undefined) return undefined;
  RPC_LOG_SPELLINGS.check(log, path, problems);
  const address = readHex(log.address, join(path, 'address'), problems, ADDRESS_BYTES);
  const topicList = readArray(log.topics, join(path, 'topics'), problems, 'an array of 32-byte topics');
  if (topicList !== undefined && topicList.length > MAX_TOPICS)
    problems.add(join(path, 'topics'), 'out_of_range', `0 to ${MAX_TOPICS} topics, got ${topicList.length}`);
  const topics = (topicList ?? [])
    .slice(0, MAX_TOPICS)
    .map((t, i) => readHex(t, `${path}.topics[${i}]`, problems, TOPIC_BYTES));
  const data = readHex(log.data, join(path, 'data'), problems, undefined, 'even-length hex data, 0x when empty');
  if (address === undefined || data === undefined || topicList === undefined || topics.some((t) => t === undefined))
    return undefined;
  return { address, topics: topics as Uint8Array[], data };
}

/**
 * Reads a receipt's own `logsBloom` member, as its source gave it, into `out` (256 bytes): false when it is not 256
 * bytes of hex (a {@link TapeHex} of 256 bytes is such a string, read off the tape). A node's receipt carries the bloom of
 * its logs, a field of its consensus encoding; the bloom itself is computed from the logs, and this one compared with it.
 */
export function readReceiptBloom(value: unknown, out: Uint8Array): boolean {
  if (value instanceof TapeHex) {
    const bytes = value.bytesOf(FIXED_SIZES.bloom);
    if (bytes !== undefined) out.set(bytes);
    return bytes !== undefined;
  }
  return typeof value === 'string' && hexByteLength(value) === FIXED_SIZES.bloom && parseHexInto(value, out, 0);
}

/** One JSON-RPC receipt (its `transactionIndex` is read by {@link readRpcReceipts}). */
export function readRpcReceipt(value: unknown, path: string, problems: Problems): Receipt | undefined {
  const slab = new Slab();
  return validReceipt(value, slab, new LogDecoder('json-rpc', slab)) ?? readReceipt(value, path, problems);
}

/**
 * A receipt read member by member, every problem named at its path: the reader of what is not plainly valid. `rules`:
 * its chain's, where known (which type is a deposit).
 */
function readReceipt(value: unknown, path: string, problems: Problems, rules?: RuleSet): Receipt | undefined {
  const rpc = readObject(value, path, problems, 'a JSON-RPC receipt object');
  if (rpc === undefined) return undefined;
  const before = problems.count;
  RECEIPT_SPELLINGS.check(rpc, path, problems);
  const type = isAbsent(rpc.type) ? 0n : readQuantity(rpc.type, join(path, 'type'), problems, 255n);
  const hasStatus = !isAbsent(rpc.status);
  const hasRoot = !hasNoRoot(rpc.root);
  checkOutcome(
    { type: type === undefined ? undefined : Number(type), hasStatus, hasRoot, rootBesideStatus: true },
    path,
    problems,
  );
  let outcome: Pick<Receipt, 'status' | 'root'> = {};
  // A status beside a root is read for its form only: the root is what is hashed (outcomeProblem).
  const status = hasStatus ? readQuantity(rpc.status, join(path, 'status'), problems, 1n) : undefined;
  if (hasRoot) {
    const root = readHex(rpc.root, join(path, 'root'), problems, 32);
    if (root !== undefined) outcome = { root };
  } else if (status !== undefined) outcome = { status: Number(status) as 0 | 1 };
  const cumulativeGasUsed = readQuantity(rpc.cumulativeGasUsed, join(path, 'cumulativeGasUsed'), problems);
  const logList = readArray(rpc.logs ?? [], join(path, 'logs'), problems, 'an array of logs');
  const logs = (logList ?? []).map((log, i) => readRpcLog(log, `${path}.logs[${i}]`, problems));
  const optional = (member: 'depositNonce' | 'depositReceiptVersion') =>
    isAbsent(rpc[member]) ? undefined : readQuantity(rpc[member], join(path, member), problems);
  const depositNonce = optional('depositNonce');
  const depositReceiptVersion = optional('depositReceiptVersion');
  if (type !== undefined) checkDepositMembers(Number(type), depositMembers(rpc), rules, path, problems);
  if (problems.count !== before) return undefined;
  return {
    type: Number(type),
    ...outcome,
    cumulativeGasUsed: cumulativeGasUsed!,
    logs: logs as Log[],
    ...(depositNonce !== undefined && { depositNonce }),
    ...(depositReceiptVersion !== undefined && { depositReceiptVersion }),
  };
}

/** The order of a block's JSON-RPC receipts, and the transaction hashes the state-sync rule reads. */
interface ReceiptOrder {
  /** `transactionHash` of each receipt in transaction order, where the source gave it (when they are kept). */
  txHashes: Array<Uint8Array | undefined>;
  /** Position in the source's list of each receipt, in transaction order. */
  positions: number[];
  /** Whether the list is in transaction order as it stands (no receipt has a `transactionIndex`). */
  inListOrder: boolean;
}

/** A block's JSON-RPC receipts in transaction order, with what else the block reader needs of them. */
interface RpcReceiptList extends ReceiptOrder {
  receipts: Receipt[];
  /** Each receipt's own `logsBloom` text, in transaction order; undefined when none has one. */
  blooms: Array<string | undefined> | undefined;
}

const MAX_INDEX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The order of the receipts of `list` by their `transactionIndex`, each `transactionHash` read on the way (into `slab`,
 * and kept only when `keepHashes`): undefined, with problems named, when one is malformed or the indexes are not
 * exactly 0..n-1, and when `problems` has grown since `before`.
 */
function readReceiptOrder(
  list: unknown[],
  path: string,
  problems: Problems,
  slab: Slab,
  options: { keepHashes: boolean; before: number },
): ReceiptOrder | undefined {
  const n = list.length;
  const txHashes = new Array<Uint8Array | undefined>(n);
  const indexes = new Array<number | undefined>(n);
  // Every hash, then every index: the order the problems are listed in.
  const member = (i: number, name: string) => (isObject(list[i]) ? list[i][name] : undefined);
  for (let i = 0; i < n; i++) {
    const hash = member(i, 'transactionHash');
    if (isAbsent(hash)) continue;
    const read = slab.hex(hash, 32) ?? readHex(hash, `${path}[${i}].transactionHash`, problems, 32);
    if (options.keepHashes) txHashes[i] = read;
  }
  let withIndex = 0;
  for (let i = 0; i < n; i++) {
    const index = member(i, 'transactionIndex');
    if (isAbsent(index)) continue;
    withIndex++;
    indexes[i] = smallQuantityValue(index, Number.MAX_SAFE_INTEGER);
    // The problem of an index that is not one.
    if (indexes[i] === undefined) readQuantity(index, `${path}[${i}].transactionIndex`, problems, MAX_INDEX);
  }
  if (problems.count !== options.before) return undefined;
  if (withIndex === 0) return { txHashes, positions: list.map((_, i) => i), inListOrder: true };
  if (withIndex !== n) {
    problems.add(path, 'conflict', 'transactionIndex on every receipt or on none');
    return undefined;
  }
  const positions = orderByIndex(indexes, (position) => `${path}[${position}].transactionIndex`, path, problems);
  if (problems.count !== options.before) return undefined;
  return { txHashes: positions.map((p) => txHashes[p]), positions, inListOrder: false };
}

/**
 * A block's receipts, each read by the fast path and, where that refuses it, by the one that names
 * its problems; their bytes are views into `slab`. `rules`: the block's chain's, where known.
 */
function readRpcReceiptList(
  value: unknown,
  path: string,
  problems: Problems,
  slab: Slab,
  rules?: RuleSet,
): RpcReceiptList | undefined {
  const list = readArray(value, path, problems, 'an array of JSON-RPC receipts');
  if (list === undefined) return undefined;
  const before = problems.count;
  const logs = new LogDecoder('json-rpc', slab);
  const n = list.length;
  const receipts = new Array<Receipt | undefined>(n);
  // Every receipt first: the order the problems are listed in.
  for (let i = 0; i < n; i++)
    receipts[i] = validReceipt(list[i], slab, logs, rules) ?? readReceipt(list[i], `${path}[${i}]`, problems, rules);
  const blooms = readReceiptBlooms(list, path, problems);
  const order = readReceiptOrder(list, path, problems, slab, { keepHashes: true, before });
  if (order === undefined) return undefined;
  const inOrder = <T>(items: T[]) => (order.inListOrder ? items : order.positions.map((p) => items[p]!));
  return { ...order, receipts: inOrder(receipts as Receipt[]), blooms: blooms && inOrder(blooms) };
}

/**
 * The `logsBloom` text of each receipt of `list` (kept as text: held decoded, a million receipts' blooms took 256 MB),
 * each checked to be 256 bytes of hex, a problem named where it is not; undefined when no receipt has one.
 */
function readReceiptBlooms(list: unknown[], path: string, problems: Problems): Array<string | undefined> | undefined {
  let blooms: Array<string | undefined> | undefined;
  const scratch = new Uint8Array(FIXED_SIZES.bloom);
  for (let i = 0; i < list.length; i++) {
    const receipt = list[i];
    const bloom = isObject(receipt) ? receipt.logsBloom : undefined;
    if (isAbsent(bloom)) continue;
    blooms ??= new Array<string | undefined>(list.length);
    if (readReceiptBloom(bloom, scratch)) blooms[i] = bloom as string;
    else readHex(bloom, `${path}[${i}].logsBloom`, problems, FIXED_SIZES.bloom);
  }
  return blooms;
}

/**
 * A block's JSON-RPC receipts, in transaction order. Sources do not always list
 * them in order (ethereum-etl exports do not), so when every receipt has a
 * `transactionIndex` they are placed by it, which must be exactly 0..n-1;
 * without one, list position is the index.
 */
export function readRpcReceipts(value: unknown, path: string, problems: Problems): Receipt[] | undefined {
  return readRpcReceiptList(value, path, problems, new Slab())?.receipts;
}

/** A JSON-RPC header: the fields it has, and the complete header when it has every field its layout needs. */
export interface RpcHeader {
  /** The layout it was read in (its chain's and era's). */
  layout: HeaderLayout;
  fields: Partial<BlockHeader>;
  /** `hash` as the source gave it. */
  hash?: Uint8Array;
  /** Present when every field the layout requires is there, so the header can be hashed. */
  complete?: BlockHeader;
  /** Required fields that are absent (why `complete` is missing). */
  missing: string[];
  /**
   * The block's withdrawals, as the header object of a block lists them (eth_getBlockByNumber's `withdrawals`; body-lists.ts):
   * absent where it lists none. Compared with `withdrawalsRoot` when the block is verified.
   */
  withdrawals?: Withdrawal[];
}

/**
 * A header field's value, under its name or any of its aliases (AuRa's `step` for `auraStep`); an absent member
 * (undefined or null) is skipped. Two members that give the field must give the same value (`0x1` and `1` do): taking
 * either would hash a header the other contradicts, so a different one is a `conflict` problem at its path. An alias
 * that the chain's clients fill with another meaning (`otherMeanings`, header-dialects.ts) is read for its form but
 * never gives the field, and is not compared with a field that is zero, where that other meaning applies.
 */
function readHeaderField(
  rpc: Readonly<Record<string, unknown>>,
  field: HeaderFieldSpec,
  path: string,
  problems: Problems,
  otherMeanings: readonly string[],
): Uint8Array | bigint | undefined {
  let value: Uint8Array | bigint | undefined;
  let valueMember = '';
  for (const member of [field.name, ...(field.aliases ?? [])]) {
    const raw = rpc[member];
    if (raw === undefined || raw === null) continue;
    const memberPath = join(path, member);
    const parsed =
      field.kind === 'quantity'
        ? readQuantity(raw, memberPath, problems, MAX_UINT256)
        : readHex(raw, memberPath, problems, field.kind === 'bytes' ? undefined : FIXED_SIZES[field.kind]);
    if (parsed === undefined) continue;
    const otherMeaning = otherMeanings.includes(member);
    if (value === undefined) {
      if (!otherMeaning) [value, valueMember] = [parsed, member];
    } else if (!sameFieldValue(value, parsed) && !(otherMeaning && isZero(value)))
      problems.add(
        memberPath,
        'conflict',
        `the same value as ${valueMember} (${member} and ${valueMember} name one header field), got another`,
      );
  }
  return value;
}

const isZero = (value: Uint8Array | bigint): boolean =>
  typeof value === 'bigint' ? value === 0n : value.every((byte) => byte === 0);

const sameFieldValue = (a: Uint8Array | bigint, b: Uint8Array | bigint): boolean =>
  typeof a === 'bigint' || typeof b === 'bigint' ? a === b : bytesEqual(a, b);

/**
 * A field the layout does not hash, which its nodes give as zeros (AuRa's `mixHash` and `nonce`, from erigon): under
 * each of its names where present, hex of the field's size (as any layout that hashes it reads it), all zero bytes;
 * any other value is a problem naming the member, since no hash covers what it would claim.
 */
function checkUnhashedZeros(
  rpc: Readonly<Record<string, unknown>>,
  field: HeaderFieldSpec,
  path: string,
  layout: HeaderLayout,
  problems: Problems,
): void {
  const size = field.kind === 'quantity' || field.kind === 'bytes' ? undefined : FIXED_SIZES[field.kind];
  for (const member of [field.name, ...(field.aliases ?? [])]) {
    const raw = rpc[member];
    if (raw === undefined || raw === null) continue;
    const memberPath = join(path, member);
    const bytes = readHex(raw, memberPath, problems, size);
    if (bytes === undefined || bytes.every((byte) => byte === 0)) continue;
    problems.add(
      memberPath,
      'out_of_range',
      `zeros, as nodes give it: ${aHeaderOf(layout)} does not hash it, got 0x${bytesToHex(bytes)}`,
    );
  }
}

/**
 * Reads a JSON-RPC header object in a layout (Ethereum's by default). Absent fields are not
 * problems here (some sources give only `receiptsRoot` and `logsBloom`: what a check needs is
 * the check's to ask); malformed ones are, and so is a gap in the fork fields (a later fork's
 * field present, an earlier one's absent), which no fork's header has. `rules`: the rule set of the
 * header's chain, whose clients may fill a member with another meaning (membersOfOtherMeaning). A member its layout
 * carries is checked against the field that covers it (Avalanche's blockExtraData, avalanche-extdata.ts), hashed with
 * `options.keccak`.
 */
export function readRpcHeader(
  value: unknown,
  path: string,
  problems: Problems,
  layout: HeaderLayout = ETHEREUM_HEADER,
  rules?: RuleSetName,
  options: HashOptions = {},
): RpcHeader | undefined {
  const rpc = readObject(value, path, problems, 'a JSON-RPC block header object');
  if (rpc === undefined) return undefined;
  if (isJsonRpcResponse(rpc)) {
    problems.add(path, 'invalid_format', `a JSON-RPC block header object, got ${describe(rpc)}`);
    return undefined;
  }
  const before = problems.count;
  HEADER_SPELLINGS.check(rpc, path, problems);
  const fields: Record<string, Uint8Array | bigint> = {};
  const otherMeanings = membersOfOtherMeaning(rules);
  for (const field of layout.fields) {
    const value = readHeaderField(rpc, field, path, problems, otherMeanings);
    if (value !== undefined) fields[field.name] = value;
  }
  const hash =
    rpc.hash === undefined || rpc.hash === null ? undefined : readHex(rpc.hash, join(path, 'hash'), problems, 32);
  checkSealFields(rpc.sealFields, fields, layout, join(path, 'sealFields'), problems);
  for (const field of layout.unhashedZeros ?? []) checkUnhashedZeros(rpc, field, path, layout, problems);
  const extDataHash = fields.extDataHash as Uint8Array | undefined;
  checkBlockExtraData(rpc, extDataHash, path, layout, problems, options.keccak ?? defaultKeccak256);
  if (problems.count !== before) return undefined;
  // The members as given, the layout's fields as read under any of their names: a member the layout does not read
  // (an AuRa header's withdrawalsRoot) is refused in any form, since no hash covers it.
  const { missing, gap, unhashed } = headerShape({ ...rpc, ...fields }, layout);
  for (const { field, why } of unhashed) problems.add(join(path, field), 'conflict', `absent: ${why}`);
  if (gap !== undefined)
    problems.add(
      join(path, gap.field),
      'missing',
      `present, since ${gap.presentAfter} is: no fork has a header with ${gap.presentAfter} and without ${gap.field}`,
    );
  if (problems.count !== before) return undefined;
  const header: RpcHeader = { layout, fields: fields, missing };
  if (hash !== undefined) header.hash = hash;
  if (missing.length === 0) header.complete = fields as unknown as BlockHeader;
  return header;
}

/**
 * A receipt the source returned that the block's chain leaves out of the root, with its consensus fields: a request
 * body built from the block carries it back at its index (request-builders.ts), so that nothing the block sent is lost.
 */
export interface ExcludedRpcReceipt extends ExcludedReceipt {
  receipt: Receipt;
}

/** A block in the fixtures' format (and a lineage bundle's `blocks[]`): JSON-RPC header and receipts. */
export interface RpcBlock {
  id?: string;
  chainId: number | null;
  header: RpcHeader;
  /** The receipts that are part of the block's commitments, in transaction order. */
  receipts: Receipt[];
  /** Receipts the source returned that its chain leaves out of the root (Bor's state-sync receipt). */
  excludedReceipts: ExcludedRpcReceipt[];
  /**
   * Whether any receipt the source sent (one left out of the root too) gives its `type`: where none does, each was read
   * as legacy, which a block that may hold typed transactions does not show (chains/untyped-receipts.ts).
   */
  typesGiven: boolean;
  /** Consensus encodings as the source gave them, when it did. */
  rawReceipts?: Uint8Array[];
  /**
   * Each receipt's own `logsBloom` as the source gave it (256 bytes of hex), in transaction order: those of `receipts`,
   * then that of the receipt left out of the root (last, where the block has one: stateSyncOutcome); undefined where it
   * gave none; absent when no receipt had one.
   */
  receiptBlooms?: Array<string | undefined>;
}

export interface ReadRpcBlockOptions extends HashOptions {
  /** Chains whose rules say which receipts a block leaves out; the built-in registry when absent. */
  registry?: ChainRegistry;
  /**
   * The rule set the block is verified under where its chain is outside the registry or not named (verifyBlock's
   * `rules`, `--rules`): its dialect is read as theirs. The registry's rules stand for a chain it knows.
   */
  rules?: RuleSetName;
  /**
   * Where the block's rules are unknown (a chain outside the registry, no `rules`), refuse the members only those rules
   * could check (Nitro's) rather than leave them: for a reader that makes something of the block that a server would
   * take without them (request's bodies). Verifying the block needs none: it refuses such a chain (chain_not_supported).
   */
  refuseUnchecked?: boolean;
}

/** The block's hash: the header's `hash` as given, else its complete header's; undefined when it has neither. */
const blockHashOf = (header: RpcHeader, options: ReadRpcBlockOptions): Uint8Array | undefined =>
  header.hash ??
  (header.complete === undefined
    ? undefined
    : (options.keccak ?? defaultKeccak256)(encodeHeader(header.complete, header.layout)));

/**
 * The header as the members that repeat the block (a receipt's, a log's, a listed transaction's `blockHash`) are
 * compared with it: as read, where it gives its `hash`; for a header that claims none, with the hash of its fields
 * (`hashComputed`), where its chain's block hash rule is verified and the header has every field verifyBlock would
 * hash: every field its layout requires, and no fork field absent that its block has or may have (absentForkFields,
 * verifyBlock's rule). Else with no hash: the members are then held to one another (restated-members.ts).
 */
function restatedHeader(
  header: RpcHeader,
  verifiability: Verifiability | undefined,
  options: ReadRpcBlockOptions,
): RestatedHeader {
  if (header.hash !== undefined || header.complete === undefined) return header;
  if (verifiability?.status !== 'verifiable' || !verifiability.checks.block_hash.verified) return header;
  const { chain } = verifiability;
  const { number, timestamp } = header.fields;
  const scheduled =
    chain.forks === undefined || number === undefined || timestamp === undefined
      ? undefined
      : scheduledFields(header.layout, chain.forks, { number, timestamp });
  const absent = absentForkFields(header.fields, header.layout, chain.headerFields, number, scheduled);
  if (absent.lost.length > 0 || absent.unknown !== undefined) return header;
  return { ...header, hash: blockHashOf(header, options), hashComputed: true };
}

/**
 * What the block's reader found of Bor's state sync, for the checks of the members that repeat the block: the receipt
 * left out of the root, and (asked for once at most) the derived hash of the state-sync transaction, in an era whose
 * state sync stands outside the root, where the block's number and hash are known.
 */
function stateSyncFacts(
  verifiability: Verifiability | undefined,
  header: RpcHeader,
  excluded: ExcludedReceipt | undefined,
  options: ReadRpcBlockOptions,
): StateSyncFacts {
  const txHash = () => {
    const { number } = header.fields;
    if (stateSyncPlacement(verifiability, options.rules) === undefined) return undefined;
    const hash = blockHashOf(header, options);
    return number === undefined || hash === undefined ? undefined : borStateSyncTxHash(number, hash, options);
  };
  const outsideRoot = verifiability?.status === 'verifiable' && verifiability.stateSync === 'receipt-outside-root';
  return { excluded: excluded?.index, txHash, outsideRoot };
}

/**
 * On Polygon PoS before Madhugiri, the receipt whose transactionHash is Bor's
 * state-sync hash of this block: it is not part of the root and is left out; under
 * Polygon's rules where no era says where it stands, it is set aside (stateSyncOutcome).
 */
function stateSyncReceipt(
  verifiability: Verifiability | undefined,
  header: RpcHeader,
  list: ReceiptOrder,
  shaped: boolean,
  problems: Problems,
  options: ReadRpcBlockOptions,
): ExcludedReceipt | undefined {
  const named = list.txHashes.some((hash) => hash !== undefined);
  if (!named && !shaped) return undefined;
  // Receipts that name their transactions may hold the state-sync receipt, which only the era tells apart.
  if (named && verifiability?.status === 'era_unknown') {
    problems.add('header.number', 'missing', `the block number: ${verifiability.why}`);
    return undefined;
  }
  const hash = blockHashOf(header, options);
  const block = { number: header.fields.number, hash };
  const outcome = stateSyncOutcome(verifiability, block, list.txHashes, { ...options, shaped });
  if (outcome.kind === 'needs_block_hash') problems.add('header.hash', 'missing', outcome.expected);
  if (outcome.kind === 'misplaced')
    problems.add(`receipts[${list.positions[outcome.index]}].transactionHash`, 'conflict', outcome.expected);
  return outcome.kind === 'excluded' ? outcome.excluded : undefined;
}

/** The block number of a header as it stands, to find its era (the header's reader reports a faulty one). */
function numberOf(header: unknown): bigint | undefined {
  const raw = (header as Record<string, unknown> | null)?.number;
  return raw === undefined || raw === null
    ? undefined
    : readQuantity(raw, 'header.number', new Problems(), MAX_UINT256);
}

/** What a block's reader reads before its receipts: its id and chain, and its header in the layout of its chain's era. */
export interface RpcBlockHead {
  id?: string;
  chainId: number | null;
  verifiability: Verifiability | undefined;
  /** undefined when it has a problem, which is named. */
  header: RpcHeader | undefined;
  /**
   * The rule set of its era where it can be verified, else its chain's (its clients' dialect is the same); for a chain
   * outside the registry, or none named, the one the caller verifies it under (`options.rules`), where given.
   */
  rules?: RuleSetName;
  /**
   * The rule set whose nodes' members that repeat the block it is held to (verifiedUnder): its verifiable era's, or for a
   * chain outside the registry the one the caller verifies it under; absent for a chain or era that cannot be verified.
   */
  heldTo?: RuleSetName;
}

/** The head of `block` (an object in the fixtures' format), every problem of it named in `problems`. */
export function readRpcBlockHead(block: JsonObject, problems: Problems, options: ReadRpcBlockOptions): RpcBlockHead {
  let chainId: number | null = null;
  // The chain is named chain_id: `chainId` without it is refused here ("did you mean"), not read as of no chain.
  BLOCK_SPELLINGS.check(block, '', problems);
  if (!isAbsent(block.chain_id)) {
    const id = readQuantity(block.chain_id, 'chain_id', problems, BigInt(Number.MAX_SAFE_INTEGER));
    if (id !== undefined) chainId = Number(id);
  }
  const verifiability =
    chainId === null ? undefined : (options.registry ?? defaultRegistry).verifiability(chainId, numberOf(block.header));
  const layout = verifiability?.status === 'verifiable' ? verifiability.header : ETHEREUM_HEADER;
  // The era's rules where it can be verified, else the chain's: its clients' dialect is the same. A chain outside the
  // registry is verified under the caller's rules (verifyBlock's planFor), so its dialect is read as theirs.
  const rules =
    verifiability?.status === 'verifiable'
      ? verifiability.rules.name
      : verifiability !== undefined && 'chain' in verifiability && verifiability.chain !== undefined
        ? verifiability.chain.rules
        : options.rules;
  const header = readRpcHeader(block.header, 'header', problems, layout, rules, options);
  // The body's lists the header commits to: none is passed unread (body-lists.ts).
  if (header !== undefined) {
    const withdrawals = readWithdrawals(block.header as JsonObject, 'header', problems);
    if (withdrawals !== undefined) header.withdrawals = withdrawals;
    checkUncles(block.header as JsonObject, header.fields.sha3Uncles, 'header', problems);
  }
  // Nitro's members repeat fields its header hashes: held to them under Arbitrum's rules, refused under others (they
  // claim what no hash covers). Where no rules are known the block is not verified at all (chain_not_supported), so
  // they count only for a reader that asks (refuseUnchecked): it refuses them, as nothing can check them.
  if (header !== undefined && rules === 'arbitrum')
    checkArbitrumHeaderInfo(block.header, header.fields, 'header', problems);
  else if (header !== undefined && rules !== undefined) refuseNitroMembers(block.header, rules, 'header', problems);
  else if (rules === undefined && options.refuseUnchecked === true)
    refuseUncheckedNitroMembers(block, chainId, problems);
  const heldTo = verifiedUnder(verifiability, options.rules);
  return {
    ...(typeof block.id === 'string' && { id: block.id }),
    chainId,
    verifiability,
    header,
    ...(rules !== undefined && { rules }),
    ...(heldTo !== undefined && { heldTo }),
  };
}

/** What a block read whole is: what `verify block`, `prove receipt`, `request` and `evidence add` read from a file. */
const BLOCK_OBJECT =
  'a block object {chain_id, header, receipts}: the "result" of eth_getBlockByNumber as header, of eth_getBlockReceipts as receipts';

/**
 * Reads a block in the fixtures' format, its header in the layout of its chain's era. On a chain whose rules leave a
 * returned
 * receipt out of the root (Bor's state-sync receipt before Madhugiri), `receipts`
 * holds the others and `excludedReceipts` that one.
 */
export function readRpcBlock(
  value: unknown,
  problems: Problems,
  options: ReadRpcBlockOptions = {},
): RpcBlock | undefined {
  // The block is the whole body (a request, a file): its root is named as every endpoint names a body's.
  const block = readObject(value, 'body', problems, BLOCK_OBJECT);
  if (block === undefined) return undefined;
  // A node's answer saved as it came: one problem that says so, not every member it lacks.
  if (isJsonRpcResponse(block)) {
    problems.add('body', 'invalid_format', `${BLOCK_OBJECT}, got ${describe(block)}`);
    return undefined;
  }
  const before = problems.count;
  const { id, chainId, verifiability, header, rules, heldTo } = readRpcBlockHead(block, problems, options);
  checkReceiptsByTransaction(block, problems);
  // The block's bytes (addresses, topics, data, hashes, raw receipts) are views into one slab.
  const slab = new Slab();
  const list = readRpcReceiptList(block.receipts, 'receipts', problems, slab, rules && RULE_SETS[rules]);
  let rawReceipts: Uint8Array[] | undefined;
  if (!isAbsent(block.raw_receipts)) {
    const rawList = readArray(block.raw_receipts, 'raw_receipts', problems, 'an array of hex consensus receipts');
    const raw = (rawList ?? []).map((r, i) => slab.hex(r) ?? readHex(r, `raw_receipts[${i}]`, problems));
    if (raw.every((r) => r !== undefined)) rawReceipts = raw;
  }
  if (problems.count !== before || header === undefined || list === undefined) return undefined;
  const excluded = stateSyncReceipt(verifiability, header, list, stateSyncShaped(list.receipts), problems, options);
  if (problems.count === before)
    checkRestatedMembers(
      block,
      restatedHeader(header, verifiability, options),
      list.positions,
      stateSyncFacts(verifiability, header, excluded, options),
      heldTo,
      rules,
      chainId,
      problems,
    );
  if (problems.count !== before) return undefined;
  const inRoot = (_: unknown, index: number) => index !== excluded?.index;
  return {
    ...(id !== undefined && { id }),
    chainId,
    header,
    receipts: list.receipts.filter(inRoot),
    excludedReceipts: excluded === undefined ? [] : [{ ...excluded, receipt: list.receipts[excluded.index]! }],
    typesGiven: givesType(block.receipts as unknown[]),
    ...(rawReceipts !== undefined && { rawReceipts }),
    ...(list.blooms !== undefined && { receiptBlooms: list.blooms }),
  };
}

/** What verifying a block reads of a receipt before any is hashed: the receipt's kind (chains/claims.ts) comes of these. */
export type ReceiptOutline = Pick<Receipt, 'type' | 'cumulativeGasUsed' | 'depositReceiptVersion'>;

/**
 * A block's receipts in the root, in transaction order, left in the block's JSON: each is decoded when asked for, by
 * the reader readRpcBlock tries first, and dropped by its caller. At a million receipts, holding them decoded (1.4 KB a
 * receipt, mostly one view per item) made the collector mark the caller's whole heap five times in one call.
 */
export interface ReceiptStream {
  /** The type and gas of each, read without decoding it. */
  readonly outlines: readonly ReceiptOutline[];
  /** Whether any has logs. */
  readonly hasLogs: boolean;
  /**
   * Before Byzantium on a chain whose schedule names it, the first receipt that gives a status and no post-state root
   * (-1: none); -1 after Byzantium, where a status is what is hashed.
   */
  readonly firstWithStatus: number;
  /** Before Byzantium, as firstWithStatus, the first receipt that gives a post-state root (-1: none). */
  readonly firstWithRoot: number;
  /** Whether any gives a post-state root, whatever the block's era (its number may be unknown). */
  readonly rootGiven: boolean;
  /**
   * From Canyon on, on a chain whose schedule names it, the first deposit receipt without its nonce or version (-1:
   * none); -1 before Canyon, where neither is hashed.
   */
  readonly firstUnversionedDeposit: number;
  /** Receipt `i`, decoded afresh; throws ReceiptNotPlainlyValid. */
  readonly receiptAt: (i: number) => Receipt;
  /**
   * Reads receipt `i`'s own `logsBloom` into `out` (256 bytes), `i` counting the receipts in the root, then the one left
   * out of it (`leftOut`): false when it has none; throws ReceiptNotPlainlyValid when it is not 256 bytes of hex.
   */
  readonly readBloom: (i: number, out: Uint8Array) => boolean;
  /**
   * The receipts left out of the root (Bor's state-sync receipt), decoded afresh: read as every receipt is, though
   * neither the root nor the block's bloom holds them; throws ReceiptNotPlainlyValid.
   */
  readonly leftOut: () => Receipt[];
  /**
   * Decodes every receipt of the block that has not been, and reads every `logsBloom` not read (the receipt left out of
   * the root's too), as readRpcBlock reads them all; throws ReceiptNotPlainlyValid.
   */
  readonly readRest: () => void;
}

/** A block as {@link streamRpcBlock} reads it. */
export interface StreamedRpcBlock extends Omit<RpcBlock, 'receipts' | 'rawReceipts' | 'excludedReceipts'> {
  receipts: ReceiptStream;
  /** The receipts left out of the root, without their fields: they stay in the JSON, unread. */
  excludedReceipts: ExcludedReceipt[];
}

/**
 * {@link readRpcBlock}'s block, without raw receipts, with its receipts left in the JSON until they are hashed; undefined
 * for a block that has raw receipts or in which readRpcBlock would name a problem (before the receipts' logs: those
 * are read when a receipt is decoded), so that the caller reads it with readRpcBlock.
 */
export function streamRpcBlock(value: unknown, options: ReadRpcBlockOptions = {}): StreamedRpcBlock | undefined {
  if (!isObject(value) || !isAbsent(value.raw_receipts) || !Array.isArray(value.receipts)) return undefined;
  const problems = new Problems();
  const { id, chainId, verifiability, header, rules, heldTo } = readRpcBlockHead(value, problems, options);
  checkReceiptsByTransaction(value, problems);
  const ruleSet = rules && RULE_SETS[rules];
  const list: unknown[] = value.receipts;
  const slab = new Slab();
  // The hashes are kept only where the state-sync rule reads them: a million views held cost what the receipts did.
  const keepHashes = stateSyncPlacement(verifiability, options.rules) !== undefined;
  const order = readReceiptOrder(list, 'receipts', problems, slab, { keepHashes, before: 0 });
  if (order === undefined || header === undefined || !problems.empty) return undefined;
  // Before Byzantium a receipt's root is hashed: one that gives a status instead cannot be (verify-block).
  const chain = verifiability?.status === 'verifiable' ? verifiability.chain : undefined;
  const rootsHashed = beforeByzantium(chain?.forks, header.fields.number);
  let firstWithStatus = -1;
  let firstWithRoot = -1;
  let rootGiven = false;
  // From Canyon on a deposit hashes its nonce and version: one without them cannot be (verify-block).
  const versionsHashed = fromCanyon(chain?.forks, header.fields.number, header.fields.timestamp);
  let firstUnversionedDeposit = -1;
  const shaped = stateSyncShaped(order.positions.slice(-2).map((position) => outlineOf(list[position])));
  const excluded = stateSyncReceipt(verifiability, header, order, shaped, problems, options);
  if (problems.empty)
    checkRestatedMembers(
      value,
      restatedHeader(header, verifiability, options),
      order.positions,
      stateSyncFacts(verifiability, header, excluded, options),
      heldTo,
      rules,
      chainId,
      problems,
    );
  if (!problems.empty) return undefined;
  const hashed = excluded === undefined ? order.positions : order.positions.filter((_, i) => i !== excluded.index);
  // The receipt left out is the last (stateSyncOutcome): the positions of those in the root, then its.
  const leftOut = excluded === undefined ? [] : [order.positions[excluded.index]!];
  // Type and gas are read here, once: the receipt's reader (readRpcBlock's) takes them when the receipt is decoded.
  const outlines = new Array<ReceiptOutline>(hashed.length);
  let hasLogs = false;
  for (let i = 0; i < hashed.length; i++) {
    const receipt = list[hashed[i]!];
    if (!isObject(receipt)) return undefined;
    const type = receiptType(receipt);
    const cumulativeGasUsed = quantityValue(receipt.cumulativeGasUsed);
    const receiptLogs = receipt.logs ?? [];
    if (type === undefined || cumulativeGasUsed === undefined || !Array.isArray(receiptLogs)) return undefined;
    // A deposit's version makes it a kind of receipt apart (chains/claims.ts).
    const version = type === 0x7e && !isAbsent(receipt.depositReceiptVersion) ? 1n : undefined;
    outlines[i] =
      version === undefined ? { type, cumulativeGasUsed } : { type, cumulativeGasUsed, depositReceiptVersion: version };
    rootGiven ||= !hasNoRoot(receipt.root);
    if (rootsHashed && hasNoRoot(receipt.root)) firstWithStatus = firstWithStatus === -1 ? i : firstWithStatus;
    else if (rootsHashed && firstWithRoot === -1) firstWithRoot = i;
    const unversioned = type === 0x7e && (isAbsent(receipt.depositReceiptVersion) || isAbsent(receipt.depositNonce));
    if (versionsHashed && firstUnversionedDeposit === -1 && unversioned) firstUnversionedDeposit = i;
    hasLogs ||= receiptLogs.length > 0;
  }
  const logs = new LogDecoder('json-rpc', slab);
  const decoded = new Uint8Array(list.length);
  const decode = (position: number, outline?: ReceiptOutline) => {
    decoded[position] = 1;
    const receipt = validReceipt(list[position], slab, logs, ruleSet, outline);
    if (receipt === undefined) throw new ReceiptNotPlainlyValid(`receipts[${position}]`);
    return receipt;
  };
  const bloomRead = new Uint8Array(list.length);
  const readBloom = (position: number, out: Uint8Array) => {
    bloomRead[position] = 1;
    const bloom = (list[position] as JsonObject).logsBloom;
    if (isAbsent(bloom)) return false;
    if (!readReceiptBloom(bloom, out)) throw new ReceiptNotPlainlyValid(`receipts[${position}].logsBloom`);
    return true;
  };
  return {
    ...(id !== undefined && { id }),
    chainId,
    header,
    excludedReceipts: excluded === undefined ? [] : [excluded],
    typesGiven: givesType(list),
    receipts: {
      outlines,
      hasLogs,
      firstWithStatus,
      firstWithRoot,
      rootGiven,
      firstUnversionedDeposit,
      receiptAt: (i) => decode(hashed[i]!, outlines[i]),
      readBloom: (i, out) => readBloom(i < hashed.length ? hashed[i]! : leftOut[i - hashed.length]!, out),
      leftOut: () => leftOut.map((position) => decode(position)),
      readRest: () => {
        const scratch = new Uint8Array(FIXED_SIZES.bloom);
        for (let position = 0; position < list.length; position++) {
          if (decoded[position] === 0) decode(position);
          if (bloomRead[position] === 0) readBloom(position, scratch);
        }
      },
    },
  };
}
