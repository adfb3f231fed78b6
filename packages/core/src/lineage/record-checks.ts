/**
 * The checks of one record that need nothing but the record and its artifacts: its shape, and
 * the record against what its function results and logs say. Pure.
 */
import { claims, isObject, type JsonObject } from '../input/values/json-values.js';
import { decodeFunctionOutput, functionCallOf, functionResultShapeProblem } from './abi.js';
import { bytesToHex, sameHex } from '../bytes/hex.js';
import { erc20Check, reservesCheck, type DatasetCheck, type ProvenReceipts } from './cross-checks.js';
import { DATASETS, datasetId, sameDataset } from './sources/datasets.js';
import { hexOf, readBlockTime, readGenesisLog, timestampInstant, type GenesisLog } from './onchain.js';
import { check, type Check } from './lineage-report.js';
import { plain, show } from '../json/show.js';
import { INTEGER_FORM } from './sources/integers.js';

const TRACING_ID = /^[0-9a-fA-F]{36}$/;

const tracingIdOf = (record: JsonObject) => record.tracing_id ?? record._tracing_id;
const idList = (record: JsonObject, name: string) => (record[name] ?? record[`_${name}`] ?? []) as unknown;

/** A genesis log that was read, and where it stands in the artifacts. */
export interface ArtifactLog {
  log: GenesisLog;
  subject: string;
  /** Whether the log failed log.position (it is not in its block as the genesis says): what rests on it is skipped. */
  failed?: boolean;
  /**
   * Its index within its transaction where its proven block holds it (undefined where that is not shown), which a
   * block-wide `log_index` differs from: it places the log among the record's positions, which count within the
   * transaction, and tells two copies of one log apart from two logs (`genesis.complete`).
   */
  logIndex?: number;
}

/**
 * Why the record's list `name` (or its legacy `_` spelling, as given) is no list of tracing ids, naming the member and
 * its first entry that is none; undefined where it is one (or absent).
 */
function notIdList(record: JsonObject, name: string): string | undefined {
  const spelled = record[name] !== undefined && record[name] !== null ? name : `_${name}`;
  const list = idList(record, name);
  if (!Array.isArray(list)) return `${spelled} is ${show(list)}, not a list of 36-hex tracing ids`;
  const bad = list.findIndex((v) => typeof v !== 'string' || !TRACING_ID.test(v));
  return bad === -1 ? undefined : `${spelled}[${bad}] is ${show(list[bad])}, not a 36-hex tracing id`;
}

/** The parent tracing ids a record names (legacy `_parent_tracing_ids` too); not ids are left out. */
export function parentsOf(record: JsonObject): string[] {
  const parents = idList(record, 'parent_tracing_ids');
  // One that is no tracing id names no record to ask for: shape.id_lists fails the record instead.
  return Array.isArray(parents) ? parents.filter((p): p is string => typeof p === 'string' && TRACING_ID.test(p)) : [];
}

/** A dataset as sent, for messages: its id and table where it is known (`0201 (svc_evm.b0201_…)`), else as sent. */
function datasetName(dataset: string): string {
  const id = datasetId(dataset);
  return id !== null && DATASETS[id] !== undefined ? `${id} (${DATASETS[id]})` : show(dataset);
}

/**
 * The record's tracing id, its id lists and its dataset: known, and the one its genesis answer names (`genesis`, as
 * sent; empty or absent names none).
 */
