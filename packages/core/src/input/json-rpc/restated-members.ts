/**
 * The members a node adds to a block's receipts and logs that repeat what the block or its receipts say: a receipt's
 * `blockHash`, `blockNumber`, `transactionHash`, `timestamp`, `gasUsed` and (Nitro) `l1BlockNumber`; a log's `blockHash`, `blockNumber`,
 * `blockTimestamp`, `transactionHash`, `transactionIndex`, `logIndex`, `transactionLogIndex` (OpenEthereum's, its place
 * in its receipt), `removed` and `type` (OpenEthereum's and Nethermind's `"mined"`); the header's `transactions` (each
 * a hash listed once, an object's `blockHash`, `blockNumber` and `transactionIndex` the block's and its place, its `type`
 * its receipt's) and
 * `transactionCount`, which list and count the transactions the receipts are of. None is hashed, so nothing else checks them, and a consumer reads them
 * from a block found identical: one that says another value gives two versions of one fact, refused as a `conflict`,
 * as Arbitrum's header members that repeat hashed fields are (arbitrum-header.ts). One pass over the JSON, apart from
 * the receipts' decoding (which stays as fast as it was), called by the reader of a whole block and by the one that
 * streams its receipts, so that both give one answer.
 */
import { nitroL1BlockNumber } from './arbitrum-header.js';
import { TransactionHashes } from '../values/receipt-rules.js';
import { LISTED_TRANSACTION_SPELLINGS } from './rpc-members.js';
import type { BlockHeader } from '../../header/header-fields.js';
import type { RuleSetName } from '../../receipts/rules.js';
import { bytesToHex, hexKey, sameHex } from '../../bytes/hex.js';
import {
  describe,
  isObject,
  join,
  quantityValue,
  readHex,
  readQuantity,
  type JsonObject,
} from '../values/json-values.js';
import type { Problems } from '../values/problems.js';
import { logMembers, onTape, type LogRestates } from '../values/log-list.js';
import {
  compareHash,
  compareQuantity,
  plainHash,
  plainQuantity,
  quantity,
  repeated,
  type Quantity,
  type Repeated,
} from './repeated-values.js';

const isAbsent = (value: unknown) => value === undefined || value === null;

/** What the block's receipts and logs repeat of its header, read once. */
interface BlockFacts {
  hash?: Repeated<string>;
  number?: Repeated<Quantity>;
  timestamp?: Repeated<Quantity>;
  /**
   * Arbitrum: what a Nitro node reports as the header's l1BlockNumber (bytes 8 to 16 of mixHash, or 0), which its
   * receipts repeat.
   */
  l1BlockNumber?: Repeated<Quantity>;
  /** The block's `chain_id`, which a listed transaction object's `chainId` names (0 naming none). */
  chainId?: Repeated<Quantity>;
}

/** The header as its repeating members are compared with it (json-rpc.ts' restatedHeader). */
export interface RestatedHeader {
  /** The header's `hash`, or where it claims none and can be hashed, the hash of its fields (`hashComputed`). */
  hash?: Uint8Array;
  hashComputed?: boolean;
  fields: Partial<BlockHeader>;
}

/**
 * Where the header gives no hash (or no number) to compare with, the first `blockHash` (or `blockNumber`) a member of
 * the block gives (at `path`) becomes what the others repeat: members of one block name one block. Undefined where that
 * member is not a hash (or quantity), named as a problem; the next given is tried.
 */
function firstGiven(block: BlockFacts, key: 'hash' | 'number', given: unknown, path: string, problems: Problems): void {
  if (block[key] !== undefined || isAbsent(given)) return;
  const what = `${path}, the first block ${key} the block's members give (its header gives none)`;
  if (key === 'hash') {
    if (readHex(given, path, problems, 32) !== undefined) block.hash = { of: given as string, what };
  } else {
    const number = readQuantity(given, path, problems);
    if (number !== undefined) block.number = repeated(quantity(number), what);
  }
}

/** What a receipt's logs repeat of it. */
interface ReceiptFacts {
  transactionHash?: Repeated<string>;
  transactionIndex: Repeated<Quantity>;
}

/** A log of a block's receipts is in the block: its `removed` (at `path`) is absent or false. */
function checkNotRemoved(removed: unknown, path: string, problems: Problems): void {
  if (isAbsent(removed) || removed === false) return;
  if (removed === true)
    problems.add(path, 'conflict', 'false or absent: a log of the receipts of a block is in the block, got true');
  else problems.add(path, 'invalid_format', `false or absent, got ${describe(removed)}`);
}

