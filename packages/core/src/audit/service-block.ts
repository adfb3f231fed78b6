/**
 * The hosted service's block record (dataset 0101) against the chain's header: one check per
 * field (`service_block.<field>`), and `service_block.present` when the service has no record
 * for the block, or more than one. Pure: the records are fetched elsewhere.
 */
import { show } from '../json/show.js';
import { receiptsRefuted, type BlockTruth, type CrossCheckFindings } from './vocabulary.js';
import { hexText } from '../bytes/hex.js';
import {
  differences,
  failure,
  unchecked,
  instantText,
  integerText,
  isoOfTimestamp,
  jsonQuantity,
  type FieldRule,
} from './service-values.js';

/** A field of the block record, where the chain's value comes from, and how the two are compared. */
interface BlockField extends FieldRule {
  truth: (truth: BlockTruth) => unknown;
}

/**
 * The dataset defines `extra_data` as at most 32 bytes, but some chains' headers carry more (Bor
 * and Clique append a 65-byte seal): there the record may hold the first 32 bytes. Not a
 * difference the service can avoid, so not a failure; any other value still is.
 */
const first32Bytes = (expected: unknown) =>
  typeof expected === 'string' && /^0x[0-9a-fA-F]{65,}$/.test(expected) ? expected.slice(0, 66) : undefined;

const header = (name: string) => (truth: BlockTruth) => truth.block.header[name] ?? undefined;

const BLOCK_FIELDS: readonly BlockField[] = [
  { field: 'block_hash', truth: header('hash'), canonical: hexText },
  { field: 'parent_block_hash', truth: header('parentHash'), canonical: hexText },
  { field: 'receipt_root', truth: header('receiptsRoot'), canonical: hexText },
  { field: 'miner', truth: header('miner'), canonical: hexText },
  { field: 'gas_limit', truth: (t) => jsonQuantity(t.block.header.gasLimit), canonical: integerText },
  { field: 'extra_data', truth: header('extraData'), canonical: hexText, alsoAccepted: first32Bytes },
  { field: 'timestamp_utc', truth: (t) => isoOfTimestamp(t.block.header.timestamp), canonical: instantText },
  // The root our verification recomputed from the receipts; none when the block could not be verified, or when that
  // root is not the header's (the source's receipts are wrong, not the service's root).
  {
    field: '_computed_receipt_root',
    truth: (t) => (receiptsRefuted(t) ? undefined : (t.report?.receipts_root.computed ?? undefined)),
    canonical: hexText,
  },
  // Not a field of the dataset: a record that names a chain must name the audit's (its page's chain_id is checked
  // when it is read).
  { field: 'chain_id', truth: (t) => t.chainId, canonical: integerText, whereGiven: true },
];

/** The chain's value of each field of the block record (undefined where the block gives none). */
const chainValues = (truth: BlockTruth) =>
  Object.fromEntries(BLOCK_FIELDS.map((rule) => [rule.field, rule.truth(truth)]));

/** The checks {@link checkServiceBlock} may report. */
export const SERVICE_BLOCK_CHECKS: readonly string[] = [
  'service_block.present',
  ...BLOCK_FIELDS.map(({ field }) => `service_block.${field}`),
];

/**
 * What a block's records (those of its number) show against its truth. Its failures: `present` alone when there is not
 * exactly one record, else one failure per field that differs; a field the record lacks differs. Its unchecked claims:
 * the fields the record gives where the chain gives no value to check (a header without `extraData`, a block not
 * verified), each a sentence, which make a block that otherwise passes not verifiable.
 */
export function checkServiceBlock(
  truth: BlockTruth,
  records: ReadonlyArray<Record<string, unknown>>,
): CrossCheckFindings {
  if (records.length !== 1) {
    const message =
      records.length === 0
        ? `the service has no block record for block ${truth.number}`
        : `the service has ${records.length} block records for block ${truth.number}`;
    return {
      failures: [failure('service_block.present', message, { block_number: truth.number, records: records.length })],
      unchecked: [],
    };
  }
  const record = records[0]!;
  const expected = chainValues(truth);
  return {
    failures: Object.entries(differences(record, expected, BLOCK_FIELDS)).map(([field, { expected, found }]) =>
      failure(
        `service_block.${field}`,
        `block ${truth.number}: the service's ${field} is ${show(found)}, the chain's ${show(expected)}`,
        { block_number: truth.number, field, expected, found },
      ),
    ),
    unchecked: unchecked(record, expected, BLOCK_FIELDS).map(
      (field) => `service_block.${field}: the service's ${field} cannot be checked, as the block gives no value for it`,
    ),
  };
}
