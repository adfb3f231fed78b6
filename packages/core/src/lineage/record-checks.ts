/**
 * The checks of one record that need nothing but the record and its artifacts: its shape, and
 * the record against what its function results and logs say. Pure.
 */
import { isObject, type JsonObject } from '../input/fields.js';
import { decodeFunctionOutput } from './abi.js';
import { sameHex } from '../bytes/hex.js';
import { erc20Check, reservesCheck } from './cross-checks.js';
import { DATASETS } from './datasets.js';
import { hexOf, type GenesisLog } from './onchain.js';
import { check, type Check } from './report.js';
import { plain, show } from '../json/show.js';

const TRACING_ID = /^[0-9a-fA-F]{36}$/;

const tracingIdOf = (record: JsonObject) => (record.tracing_id ?? record._tracing_id) as unknown;
const idList = (record: JsonObject, name: string) => (record[name] ?? record[`_${name}`] ?? []) as unknown;

/** A genesis log that was read, and where it stands in the artifacts. */
export interface ArtifactLog {
  log: GenesisLog;
  subject: string;
}

/** The parent tracing ids a record names (legacy `_parent_tracing_ids` too); not ids are left out. */
export function parentsOf(record: JsonObject): string[] {
  const parents = idList(record, 'parent_tracing_ids');
  return Array.isArray(parents) ? parents.filter((p): p is string => typeof p === 'string') : [];
}

/** The record's tracing id, its id lists and its dataset. */
export function shapeChecks(tracingId: string, record: JsonObject, dataset: { id: string | null; given: unknown }): Check[] {
  const checks: Check[] = [];
  const own = tracingIdOf(record);
  if (!TRACING_ID.test(tracingId)) checks.push(check('shape.tracing_id', 'fail', tracingId, 'a tracing id is 36 hex characters (18 bytes)'));
  else if (own === undefined) checks.push(check('shape.tracing_id', 'skipped', tracingId, 'the record carries no tracing_id'));
  else if (typeof own !== 'string' || own.toLowerCase() !== tracingId.toLowerCase())
    checks.push(check('shape.tracing_id', 'fail', tracingId, `the record's tracing id is ${show(own)}`));
  else
    checks.push(
      check('shape.tracing_id', 'pass', tracingId, `36 hex characters, matching the record${record.tracing_id === undefined ? ' (legacy _tracing_id)' : ''}`),
    );

  const lists = ['genesis_tracing_ids', 'parent_tracing_ids'].map((name) => [name, idList(record, name)] as const);
  const badList = lists.find(([, list]) => !Array.isArray(list) || list.some((v) => typeof v !== 'string' || !TRACING_ID.test(v)));
  checks.push(
    badList === undefined
      ? check('shape.id_lists', 'pass', tracingId, 'genesis and parent ids are lists of 36-hex tracing ids')
      : check('shape.id_lists', 'fail', tracingId, `${badList[0]} is not a list of 36-hex tracing ids`),
  );

  const { id } = dataset;
  if (id !== null && DATASETS[id] !== undefined) checks.push(check('shape.dataset', 'pass', tracingId, `dataset ${id} (${DATASETS[id]})`));
  else checks.push(check('shape.dataset', 'skipped', tracingId, `unknown dataset ${show(dataset.given)}: generic checks only`));
  return checks;
}

/**
 * The record against its artifacts: the values its dataset derives from function results and
 * logs (ERC-20 metadata, pool reserves), and its block not older than any artifact's.
 */
export function artifactAgreementChecks(
  tracingId: string,
  record: JsonObject,
  dataset: { id: string | null; shown: unknown },
  functionResults: readonly unknown[],
  logs: readonly ArtifactLog[],
): Check[] {
  const results = functionResults.filter(isObject);
  const decoded = (name: string) => {
    const result = results.find((r) => r.decoded_name === name && (record.address === undefined || sameHex(r.contract, record.address)));
    const bytes = result === undefined ? null : hexOf(result.output);
    if (bytes === null) return undefined;
    const out = decodeFunctionOutput(name, bytes);
    return out.ok ? out.value : undefined;
  };
  const checks: Check[] = [];
  if (dataset.id === '0201') checks.push(erc20Check(record, decoded, tracingId));
  else if (dataset.id === '0301') checks.push(reservesCheck(record, logs, decoded, tracingId));
  else checks.push(check('record.cross_check', 'skipped', tracingId, `dataset ${plain(dataset.shown)} is not cross-checked: generic checks only`));

  // A record without a block_number claims no block: nothing to hold against its artifacts.
  const recordBlock = record.block_number;
  if (recordBlock === undefined) return checks;
  if (!Number.isSafeInteger(recordBlock) || (recordBlock as number) < 0)
    checks.push(check('record.not_older', 'fail', tracingId, `block_number ${show(recordBlock)} is not a block number`));
  else {
    const newer = logs.find(({ log }) => log.block_number > (recordBlock as number));
    checks.push(
      newer === undefined
        ? check('record.not_older', 'pass', tracingId, `block ${recordBlock} is at or after every artifact's block`)
        : check('record.not_older', 'fail', tracingId, `block ${recordBlock} is older than ${newer.subject} (block ${newer.log.block_number})`),
    );
  }
  return checks;
}
