/**
 * The hosted service's log records (dataset 0103) of a block against the logs of its receipts:
 * none missing (`service_logs.missing`), none extra (`service_logs.extra`), none altered
 * (`service_logs.altered`). A log's place is its transaction's index (`tx_index`) and its index
 * within that transaction's logs (`log_index`). Pure: the records are fetched elsewhere.
 */
import { hexText } from '../bytes/hex.js';
import { isObject, type JsonObject } from '../input/values/json-values.js';
import { show } from '../json/show.js';
import { receiptsRefuted, type AuditFailure, type BlockTruth, type CrossCheckFindings } from './vocabulary.js';
import {
  differences,
  failure,
  unchecked,
  groupBy,
  hexListText,
  hexOrNoneText,
  instantText,
  integerOf,
  integerText,
  isoOfTimestamp,
  type FieldDifference,
  type FieldRule,
} from './service-values.js';

/** The checks {@link checkServiceLogs} may report. */
export const SERVICE_LOGS_CHECKS: readonly string[] = [
  'service_logs.missing',
  'service_logs.extra',
  'service_logs.altered',
];

/** What a log record says besides its place, and how each field is compared. */
const CONTENT: readonly FieldRule[] = [
  { field: 'tx_hash', canonical: hexText },
  { field: 'contract_address', canonical: hexText },
  { field: 'topic_zero', canonical: hexOrNoneText },
  { field: 'data_topics', canonical: hexListText },
  { field: 'data', canonical: hexText },
  { field: 'block_hash', canonical: hexText },
  { field: 'block_time', canonical: instantText },
  // Not a field of the dataset: a record that names a chain must name the audit's.
  { field: 'chain_id', canonical: integerText, whereGiven: true },
];
const PLACE: readonly FieldRule[] = [
  { field: 'tx_index', canonical: integerText },
  { field: 'log_index', canonical: integerText },
];

/** A log of the chain: its place and the record the service should hold for it. */
interface ChainLog {
  tx_index: number;
  log_index: number;
  expected: JsonObject;
}

/**
 * A transaction's hash as the block gives it: its receipt's `transactionHash`, else the block's `transactions` list;
 * undefined when neither has it.
 */
function transactionHash(truth: BlockTruth, receipt: JsonObject, index: number): string | undefined {
  if (typeof receipt.transactionHash === 'string') return receipt.transactionHash;
  const listed: unknown = Array.isArray(truth.block.header.transactions)
    ? truth.block.header.transactions[index]
    : undefined;
  const hash = isObject(listed) ? listed.hash : listed;
  return typeof hash === 'string' ? hash : undefined;
}

/**
 * Every log of the block's receipts, in order, as the record the service should hold (tx_hash left out when the block
 * does not give it).
 */
function chainLogs(truth: BlockTruth): ChainLog[] {
  const { header } = truth.block;
  const blockTime = isoOfTimestamp(header.timestamp);
  return truth.block.receipts.flatMap((receipt, txIndex) => {
    if (!isObject(receipt) || !Array.isArray(receipt.logs)) return [];
    const txHash = transactionHash(truth, receipt, txIndex);
    return receipt.logs.filter(isObject).map((log, logIndex) => {
      const topics = Array.isArray(log.topics) ? log.topics : [];
      const expected: JsonObject = {
        tx_hash: txHash,
        contract_address: log.address,
        topic_zero: topics[0] ?? null,
        data_topics: topics.slice(1),
        data: log.data,
        block_hash: header.hash ?? undefined,
        block_time: blockTime,
        chain_id: truth.chainId,
      };
      return { tx_index: txIndex, log_index: logIndex, expected };
    });
  });
}

const placeOf = (record: JsonObject) => {
  const tx = integerOf(record.tx_index);
  const log = integerOf(record.log_index);
  return tx === null || log === null ? null : `${tx}:${log}`;
};
const countOf = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
/** The first few items, for a message; the evidence has them all. */
const listed = <T>(items: readonly T[], render: (item: T) => string) =>
  `${items.slice(0, 5).map(render).join(', ')}${items.length > 5 ? ', …' : ''}`;
