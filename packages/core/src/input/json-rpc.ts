import { defaultRegistry, type ChainRegistry, type Verifiability } from '../chains/registry.js';
import { stateSyncOutcome, type ExcludedReceipt } from '../chains/state-sync.js';
import { encodeHeader } from '../header/header-encoding.js';
import { FIXED_SIZES, type BlockHeader } from '../header/header-fields.js';
import { ETHEREUM_HEADER, headerShape, type HeaderLayout } from '../header/layouts.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import type { Log, Receipt } from '../receipts/receipt.js';
import { join, readArray, readHex, readObject, readQuantity } from './json-values.js';
import { Problems } from './problems.js';
import { checkOutcome, orderByIndex } from './receipt-rules.js';

/**
 * Adapters from JSON-RPC objects (`eth_getBlockReceipts`, `eth_getBlockByNumber`):
 * 0x quantities, camelCase, `root` instead of `status` before Byzantium, and a
 * missing `type` meaning legacy. Unknown members (blockHash, gasUsed, …) are ignored.
 */

const MAX_UINT256 = (1n << 256n) - 1n;

const isEmptyHex = (value: unknown) => value === '0x' || value === '0X' || value === '';

/**
 * A block's addresses and topics, each distinct text read once and its bytes shared by every log
 * that repeats it, as the request decoder shares them. A block repeats a few contracts and event
 * signatures thousands of times: one array each, not one per log, spares the collector, and the
 * bloom hasher takes a log's item that is the previous log's object without a lookup.
 */
class RepeatedItems {
  readonly #seen = new Map<string, Uint8Array>();
  /** The text and bytes of the previous log's item at each place (address, topics 0-3): most repeats are there, and comparing two texts costs less than hashing one. */
  readonly #lastText: Array<string | undefined> = [undefined, undefined, undefined, undefined, undefined];
  readonly #lastBytes: Array<Uint8Array | undefined> = [undefined, undefined, undefined, undefined, undefined];