export function shapeChecks(
  tracingId: string,
  record: JsonObject,
  dataset: { id: string | null; given: string; genesis?: string },
): Check[] {
  const checks: Check[] = [];
  const own = tracingIdOf(record);
  if (!TRACING_ID.test(tracingId))
    checks.push(check('shape.tracing_id', 'fail', tracingId, 'a tracing id is 36 hex characters (18 bytes)'));
  else if (!claims(own))
    checks.push(check('shape.tracing_id', 'skipped', tracingId, 'the record carries no tracing_id'));
  else if (typeof own !== 'string' || own.toLowerCase() !== tracingId.toLowerCase())
    checks.push(check('shape.tracing_id', 'fail', tracingId, `the record's tracing id is ${show(own)}`));
  else
    checks.push(
      check(
        'shape.tracing_id',
        'pass',
        tracingId,
        `36 hex characters, matching the record${!claims(record.tracing_id) ? ' (legacy _tracing_id)' : ''}`,
      ),
    );

  const badList = ['genesis_tracing_ids', 'parent_tracing_ids'].map((name) => notIdList(record, name)).find(Boolean);
  checks.push(
    badList === undefined
      ? check('shape.id_lists', 'pass', tracingId, 'genesis and parent ids are lists of 36-hex tracing ids')
      : check('shape.id_lists', 'fail', tracingId, badList),
  );

  const { id, given, genesis = '' } = dataset;
  // A genesis answer of another dataset is another record's: its artifacts are not this record's to rest on.
  if (given !== '' && genesis !== '' && !sameDataset(given, genesis))
    checks.push(
      check(
        'shape.dataset',
        'fail',
        tracingId,
        `the genesis answer names dataset ${datasetName(genesis)}, not the record's ${id ?? show(given)}: a genesis of another dataset is not this record's`,
      ),
    );
  else if (id !== null && DATASETS[id] !== undefined)
    checks.push(check('shape.dataset', 'pass', tracingId, `dataset ${id} (${DATASETS[id]})`));
  else
    checks.push(
      check(
        'shape.dataset',
        'skipped',
        tracingId,
        given === ''
          ? 'the service sent no dataset (absent or null): generic checks only'
          : `unknown dataset ${show(given)}: generic checks only`,
      ),
    );
  return checks;
}

/** The genesis artifacts a source delivered for a record, as the walk collected them. */
export interface DeliveredGenesis {
  logs: readonly unknown[];
  functionResults: readonly unknown[];
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * An artifact's content as one text, its ids aside and members in any order. A text, so that a genesis of many
 * artifacts is compared in one pass, not pairwise. (Inputs are depth-limited when read: LINEAGE_LIMITS.jsonDepth.)
 */
function contentKey(value: unknown): string {
  const content = isObject(value) ? { ...value, tracing_id: undefined, _tracing_id: undefined } : value;
  return (
    JSON.stringify(content, (_name, v: unknown) =>
      isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, v[k]]),
          )
        : v,
    ) ?? 'undefined'
  );
}

const hexText = (v: unknown) => bytesToHex(hexOf(v)!);

/**
 * What an artifact was read as, the on-chain thing it stands for, as one text: a log at its place in its block as its
 * proven block holds it (`logIndex`, counted within the transaction, however the genesis counted it), else (its place
 * not shown) the log its block, address, topics and data make; a function result by its call ({@link functionCallOf}).
 * So a copy with members added as null, a `tx_hash` or `block_time` of its own, hex in another case or with `0x`, or a
 * block-wide `log_index`, is the same artifact. Undefined for what is not read as its kind (its content alone then).
 */
function identityOf(
  artifact: { value: unknown; kind: 'log' | 'function result' },
  read: ArtifactLog | undefined,
): string | undefined {
  if (artifact.kind === 'function result') {
    const call = functionCallOf(artifact.value);
    return call === null ? undefined : `the call of ${call.selector} on ${call.contract}`;
  }
  if (read === undefined) return undefined;
  const { log, logIndex } = read;
  if (logIndex !== undefined)
    return `the log of block ${log.block_number}, transaction ${log.tx_index}, log ${logIndex}`;
  const topics = log.topics.map(hexText).join(',');
  return `the log of block ${log.block_number} by ${hexText(log.contract_address)} with topics ${topics} and data ${hexText(log.data)}`;
}

/**
 * Why a delivered artifact accounts for no id: it is an earlier one again (`seen`: the first artifact of each identity
 * and of each content), or it is not of its list's kind (a log in `function_results`); null when it counts.
 */
function uncounted(
  artifact: { value: unknown; subject: string; kind: 'log' | 'function result' },
  read: ArtifactLog | undefined,
  seen: Map<string, string>,
): string | null {
  const identity = identityOf(artifact, read);
  // Identical content is one artifact whatever it was read as (a copy of a log among the function results).
  const keys = [`content ${contentKey(artifact.value)}`, ...(identity === undefined ? [] : [identity])];
  for (const key of keys) {
    const same = seen.get(key);
    if (same !== undefined)
      return `${artifact.subject} is the same artifact as ${same}${identity === undefined ? '' : ` (${identity})`}`;
  }
  for (const key of keys) seen.set(key, artifact.subject);
  const problem =
    artifact.kind === 'log'
      ? // A log the walk read (`read`) is one; only one it did not is read here.
        read !== undefined || readGenesisLog(artifact.value).ok
        ? null
        : 'it is not a genesis log'
      : functionResultShapeProblem(artifact.value);
  return problem === null ? null : `${artifact.subject} is not a ${artifact.kind} (${problem})`;
}

