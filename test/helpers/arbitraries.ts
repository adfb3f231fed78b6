import fc from 'fast-check';
import { RULE_SETS, type Log, type Receipt, type RuleSet } from '../../packages/core/src/index.js';

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });

/** Data: mostly short, sometimes empty, sometimes past the 55-byte and 256-byte RLP boundaries. */
const data = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 50, maxLength: 2000, size: 'max' }) },
);

export const logArb: fc.Arbitrary<Log> = fc.record({
  address: bytes(20),
  topics: fc.array(bytes(32), { maxLength: 4 }),
  data,
});

const gas = fc.oneof(
  fc.bigInt({ min: 0n, max: 30_000_000n }),
  fc.constantFrom(0n, 127n, 128n, 255n, 256n, (1n << 64n) - 1n),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
);

/** A receipt of any type `rules` knows, with a pre-Byzantium root on some legacy ones. */
export function receiptArb(rules: RuleSet): fc.Arbitrary<Receipt> {
  const types = [...rules.layouts.keys()];
  return fc
    .record({
      type: fc.constantFrom(...types),
      useRoot: fc.boolean(),
      root: bytes(32),
      status: fc.constantFrom<0 | 1>(0, 1),
      cumulativeGasUsed: gas,
      logs: fc.array(logArb, { maxLength: 5 }),
      depositNonce: fc.option(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { nil: undefined }),
      depositReceiptVersion: fc.option(fc.constantFrom(0n, 1n), { nil: undefined }),
    })
    .map(({ type, useRoot, root, status, depositNonce, depositReceiptVersion, ...rest }) => {
      const receipt: Receipt = { type, ...rest, ...(type === 0 && useRoot ? { root } : { status }) };
      if (rules.layouts.get(type) === 'op-deposit' && depositNonce !== undefined) {
        receipt.depositNonce = depositNonce;
        if (depositReceiptVersion !== undefined) receipt.depositReceiptVersion = depositReceiptVersion;
      }
      return receipt;
    });
}

/** List lengths around the trie's key boundaries (127/128, 255/256) and up to 600. */
export const listLength = fc.oneof(
  fc.integer({ min: 0, max: 20 }),
  fc.integer({ min: 120, max: 135 }),
  fc.integer({ min: 250, max: 262 }),
  fc.integer({ min: 0, max: 600 }),
);

export const rulesArb = fc.constantFrom(...Object.values(RULE_SETS));

/** A rule set and a receipt list under it, of 0..600 receipts. */
export const blockArb = rulesArb.chain((rules) =>
  listLength.chain((n) =>
    fc.record({ rules: fc.constant(rules), receipts: fc.array(receiptArb(rules), { minLength: n, maxLength: n }) }),
  ),
);
