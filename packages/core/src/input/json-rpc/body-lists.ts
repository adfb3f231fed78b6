/**
 * The lists of a block's body that a node's header object carries beside its transactions (eth_getBlockByNumber's
 * `withdrawals` and `uncles`), which the header commits to: read here, so that none is passed unchecked. The withdrawals
 * are held to the header's withdrawalsRoot when the block is verified (verify-block.ts); an uncle listed beside the
 * hash of no uncles is refused as soon as it is read.
 */
import { bytesEqual } from '../../bytes/hex.js';
import { NO_UNCLES_HASH, type Withdrawal } from '../../header/body-roots.js';
import {
  describe,
  join,
  readArray,
  readHex,
  readObject,
  readQuantity,
  type JsonObject,
} from '../values/json-values.js';
import { ADDRESS_BYTES } from '../values/log-list.js';
import type { Problems } from '../values/problems.js';
import { WITHDRAWAL_SPELLINGS } from './rpc-members.js';

const isAbsent = (value: unknown) => value === undefined || value === null;
/** An uncle's hash, as `uncles` lists it. */
const HASH_BYTES = 32;

/** `n` things named `what`, for a message: `1 uncle`, `2 uncles`. */
export const counted = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * The header object's `withdrawals` (at `path`), each `{index, validatorIndex, address, amount}`; undefined where it
 * gives none, or where one is malformed, each problem named at its member.
 */
export function readWithdrawals(header: JsonObject, path: string, problems: Problems): Withdrawal[] | undefined {
  if (isAbsent(header.withdrawals)) return undefined;
  const listPath = join(path, 'withdrawals');
  const list = readArray(header.withdrawals, listPath, problems, 'an array of withdrawals');
  if (list === undefined) return undefined;
  const before = problems.count;
  const withdrawals = list.map((value, i): Withdrawal | undefined => {
    const at = `${listPath}[${i}]`;
    const w = readObject(value, at, problems, 'a withdrawal {index, validatorIndex, address, amount}');
    if (w === undefined) return undefined;
    WITHDRAWAL_SPELLINGS.check(w, at, problems);
    const index = readQuantity(w.index, join(at, 'index'), problems);
    const validatorIndex = readQuantity(w.validatorIndex, join(at, 'validatorIndex'), problems);
    const address = readHex(w.address, join(at, 'address'), problems, ADDRESS_BYTES);
    const amount = readQuantity(w.amount, join(at, 'amount'), problems);
    if (index === undefined || validatorIndex === undefined || address === undefined || amount === undefined)
      return undefined;
    return { index, validatorIndex, address, amount };
  });
  return problems.count === before ? (withdrawals as Withdrawal[]) : undefined;
}

/**
 * The header object's `uncles` (at `path`), where given: an array of 32-byte hashes, and empty where the header's
 * `sha3Uncles` is the hash of no uncles; a list beside any other hash names uncles that hash, which is not checked here (the block hash covers
 * `sha3Uncles`, not the list).
 */
export function checkUncles(
  header: JsonObject,
  sha3Uncles: Uint8Array | undefined,
  path: string,
  problems: Problems,
): void {
  const { uncles } = header;
  if (isAbsent(uncles)) return;
  const unclesPath = join(path, 'uncles');
  if (!Array.isArray(uncles)) {
    problems.add(unclesPath, 'invalid_format', `an array of the uncles' hashes, got ${describe(uncles)}`);
    return;
  }
  // Each a hash, as every node lists them: a list the block hash does not cover is still read, never passed unread.
  uncles.forEach((uncle: unknown, i) =>
    readHex(uncle, `${unclesPath}[${i}]`, problems, HASH_BYTES, "an uncle's 32-byte hash"),
  );
  if (uncles.length > 0 && sha3Uncles !== undefined && bytesEqual(sha3Uncles, NO_UNCLES_HASH))
    problems.add(
      unclesPath,
      'conflict',
      `none: the header's sha3Uncles is the hash of no uncles (0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347), got ${counted(uncles.length, 'uncle')}`,
    );
}