/**
 * The artifacts delivered account for every genesis tracing id the record lists, one each: by the id an artifact
 * carries (`tracing_id` or `_tracing_id`, in any case), else by their number. Only distinct artifacts of their list's
 * kind count: a copy of another (the same on-chain thing, however spelled: {@link identityOf}), or a log among the
 * function results, stands in for no missing one; `read` are the genesis logs as the walk read them. A listed id
 * nothing delivered accounts for is not verifiable (an artifact left out of the genesis is one no check saw); an
 * artifact carrying an id the record does not list contradicts the record; more artifacts carrying no id than ids they
 * could stand for is not verifiable. Null when the record gives no id list, or one that is not a list of ids
 * (shape.id_lists judges it).
 */
export function genesisCompleteCheck(
  tracingId: string,
  record: JsonObject,
  genesis: DeliveredGenesis,
  read: readonly ArtifactLog[] = [],
): Check | null {
  // A record that lists no genesis ids at all (neither spelling, or null) claims none to account for.
  if (!claims(record.genesis_tracing_ids) && !claims(record._genesis_tracing_ids)) return null;
  const listed = idList(record, 'genesis_tracing_ids');
  if (!Array.isArray(listed) || listed.some((v) => typeof v !== 'string' || !TRACING_ID.test(v))) return null;
  const ids = new Set((listed as string[]).map((id) => id.toLowerCase()));
  const artifacts = [
    ...genesis.logs.map((value, i) => ({ value, subject: `genesis.logs[${i}]`, kind: 'log' as const })),
    ...genesis.functionResults.map((value, i) => ({
      value,
      subject: `genesis.function_results[${i}]`,
      kind: 'function result' as const,
    })),
  ];
  const carried = new Set<string>();
  const notCounted: string[] = [];
  let uncarried = 0;
  const seen = new Map<string, string>();
  const readLogs = new Map(read.map((entry) => [entry.subject, entry]));
  for (const artifact of artifacts) {
    const { value, subject } = artifact;
    // The readers refused an artifact whose two spellings differ (service-answers.ts): either is its id.
    const own = isObject(value) ? (value.tracing_id ?? value._tracing_id) : undefined;
    const id = !claims(own) ? undefined : typeof own === 'string' ? own.toLowerCase() : null;
    if (id === null || (id !== undefined && !ids.has(id)))
      return check(
        'genesis.complete',
        'fail',
        tracingId,
        `${subject} carries the tracing id ${plain(own)}, which the record does not list among its genesis tracing ids`,
      );
    const why = uncounted(artifact, readLogs.get(subject), seen);
    if (why !== null) {
      notCounted.push(why);
      continue;
    }
    if (id === undefined) {
      uncarried++;
      continue;
    }
    if (carried.has(id))
      return check(
        'genesis.complete',
        'fail',
        tracingId,
        `${subject} carries the tracing id ${id} of an earlier artifact`,
      );
    carried.add(id);
  }
  const counted = artifacts.length - notCounted.length;
  // What was delivered and does not count, named beside the count of artifacts.
  const aside = notCounted.length === 0 ? '' : `; ${notCounted.join('; ')}`;
  const delivered =
    count(artifacts.length, 'genesis artifact') +
    (notCounted.length === 0 ? '' : `, of which ${counted} ${counted === 1 ? 'counts' : 'count'}`);
  const missing = [...ids].filter((id) => !carried.has(id));
  if (missing.length > uncarried)
    return check(
      'genesis.complete',
      'skipped',
      tracingId,
      uncarried === 0 && carried.size > 0 && notCounted.length === 0
        ? `not verifiable: no artifact delivered carries the genesis tracing ${missing.length === 1 ? 'id' : 'ids'} ${missing.join(', ')} the record lists`
        : `not verifiable: the record lists ${count(ids.size, 'genesis tracing id')}, the source delivered ${delivered} (${missing.length - uncarried} missing)${aside}`,
    );
  // More artifacts without ids than ids left to account for: which ones the record rests on cannot be told, and the
  // service's genesis answer is not known to be one artifact an id, so this is no contradiction to fail on.
  if (missing.length < uncarried)
    return check(
      'genesis.complete',
      'skipped',
      tracingId,
      carried.size === 0
        ? `not verifiable: the source delivered ${delivered}, more than the ${count(ids.size, 'genesis tracing id')} the record lists, and none carries an id to tell which the record rests on${aside}`
        : `not verifiable: ${count(uncarried, 'genesis artifact')} delivered ${uncarried === 1 ? 'carries' : 'carry'} no id, more than the ${count(missing.length, 'genesis tracing id')} the record lists that no artifact carries, so which the record rests on cannot be told${aside}`,
    );
  // Every id accounted for, beside a copy or an artifact out of place: what it stood for cannot be told.
  if (notCounted.length > 0)
    return check(
      'genesis.complete',
      'skipped',
      tracingId,
      `not verifiable: the source delivered ${delivered}, for the ${count(ids.size, 'genesis tracing id')} the record lists${aside}`,
    );
  return check(
    'genesis.complete',
    'pass',
    tracingId,
    `the ${count(artifacts.length, 'genesis artifact')} delivered account for the ${count(ids.size, 'genesis tracing id')} the record lists`,
  );
}

