/**
 * When a receipts root that differs is no mismatch: the body left out a member the server then read by its default,
 * and the block may be one where that default is wrong. The difference may then be the member left out, not the
 * receipts, so the answer asks for it rather than asserting a mismatch.
 */
import {
  byzantiumAfterGenesis,
  describeActivation,
  mayHoldTypedTransactions,
  typedTransactionsFrom,
} from '../chains/fork-schedule.js';
import type { ReceiptRootRefusal, ReceiptRootRequest } from '../input/requests/receipt-root-request.js';

/**
 * Why the root computed from `request` may differ from `receipt_root` for a default the server assumed, as the refusal
 * to answer: without the block's number (on a chain whose blocks before Byzantium hash a post-state root) untyped
 * receipts that give a status are 400 naming `block_number`; where no transaction gives its `type` and the block may hold typed
 * transactions, 422 naming the types. Null where the difference can only be the receipts'.
 *
 * @example
 * rootDoubt(mainnetBodyWithoutTypes) // { kind: 'chain_not_supported', verifiability: { check: 'receipts_root', … } }
 */
export function rootDoubt(request: ReceiptRootRequest): ReceiptRootRefusal | null {
  const { chain, receipts } = request;
  if (receipts.length === 0) return null;
  const number =
    request.header?.fields.number ?? (request.blockNumber === undefined ? undefined : BigInt(request.blockNumber));
  const typed = typedTransactionsFrom(chain.forks);
  const typesMissing = !request.typesGiven && mayHoldTypedTransactions(chain.forks, number);
  // A typed transaction dates the block after Berlin, so after Byzantium too.
  const untyped = receipts.every((receipt) => receipt.type === 0);
  const byzantium = number === undefined && untyped ? byzantiumAfterGenesis(chain.forks) : undefined;
  const withStatus = receipts.findIndex((receipt) => receipt.root === undefined);
  if (byzantium !== undefined && withStatus !== -1) {
    const types = typesMissing ? `; from ${typed!.fork} on, each transaction's type is needed as well` : '';
    const expected = `the block number (or header_rlp): the receipts give a status and no post-state root, and ${chain.name} blocks before Byzantium (${describeActivation(byzantium)}) hash a receipt's root, not its status (reth's receipts of those blocks give no root), so only the block's era tells whether the root computed from them differs${types}`;
    return {
      kind: 'invalid',
      problems: [{ name: 'block_number', location: 'body', reason: 'missing', expected }],
      count: 1,
    };
  }
  if (!typesMissing) return null;
  const where =
    typed === undefined
      ? `${chain.name}'s blocks may hold typed transactions`
      : `the block ${number === undefined && typed.block! > 0 ? 'may be' : 'is'} from ${typed.fork} (${describeActivation(typed)}) on, where transactions may be typed`;
  const before =
    typed !== undefined && number === undefined && typed.block! > 0
      ? ` A block before ${typed.fork} holds none: send its block_number.`
      : '';
  return {
    kind: 'chain_not_supported',
    ...(number !== undefined && { blockNumber: number }),
    ...(request.excluded.length > 0 && { excluded: request.excluded }),
    verifiability: {
      status: 'not_verifiable',
      chainId: chain.chainId,
      chain,
      reason: `no transaction gives its type, so each was read as 0 (legacy), and the root computed so differs from receipt_root; ${where}, and a typed transaction's receipt hashes its type, so the difference may be the types left out, not the receipts`,
      era: request.era,
      firstVerifiableBlock: null,
      check: 'receipts_root',
      hint: `Send each transaction's \`type\` (its EIP-2718 type, as eth_getTransactionReceipt gives it; 0 for a legacy transaction), the extension of docs/api.md: the hosted specification's body has none.${before}`,
    },
  };
}
