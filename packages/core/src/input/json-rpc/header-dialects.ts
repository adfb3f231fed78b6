/**
 * Header members whose meaning depends on the chain's clients. A member that one client gives as a second name of a
 * header field (OpenEthereum's and Nethermind's `author` for `miner`) is, on another chain, filled with another value
 * that the header does not hash, where that field is zero: there it restates nothing, so it never gives the field and
 * is not compared with it (its form is still checked). Beside a field that is not zero it names the field, as
 * anywhere else, and must agree with it.
 */
import type { RuleSetName } from '../../receipts/rules.js';

/**
 * The aliases that each chain's clients fill with another meaning where their field is zero, by the chain's rule
 * set. Bor leaves the coinbase (`miner`) zero in every header it hashes, and gives the block's signer, recovered from
 * the seal in `extraData` (`bor_getAuthor`), as `author`, as indexers copy it.
 */
const OTHER_MEANINGS: Partial<Record<RuleSetName, readonly string[]>> = {
  polygon: ['author'],
};

const NONE: readonly string[] = [];

/**
 * The header members that, on a chain of `rules`, mean something else beside a zero field (none when its rules are
 * unknown).
 *
 * @example
 * membersOfOtherMeaning('polygon') // ['author']: Bor's signer beside the zero coinbase
 * membersOfOtherMeaning('ethereum') // []: `author` is `miner` by another name, and must agree with it
 */
export function membersOfOtherMeaning(rules: RuleSetName | undefined): readonly string[] {
  return (rules === undefined ? undefined : OTHER_MEANINGS[rules]) ?? NONE;
}