/** What the walk knows beside the record and its artifacts, for its fields. */
export interface RecordContext {
  /** The chain audited. */
  chainId: number;
  /** The timestamp (seconds) of the record's block, when that block was proven; undefined otherwise. */
  blockTimestamp: number | undefined;
  /** The receipts of the record's block, when that block was proven; undefined otherwise. */
  blockReceipts?: ProvenReceipts;
}

/**
 * The record against its artifacts: the values its dataset derives from function results and
 * logs (ERC-20 metadata, pool reserves), its block not older than any artifact's, and every field
 * held to the chain (`record.fields`).
 */
export function artifactAgreementChecks(
  tracingId: string,
  record: JsonObject,
  dataset: { id: string | null; shown: unknown },
  functionResults: readonly unknown[],
  logs: readonly ArtifactLog[],
  context: RecordContext,
): Check[] {
  const results = functionResults.filter(isObject);
  // A record that gives no address (absent or null) claims none: every result counts as its own.
  const own = (r: JsonObject) => !claims(record.address) || sameHex(r.contract, record.address);
  const foreign = (name: string) => results.find((r) => r.decoded_name === name && !own(r))?.contract;
  const decoded = (name: string) => {
    const result = results.find((r) => r.decoded_name === name && own(r));
    const bytes = result === undefined ? null : hexOf(result.output);
    if (bytes === null) return undefined;
    const out = decodeFunctionOutput(name, bytes);
    return out.ok ? out.value : undefined;
  };
  const agreement: DatasetCheck =
    dataset.id === '0201'
      ? erc20Check(record, decoded, tracingId, foreign)
      : dataset.id === '0301'
        ? reservesCheck(record, logs, decoded, tracingId, context.blockReceipts, foreign)
        : {
            check: check(
              'record.cross_check',
              'skipped',
              tracingId,
              `${dataset.shown === null ? 'a record of no dataset' : `dataset ${plain(dataset.shown)}`} is not cross-checked: generic checks only`,
            ),
            fields: {},
          };
  const notOlder = notOlderCheck(tracingId, record.block_number, logs);
  const fields = fieldsCheck(tracingId, record, agreement.fields, logs, context);
  return notOlder === null ? [agreement.check, fields] : [agreement.check, notOlder, fields];
}

/**
 * Members that are the lineage's own bookkeeping, not claims about the chain: the ids (read by the shape checks) and
 * the service's timestamps of the row.
 */
const BOOKKEEPING = new Set([
  'tracing_id',
  '_tracing_id',
  'genesis_tracing_ids',
  '_genesis_tracing_ids',
  'parent_tracing_ids',
  '_parent_tracing_ids',
  '_created_at',
  '_updated_at',
]);

/**
 * Every field of the record held to the chain: `chain_id` the chain audited; `address`, `block_number`, `tx_index`
 * and `log_index` those of a genesis log (whose own checks hold it to the chain); `block_time` the timestamp of the
 * record's proven block; the dataset's values (`reserves`) shown equal to a genesis log. A field that rests only on a
 * function result, or on no artifact, leaves the record not verifiable, named: a contract call's output is in no
 * header or receipt, so nothing offline can show that the chain returned it. A null field claims nothing.
 */