/**
 * A log of a block's receipts is mined: its `type` (at `path`; OpenEthereum's and Nethermind's `"mined"`, or
 * `"pending"` for a log not yet in a block) is absent or "mined".
 */
function checkMined(type: unknown, path: string, problems: Problems): void {
  if (isAbsent(type) || type === 'mined') return;
  if (type === 'pending')
    problems.add(path, 'conflict', '"mined" or absent: a log of the receipts of a block is mined, got "pending"');
  else problems.add(path, 'invalid_format', `"mined" or absent: a log of a block is mined, got ${describe(type)}`);
}

/**
 * Whether `log` repeats its block and its receipt (`transactionHash`, read from the receipt, at place `place`) as a
 * node writes them, its `logIndex` being `logIndex` and its place among its receipt's logs `inReceipt`: told without a
 * path, a value or the receipt's facts built, so that the common log costs string compares.
 */
function logIsPlain(
  log: JsonObject,
  block: BlockFacts,
  transactionHash: string | undefined,
  place: number,
  logIndex: number,
  inReceipt: number,
): boolean {
  return (
    plainHash(log.blockHash, block.hash) &&
    plainQuantity(log.blockNumber, block.number?.of.plain ?? -1) &&
    plainQuantity(log.blockTimestamp, block.timestamp?.of.plain ?? -1) &&
    (isAbsent(log.transactionHash) || log.transactionHash === transactionHash) &&
    plainQuantity(log.transactionIndex, place) &&
    plainQuantity(log.logIndex, logIndex) &&
    plainQuantity(log.transactionLogIndex, inReceipt) &&
    (isAbsent(log.removed) || log.removed === false) &&
    (isAbsent(log.type) || log.type === 'mined')
  );
}

const LISTED_PLACE = "its place in the block's list of transactions";

/**
 * The receipt of a listed transaction: its `type` as given, where it is `position` in the block's receipts, and whether
 * any receipt of the block gives its type (`typesGiven`: asked only where this one gives none).
 */
interface ListedReceipt {
  type: unknown;
  position: number;
  typesGiven: () => boolean;
}

/**
 * The `type` of a listed transaction object (at `path`), where given, must be its receipt's: a receipt's type is its
 * transaction's. A receipt that gives none is legacy where the block's other receipts give theirs; where none does,
 * the types were left out (chains/untyped-receipts.ts), and nothing is compared.
 */
function checkListedType(type: unknown, path: string, receipt: ListedReceipt, problems: Problems): void {
  const given = !isAbsent(receipt.type);
  if (!given && !receipt.typesGiven()) return;
  const receiptType = given ? quantityValue(receipt.type, 255n) : 0n;
  const what = given
    ? `the type of its receipt (receipts[${receipt.position}].type)`
    : `the type of its receipt (receipts[${receipt.position}], legacy: it gives none)`;
  compareQuantity(type, path, repeated(quantity(receiptType), what), problems);
}

/**
 * The largest chain id that signatures can carry (EIP-2294: floor(MAX_UINT64 / 2) - 36). Above it a `chainId` is no
 * chain's: go-ethereum derives 0x7fffffffffffffee from the v of 0 of a legacy transaction that carries none (its
 * TestRPCMarshalBlock's expected output; OP Mainnet's pre-Bedrock deposits are such transactions).
 */
const MAX_CHAIN_ID = 0x7fffffffffffffdbn;

/**
 * Whether a listed transaction's `chainId` names no chain: 0 (some clients write it for a legacy transaction signed
 * without one), or a value past {@link MAX_CHAIN_ID}. Any other must be the block's: a block whose transactions name
 * chain 1 is not Polygon's, whatever its `chain_id` says (no header field names the chain, so nothing hashed tells them
 * apart).
 */
const namesNoChain = (chainId: bigint) => chainId === 0n || chainId > MAX_CHAIN_ID;

/**
 * Names each member of the transaction object the block lists at `place` that repeats the block and says another value:
 * its `blockHash` and `blockNumber` (the header's), its `transactionIndex` (its place in the list), its `type` (its
 * receipt's, where the block has one at its place) and its `chainId` (the block's, see namesNoChain), null being
 * absent; and each given beside a second spelling of one it reads (its `hash` too: Hash beside hash), as in a receipt.
 */
