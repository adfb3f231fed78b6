import {
  eraChangesHashing,
  uncheckable,
  type ChainInfo,
  type ChainRegistry,
  type CheckName,
  type EraSpan,
  type NotVerifiable,
  type Verifiability,
} from '../../chains/registry.js';
import { claimFor, isSystemReceipt, receiptKinds, type BlockShape } from '../../chains/claims.js';
import { stateSyncOutcome, stateSyncShaped, type ExcludedReceipt } from '../../chains/state-sync.js';
import { forkFieldFaults } from '../../chains/header-fork-fields.js';
import { InvalidHeaderError } from '../../errors.js';
import { decodeHeader, headerNumberIfAny } from '../../header/header-decoding.js';
import { ETHEREUM_HEADER } from '../../header/layouts.js';
import {
  beforeByzantium,
  fromCanyon,
  isUnversionedDeposit,
  mixedRoots,
  namesCanyon,
  rootlessBeforeByzantium,
  unversionedDepositFromCanyon,
} from '../../chains/fork-schedule.js';
import type { BlockHeader } from '../../header/header-fields.js';
import { defaultKeccak256, type HashOptions } from '../../keccak/keccak.js';
import type { RuleSet } from '../../receipts/rules.js';
import type { Receipt } from '../../receipts/receipt.js';
import { err, ok, type Result } from '../../result.js';
import { isObject, join, readArray } from '../values/json-values.js';
import { bodyNotAnObject, Problems, type InvalidInput } from '../values/problems.js';
import { ADDRESS_BYTES, logList, MAX_TOPICS, TOPIC_BYTES } from '../values/log-list.js';
import {
  checkDepositMembers,
  checkOutcome,
  checkType,
  hasNoRoot,
  orderByIndex,
  TransactionHashes,
} from '../values/receipt-rules.js';
import { arrayOf, hex, ignored, integer, object, quantity, type ReadMembers, type Spec } from '../values/schema.js';
import { refuseUntakenMembers } from './untaken-members.js';

/** A validated `POST /v1/evm/verify/receipt-root` body. */
export interface ReceiptRootRequest {
  chainId: number;
  chain: ChainInfo;
  /** The rule set of the block's era. */
  rules: RuleSet;
  /** The block's era, as a 422 names it; null where the block number is unknown or the chain has no eras. */
  era: EraSpan | null;
  receiptRoot: Uint8Array;
  blockNumber?: number;
  blockHash?: Uint8Array;
  /** `header_rlp` decoded, and its hash. */
  header?: { fields: BlockHeader; hash: Uint8Array };
  /** The receipts hashed into the root, ordered by `index`. */
  receipts: Receipt[];
  /**
   * Receipts sent that the chain's rules leave out of the root (Bor's state-sync receipt), or set aside where its
   * placement is unknown (an added chain under Polygon's rules), each with the receipt as read.
   */
  excluded: Array<ExcludedReceipt & { receipt: Receipt }>;
  /** Whether any transaction gives its `type`: where none does, every one was read as type 0. */
  typesGiven: boolean;
  /**
   * Where the block's time is unknown (no `header_rlp`) on a chain whose Canyon makes a deposit receipt hash its nonce and
   * version, the body position of the first deposit that lacks either: its root is rebuilt as before Canyon, so one
   * that differs may be the members left out, not the receipts (rootDoubt).
   */
  undatedDeposit?: number;
  /**
   * Where the era does not claim the receipts as sent only for one that may be Bor's state-sync receipt left
   * unrecognised: the 422 to answer unless every reading of it gives the same verdict, and where it is among
   * `receipts` (the last) and in the body.
   */
  undecided?: { refusal: UnsupportedChain; suspect: { index: number; position: number } };
}

/** A body for a chain, or an era of one, that cannot be verified (422, not 400). */
export interface UnsupportedChain {
  kind: 'chain_not_supported';
  verifiability: NotVerifiable;
  blockNumber?: bigint;
  /** Receipt-root: receipts sent that the chain's rule leaves out of the root, named in the refusal as `verify block` names them. */
  excluded?: ExcludedReceipt[];
}