function fieldsCheck(
  tracingId: string,
  record: JsonObject,
  compared: DatasetCheck['fields'],
  logs: readonly ArtifactLog[],
  context: RecordContext,
): Check {
  const held: string[] = [];
  const onFunctionResults: string[] = [];
  const unchecked: string[] = [];
  const wrong: string[] = [];
  const unread: string[] = [];
  // A tx_index or log_index not given (absent or null) narrows nothing.
  const at = (block: unknown, tx?: unknown, index?: unknown) =>
    logs.some(
      ({ log, logIndex = log.log_index }) =>
        log.block_number === block &&
        (!claims(tx) || log.tx_index === tx) &&
        // Its place as the log's own block counts it (within the transaction), or as the genesis wrote it.
        (!claims(index) || logIndex === index || log.log_index === index),
    );
  // true: held; false: not held; a string: contradicted, and how; unread: not read as what it claims, and why.
  const judge = (name: string, value: unknown): boolean | string | { unread: string } => {
    switch (name) {
      case 'chain_id':
        return value === context.chainId || `chain_id is ${show(value)}, not the chain audited (${context.chainId})`;
      case 'address':
        return logs.some(({ log }) => sameHex(log.contract_address, value));
      case 'block_number':
        // One that is no block number fails record.not_older.
        return at(value);
      case 'tx_index':
      case 'log_index':
        // A position that is no integer claims no place a log could hold: say so, not that nothing checked holds it.
        if (!Number.isSafeInteger(value) || (value as number) < 0)
          return `${name} ${show(value)} is not ${INTEGER_FORM}`;
        return name === 'tx_index' ? at(record.block_number, value) : at(record.block_number, record.tx_index, value);
      case 'block_time': {
        // Read as a genesis log's is: a value that is no time is said to be so, not "held by nothing checked".
        const read = readBlockTime(value);
        if (!read.ok) return { unread: read.error };
        const timestamp = context.blockTimestamp;
        if (timestamp === undefined) return false;
        return (
          read.value === timestampInstant(timestamp) ||
          `block_time ${show(value)} is not the timestamp of block ${show(record.block_number)} (${new Date(timestamp * 1000).toISOString()})`
        );
      }
      default:
        return compared[name] === 'log';
    }
  };
  for (const [name, value] of Object.entries(record)) {
    if (!claims(value) || BOOKKEEPING.has(name)) continue;
    const judged = judge(name, value);
    if (typeof judged === 'string') wrong.push(judged);
    else if (typeof judged === 'object') unread.push(judged.unread);
    else if (judged) held.push(name);
    else if (compared[name] === 'function_result') onFunctionResults.push(name);
    else unchecked.push(name);
  }
  if (wrong.length > 0) return check('record.fields', 'fail', tracingId, wrong.join('; '));
  const why = [
    ...unread,
    onFunctionResults.length > 0 &&
      `${onFunctionResults.join(', ')} ${onFunctionResults.length === 1 ? 'rests' : 'rest'} only on function results, which cannot be verified offline (a contract call's output is in no block header or receipt)`,
    unchecked.length > 0 && `nothing checked holds ${unchecked.join(', ')} to the chain`,
  ].filter((w): w is string => w !== false);
  if (why.length > 0) return check('record.fields', 'skipped', tracingId, `not verifiable: ${why.join('; ')}`);
  return check(
    'record.fields',
    'pass',
    tracingId,
    held.length === 0 ? 'no field claims anything of the chain' : `${held.join(', ')} held to the chain`,
  );
}

/**
 * The record's block is not older than any artifact's; null when the record gives no `block_number` (absent or null: it
 * claims no block).
 */
function notOlderCheck(tracingId: string, recordBlock: unknown, logs: readonly ArtifactLog[]): Check | null {
  if (!claims(recordBlock)) return null;
  if (typeof recordBlock !== 'number' || !Number.isSafeInteger(recordBlock) || recordBlock < 0)
    return check(
      'record.not_older',
      'fail',
      tracingId,
      `block_number ${show(recordBlock)} is not a block number (${INTEGER_FORM})`,
    );
  const newer = logs.find(({ log }) => log.block_number > recordBlock);
  return newer === undefined
    ? check('record.not_older', 'pass', tracingId, `block ${recordBlock} is at or after every artifact's block`)
    : check(
        'record.not_older',
        'fail',
        tracingId,
        `block ${recordBlock} is older than ${newer.subject} (block ${newer.log.block_number})`,
      );
}
