/**
 * The checks of one record that need nothing but the record and its artifacts: its shape, and
 * the record against what its function results and logs say. Pure.
 */
import { isObject, type JsonObject } from '../input/json-values.js';
import { decodeFunctionOutput } from './abi.js';
import { sameHex } from '../bytes/hex.js';
import { erc20Check, reservesCheck } from './cross-checks.js';
import { DATASETS } from './datasets.js';
import { hexOf, type GenesisLog } from './onchain.js';
import { check, type Check } from './lineage-report.js';
import { plain, show } from '../json/show.js';

const TRACING_ID = /^[0-9a-fA-F]{36}$/;

const tracingIdOf = (record: JsonObject) => record.tracing_id ?? record._tracing_id;
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
export function shapeChecks(
  tracingId: string,
  record: JsonObject,
  dataset: { id: string | null; given: unknown },
): Check[] {
  const checks: Check[] = [];
  const own = tracingIdOf(record);
  if (!TRACING_ID.test(tracingId))
    checks.push(check('shape.tracing_id', 'fail', tracingId, 'a tracing id is 36 hex characters (18 bytes)'));
  else if (own === undefined)
    checks.push(check('shape.tracing_id', 'skipped', tracingId, 'the record carries no tracing_id'));
  else if (typeof own !== 'string' || own.toLowerCase() !== tracingId.toLowerCase())
    checks.push(check('shape.tracing_id', 'fail', tracingId, `the record's tracing id is ${show(own)}`));
  else
    checks.push(
      check(
        'shape.tracing_id',
        'pass',
        tracingId,
        `36 hex characters, matching the record${record.tracing_id === undefined ? ' (legacy _tracing_id)' : ''}`,
      ),
    );

  const lists = ['genesis_tracing_ids', 'parent_tracing_ids'].map((name) => [name, idList(record, name)] as const);
  const badList = lists.find(
    ([, list]) => !Array.isArray(list) || list.some((v) => typeof v !== 'string' || !TRACING_ID.test(v)),
  );
  checks.push(
    badList === undefined
      ? check('shape.id_lists', 'pass', tracingId, 'genesis and parent ids are lists of 36-hex tracing ids')
      : check('shape.id_lists', 'fail', tracingId, `${badList[0]} is not a list of 36-hex tracing ids`),
  );

  const { id } = dataset;
  if (id !== null && DATASETS[id] !== undefined)
    checks.push(check('shape.dataset', 'pass', tracingId, `dataset ${id} (${DATASETS[id]})`));
  else
    checks.push(
      check('shape.dataset', 'skipped', tracingId, `unknown dataset ${show(dataset.given)}: generic checks only`),
    );
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
    const result = results.find(
      (r) => r.decoded_name === name && (record.address === undefined || sameHex(r.contract, record.address)),
    );
    const bytes = result === undefined ? null : hexOf(result.output);
    if (bytes === null) return undefined;
    const out = decodeFunctionOutput(name, bytes);
    return out.ok ? out.value : undefined;
  };
  const agreement =
    dataset.id === '0201'
      ? erc20Check(record, decoded, tracingId)
      : dataset.id === '0301'
        ? reservesCheck(record, logs, decoded, tracingId)
        : check(
            'record.cross_check',
            'skipped',
            tracingId,
            `dataset ${plain(dataset.shown)} is not cross-checked: generic checks only`,
          );
  const notOlder = notOlderCheck(tracingId, record.block_number, logs);
  return notOlder === null ? [agreement] : [agreement, notOlder];
}

/**
 * The record's block is not older than any artifact's; null when the record gives no `block_number` (it claims no
 * block).
 */
function notOlderCheck(tracingId: string, recordBlock: unknown, logs: readonly ArtifactLog[]): Check | null {
  if (recordBlock === undefined) return null;
  if (typeof recordBlock !== 'number' || !Number.isSafeInteger(recordBlock) || recordBlock < 0)
    return check('record.not_older', 'fail', tracingId, `block_number ${show(recordBlock)} is not a block number`);
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
