/**
 * The rules that join a receipt's members and a block's receipts, the same whether they come
 * from a request body (`transactions[]`: `status`, `root`, `index`) or from a JSON-RPC node
 * (`receipts[]`: `status`, `root`, `transactionIndex`). Each reader spells the members its
 * own way; the rules and their messages are these.
 */
import { hexKey } from '../../bytes/hex.js';
import { expectedReceiptType, type RuleSet } from '../../receipts/rules.js';
import { join } from './json-values.js';
import type { Problems } from './problems.js';

/**
 * Whether a receipt's `root` member gives no post-state root: absent, null, or empty (go-ethereum
 * marshals `types.Receipt` with `"root": "0x"` beside `status`, so an empty root is no root).
 */
export function hasNoRoot(root: unknown): boolean {
  return root === undefined || root === null || root === '0x' || root === '0X' || root === '';
}

/**
 * What the outcome rule needs of one receipt: its type (when valid), which of status and root it carries, and whether
 * its form may carry both (a JSON-RPC receipt: clients give a pre-Byzantium root beside a status; a request body's
 * `transactions[]` gives exactly one).
 */
export interface ReceiptOutcome {
  type: number | undefined;
  hasStatus: boolean;
  hasRoot: boolean;
  rootBesideStatus: boolean;
}

/** A broken outcome rule: the member to report it at, why, and what was expected. */
export interface OutcomeProblem {
  member: 'status' | 'root';
  reason: 'missing' | 'conflict';
  expected: string;
}

/**
 * A status or a root, and a root only on a legacy (type 0) receipt: a post-state root predates Byzantium, typed
 * receipts came with Berlin. Where the form allows both (`rootBesideStatus`), a legacy receipt with both is read as its
 * root, as go-ethereum encodes a receipt (a non-empty post-state is hashed in place of the status): pre-Byzantium
 * receipts from geth, op-geth and older Nethermind carry a status beside their root that no consensus encoding holds.
 * Undefined when the rule holds.
 */
export function outcomeProblem({
  type,
  hasStatus,
  hasRoot,
  rootBesideStatus,
}: ReceiptOutcome): OutcomeProblem | undefined {
  if (hasStatus && hasRoot && !rootBesideStatus)
    return { member: 'root', reason: 'conflict', expected: 'exactly one of status and root; both were given' };
  if (!hasStatus && !hasRoot)
    return {
      member: 'status',
      reason: 'missing',
      expected: 'status (0 or 1), or root (32-byte hex) for a pre-Byzantium receipt',
    };
  if (hasRoot && type !== undefined && type !== 0)
    return {
      member: 'root',
      reason: 'conflict',
      expected: `status; a post-state root exists only on pre-Byzantium legacy receipts, this one has type ${type}`,
    };
  return undefined;
}

/** The outcome rule ({@link outcomeProblem}) of the receipt at `path`, its problem added to `problems`. */
export function checkOutcome(outcome: ReceiptOutcome, path: string, problems: Problems): void {
  const problem = outcomeProblem(outcome);
  if (problem !== undefined) problems.add(join(path, problem.member), problem.reason, problem.expected);
}

/** The OP stack's deposit receipt type: the one receipt whose nonce and version a consensus encoding holds. */
const OP_DEPOSIT = 0x7e;

/** The deposit members a receipt gives, as each reader spells them. */
export interface DepositMembers {
  /** The nonce's member (`depositNonce`, `deposit_nonce`), where given. */
  nonce?: string;
  /** The version's member (`depositReceiptVersion`, `deposit_receipt_version`), where given. */
  version?: string;
}

/**
 * The deposit member a receipt gives where it is no OP-stack deposit receipt (type 0x7e, which `rules`, when known,
 * hash as a deposit): op-geth and op-reth give `depositNonce` and `depositReceiptVersion` on deposit receipts alone,
 * and no other receipt's encoding holds them, so a value there is a claim no hash covers. The nonce's where both are
 * given; undefined where the rule holds.
 */
export function strayDepositMember(
  type: number | undefined,
  given: DepositMembers,
  rules: RuleSet | undefined,
): string | undefined {
  const member = given.nonce ?? given.version;
  if (member === undefined) return undefined;
  if (type === OP_DEPOSIT && (rules === undefined || rules.layouts.get(OP_DEPOSIT) === 'op-deposit')) return undefined;
  return member;
}