function checkListedObject(
  entry: JsonObject,
  place: number,
  block: BlockFacts,
  receipt: ListedReceipt | undefined,
  problems: Problems,
): void {
  LISTED_TRANSACTION_SPELLINGS.check(entry, `header.transactions[${place}]`, problems);
  // The common case, as a node writes it, is told before any path is built.
  if (
    plainHash(entry.blockHash, block.hash) &&
    plainQuantity(entry.blockNumber, block.number?.of.plain ?? -1) &&
    plainQuantity(entry.transactionIndex, place) &&
    (isAbsent(entry.type) || receipt === undefined || entry.type === receipt.type) &&
    plainQuantity(entry.chainId, block.chainId?.of.plain ?? -1)
  )
    return;
  const path = `header.transactions[${place}]`;
  compareQuantity(entry.chainId, join(path, 'chainId'), block.chainId, problems, namesNoChain);
  if (!isAbsent(entry.type) && receipt !== undefined)
    checkListedType(entry.type, join(path, 'type'), receipt, problems);
  firstGiven(block, 'hash', entry.blockHash, join(path, 'blockHash'), problems);
  firstGiven(block, 'number', entry.blockNumber, join(path, 'blockNumber'), problems);
  compareHash(entry.blockHash, join(path, 'blockHash'), block.hash, problems);
  compareQuantity(entry.blockNumber, join(path, 'blockNumber'), block.number, problems);
  compareQuantity(
    entry.transactionIndex,
    join(path, 'transactionIndex'),
    repeated(quantity(place), LISTED_PLACE),
    problems,
  );
}

/**
 * What a receipt's logs repeat of it: its `transactionHash` (where a string; else the hash the block lists at its place,
 * `listed`) and its `place` in the block.
 */
const receiptFacts = (transactionHash: unknown, listed: Repeated<string> | undefined, place: number): ReceiptFacts => ({
  transactionHash:
    typeof transactionHash === 'string' ? { of: transactionHash, what: "its receipt's transactionHash" } : listed,
  transactionIndex: { of: quantity(place)!, what: "its receipt's place among the block's transactions" },
});

const LOG_INDEX = "its position among the block's logs, counted from 0 in transaction order";
const TRANSACTION_LOG_INDEX = "its position among its receipt's logs, counted from 0";

/**
 * Where neither a receipt nor the header names its transaction, the first `transactionHash` its logs give (at `path`)
 * is what its other logs repeat and the hash the receipt is known by; undefined where that member is absent, or not a
 * hash (named as a problem): the next given is tried.
 */
function firstLogTransaction(given: unknown, path: string, problems: Problems): Repeated<string> | undefined {
  if (isAbsent(given) || readHex(given, path, problems, 32) === undefined) return undefined;
  return {
    of: given as string,
    what: `${path}, the first transaction hash its receipt's logs give (its receipt and the header give none)`,
  };
}

/** Names each member of `log` (at `path`, `inReceipt` its place among its receipt's logs) that does not say what it repeats. */
function checkLog(
  log: JsonObject,
  path: string,
  block: BlockFacts,
  receipt: ReceiptFacts,
  logIndex: number,
  inReceipt: number,
  problems: Problems,
): void {
  firstGiven(block, 'hash', log.blockHash, join(path, 'blockHash'), problems);
  firstGiven(block, 'number', log.blockNumber, join(path, 'blockNumber'), problems);
  compareHash(log.blockHash, join(path, 'blockHash'), block.hash, problems);
  compareQuantity(log.blockNumber, join(path, 'blockNumber'), block.number, problems);
  compareQuantity(log.blockTimestamp, join(path, 'blockTimestamp'), block.timestamp, problems);
  compareHash(log.transactionHash, join(path, 'transactionHash'), receipt.transactionHash, problems);
  compareQuantity(log.transactionIndex, join(path, 'transactionIndex'), receipt.transactionIndex, problems);
  compareQuantity(log.logIndex, join(path, 'logIndex'), repeated(quantity(logIndex), LOG_INDEX), problems);
  compareQuantity(
    log.transactionLogIndex,
    join(path, 'transactionLogIndex'),
    repeated(quantity(inReceipt), TRANSACTION_LOG_INDEX),
    problems,
  );
  checkNotRemoved(log.removed, join(path, 'removed'), problems);
  checkMined(log.type, join(path, 'type'), problems);
}

/** Where the block's list names its transaction at `place`: the entry, or an object's `hash`. */
const listedPath = (entry: unknown, place: number) =>
  isObject(entry) ? `header.transactions[${place}].hash` : `header.transactions[${place}]`;