/** Why a receipt-root body is refused: invalid (400), or valid for a chain or era that cannot be verified (422). */
export type ReceiptRootRefusal = InvalidInput | UnsupportedChain;

const address = hex({ bytes: ADDRESS_BYTES, description: 'Emitting contract, 20 bytes.' });
const topics = arrayOf(hex({ bytes: TOPIC_BYTES, description: 'A topic, 32 bytes.' }), {
  maxItems: MAX_TOPICS,
  description: '0 to 4 topics in emission order, topic 0 first; empty for a topic-less log.',
  expected: 'an array of 0 to 4 topics (32-byte hex each)',
});

/** A log of the verify endpoints (spec: `transactions[].logs[]`). */
export const VERIFY_LOG = object(
  {
    contract_address: { spec: address, required: true },
    topics: { spec: topics, required: true },
    data: {
      spec: hex({
        description: 'Even-length hex; `0x` (or empty) when empty.',
        expected: 'even-length hex data, 0x when empty',
      }),
      required: true,
    },
  },
  { description: 'A log.', expected: 'a log object with contract_address, topics and data' },
);

/** A log of the logs-bloom endpoint: `data` does not enter a bloom. */
export const BLOOM_LOG = object(
  {
    contract_address: { spec: address, required: true },
    topics: { spec: topics, required: true },
    data: { spec: ignored('Accepted and ignored: a bloom covers addresses and topics only.') },
  },
  { description: 'A log.', expected: 'a log object with contract_address and topics' },
);

const RECEIPT_MEMBERS = {
  index: {
    spec: integer({
      min: 0,
      description: 'Zero-based transaction index.',
      expected: 'zero-based transaction index (JSON integer)',
    }),
    required: true,
  },
  type: {
    spec: integer({
      min: 0,
      max: 255,
      description: 'Extension: EIP-2718 transaction type (default 0); one the chain knows.',
      expected: 'EIP-2718 transaction type as a JSON integer 0-255 (126 for 0x7e)',
    }),
  },
  status: {
    spec: integer({
      min: 0,
      max: 1,
      description: '1 success, 0 revert (Byzantium and later); exclusive with root.',
      expected: '1 for success or 0 for revert',
    }),
    nullable: true,
  },
  root: {
    spec: hex({
      bytes: 32,
      description:
        'Pre-Byzantium post-state root; exclusive with status. Empty ("0x", as go-ethereum gives it beside status) is no root.',
    }),
    nullable: true,
    absentWhen: hasNoRoot,
  },
  cumulative_gas_used: {
    spec: quantity('Gas used in the block up to and including this transaction.'),
    required: true,
  },
  logs: {
    spec: logList(
      arrayOf(VERIFY_LOG, { description: 'Logs of the transaction (default empty).', expected: 'an array of logs' }),
    ),
  },
  deposit_nonce: { spec: quantity('Extension, OP-stack deposits (0x7e): the deposit nonce (Regolith).') },
  deposit_receipt_version: {
    spec: quantity(
      'Extension, OP-stack deposits: the receipt version (Canyon); when given, nonce and version are hashed.',
    ),
  },
  tx_hash: {
    spec: hex({
      bytes: 32,
      description:
        "Extension: the receipt's transaction hash, another receipt's being 400 conflict (one transaction has one receipt); lets Polygon PoS recognise Bor's state-sync receipt, which is outside the root before Madhugiri.",
    }),
    nullable: true,
  },
};
const RECEIPT = object(RECEIPT_MEMBERS, { description: 'A receipt of the block.', expected: 'a receipt object' });
type ReceiptValues = ReadMembers<typeof RECEIPT_MEMBERS>;

/** One `transactions[]` entry as read: its valid members, and the raw object for the rules that join them. */
interface ReceiptEntry {
  values: ReceiptValues | undefined;
  raw: Record<string, unknown>;
  path: string;
}

const receiptList = arrayOf(RECEIPT, {
  description: 'The complete receipt list of the block, in any order; indexes exactly 0..n-1.',
  expected: 'the complete receipt list of the block (may be empty)',
});

