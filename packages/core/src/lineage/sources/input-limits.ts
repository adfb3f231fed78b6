import { MAX_JSON_DEPTH } from '../../json/depth.js';
import { SourceError } from '../../errors.js';

/**
 * What one lineage audit may take: beyond any of these the input is refused (400, exit 2),
 * never walked. They bound the CPU and memory of one audit while admitting real lineages with
 * room to spare (a record's genesis is a few logs and calls; a derived price has thousands of
 * parents at most). The walk itself is linear in what it reads.
 */
export const LINEAGE_LIMITS = Object.freeze({
  /** Request/response pairs in one bundle. */
  bundleExchanges: 100_000,
  /** Blocks in one bundle. */
  bundleBlocks: 10_000,
  /** Levels of JSON nesting (arrays and objects) in a bundle or an answer; the bundle itself is level 1. */
  jsonDepth: MAX_JSON_DEPTH,
  /** Records in one lineage: the record asked for and every parent followed. */
  records: 10_000,
  /** Levels of parents below the record asked for. */
  parentDepth: 256,
  /** lineage/genesis pages of one record. */
  genesisPages: 1_000,
  /** Genesis artifacts (logs plus function results) of one record. */
  recordArtifacts: 10_000,
  /** Genesis artifacts of all records of one lineage. */
  lineageArtifacts: 100_000,
});

export type LineageLimit = keyof typeof LINEAGE_LIMITS;

const WHAT: Record<LineageLimit, string> = {
  bundleExchanges: 'exchanges in a bundle',
  bundleBlocks: 'blocks in a bundle',
  jsonDepth: 'levels of JSON nesting',
  records: 'records in one lineage (the record and the parents followed)',
  parentDepth: 'levels of parents',
  genesisPages: 'lineage/genesis pages per record',
  recordArtifacts: 'genesis artifacts (logs and function results) per record',
  lineageArtifacts: 'genesis artifacts in one lineage',
};

/**
 * The error for input beyond a limit: `subject` says whose (`the genesis of 6de2…`), `path`
 * where in a bundle it is (empty: the bundle as a whole).
 * @example
 * limitExceeded('genesisPages', 'the genesis of 6de2…') // SourceError: the genesis of 6de2… has more than the limit of 1000 lineage/genesis pages per record
 */
export function limitExceeded(limit: LineageLimit, subject: string, path = ''): SourceError {
  const what = `${LINEAGE_LIMITS[limit]} ${WHAT[limit]}`;
  return new SourceError(`${subject} has more than the limit of ${what}${path === '' ? '' : ` (at ${path})`}`, {
    path,
    reason: 'out_of_range',
    expected: `at most ${what}; ${subject} has more`,
  });
}