/** A transaction hash as a node writes it, told without reading it. */
const PLAIN_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * The hashes of the header's `transactions` (hashes, or objects with a `hash`), each read as a 32-byte hash, or named
 * where it is not one (undefined at its place); undefined where the header lists none. On a block held to what its
 * rule set's nodes restate (`unique`) no hash is listed twice, the second named: one transaction is listed once (Hedera's relay, which cannot
 * be verified, lists one more than once).
 */
function readListedHashes(
  transactions: unknown,
  unique: boolean,
  problems: Problems,
): (string | undefined)[] | undefined {
  if (!Array.isArray(transactions)) return undefined;
  const seen = unique ? new Map<string, number>() : undefined;
  return transactions.map((entry: unknown, place) => {
    const hash = listedHash(entry);
    if (typeof hash !== 'string' || !PLAIN_HASH.test(hash)) {
      if (readHex(hash, listedPath(entry, place), problems, 32) === undefined) return undefined;
    }
    if (seen === undefined) return hash as string;
    const key = hexKey(hash as string);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, place);
    else
      problems.add(
        listedPath(entry, place),
        'conflict',
        `a transaction hash the block lists once (one transaction is in a block once), got ${hash as string}, which ${listedPath(transactions[first], first)} has`,
      );
    return hash as string;
  });
}

/**
 * The hash the block lists at `place` (read by {@link readListedHashes}), as what a receipt or a log there repeats;
 * undefined where it lists none, or names one that is not a hash.
 */
function listedAt(
  transactions: unknown,
  hashes: readonly (string | undefined)[] | undefined,
  place: number,
): Repeated<string> | undefined {
  const hash = hashes?.[place];
  if (hash === undefined) return undefined;
  const entry: unknown = (transactions as unknown[])[place];
  return { of: hash, what: `the block's ${listedPath(entry, place).slice('header.'.length)}` };
}

/** What the block's reader found of Bor's state sync, which a node may leave out of one of the block's two lists. */
export interface StateSyncFacts {
  /** The place of the receipt left out of the root (Bor's state-sync receipt); undefined when there is none. */
  excluded: number | undefined;
  /**
   * Bor's derived transaction hash of the block, in an era whose state sync stands outside the root and where the
   * block's hash is known; undefined otherwise. Asked only of a block that lists a transaction more than it has receipts.
   */
  txHash: () => Uint8Array | undefined;
  /** Whether the era's state sync stands outside the root (Bor's receipt then counts its own gas). */
  outsideRoot: boolean;
}

/** A 32-byte hash as text, with or without its 0x: one that is not is named by the reader of its member. */
const HASH_TEXT = /^(0x)?[0-9a-fA-F]{64}$/;

/**
 * The receipts of a block its source asked one transaction at a time (the block's `receipts_by_transaction`: a node's
 * `eth_getTransactionReceipt` for each hash the header lists, in order): `receipts[i]` is the answer for
 * `transactions[i]`, and must name it (its `transactionHash`, else each of its logs') and its place (its
 * `transactionIndex`, i). Placed by that index, tx 4's receipt answered for tx 3 and tx 3's for tx 4 make a list the
 * block could have, and would pass: the node's answers were to other transactions all the same; a receipt that names
 * no hash (none of its own, no logs) is told by its index alone. Each conflict is named at the receipt's member, with
 * both values. The one rule of the block's readers and of the JSON-RPC source, which asks such receipts again before
 * it hands them over.
 */
export function checkReceiptsAsked(receipts: unknown, transactions: unknown, problems: Problems): void {
  if (!Array.isArray(receipts) || !Array.isArray(transactions)) return;
  const count = Math.min(receipts.length, transactions.length);
  for (let i = 0; i < count; i++) {
    const receipt: unknown = receipts[i];
    const asked = listedHash(transactions[i]);
    if (!isObject(receipt) || typeof asked !== 'string' || !HASH_TEXT.test(asked)) continue;
    const named = isAbsent(receipt.transactionHash)
      ? (Array.isArray(receipt.logs) ? receipt.logs : []).map((log: unknown, j) => ({
          path: `receipts[${i}].logs[${j}].transactionHash`,
          hash: isObject(log) ? logMembers(log).transactionHash : undefined,
        }))
      : [{ path: `receipts[${i}].transactionHash`, hash: receipt.transactionHash }];
    const askedFor = `the block's ${listedPath(transactions[i], i).slice('header.'.length)}, for which the source asked this receipt (receipts_by_transaction)`;
    for (const { path, hash } of named)
      if (typeof hash === 'string' && HASH_TEXT.test(hash) && !sameHex(hash, asked))
        problems.add(path, 'conflict', `${asked}, ${askedFor}, got ${hash}`);
    // A malformed index is the receipt reader's to name.
    const index = quantityValue(receipt.transactionIndex);
    if (index !== undefined && index !== BigInt(i))
      problems.add(`receipts[${i}].transactionIndex`, 'conflict', `${i}, the place of ${askedFor}, got ${index}`);
  }
}