/**
 * `transactions`: documented as an array of receipts, read entry by entry so that
 * an entry with a bad member still contributes its index to the 0..n-1 check.
 */
const TRANSACTIONS: Spec<ReceiptEntry[]> = {
  schema: receiptList.schema,
  read: (value, path, problems) =>
    readArray(value, path, problems, 'the complete receipt list of the block (may be empty)')?.map((raw, i) => ({
      values: RECEIPT.read(raw, `${path}[${i}]`, problems),
      raw: isObject(raw) ? raw : {},
      path: `${path}[${i}]`,
    })),
};

/** The receipt-root request body: the spec's members and our extensions (docs/api.md). */
export const RECEIPT_ROOT_BODY = object(
  {
    chain_id: {
      spec: integer({ min: 0, description: 'Chain; one of GET /v1/chains.', expected: 'chain id as a JSON integer' }),
      required: true,
    },
    receipt_root: {
      spec: hex({ bytes: 32, description: 'Root reported by your source, compared with the recomputed one.' }),
      required: true,
    },
    block_number: {
      spec: integer({
        min: 0,
        description: 'Height of the block being verified.',
        expected: 'block number as a JSON integer',
      }),
      nullable: true,
    },
    block_hash: { spec: hex({ bytes: 32, description: 'Guard hash of the intended block.' }), nullable: true },
    header_rlp: {
      spec: hex({
        description: "Extension: the block header's RLP; binds the root to block_hash and block_number.",
        expected: 'the block header RLP as hex',
      }),
      nullable: true,
    },
    transactions: { spec: TRANSACTIONS, required: true },
    limit: { spec: ignored('Accepted; one result per request.') },
    cursor: { spec: ignored('Accepted; reserved for future pagination.') },
  },
  { description: 'POST /v1/evm/verify/receipt-root', expected: 'a JSON object' },
);

/** The consensus receipt of one validated `transactions[]` entry, checking the rules that join its members. */
function toReceipt(
  { values: tx, raw, path }: ReceiptEntry,
  problems: Problems,
  rules: RuleSet | undefined,
): Receipt | undefined {
  if (tx === undefined) return undefined;
  const before = problems.count;
  const type = tx.type ?? (raw.type === undefined ? 0 : undefined);
  if (type !== undefined && rules !== undefined) checkType(type, rules, join(path, 'type'), problems);
  const hasStatus = raw.status !== undefined && raw.status !== null;
  const hasRoot = !hasNoRoot(raw.root);
  checkOutcome({ type, hasStatus, hasRoot, rootBesideStatus: false }, path, problems);
  const hasNonce = raw.deposit_nonce !== undefined;
  const hasVersion = raw.deposit_receipt_version !== undefined;
  const given = {
    ...(hasNonce && { nonce: 'deposit_nonce' }),
    ...(hasVersion && { version: 'deposit_receipt_version' }),
  };
  if (!checkDepositMembers(type, given, rules, path, problems) && hasVersion && !hasNonce)
    problems.add(
      join(path, 'deposit_nonce'),
      'missing',
      'the deposit nonce, which is hashed together with deposit_receipt_version (Canyon)',
    );
  if (problems.count !== before || type === undefined || tx.cumulative_gas_used === undefined) return undefined;
  if (hasStatus ? tx.status === undefined : tx.root === undefined) return undefined;
  if (
    (raw.logs !== undefined && tx.logs === undefined) ||
    (hasNonce && tx.deposit_nonce === undefined) ||
    (hasVersion && tx.deposit_receipt_version === undefined)
  )
    return undefined;
  return {
    type,
    ...(hasStatus ? { status: tx.status as 0 | 1 } : { root: tx.root! }),
    cumulativeGasUsed: tx.cumulative_gas_used,
    logs: tx.logs ?? [],
    ...(tx.deposit_nonce !== undefined && { depositNonce: tx.deposit_nonce }),
    ...(tx.deposit_receipt_version !== undefined && { depositReceiptVersion: tx.deposit_receipt_version }),
  };
}