  /** The item at `place` of its log: 0 the address, 1-4 the topics. */
  read(value: unknown, path: string, problems: Problems, size: number, place: number): Uint8Array | undefined {
    if (typeof value !== 'string') return readHex(value, path, problems, size);
    if (value === this.#lastText[place]) return this.#lastBytes[place];
    let bytes = this.#seen.get(value);
    if (bytes === undefined) {
      bytes = readHex(value, path, problems, size);
      if (bytes === undefined) return undefined;
      this.#seen.set(value, bytes);
    }
    this.#lastText[place] = value;
    this.#lastBytes[place] = bytes;
    return bytes;
  }
}

function readRpcLog(value: unknown, path: string, problems: Problems, items: RepeatedItems): Log | undefined {
  const log = readObject(value, path, problems, 'a log object with address, topics and data');
  if (log === undefined) return undefined;
  const address = items.read(log.address, join(path, 'address'), problems, 20, 0);
  const topicList = readArray(log.topics, join(path, 'topics'), problems, 'an array of 32-byte topics');
  if (topicList !== undefined && topicList.length > 4)
    problems.add(join(path, 'topics'), 'out_of_range', `0 to 4 topics, got ${topicList.length}`);
  const topics = (topicList ?? [])
    .slice(0, 4)
    .map((t, i) => items.read(t, `${path}.topics[${i}]`, problems, 32, 1 + i));
  const data = readHex(log.data, join(path, 'data'), problems, undefined, 'even-length hex data, 0x when empty');
  if (address === undefined || data === undefined || topicList === undefined || topics.some((t) => t === undefined))
    return undefined;
  return { address, topics: topics as Uint8Array[], data };
}

/** One JSON-RPC receipt (its `transactionIndex` is read by {@link readRpcReceipts}). */
export function readRpcReceipt(value: unknown, path: string, problems: Problems): Receipt | undefined {
  return readReceipt(value, path, problems, new RepeatedItems());
}

function readReceipt(value: unknown, path: string, problems: Problems, items: RepeatedItems): Receipt | undefined {
  const rpc = readObject(value, path, problems, 'a JSON-RPC receipt object');
  if (rpc === undefined) return undefined;
  const before = problems.count;
  const type =
    rpc.type === undefined || rpc.type === null ? 0n : readQuantity(rpc.type, join(path, 'type'), problems, 255n);
  const hasStatus = rpc.status !== undefined && rpc.status !== null;
  // go-ethereum marshals types.Receipt with `"root": "0x"` beside `status`: an empty root is no post-state root.
  const hasRoot = rpc.root !== undefined && rpc.root !== null && !isEmptyHex(rpc.root);
  checkOutcome({ type: type === undefined ? undefined : Number(type), hasStatus, hasRoot }, path, problems);
  let outcome: Pick<Receipt, 'status' | 'root'> = {};
  if (hasRoot && !hasStatus) {
    const root = readHex(rpc.root, join(path, 'root'), problems, 32);
    if (root !== undefined) outcome = { root };
  } else if (hasStatus && !hasRoot) {
    const status = readQuantity(rpc.status, join(path, 'status'), problems, 1n);
    if (status !== undefined) outcome = { status: Number(status) as 0 | 1 };
  }
  const cumulativeGasUsed = readQuantity(rpc.cumulativeGasUsed, join(path, 'cumulativeGasUsed'), problems);
  const logList = readArray(rpc.logs ?? [], join(path, 'logs'), problems, 'an array of logs');
  const logs = (logList ?? []).map((log, i) => readRpcLog(log, `${path}.logs[${i}]`, problems, items));
  const optional = (member: 'depositNonce' | 'depositReceiptVersion') =>
    rpc[member] === undefined || rpc[member] === null
      ? undefined
      : readQuantity(rpc[member], join(path, member), problems);
  const depositNonce = optional('depositNonce');
  const depositReceiptVersion = optional('depositReceiptVersion');
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

/** A block's JSON-RPC receipts in transaction order, with what else the block reader needs of them. */
interface RpcReceiptList {
  receipts: Receipt[];
  /** `transactionHash` of each receipt, where the source gave it. */
  txHashes: Array<Uint8Array | undefined>;
  /** Position in the source's list of each receipt. */
  positions: number[];
}

function readRpcReceiptList(value: unknown, path: string, problems: Problems): RpcReceiptList | undefined {
  const list = readArray(value, path, problems, 'an array of JSON-RPC receipts');
  if (list === undefined) return undefined;
  const before = problems.count;
  const items = new RepeatedItems();
  const receipts = list.map((r, i) => readReceipt(r, `${path}[${i}]`, problems, items));
  const member = (r: unknown, name: string) => (r as Record<string, unknown> | null)?.[name] ?? undefined;
  const txHashes = list.map((r, i) => {
    const raw = member(r, 'transactionHash');
    return raw === undefined || raw === null ? undefined : readHex(raw, `${path}[${i}].transactionHash`, problems, 32);
  });
  const indexes = list.map((r, i) => {
    const raw = member(r, 'transactionIndex');
    if (raw === undefined || raw === null) return undefined;
    const index = readQuantity(raw, `${path}[${i}].transactionIndex`, problems, BigInt(Number.MAX_SAFE_INTEGER));
    return index === undefined ? undefined : Number(index);
  });
  if (problems.count !== before) return undefined;
  const withIndex = indexes.filter((i) => i !== undefined).length;
  if (withIndex === 0) return { receipts: receipts as Receipt[], txHashes, positions: list.map((_, i) => i) };
  if (withIndex !== list.length) {
    problems.add(path, 'conflict', 'transactionIndex on every receipt or on none');
    return undefined;
  }
  const positions = orderByIndex(indexes, (position) => `${path}[${position}].transactionIndex`, path, problems);
  if (problems.count !== before) return undefined;
  return { receipts: positions.map((p) => receipts[p]!), txHashes: positions.map((p) => txHashes[p]), positions };
}

/**
 * A block's JSON-RPC receipts, in transaction order. Sources do not always list
 * them in order (ethereum-etl exports do not), so when every receipt has a
 * `transactionIndex` they are placed by it, which must be exactly 0..n-1;
 * without one, list position is the index.
 */
export function readRpcReceipts(value: unknown, path: string, problems: Problems): Receipt[] | undefined {
  return readRpcReceiptList(value, path, problems)?.receipts;
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
}

/**
 * Reads a JSON-RPC header object in a layout (Ethereum's by default). Absent fields are not
 * problems here (some sources give only `receiptsRoot` and `logsBloom`: what a check needs is
 * the check's to ask); malformed ones are, and so is a gap in the fork fields (a later fork's
 * field present, an earlier one's absent), which no fork's header has.
 */
export function readRpcHeader(
  value: unknown,
  path: string,
  problems: Problems,
  layout: HeaderLayout = ETHEREUM_HEADER,
): RpcHeader | undefined {
  const rpc = readObject(value, path, problems, 'a JSON-RPC block header object');
  if (rpc === undefined) return undefined;
  const before = problems.count;
  const fields: Record<string, Uint8Array | bigint> = {};
  for (const field of layout.fields) {
    const member = [field.name, ...(field.aliases ?? [])].find((name) => rpc[name] !== undefined && rpc[name] !== null);
    if (member === undefined) continue;
    const raw = rpc[member];
    const fieldPath = join(path, member);
    const parsed =
      field.kind === 'quantity'
        ? readQuantity(raw, fieldPath, problems, MAX_UINT256)
        : readHex(raw, fieldPath, problems, field.kind === 'bytes' ? undefined : FIXED_SIZES[field.kind]);
    if (parsed !== undefined) fields[field.name] = parsed;
  }
  const hash =
    rpc.hash === undefined || rpc.hash === null ? undefined : readHex(rpc.hash, join(path, 'hash'), problems, 32);
  if (problems.count !== before) return undefined;
  const { missing, gap } = headerShape(fields, layout);
  if (gap !== undefined) {
    problems.add(
      join(path, gap.field),
      'missing',
      `present, since ${gap.presentAfter} is: no fork has a header with ${gap.presentAfter} and without ${gap.field}`,
    );
    return undefined;
  }
  const header: RpcHeader = { layout, fields: fields, missing };
  if (hash !== undefined) header.hash = hash;
  if (missing.length === 0) header.complete = fields as unknown as BlockHeader;
  return header;
}

/** A block in the fixtures' format (and a lineage bundle's `blocks[]`): JSON-RPC header and receipts. */
export interface RpcBlock {
  id?: string;
  chainId: number | null;
  header: RpcHeader;
  /** The receipts that are part of the block's commitments, in transaction order. */
  receipts: Receipt[];
  /** Receipts the source returned that its chain leaves out of the root (Bor's state-sync receipt). */
  excludedReceipts: ExcludedReceipt[];
  /** Consensus encodings as the source gave them, when it did. */
  rawReceipts?: Uint8Array[];
}

export interface ReadRpcBlockOptions extends HashOptions {
  /** Chains whose rules say which receipts a block leaves out; the built-in registry when absent. */
  registry?: ChainRegistry;
}

/**
 * On Polygon PoS before Madhugiri, the receipt whose transactionHash is Bor's
 * state-sync hash of this block: it is not part of the root and is left out.
 */
function stateSyncReceipt(
  verifiability: Verifiability | undefined,
  header: RpcHeader,
  list: RpcReceiptList,
  problems: Problems,
  options: ReadRpcBlockOptions,
): ExcludedReceipt | undefined {
  if (verifiability === undefined || list.txHashes.every((hash) => hash === undefined)) return undefined;
  // Receipts that name their transactions may hold the state-sync receipt, which only the era tells apart.
  if (verifiability.status === 'era_unknown') {
    problems.add('header.number', 'missing', `the block number: ${verifiability.why}`);
    return undefined;
  }
  const hash =
    header.hash ??
    (header.complete === undefined
      ? undefined
      : (options.keccak ?? defaultKeccak256)(encodeHeader(header.complete, header.layout)));
  const outcome = stateSyncOutcome(verifiability, { number: header.fields.number, hash }, list.txHashes, options);
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
  const block = readObject(value, '', problems, 'a block object with header and receipts');
  if (block === undefined) return undefined;
  const before = problems.count;
  let chainId: number | null = null;
  if (block.chain_id !== undefined && block.chain_id !== null) {
    const id = readQuantity(block.chain_id, 'chain_id', problems, BigInt(Number.MAX_SAFE_INTEGER));
    if (id !== undefined) chainId = Number(id);
  }
  const verifiability =
    chainId === null ? undefined : (options.registry ?? defaultRegistry).verifiability(chainId, numberOf(block.header));
  const layout = verifiability?.status === 'verifiable' ? verifiability.header : ETHEREUM_HEADER;
  const header = readRpcHeader(block.header, 'header', problems, layout);
  const list = readRpcReceiptList(block.receipts, 'receipts', problems);
  let rawReceipts: Uint8Array[] | undefined;
  if (block.raw_receipts !== undefined && block.raw_receipts !== null) {
    const rawList = readArray(block.raw_receipts, 'raw_receipts', problems, 'an array of hex consensus receipts');
    const raw = (rawList ?? []).map((r, i) => readHex(r, `raw_receipts[${i}]`, problems));
    if (raw.every((r) => r !== undefined)) rawReceipts = raw;
  }
  if (problems.count !== before || header === undefined || list === undefined) return undefined;
  const excluded = stateSyncReceipt(verifiability, header, list, problems, options);
  if (problems.count !== before) return undefined;
  return {
    ...(typeof block.id === 'string' && { id: block.id }),
    chainId,
    header,
    receipts: list.receipts.filter((_, index) => index !== excluded?.index),
    excludedReceipts: excluded === undefined ? [] : [excluded],
    ...(rawReceipts !== undefined && { rawReceipts }),
  };
}
