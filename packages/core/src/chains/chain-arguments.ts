/**
 * A chain id and a block number held to their contract where a public function is entered (the registry's
 * `verifiability`, a logs proof's `chainId`, an anchor proof's blocks): the one rule for both, so that every entry point
 * refuses a `'1'` or a `-1` in the same words, rather than looking up a chain or a block that is none (a string chain id
 * is "not in the registry", or "chain 1, not chain 1").
 */
import { kindOf } from '../json/show.js';

/**
 * Holds argument `argument` to a block number: a non-negative safe integer, or a non-negative bigint (a header's
 * number).
 * @throws TypeError for another type than a number or a bigint; RangeError for another number (-1, 1.5, NaN).
 * @example checkBlockNumber('19426587', 'number') // TypeError: number must be a number or a bigint, got a string
 */
export function checkBlockNumber(blockNumber: unknown, argument: string): asserts blockNumber is number | bigint {
  if (typeof blockNumber === 'bigint') {
    if (blockNumber < 0n) throw new RangeError(`${argument} must be a non-negative integer, got ${blockNumber}`);
    return;
  }
  if (typeof blockNumber !== 'number')
    throw new TypeError(`${argument} must be a number or a bigint, got ${kindOf(blockNumber)}`);
  if (!Number.isSafeInteger(blockNumber) || blockNumber < 0)
    throw new RangeError(`${argument} must be a non-negative integer, got ${blockNumber}`);
}

/**
 * Holds argument `argument` to a non-negative safe integer given as a number: a chain id, or a block number where only a
 * number is taken (a range audit's `from` and `to`).
 * @throws TypeError for another type than a number (`'1'`, `1n`, null); RangeError for another number (-1, 1.5, NaN).
 * @example checkWholeNumber('1000001', 'from') // TypeError: from must be a number, got a string
 */
export function checkWholeNumber(value: unknown, argument: string): asserts value is number {
  if (typeof value !== 'number') throw new TypeError(`${argument} must be a number, got ${kindOf(value)}`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${argument} must be a non-negative integer, got ${value}`);
}

/**
 * Holds argument `argument` to a chain id: a non-negative safe integer.
 * @throws TypeError for another type than a number (`'1'`, `1n`, null); RangeError for another number.
 * @example checkChainId('1', 'options.chainId') // TypeError: options.chainId must be a number, got a string
 */
export function checkChainId(chainId: unknown, argument: string): asserts chainId is number {
  checkWholeNumber(chainId, argument);
}