const at = (record: JsonObject) => `(tx ${show(record.tx_index, 20)}, log ${show(record.log_index, 20)})`;

/**
 * The content of a record or log as one text, over the fields the chain has a value for; null when a field's value is
 * of the wrong kind.
 */
function contentKey(value: JsonObject, fields: readonly FieldRule[]): string | null {
  const texts = fields.map((rule) => rule.canonical(value[rule.field]));
  return texts.includes(null) ? null : JSON.stringify(texts);
}

/**
 * Left-over records, looked up by content: a log without a record at its place takes the first
 * one with its content (a record whose place was altered). Indexed, so that a block whose records
 * are all wrong costs a lookup per log, not a scan.
 */
class MovedRecords {
  private readonly byKey = new Map<string, Map<string | null, JsonObject[]>>();
  private readonly taken = new Set<JsonObject>();

  constructor(private readonly records: readonly JsonObject[]) {}

  /** The first record not yet taken whose content is the log's, taken; undefined when none. */
  take(expected: JsonObject): JsonObject | undefined {
    // A member the record need not give is no part of its content: a record moved with a wrong one is still found.
    const fields = CONTENT.filter((rule) => expected[rule.field] !== undefined && !rule.whereGiven);
    const signature = fields.map((rule) => rule.field).join(',');
    let index = this.byKey.get(signature);
    if (index === undefined) {
      index = groupBy(this.records, (record) => contentKey(record, fields));
      index.delete(null); // a record with a value of the wrong kind has no content to match
      this.byKey.set(signature, index);
    }
    const key = contentKey(expected, fields);
    const list = key === null ? undefined : index.get(key);
    while (list !== undefined && list.length > 0 && this.taken.has(list[0]!)) list.shift();
    const record = list?.shift();
    if (record !== undefined) this.taken.add(record);
    return record;
  }

  /** The records no log took, in their order. */
  rest(): JsonObject[] {
    return this.records.filter((record) => !this.taken.has(record));
  }
}

/**
 * The records held to the block's logs: all but those at the place of a receipt no commitment covers (Bor's state-sync
 * receipt, in `excluded_receipts`), which is no truth: the records of its logs are neither required nor refuted.
 */
function heldRecords(truth: BlockTruth, records: ReadonlyArray<Record<string, unknown>>) {
  const setAside = new Set((truth.report?.excluded_receipts ?? []).map((receipt) => receipt.index));
  const held =
    setAside.size === 0 ? records : records.filter((record) => !setAside.has(integerOf(record.tx_index) ?? -1));
  return { setAside, held };
}

/**
 * What a block's log records (those of its number) show against its receipts' logs. Its failures, at most one per
 * check: records are matched to logs by place; of several records at one place, the one closest to the log is taken. A
 * log left without a record is then matched to a left-over record with the same content, as a record whose place was
 * altered. Then each fault is reported by one check only: a log still without a record is missing, a record still
 * without a log is extra, a matched record that differs is altered (the fields, expected and found). The records at the
 * place of a receipt the block's commitments leave out (`excluded_receipts`: Bor's state-sync receipt) are passed over,
 * as are its logs. Its unchecked claims, each a sentence: what the records at a log's place say that the receipts give
 * no value to check (their `tx_hash` where the block gives no transaction hash for that receipt), which make a block
 * that otherwise passes not verifiable. Nothing where the receipts are refuted (no truth at all: the block fails on its
 * own).
 */
export function checkServiceLogs(
  truth: BlockTruth,
  records: ReadonlyArray<Record<string, unknown>>,
): CrossCheckFindings {
  // Receipts their header refutes are no truth to hold the records to: the block fails receipts_root instead.
  if (receiptsRefuted(truth)) return { failures: [], unchecked: [] };
  const logs = chainLogs(truth);
  const { setAside, held } = heldRecords(truth, records);
  return { failures: logFailures(truth.number, logs, setAside, held), unchecked: uncheckedClaims(logs, held) };
}

