/**
 * The frozen historical hashes accumulator (EIP-7643) the package ships in `assets/`: the roots of the 1,897 epoch
 * records of the blocks before the merge, 60 KB, as the Portal Network publishes it
 * (ethereum/portal-spec-tests `tests/mainnet/history/accumulator/historical_hashes_accumulator.ssz`). It is not
 * trusted as a file: each reader holds it to the root EIP-7643 fixes (`readAccumulator`). Here, one level under
 * `src/` and `dist/`, so that the path is the same from the compiled files and from the bundle in `dist/cli-bundle/`.
 */
import { fileURLToPath } from 'node:url';

/** The accumulator's SSZ in the installed package. */
export const ACCUMULATOR_FILE = fileURLToPath(
  new URL('../../assets/historical_hashes_accumulator.ssz', import.meta.url),
);