/**
 * The block's `receipts_by_transaction`, a boolean where given (not null): where true, its receipts are held to the
 * transactions they were asked for ({@link checkReceiptsAsked}).
 */
export function checkReceiptsByTransaction(block: JsonObject, problems: Problems): void {
  const given = block.receipts_by_transaction;
  if (isAbsent(given) || given === false) return;
  if (given !== true) {
    problems.add('receipts_by_transaction', 'invalid_format', `true or false, got ${describe(given)}`);
    return;
  }
  if (isObject(block.header)) checkReceiptsAsked(block.receipts, block.header.transactions, problems);
}

/**
 * The members that list or count the block's transactions, each refused where it is not its receipts': the header's
 * `transactions` and `transactionCount`, and the `transaction_count` an audit's source gives with the block.
 */
export const TRANSACTION_COUNT_MEMBERS: readonly string[] = [
  'header.transactions',
  'header.transactionCount',
  'transaction_count',
];

/** The hash of a listed transaction (a hash, or an object's `hash`), as given. */
const listedHash = (entry: unknown): unknown => (isObject(entry) ? entry.hash : entry);

/** The numbers of transactions a block may list, by its receipts, and how a refusal says so. */
export interface TransactionCounts {
  counts: number[];
  expected: string;
}

/**
 * The numbers of transactions a block of `receipts` receipts may list: one for each receipt. Bor's state sync is the one
 * transaction a node may leave out of one of its two lists: a node that does not list it returns its receipt all the
 * same (`excluded`: that receipt's position in the list, found by its derived hash), and Bor before v1.3.2 listed it
 * without returning its receipt from eth_getBlockReceipts (`listed`, the block's transactions, then has it last under its
 * derived hash, `derived`, asked only then). The one rule of the reader of a block, and so of the audit's
 * `transaction_count`, and of the JSON-RPC source that keeps a block's receipts with its header.
 */
export function transactionCounts(
  receipts: number,
  excluded: number | undefined,
  listed: unknown,
  derived: () => string | undefined,
): TransactionCounts {
  const counts = [receipts];
  // No receipt at all is most often receipts left out (a node's empty answer): said so, not "one for each of 0".
  let expected =
    receipts === 0
      ? `0 transactions, as its receipts are none: a block's transactions are verified with their receipts (eth_getBlockReceipts's result), which this block does not give`
      : `${receipts} transactions, one for each of the block's ${receipts} receipts`;
  if (excluded !== undefined) {
    counts.push(receipts - 1);
    expected += `, or ${receipts - 1} without Bor's state-sync transaction, whose receipt (receipts[${excluded}]) is not in the root`;
  } else if (Array.isArray(listed) && listed.length > receipts) {
    // Its state-sync transaction listed, its receipt not returned: the one transaction more, last.
    const hash = derived();
    if (hash !== undefined) {
      if (listed.length === receipts + 1 && sameHex(listedHash(listed[receipts]), hash)) counts.push(receipts + 1);
      expected += `, or ${receipts + 1} with Bor's state-sync transaction last (${hash}), whose receipt is not in the root`;
    }
  }
  return { counts, expected };
}

/**
 * The header's `transactions` (hashes or objects), Otterscan's `transactionCount` and the source's `transaction_count`
 * (the audit's), where given (not null), must list and count the transactions the block's receipts (at `positions`) are
 * of ({@link transactionCounts}), and, where more than one is given, say one number: the list's length. A block whose
 * lists differ otherwise is not one block: its receipts may not be the ones its header commits to, so it is refused
 * before a root is compared.
 */