/** The missing, extra and altered records of block `block`'s `logs` ({@link checkServiceLogs}). */
function logFailures(
  block: number,
  logs: readonly ChainLog[],
  setAside: ReadonlySet<number>,
  held: ReadonlyArray<Record<string, unknown>>,
): AuditFailure[] {
  const byPlace = groupBy(held, placeOf);
  // A record without a usable place can only be matched by its content.
  const leftOver: JsonObject[] = byPlace.get(null) ?? [];
  byPlace.delete(null);

  const altered: Array<{ tx_index: number; log_index: number; fields: Record<string, FieldDifference> }> = [];
  const unmatched: ChainLog[] = [];
  for (const log of logs) {
    if (setAside.has(log.tx_index)) continue;
    const candidates = byPlace.get(`${log.tx_index}:${log.log_index}`) ?? [];
    byPlace.delete(`${log.tx_index}:${log.log_index}`);
    if (candidates.length === 0) {
      unmatched.push(log);
      continue;
    }
    const ranked = candidates.map((record) => ({ record, fields: differences(record, log.expected, CONTENT) }));
    const best = ranked.reduce((a, b) => (Object.keys(b.fields).length < Object.keys(a.fields).length ? b : a));
    for (const record of candidates) if (record !== best.record) leftOver.push(record);
    if (Object.keys(best.fields).length > 0)
      altered.push({ tx_index: log.tx_index, log_index: log.log_index, fields: best.fields });
  }
  for (const rest of byPlace.values()) for (const record of rest) leftOver.push(record);

  const missing: ChainLog[] = [];
  const moved = new MovedRecords(leftOver);
  for (const log of unmatched) {
    const record = moved.take(log.expected);
    if (record === undefined) missing.push(log);
    else
      altered.push({
        tx_index: log.tx_index,
        log_index: log.log_index,
        fields: differences(record, { tx_index: log.tx_index, log_index: log.log_index }, PLACE),
      });
  }
  const extra = moved.rest();

  const failures: AuditFailure[] = [];
  if (missing.length > 0)
    failures.push(
      failure(
        'service_logs.missing',
        `block ${block}: ${countOf(missing.length, 'log')} without a record: ${listed(missing, (l) => `(tx ${l.tx_index}, log ${l.log_index})`)}`,
        {
          block_number: block,
          logs: missing.map(({ tx_index, log_index, expected }) => ({ tx_index, log_index, expected })),
        },
      ),
    );
  if (extra.length > 0)
    failures.push(
      failure(
        'service_logs.extra',
        `block ${block}: ${countOf(extra.length, 'record')} of no log of the block: ${listed(extra, at)}`,
        {
          block_number: block,
          records: extra,
        },
      ),
    );
  if (altered.length > 0)
    failures.push(
      failure(
        'service_logs.altered',
        `block ${block}: ${countOf(altered.length, 'record')} differing from the log at its place: ${listed(altered, (a) => `(tx ${a.tx_index}, log ${a.log_index}: ${Object.keys(a.fields).join(', ')})`)}`,
        { block_number: block, logs: altered },
      ),
    );
  return failures;
}

/** What the `held` records at a log's place claim that the block gives no value to check ({@link checkServiceLogs}). */
function uncheckedClaims(logs: readonly ChainLog[], held: ReadonlyArray<Record<string, unknown>>): string[] {
  const expectedAt = new Map(logs.map((log) => [`${log.tx_index}:${log.log_index}`, log]));
  // Per field the records claim unchecked, the transactions whose records claim it.
  const claimed = new Map<string, Set<number>>();
  for (const record of held) {
    const log = expectedAt.get(placeOf(record) ?? '');
    // A record at no log's place is extra, a failure.
    if (log !== undefined)
      for (const field of unchecked(record, log.expected, CONTENT))
        claimed.set(field, (claimed.get(field) ?? new Set()).add(log.tx_index));
  }
  return [...claimed].map(([field, txs]) => {
    const which = `transaction${txs.size === 1 ? '' : 's'} ${listed([...txs], String)}`;
    return field === 'tx_hash'
      ? `service_logs: the tx_hash of the records of ${which} cannot be checked, as the block gives no hash for ${txs.size === 1 ? 'it' : 'them'} (no receipt's transactionHash, no entry in its transactions)`
      : `service_logs: the ${field} of the records of ${which} cannot be checked, as the block gives no value for it`;
  });
}
