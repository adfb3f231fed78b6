/**
 * When a receipts root that differs is no mismatch: the body left out a member the server then read by its default,
 * and the block may be one where that default is wrong. The difference may then be the member left out, not the
 * receipts, so the answer asks for it rather than asserting a mismatch.
 */
import { byzantiumAfterGenesis, describeActivation, unversionedDepositFromCanyon } from '../chains/fork-schedule.js';
import { untypedDoubt, untypedRootReason } from '../chains/untyped-receipts.js';
import type { ReceiptRootRefusal, ReceiptRootRequest } from '../input/requests/receipt-root-request.js';

/**
 * Why the root computed from `request` may differ from `receipt_root` for a default the server assumed, as the refusal
 * to answer: without the block's number (on a chain whose blocks before Byzantium hash a post-state root) untyped
 * receipts that give a status are 400 naming `block_number`; where the types read as 0 may be wrong (untypedDoubt, the rule
 * `verify block` applies too), 422 naming the types; where a deposit lacks its nonce or version and no `header_rlp`
 * dates the block against Canyon, 422 naming the deposit. Null where the difference can only be the receipts'.
 *
 * @example
 * rootDoubt(mainnetBodyWithoutTypes) // { kind: 'chain_not_supported', verifiability: { check: 'receipts_root', … } }
 */
export function rootDoubt(request: ReceiptRootRequest): ReceiptRootRefusal | null {
  const { chain, receipts } = request;
  const number =
    request.header?.fields.number ?? (request.blockNumber === undefined ? undefined : BigInt(request.blockNumber));
  // A typed transaction dates the block after Berlin, so after Byzantium too.
  const untyped = receipts.every((receipt) => receipt.type === 0);
  const byzantium = number === undefined && untyped ? byzantiumAfterGenesis(chain.forks) : undefined;
  const withStatus = receipts.findIndex((receipt) => receipt.root === undefined);
  const doubt = untypedDoubt({
    chain,
    number,
    count: receipts.length,
    typesGiven: request.typesGiven,
    rootGiven: receipts.some((receipt) => receipt.root !== undefined),
  });
  if (byzantium !== undefined && withStatus !== -1) {
    const types =
      doubt?.before === undefined ? '' : `; from ${doubt.before.fork} on, each transaction's type is needed as well`;
    const expected = `the block number (or header_rlp): the receipts give a status and no post-state root, and ${chain.name} blocks before Byzantium (${describeActivation(byzantium)}) hash a receipt's root, not its status (reth's receipts of those blocks give no root), so only the block's era tells whether the root computed from them differs${types}`;
    return {
      kind: 'invalid',
      problems: [{ name: 'block_number', location: 'body', reason: 'missing', expected }],
      count: 1,
    };
  }
  if (doubt === undefined)
    return request.undatedDeposit === undefined
      ? null
      : // The root was rebuilt as before Canyon; from Canyon on the members left out are hashed, so the difference may
        // be theirs (a user check: a correct OP Mainnet body without them was answered is_identical false).
        unjudged(
          request,
          number,
          `${unversionedDepositFromCanyon(`transactions[${request.undatedDeposit}]`)}; without header_rlp the block's time, which Canyon is counted in, is unknown, and the root rebuilt as before Canyon differs from receipt_root`,
          "Send each deposit's `deposit_nonce` and `deposit_receipt_version`, as op-geth's receipts give them, or the block's `header_rlp`.",
        );
  const before =
    doubt.before === undefined ? '' : ` A block before ${doubt.before.fork} holds none: send its block_number.`;
  return unjudged(
    request,
    number,
    untypedRootReason(doubt, 'transaction', 'receipt_root'),
    `Send each transaction's \`type\` (its EIP-2718 type, as eth_getTransactionReceipt gives it; 0 for a legacy transaction), the extension of docs/api.md: the hosted specification's body has none.${before}`,
  );
}

/** The 422 of a receipts root that differs for `reason`, something the body left out, and `hint` asking for it. */
function unjudged(
  request: ReceiptRootRequest,
  number: bigint | undefined,
  reason: string,
  hint: string,
): ReceiptRootRefusal {
  const { chain } = request;
  return {
    kind: 'chain_not_supported',
    ...(number !== undefined && { blockNumber: number }),
    ...(request.excluded.length > 0 && { excluded: request.excluded }),
    verifiability: {
      status: 'not_verifiable',
      chainId: chain.chainId,
      chain,
      reason,
      era: request.era,
      firstVerifiableBlock: null,
      check: 'receipts_root',
      hint,
    },
  };
}