function checkTransactionCount(
  block: JsonObject,
  header: JsonObject,
  positions: readonly number[],
  stateSync: StateSyncFacts,
  problems: Problems,
): void {
  const { transactions, transactionCount } = header;
  const derived = () => {
    const hash = stateSync.txHash();
    return hash === undefined ? undefined : `0x${bytesToHex(hash)}`;
  };
  const excluded = stateSync.excluded === undefined ? undefined : positions[stateSync.excluded];
  const { counts, expected } = transactionCounts(positions.length, excluded, transactions, derived);
  const refuse = (path: string, got: string) =>
    problems.add(
      path,
      'conflict',
      `${expected}${positions.length > 0 ? ' (a header and receipts of one block)' : ''}, got ${got}`,
    );
  let listed: number | undefined;
  if (Array.isArray(transactions)) {
    if (counts.includes(transactions.length)) listed = transactions.length;
    else refuse('header.transactions', `${transactions.length} transactions`);
  } else if (!isAbsent(transactions))
    problems.add(
      'header.transactions',
      'invalid_format',
      `an array of the block's transactions (hashes or objects), got ${describe(transactions)}`,
    );
  const checkCount = (value: unknown, path: string) => {
    if (isAbsent(value)) return;
    const count = readQuantity(value, path, problems, BigInt(Number.MAX_SAFE_INTEGER));
    if (count === undefined) return;
    if (!counts.includes(Number(count))) refuse(path, `${count}`);
    else if (listed !== undefined && Number(count) !== listed)
      problems.add(
        path,
        'conflict',
        `${listed}, the length of header.transactions (one block has one number of transactions), got ${count}`,
      );
  };
  checkCount(transactionCount, 'header.transactionCount');
  checkCount(block.transaction_count, 'transaction_count');
}

/**
 * The rule sets whose nodes give a receipt's `gasUsed` as its step in `cumulativeGasUsed` (go-ethereum and its forks
 * derive it so), each shown by a real block of a chain that follows it: Hoodi (ethereum), OP Mainnet with deposits
 * (optimism), Arbitrum One with an internal transaction (arbitrum), Polygon PoS block 10,000,000 (polygon; Bor's
 * state-sync receipt, outside the block's gas with a cumulativeGasUsed of 0, is not compared). No real Scroll block in
 * the fixtures gives `gasUsed`.
 */
export const GAS_USED_SHOWN: ReadonlySet<RuleSetName> = new Set<RuleSetName>([
  'ethereum',
  'optimism',
  'arbitrum',
  'polygon',
]);

/**
 * Whether the receipts' `gasUsed` is compared on a block held to what the nodes of rule set `heldTo` restate: one a
 * real block shows gas steps of. A chain that cannot be verified (no `heldTo`) has no block that shows how its nodes
 * count gas.
 */
const comparesGasUsed = (heldTo: RuleSetName | undefined): boolean =>
  heldTo !== undefined && GAS_USED_SHOWN.has(heldTo);

const GAS_STEP = "its cumulativeGasUsed minus the previous receipt's";
/** What Bor's state-sync receipt's `gasUsed` repeats: it stands outside the block's gas (the real block's is 0 of 0). */
const STATE_SYNC_GAS = "its cumulativeGasUsed (Bor's state-sync receipt counts its own gas, outside the block's)";
/** The largest quantity compared as a number (a {@link Quantity}'s `plain`). */
const MAX_PLAIN = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The `gasUsed` of the receipt at `path()` (built only to name a problem), where given, must be its step in
 * `cumulativeGasUsed`: `cumulative` minus `previous` (the last receipt's, 0 for the first and for Bor's state-sync
 * receipt; `what` says which). Both were read as quantities.
 */
function checkGasUsed(
  gasUsed: unknown,
  path: () => string,
  cumulative: bigint,
  previous: bigint,
  what: string,
  problems: Problems,
  stateSyncHint = '',
): void {
  const step = cumulative - previous;
  if (step >= 0n) {
    // The common case told as compareQuantity tells it, before its path and value are built.
    if (step <= MAX_PLAIN && plainQuantity(gasUsed, Number(step))) return;
    compareQuantity(gasUsed, join(path(), 'gasUsed'), { of: quantity(step)!, what }, problems);
  } else
    problems.add(
      join(path(), 'gasUsed'),
      'conflict',
      `${GAS_STEP}, which it repeats, but cumulativeGasUsed ${cumulative} is less than the previous receipt's ${previous}${stateSyncHint}`,
    );
}

/**
 * A receipt's `cumulativeGasUsed`; undefined where it is not a quantity, as the streamed reader may meet before it
 * decodes the receipt (the receipt's reader names it, and nothing is compared).
 */
const cumulativeOf = (receipt: unknown) => (isObject(receipt) ? quantityValue(receipt.cumulativeGasUsed) : undefined);

/** Where the `transactionHash` of the receipt at `position` of the block's list is. */
const transactionHashPath = (position: number) => `receipts[${position}].transactionHash`;

