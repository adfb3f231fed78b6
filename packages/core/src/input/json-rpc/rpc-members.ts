/**
 * The other spellings of the members the JSON-RPC block reader reads, of each object of a block (a log's: log-list.ts'
 * RPC_LOG_SPELLINGS): a member that is one of them spelled another way is refused, beside it or not; every other member
 * a node adds is ignored.
 */
import { HEADER_LAYOUTS } from '../../header/layouts.js';
import { NITRO_MEMBERS } from './arbitrum-header.js';
import { SecondSpellings } from '../values/second-spellings.js';

/**
 * The block object's, of its parts, the audit source's count of its transactions and how it asked the receipts
 * (restated-members.ts).
 */
export const BLOCK_SPELLINGS = new SecondSpellings([
  'id',
  'chain_id',
  'header',
  'receipts',
  'raw_receipts',
  'transaction_count',
  'receipts_by_transaction',
]);

/**
 * A header's, of its members in any layout: each field under its name and its aliases (`prevRandao`), the zeros a
 * layout does not hash, what a layout carries (`blockExtraData`), `hash`, `sealFields`, the transactions it lists and
 * counts, the withdrawals and uncles it lists (body-lists.ts), and Nitro's members. A layout's own reader refuses what it does not take; this list only tells a second
 * spelling.
 */
export const HEADER_SPELLINGS = new SecondSpellings(
  (() => {
    // Gathered in one set, not spread from arrays made for each field: this runs at every load.
    const names = new Set<string>();
    for (const layout of Object.values(HEADER_LAYOUTS)) {
      for (const fields of [layout.fields, layout.unhashedZeros ?? []])
        for (const field of fields) {
          names.add(field.name);
          for (const alias of field.aliases ?? []) names.add(alias);
        }
      for (const name of layout.carried ?? []) names.add(name);
    }
    for (const name of [
      'hash',
      'sealFields',
      'transactions',
      'transactionCount',
      'withdrawals',
      'uncles',
      ...NITRO_MEMBERS,
    ])
      names.add(name);
    return [...names];
  })(),
);

/** A receipt's, of its consensus fields, its bloom and the members that repeat the block (restated-members.ts). */
export const RECEIPT_SPELLINGS = new SecondSpellings([
  'type',
  'status',
  'root',
  'cumulativeGasUsed',
  'logs',
  'logsBloom',
  'depositNonce',
  'depositReceiptVersion',
  'transactionHash',
  'transactionIndex',
  'blockHash',
  'blockNumber',
  'timestamp',
  'gasUsed',
  'l1BlockNumber',
]);

/** A withdrawal the header lists (body-lists.ts). */
export const WITHDRAWAL_SPELLINGS = new SecondSpellings(['index', 'validatorIndex', 'address', 'amount']);

/** A transaction object the header lists: the members that name it, repeat the block and its receipt's type (restated-members.ts). */
export const LISTED_TRANSACTION_SPELLINGS = new SecondSpellings([
  'hash',
  'blockHash',
  'blockNumber',
  'transactionIndex',
  'type',
  'chainId',
]);