/**
 * The deposit rule ({@link strayDepositMember}) of the receipt at `path`, its problem added to `problems`: true where
 * it is broken.
 *
 * @example
 * checkDepositMembers(2, { nonce: 'depositNonce' }, undefined, 'receipts[1]', problems) // true: receipts[1].depositNonce
 */
export function checkDepositMembers(
  type: number | undefined,
  given: DepositMembers,
  rules: RuleSet | undefined,
  path: string,
  problems: Problems,
): boolean {
  const member = strayDepositMember(type, given, rules);
  if (member === undefined) return false;
  problems.add(
    join(path, member),
    'conflict',
    'absent: deposit fields belong only to OP-stack deposit receipts (type 126 = 0x7e)',
  );
  return true;
}

/**
 * A type the rule set knows, reported at `path` (the member itself, e.g. `transactions[3].type`);
 * `path` may be a function, called only to report, where a block's receipts would otherwise each
 * build a path string.
 */
export function checkType(type: number, rules: RuleSet, path: string | (() => string), problems: Problems): boolean {
  if (rules.layouts.has(type)) return true;
  problems.add(typeof path === 'string' ? path : path(), 'unknown_type', expectedReceiptType(rules, type));
  return false;
}

/**
 * Indexes must be exactly 0..n-1, each once. `indexes[position]` is the index an entry
 * claims (undefined where it had none valid); `pathOf(position)` names its index member.
 * Returns, for each index, the position of its entry (holes where the rule failed).
 *
 * @example
 * orderByIndex([1, 0], (p) => `transactions[${p}].index`, 'transactions', problems) // [1, 0]
 */
export function orderByIndex(
  indexes: ReadonlyArray<number | undefined>,
  pathOf: (position: number) => string,
  listPath: string,
  problems: Problems,
): number[] {
  const n = indexes.length;
  const positions = new Array<number>(n);
  // The position that claimed each index, or -1: an array, where a Map of a million entries cost the collector.
  const seenAt = new Array<number>(n).fill(-1);
  indexes.forEach((index, position) => {
    if (index === undefined) return;
    if (index >= n) {
      problems.add(
        pathOf(position),
        'out_of_range',
        `an index in 0..${n - 1} (the list has ${n} receipts), got ${index}`,
      );
      return;
    }
    const first = seenAt[index]!;
    if (first !== -1) {
      problems.add(
        pathOf(position),
        'duplicate',
        `each index once; ${index} is also the index of ${listPath}[${first}]`,
      );
      return;
    }
    seenAt[index] = position;
    positions[index] = position;
  });
  if (indexes.every((index) => index !== undefined)) {
    for (let i = 0; i < n; i++) {
      if (seenAt[i] === -1)
        problems.add(listPath, 'missing', `a receipt with index ${i}: indexes must be exactly 0..${n - 1}`);
    }
  }
  return positions;
}

/**
 * The transaction hashes a block's receipts are known by, the same rule whether they come from a request body
 * (`transactions[].tx_hash`) or from a JSON-RPC node (`receipts[].transactionHash`, else its logs'): one transaction
 * has one receipt, so a second receipt known by a hash (with or without its 0x, in either case) is a `conflict`
 * naming it and the first. Each hash is kept with where it was given: a receipt's position, its member named by
 * `memberPath` only on a problem (a path string per receipt was most of a large block's check), or the path of another
 * member that gives it.
 */
export class TransactionHashes {
  readonly #firstAt = new Map<string, number | string>();
  readonly #memberPath: (position: number) => string;

  constructor(memberPath: (position: number) => string) {
    this.#memberPath = memberPath;
  }

  /** Names `hash`, read as a hash and given at `at`, where an earlier receipt is known by it; else keeps it. */
  add(hash: string, at: number | string, problems: Problems): void {
    const key = hexKey(hash);
    const first = this.#firstAt.get(key);
    if (first === undefined) {
      this.#firstAt.set(key, at);
      return;
    }
    const where = (given: number | string) => (typeof given === 'number' ? this.#memberPath(given) : given);
    problems.add(
      where(at),
      'conflict',
      `a transaction hash no other receipt of the block has (one transaction has one receipt), got ${hash}, which ${where(first)} has`,
    );
  }
}
