/**
 * Properties of the receipt proofs (evm-integrity/proof): a changed byte anywhere in a proof is
 * refused, naming that node, and a proof of one index never passes for another.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { receiptProof, receiptProofs, verifyReceiptProof } from '../packages/core/src/proof/index.js';
import { receiptArb, rulesArb } from './helpers/arbitraries.js';
import { runs } from './helpers/runs.js';

/** Property-test case counts. */
export const RUNS = { mutation: runs(200), otherIndex: runs(200), many: runs(60) } as const;

/** A rule set, 1 to 300 receipts under it (past the 127/128 key boundary), and a position among them. */
const proofCase = rulesArb.chain((rules) =>
  fc
    .oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 120, max: 300 }))
    .chain((n) => fc.array(receiptArb(rules), { minLength: n, maxLength: n }))
    .chain((receipts) =>
      fc.record({
        rules: fc.constant(rules),
        receipts: fc.constant(receipts),
        index: fc.nat({ max: receipts.length - 1 }),
      }),
    ),
);

describe('receipt proofs', () => {
  it(`any changed byte of any node is refused, at that node, as a hash mismatch (${RUNS.mutation} runs)`, () => {
    fc.assert(
      fc.property(proofCase, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), (c, nodePick, bytePick, delta) => {
        const { receiptsRoot, proof } = receiptProof(c.receipts, c.index, { rules: c.rules });
        expect(verifyReceiptProof(receiptsRoot, c.index, proof, { rules: c.rules }).ok).toBe(true);
        const node = nodePick % proof.length;
        const at = bytePick % proof[node]!.length;
        const changed = proof.map((n) => n.slice());
        changed[node]![at]! ^= delta;
        const verdict = verifyReceiptProof(receiptsRoot, c.index, changed, { rules: c.rules });
        expect(verdict.ok).toBe(false);
        if (!verdict.ok) expect(verdict.error).toMatchObject({ reason: 'hash-mismatch', node });
      }),
      { numRuns: RUNS.mutation },
    );
  }, 300_000);

  it(`a proof for index i never verifies as index j (${RUNS.otherIndex} runs)`, () => {
    fc.assert(
      fc.property(proofCase, fc.nat({ max: 400 }), (c, j) => {
        fc.pre(j !== c.index);
        const { receiptsRoot, proof } = receiptProof(c.receipts, c.index, { rules: c.rules });
        const verdict = verifyReceiptProof(receiptsRoot, j, proof, { rules: c.rules });
        expect(verdict.ok).toBe(false);
        if (!verdict.ok)
          expect(['path-mismatch', 'missing-node', 'extra-node', 'hash-mismatch']).toContain(verdict.error.reason);
      }),
      { numRuns: RUNS.otherIndex },
    );
  }, 300_000);

  it(`many proofs from one build are each the one-at-a-time proof, in any order, repeats included (${RUNS.many} runs)`, () => {
    fc.assert(
      fc.property(proofCase, fc.array(fc.nat(), { maxLength: 12 }), (c, picks) => {
        const indexes = [c.index, ...picks.map((p) => p % c.receipts.length)];
        const many = receiptProofs(c.receipts, indexes, { rules: c.rules });
        expect(many).toEqual(indexes.map((i) => receiptProof(c.receipts, i, { rules: c.rules })));
      }),
      { numRuns: RUNS.many },
    );
  }, 300_000);
});