/**
 * `header_rlp` decoded in the layout of its chain's era (the era from its number, which every
 * layout keeps at position 8), and its hash.
 */
function readHeader(
  rlp: Uint8Array | undefined,
  chainId: number | undefined,
  registry: ChainRegistry,
  problems: Problems,
  options: HashOptions,
): ReceiptRootRequest['header'] {
  if (rlp === undefined) return undefined;
  try {
    const era = chainId === undefined ? undefined : registry.verifiability(chainId, headerNumberIfAny(rlp));
    const layout = era?.status === 'verifiable' ? era.header : ETHEREUM_HEADER;
    return { fields: decodeHeader(rlp, layout), hash: (options.keccak ?? defaultKeccak256)(rlp) };
  } catch (error) {
    if (!(error instanceof InvalidHeaderError)) throw error;
    problems.add('header_rlp', 'invalid_format', `an RLP block header: ${error.message}`);
    return undefined;
  }
}

/**
 * The first check the body asks for that its era does not claim for receipts like its own: the
 * receipts root always, and with `header_rlp` the block hash and the bloom too (the answer's
 * header_verified and logs_bloom_matches_header). Null when every one is claimed.
 */
function uncheckedClaim(
  verifiability: Extract<Verifiability, { status: 'verifiable' }>,
  withHeader: boolean,
  block: BlockShape,
): NotVerifiable | null {
  const checks: CheckName[] = withHeader ? ['receipts_root', 'block_hash', 'logs_bloom'] : ['receipts_root'];
  for (const check of checks) {
    const refusal = uncheckable(verifiability, check, claimFor(check, verifiability.checks[check], block));
    if (refusal !== null) return refusal;
  }
  return null;
}

/**
 * Why the receipts root cannot be rebuilt, as verify block says it, where a receipt lacks what its era hashes: before
 * Byzantium a receipt that gives a status and no root (reth's), from Canyon on a deposit without its nonce or version
 * (only the header tells the block's time, which Canyon is counted in). Null where every receipt has it. `hashed` is
 * each receipt of the root with its place in the body.
 */
function unrebuildableReceipt(
  known: Extract<Verifiability, { status: 'verifiable' }>,
  blockNumber: bigint | undefined,
  header: BlockHeader | undefined,
  hashed: ReadonlyArray<{ position: number; receipt: Receipt }>,
): NotVerifiable | null {
  const { chain } = known;
  const rules = [
    {
      applies: beforeByzantium(chain.forks, blockNumber),
      lacks: (receipt: Receipt) => receipt.root === undefined,
      why: rootlessBeforeByzantium,
      hint: "Send each receipt's post-state root (`root`), as go-ethereum gives it; reth gives none before Byzantium.",
    },
    {
      applies: fromCanyon(chain.forks, header?.number, header?.timestamp),
      lacks: isUnversionedDeposit,
      why: unversionedDepositFromCanyon,
      hint: "Send each deposit's `deposit_nonce` and `deposit_receipt_version`, as op-geth's receipts give them.",
    },
  ];
  for (const { applies, lacks, why, hint } of rules) {
    const lacking = applies ? hashed.find(({ receipt }) => lacks(receipt)) : undefined;
    if (lacking !== undefined)
      return {
        status: 'not_verifiable',
        chainId: chain.chainId,
        chain,
        reason: why(`transactions[${lacking.position}]`),
        era: known.era,
        firstVerifiableBlock: null,
        check: 'receipts_root',
        hint,
      };
  }
  return null;
}

/**
 * Whether the last of `hashed` may be Bor's state-sync receipt that its tx_hash did not name (the block's hash, which
 * derives it, is wrong or unknown): the era leaves that receipt out of the root, it is untyped and used no gas, as no
 * transaction in the root can, and without it every check the body asks for is claimed. Its two readings, in the root
 * and left out, are then what the receipts can mean.
 */
function stateSyncSuspect(
  known: Extract<Verifiability, { status: 'verifiable' }>,
  withHeader: boolean,
  hashed: readonly Receipt[],
): boolean {
  const last = hashed.at(-1);
  if (known.stateSync !== 'receipt-outside-root' || last === undefined || !isSystemReceipt(last)) return false;
  const others = hashed.slice(0, -1);
  const shape = { kinds: receiptKinds(others, true), hasLogs: others.some((r) => r.logs.length > 0) };
  return uncheckedClaim(known, withHeader, shape) === null;
}