/**
 * Checks the members of the block's receipts (`block.receipts`, at the list `positions` in transaction order) and of
 * their logs that repeat the block (`header`, read from `block.header`), each named where it says another value, and
 * the header's list and count of transactions against the receipts ({@link checkTransactionCount}). The receipt left
 * out of the root (`stateSync.excluded`, its place: Bor's state-sync receipt) is held to them as every receipt is, its
 * logs numbered after the block's, its gas counted from 0 (see below). On a block held to what the nodes of rule set
 * `heldTo` restate (verifiedUnder: its verifiable era's, or the caller's `--rules` for a chain outside the registry), each
 * receipt's `transactionHash` must be its own (Hedera's relay, which cannot be verified, lists one transaction more than
 * once), its `timestamp` (Hoodi's node gives one) the header's, and its `gasUsed` its step in `cumulativeGasUsed` where a
 * real block of its rule set shows it ({@link GAS_USED_SHOWN}). Under Arbitrum's `rules` (the block head's: the registry's, or the caller's for a chain
 * outside it), each receipt's `l1BlockNumber` must be the header's, as a Nitro node reports it (nitroL1BlockNumber).
 * A listed transaction object's `chainId`, where it names a chain (namesNoChain), must be the block's `chain_id` (`chainId`).
 * Called once the block's other problems are none, so every `transactionHash` of a receipt is a hash.
 */
