/**
 * Header members whose meaning depends on the chain's clients. A member that one client gives as a second name of a
 * header field (OpenEthereum's and Nethermind's `author` for `miner`) is, on another chain, filled with another value
 * that the header does not hash: there it restates nothing, so it is neither compared with the field nor refused.
 */
import type { RuleSetName } from '../receipts/rules.js';

/**
 * The aliases that each chain's clients fill with another meaning, by the chain's rule set. Bor leaves the
 * coinbase (`miner`) zero in every header it hashes, and gives the block's signer, recovered from the seal in
 * `extraData` (`bor_getAuthor`), as `author`, as indexers copy it.
 */
const OTHER_MEANINGS: Partial<Record<RuleSetName, readonly string[]>> = {
  polygon: ['author'],
};

const NONE: readonly string[] = [];

/**
 * The header members that name no header field on a chain of `rules` (none when its rules are unknown).
 *
 * @example
 * membersOfOtherMeaning('polygon') // ['author']: Bor's signer, not the zero coinbase
 * membersOfOtherMeaning('ethereum') // []: `author` is `miner` by another name, and must agree with it
 */
export function membersOfOtherMeaning(rules: RuleSetName | undefined): readonly string[] {
  return (rules === undefined ? undefined : OTHER_MEANINGS[rules]) ?? NONE;
}
