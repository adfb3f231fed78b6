/**
 * Receipt rule sets: which transaction types a chain family knows, and how each
 * type's receipt is laid out in consensus.
 *
 * Sources: EIP-2718, EIP-2930, EIP-1559, EIP-4844, EIP-7702 (types 1-4); op-geth
 * `core/types/receipt.go` (deposit receipts, Regolith nonce, Canyon version);
 * Arbitrum Nitro's go-ethereum fork `core/types/receipt.go` (0x64-0x6a typed like
 * EIP-2718, 0x78 ArbitrumLegacy hashed as an untyped receipt); Scroll's l2geth
 * (0x7e L1 message with a plain body); bor (0x7f state-sync transaction).
 */

import { exportedObjectError, kindOf, show } from '../json/show.js';

/** Receipt body layouts. */
export type ReceiptLayout =
  /** rlp([statusOrRoot, cumulativeGas, bloom, logs]) with no type byte. */
  | 'untyped'
  /** type || rlp([status, cumulativeGas, bloom, logs]). */
  | 'typed'
  /** 0x7e || rlp([status, cumulativeGas, bloom, logs, (depositNonce, depositReceiptVersion)?]). */
  | 'op-deposit';

export type RuleSetName = 'ethereum' | 'optimism' | 'arbitrum' | 'scroll' | 'polygon';

export interface RuleSet {
  name: RuleSetName;
  /** The era of the chain this variant applies to, for messages; absent for the rule set itself. */
  era?: string;
  /** Known types and their layout; anything else is an unknown type. */
  layouts: ReadonlyMap<number, ReceiptLayout>;
}

const ETHEREUM_TYPES: Array<[number, ReceiptLayout]> = [
  [0, 'untyped'],
  [1, 'typed'],
  [2, 'typed'],
  [3, 'typed'],
  [4, 'typed'],
];
/** L2s that have no blob transactions (type 3). */
const NO_BLOBS = ETHEREUM_TYPES.filter(([type]) => type !== 3);

const ARBITRUM_TYPES: Array<[number, ReceiptLayout]> = [
  ...NO_BLOBS,
  // Nitro defines 0x64-0x66 and 0x68-0x6a; 0x67 is unassigned.
  ...[0x64, 0x65, 0x66, 0x68, 0x69, 0x6a].map((type): [number, ReceiptLayout] => [type, 'typed']),
  [0x78, 'untyped'],
];

/** Polygon PoS's state-sync transaction type, from Madhugiri on (PIP-74). */
export const STATE_SYNC_TX_TYPE = 0x7f;

export const RULE_SETS: Readonly<Record<RuleSetName, RuleSet>> = {
  ethereum: { name: 'ethereum', layouts: new Map(ETHEREUM_TYPES) },
  optimism: { name: 'optimism', layouts: new Map([...NO_BLOBS, [0x7e, 'op-deposit']]) },
  arbitrum: { name: 'arbitrum', layouts: new Map(ARBITRUM_TYPES) },
  scroll: { name: 'scroll', layouts: new Map([...NO_BLOBS, [0x7e, 'typed']]) },
  polygon: { name: 'polygon', layouts: new Map([...NO_BLOBS, [STATE_SYNC_TX_TYPE, 'typed']]) },
};

export const RULE_SET_NAMES = Object.keys(RULE_SETS) as RuleSetName[];

/**
 * Holds an argument to the rule sets' names (`argument` names it in the message): a TypeError for a value that is not
 * a string, a RangeError, listing the names, for one that names no rule set.
 * @example
 * checkRuleSetName('Ethereum', 'rules') // RangeError: rules must name a rule set, one of ethereum, …; got "Ethereum"
 */
export function checkRuleSetName(value: unknown, argument: string): asserts value is RuleSetName {
  const expected = `${argument} must name a rule set, one of ${RULE_SET_NAMES.join(', ')}`;
  if (typeof value !== 'string') throw new TypeError(`${expected}; got ${kindOf(value)}`);
  if (!(RULE_SET_NAMES as string[]).includes(value)) throw new RangeError(`${expected}; got ${show(value)}`);
}

/**
 * Holds an argument to a rule set object (`RULE_SETS.optimism`, or an era's variant the registry gives), where a
 * function takes one (`options.rules`): a name in its place, or anything else without a rule set's `layouts`, is a
 * TypeError naming the argument and the object to pass (all of them, for a name of none); an object whose `name` names
 * no rule set, with its layouts or without, is refused as {@link checkRuleSetName} refuses it (`options.rules.name`).
 * @example
 * checkRuleSet('optimism', 'options.rules') // TypeError: options.rules must be a rule set object (RULE_SETS.optimism), got the string "optimism"
 */
export function checkRuleSet(value: unknown, argument: string): asserts value is RuleSet {
  const object =
    typeof value === 'object' && value !== null ? (value as Partial<Record<keyof RuleSet, unknown>>) : null;
  if (object?.layouts instanceof Map) return checkRuleSetName(object.name, `${argument}.name`);
  // An object whose name names none is refused for that name, layouts or not: no object to pass would be the right one.
  const name = object?.name;
  if (typeof name === 'string' && !(RULE_SET_NAMES as string[]).includes(name) && !Array.isArray(value))
    return checkRuleSetName(name, `${argument}.name`);
  throw exportedObjectError(value, argument, {
    kind: 'rule set',
    part: 'layouts',
    names: RULE_SET_NAMES,
    constant: (rules) => `RULE_SETS.${rules}`,
  });
}

/**
 * Holds the options of a function that encodes receipts (`{ rules, keccak }`) to an object, absent or not, and its
 * `rules` as {@link checkRuleSet}: null is a TypeError naming `options`, and so is a rule set given in their place
 * (`receiptsRoot(receipts, RULE_SETS.optimism)`), which would be read as no options, so under Ethereum's rules.
 * @example checkReceiptOptions(RULE_SETS.optimism) // TypeError: options must be { rules, keccak } …
 */
export function checkReceiptOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`options must be an object ({ rules, keccak }) or absent, got ${kindOf(options)}`);
  if ((options as Partial<RuleSet>).layouts instanceof Map)
    throw new TypeError(
      `options must be { rules, keccak }, got a rule set: give it as { rules: RULE_SETS.${String((options as Partial<RuleSet>).name)} }`,
    );
  const { rules } = options as { rules?: unknown };
  if (rules !== undefined) checkRuleSet(rules, 'options.rules');
}

/**
 * Polygon PoS before its Madhugiri fork: Bor's state sync was not yet a 0x7f
 * transaction (its receipt stood outside the receipts root), so 0x7f is no type of
 * that era (bor PR #1726, PIP-74).
 */
export const POLYGON_BEFORE_STATE_SYNC_TRANSACTIONS: RuleSet = {
  name: 'polygon',
  era: 'before state sync became a 0x7f transaction (Madhugiri)',
  layouts: new Map(NO_BLOBS),
};

/** What a receipt's type must be, for a problem's `expected`. */
export function expectedReceiptType(rules: RuleSet, got: number): string {
  return `a receipt type of ${describeRuleSet(rules)}: ${describeTypes(rules)}; got ${got}`;
}

/** "the polygon rule set", with its era when it is an era's variant. */
export function describeRuleSet(rules: RuleSet): string {
  return `the ${rules.name} rule set${rules.era === undefined ? '' : ` ${rules.era}`}`;
}

/** Human list of a rule set's types, for error messages: "0, 1, 2, 4, 0x7e". */
export function describeTypes(rules: RuleSet): string {
  return [...rules.layouts.keys()].map((t) => (t < 16 ? String(t) : `0x${t.toString(16)}`)).join(', ');
}