/**
 * Validates a receipt-root body against the spec and docs/api.md. The block's era
 * (from header_rlp's number, else block_number) picks the rules; Bor's state-sync
 * receipt is recognised by its tx_hash and left out. Returns the request, or every
 * problem (400), or why the chain or its era cannot be verified (422) when the body
 * is otherwise valid.
 */
export function parseReceiptRootRequest(
  body: unknown,
  registry: ChainRegistry,
  options: HashOptions = {},
): Result<ReceiptRootRequest, ReceiptRootRefusal> {
  if (!isObject(body)) return err(bodyNotAnObject(body));
  const problems = new Problems();
  const values = RECEIPT_ROOT_BODY.read(body, '', problems)!;
  refuseUntakenMembers(body, 'receipt-root', problems);
  const header = readHeader(values.header_rlp, values.chain_id, registry, problems, options);
  const blockNumber =
    header?.fields.number ?? (values.block_number === undefined ? undefined : BigInt(values.block_number));
  const entries = values.transactions ?? [];
  const verifiability =
    values.chain_id === undefined ? undefined : registry.verifiability(values.chain_id, blockNumber);

  // Without a block number the era is unknown. Where an era's receipts cannot be verified, or
  // the eras hash receipts differently (state sync), the era must be told; where the eras differ
  // only in what else they verify (the header), the receipts hash alike in every one.
  if (verifiability?.status === 'era_unknown' && values.header_rlp === undefined) {
    const namesTransactions = entries.some((entry) => entry.values?.tx_hash !== undefined);
    const types = entries.map((entry) => entry.values?.type ?? 0);
    if (verifiability.decidesVerifiability || eraChangesHashing({ namesTransactions, types }))
      problems.add('block_number', 'missing', `the block number (or header_rlp): ${verifiability.why}`);
  }
  const rules =
    verifiability?.status === 'verifiable' || verifiability?.status === 'era_unknown' ? verifiability.rules : undefined;
  const receipts = entries.map((entry) => toReceipt(entry, problems, rules));
  const positions = orderByIndex(
    entries.map((entry) => entry.values?.index),
    (position) => `transactions[${position}].index`,
    'transactions',
    problems,
  );

  const txHashes = positions.map((position) => entries[position]?.values?.tx_hash);
  // One transaction has one receipt, in index order, as `verify block` holds its receipts' transactionHash; not on a
  // chain that cannot be verified, as there.
  if (verifiability?.status === 'verifiable' || verifiability?.status === 'era_unknown') {
    const named = new TransactionHashes((position) => `transactions[${position}].tx_hash`);
    for (const position of positions)
      if (position !== undefined && entries[position]?.values?.tx_hash !== undefined)
        named.add(entries[position].raw.tx_hash as string, position, problems);
  }
  const stateSync = stateSyncOutcome(
    verifiability,
    { number: blockNumber, hash: header?.hash ?? values.block_hash },
    txHashes,
    { ...options, shaped: stateSyncShaped(positions.map((position) => receipts[position])) },
  );
  if (stateSync.kind === 'needs_block_hash') problems.add('block_hash', 'missing', stateSync.expected);
  if (stateSync.kind === 'misplaced')
    problems.add(`transactions[${positions[stateSync.index]}].tx_hash`, 'conflict', stateSync.expected);
  const excluded = stateSync.kind === 'excluded' ? stateSync.excluded : undefined;
  if (verifiability?.status === 'verifiable' && header !== undefined)
    for (const { kind, expected } of forkFieldFaults(
      verifiability.chain,
      verifiability.header,
      header.fields,
      verifiability.checks.block_hash.verified,
    ))
      problems.add('header_rlp', kind, expected);

  if (!problems.empty) return err(problems.invalidInput());
  const known = verifiability!;
  const unsupported = (subject: NotVerifiable): UnsupportedChain => ({
    kind: 'chain_not_supported',
    verifiability: subject,
    ...(blockNumber !== undefined && { blockNumber }),
    ...(excluded !== undefined && { excluded: [excluded] }),
  });
  const refuse = (subject: NotVerifiable) => err(unsupported(subject));
  if (known.status === 'not_verifiable') return refuse(known);
  const hashed = positions.filter((_, index) => index !== excluded?.index).map((position) => receipts[position]!);
  const shape = { kinds: receiptKinds(hashed, excluded !== undefined), hasLogs: hashed.some((r) => r.logs.length > 0) };
  if (known.status === 'era_unknown') {
    // Without the era, the receipts are claimed only if every era claims receipts like them.
    const refusals = (known.chain.eras ?? []).map((era) => {
      const at = registry.verifiability(known.chain.chainId, era.from);
      return {
        era,
        refusal:
          at.status === 'verifiable' ? uncheckedClaim(at, false, shape) : at.status === 'not_verifiable' ? at : null,
      };
    });
    const unclaimed = refusals.filter((r) => r.refusal !== null);
    // No era claims them: the chain's answer, whatever the block.
    if (unclaimed.length === refusals.length)
      return refuse({ ...unclaimed[0]!.refusal!, era: null, firstVerifiableBlock: null });
    if (unclaimed.length > 0) {
      const eras = unclaimed.map((r) => r.era.name).join(', ');
      const expected = `the block number (or header_rlp): receipts like these are verified in some eras of ${known.chain.name}, not in ${eras}`;
      return err({
        kind: 'invalid',
        problems: [{ name: 'block_number', location: 'body', reason: 'missing', expected }],
        count: 1,
      });
    }
  }
  let undatedDeposit: number | undefined;
  if (known.status === 'verifiable') {
    const hashed = positions
      .filter((_, index) => index !== excluded?.index)
      .map((position) => ({ position, receipt: receipts[position]! }));
    if (beforeByzantium(known.chain.forks, blockNumber)) {
      const withStatus = hashed.find(({ receipt }) => receipt.root === undefined);
      const withRoot = hashed.find(({ receipt }) => receipt.root !== undefined);
      if (withStatus !== undefined && withRoot !== undefined) {
        const expected = mixedRoots(`transactions[${withRoot.position}]`);
        return err({
          kind: 'invalid',
          problems: [
            { name: `transactions[${withStatus.position}].root`, location: 'body', reason: 'missing', expected },
          ],
          count: 1,
        });
      }
    }
    const unrebuildable = unrebuildableReceipt(known, blockNumber, header?.fields, hashed);
    if (unrebuildable !== null) return refuse(unrebuildable);
    if (header === undefined && namesCanyon(known.chain.forks))
      undatedDeposit = hashed.find(({ receipt }) => isUnversionedDeposit(receipt))?.position;
  }
  const unverified = known.status === 'verifiable' ? uncheckedClaim(known, header !== undefined, shape) : null;
  const suspect =
    unverified !== null &&
    known.status === 'verifiable' &&
    excluded === undefined &&
    stateSyncSuspect(known, header !== undefined, hashed);
  if (unverified !== null && !suspect) return refuse(unverified);
  return ok({
    chainId: values.chain_id!,
    chain: known.chain,
    rules: rules!,
    era: known.status === 'verifiable' ? known.era : null,
    typesGiven: entries.some((entry) => entry.raw.type !== undefined),
    ...(undatedDeposit !== undefined && { undatedDeposit }),
    ...(suspect && {
      undecided: {
        refusal: unsupported(unverified),
        suspect: { index: hashed.length - 1, position: positions[hashed.length - 1]! },
      },
    }),
    receiptRoot: values.receipt_root!,
    receipts: hashed,
    excluded: excluded === undefined ? [] : [{ ...excluded, receipt: receipts[positions[excluded.index]!]! }],
    ...(values.block_number !== undefined && { blockNumber: values.block_number }),
    ...(values.block_hash !== undefined && { blockHash: values.block_hash }),
    ...(header !== undefined && { header }),
  });
}