export function checkRestatedMembers(
  block: JsonObject,
  header: RestatedHeader,
  positions: readonly number[],
  stateSync: StateSyncFacts,
  heldTo: RuleSetName | undefined,
  rules: RuleSetName | undefined,
  chainId: number | null,
  problems: Problems,
): void {
  const receipts = block.receipts as unknown[];
  const { excluded } = stateSync;
  const { transactions } = block.header as JsonObject;
  checkTransactionCount(block, block.header as JsonObject, positions, stateSync, problems);
  const listedBefore = problems.count;
  const listedHashes = readListedHashes(transactions, heldTo !== undefined, problems);
  // A block that lists each receipt's transaction, each hash once, needs no set of its receipts' hashes: a receipt
  // whose transactionHash is not the one listed at its place is named below, so no two can be known by one hash.
  const eachListedOnce =
    listedHashes !== undefined && problems.count === listedBefore && listedHashes.length === positions.length;
  const facts: BlockFacts = {
    hash: repeated(
      header.hash && `0x${bytesToHex(header.hash)}`,
      header.hashComputed === true ? "the hash of the header's fields (it gives no hash)" : "the header's hash",
    ),
    number: repeated(quantity(header.fields.number), "the header's number"),
    timestamp: repeated(quantity(header.fields.timestamp), "the header's timestamp"),
    ...(rules === 'arbitrum' && { l1BlockNumber: nitroL1BlockNumber(header.fields, block.header as JsonObject) }),
    ...(chainId !== null && { chainId: repeated(quantity(chainId), "the block's chain_id") }),
  };
  if (Array.isArray(transactions)) {
    let typesGiven: boolean | undefined;
    const anyTyped = () => (typesGiven ??= receipts.some((r) => isObject(r) && !isAbsent(r.type)));
    transactions.forEach((entry: unknown, place) => {
      if (!isObject(entry)) return;
      // Its receipt, where the block has one at its place (Bor's state-sync transaction may be listed without one).
      const position = positions[place];
      const receipt: unknown = position === undefined ? undefined : receipts[position];
      const listed =
        position !== undefined && isObject(receipt)
          ? { type: receipt.type, position, typesGiven: anyTyped }
          : undefined;
      checkListedObject(entry, place, facts, listed, problems);
    });
  }
  const seen = heldTo !== undefined && !eachListedOnce ? new TransactionHashes(transactionHashPath) : undefined;
  const gasSteps = comparesGasUsed(heldTo);
  // Bor's state-sync receipt, outside the block's gas, is told apart by its transaction hash alone.
  const stateSyncHint = stateSync.outsideRoot
    ? " (a receipt with a cumulativeGasUsed of 0 after the block's transactions is Bor's state-sync receipt, told apart by its transactionHash: give it)"
    : '';
  let logIndex = 0;
  // What the log at hand restates, for a log left on the tape: one object, its members set for each such log.
  const restates: LogRestates = {
    blockHash: undefined,
    blockNumber: -1,
    blockTimestamp: -1,
    transactionHash: undefined,
    transactionIndex: -1,
    logIndex: -1,
    transactionLogIndex: -1,
  };
  // The previous receipt's cumulative gas, read only where a gasUsed asks for it (undefined: not read).
  let previous: bigint | undefined = 0n;
  for (let place = 0; place < positions.length; place++) {
    const receipt = receipts[positions[place]!];
    if (!isObject(receipt)) continue;
    // Paths are built only for a member that is not as a node writes it (a string per member and receipt was most of
    // this check's allocation); each compare below would return at once on such a member.
    const path = () => `receipts[${positions[place]}]`;
    if (!plainHash(receipt.blockHash, facts.hash)) {
      firstGiven(facts, 'hash', receipt.blockHash, join(path(), 'blockHash'), problems);
      compareHash(receipt.blockHash, join(path(), 'blockHash'), facts.hash, problems);
    }
    if (!plainQuantity(receipt.blockNumber, facts.number?.of.plain ?? -1)) {
      firstGiven(facts, 'number', receipt.blockNumber, join(path(), 'blockNumber'), problems);
      compareQuantity(receipt.blockNumber, join(path(), 'blockNumber'), facts.number, problems);
    }
    if (!plainQuantity(receipt.l1BlockNumber, facts.l1BlockNumber?.of.plain ?? -1))
      compareQuantity(receipt.l1BlockNumber, join(path(), 'l1BlockNumber'), facts.l1BlockNumber, problems);
    const before = problems.count;
    // Its transactionHash must be the one the block lists at its place; the very string is told before any path is built.
    const listedHash = listedHashes?.[place];
    if (listedHash !== undefined && !isAbsent(receipt.transactionHash) && listedHash !== receipt.transactionHash) {
      const listed = listedAt(transactions, listedHashes, place);
      compareHash(receipt.transactionHash, join(path(), 'transactionHash'), listed, problems);
    }
    if (heldTo !== undefined) {
      // A hash the block's list already refused is not named twice.
      if (seen !== undefined && problems.count === before && typeof receipt.transactionHash === 'string')
        seen.add(receipt.transactionHash, positions[place]!, problems);
      if (!plainQuantity(receipt.timestamp, facts.timestamp?.of.plain ?? -1))
        compareQuantity(receipt.timestamp, join(path(), 'timestamp'), facts.timestamp, problems);
    }
    if (gasSteps) {
      // Bor's state-sync receipt is outside the block's gas: its step is from 0, not from the last transaction's.
      const stateSyncGas = place === excluded;
      if (stateSyncGas) previous = 0n;
      const cumulative = isAbsent(receipt.gasUsed) ? undefined : quantityValue(receipt.cumulativeGasUsed);
      if (cumulative !== undefined) {
        previous ??= cumulativeOf(receipts[positions[place - 1]!]);
        const hint = cumulative === 0n && isAbsent(receipt.transactionHash) ? stateSyncHint : '';
        const what = stateSyncGas ? STATE_SYNC_GAS : GAS_STEP;
        if (previous !== undefined) checkGasUsed(receipt.gasUsed, path, cumulative, previous, what, problems, hint);
      }
      previous = cumulative;
    }
    let transactionHash = typeof receipt.transactionHash === 'string' ? receipt.transactionHash : listedHash;
    const logs = receipt.logs;
    if (!Array.isArray(logs)) continue;
    // Built at the first log not as a node writes it.
    let repeatedOfReceipt: ReceiptFacts | undefined;
    for (let i = 0; i < logs.length; i++, logIndex++) {
      const given: unknown = logs[i];
      if (!isObject(given)) continue;
      const tape = onTape(given);
      if (tape !== undefined) {
        restates.blockHash = facts.hash?.of;
        restates.blockNumber = facts.number?.of.plain ?? -1;
        restates.blockTimestamp = facts.timestamp?.of.plain ?? -1;
        restates.transactionHash = transactionHash;
        restates.transactionIndex = place;
        restates.logIndex = logIndex;
        restates.transactionLogIndex = i;
        if (tape.isPlain(given, restates)) continue;
      }
      const log = logMembers(given);
      if (logIsPlain(log, facts, transactionHash, place, logIndex, i)) continue;
      const logPath = `${path()}.logs[${i}]`;
      repeatedOfReceipt ??= receiptFacts(receipt.transactionHash, listedAt(transactions, listedHashes, place), place);
      if (repeatedOfReceipt.transactionHash === undefined) {
        const hashPath = join(logPath, 'transactionHash');
        repeatedOfReceipt.transactionHash = firstLogTransaction(log.transactionHash, hashPath, problems);
        transactionHash = repeatedOfReceipt.transactionHash?.of;
        // The receipt is known by its logs' hash: one transaction has one receipt, whoever names it.
        if (transactionHash !== undefined) seen?.add(transactionHash, hashPath, problems);
      }
      checkLog(log, logPath, facts, repeatedOfReceipt, logIndex, i, problems);
    }
  }
}
