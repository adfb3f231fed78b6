import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, describeNotVerifiable, eraMatters, type ChainRegistry, type NotVerifiable } from '../chains/registry.js';
import { encodeHeader } from '../header/encode.js';
import { readRpcBlock, type RpcBlock } from '../input/json-rpc.js';
import { Problems, type InvalidInput } from '../input/problems.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { RULE_SET_NAMES, RULE_SETS, type RuleSet, type RuleSetName } from '../receipts/rules.js';
import { checkType } from '../input/receipt-rules.js';
import { receiptsCommitment } from '../receipts/root.js';
import { excludedReceiptResult, type ExcludedReceiptResult } from '../chains/state-sync.js';
import { err, ok, type Result } from '../result.js';

export interface BlockVerifyContext extends HashOptions {
  registry?: ChainRegistry;
  /** Rule set to use, for blocks of chains outside the registry or without a chain id. */
  rules?: RuleSetName;
}

/** One commitment compared: what the block claims and what its data give. */
export interface Comparison {
  expected: string | null;
  computed: string | null;
  /** null when either side is unavailable, with the reason. */
  matches: boolean | null;
  reason?: string;
}

/** Why a block was not verified at all: its input is invalid, or its chain cannot be named or verified. */
export type BlockRefusal = InvalidInput | { kind: 'chain_not_supported'; subject: NotVerifiable | null; hint: string };

/** The verification of one block: every commitment it carries compared with its data. */
export interface BlockReport {
  id: string | null;
  chain_id: number | null;
  rules: RuleSetName;
  block_number: number | null;
  /** Receipts hashed into the root; `excluded_receipts` are not counted. */
  transaction_count: number;
  receipts_root: Comparison;
  logs_bloom: Comparison;
  block_hash: Comparison;
  /** Our encoding of each receipt against the source's raw consensus receipts, when it had them. */
  raw_receipts: { count: number; matches: boolean; first_mismatch: number | null } | null;
  /** Receipts the source returned that the chain leaves out of the root (Bor's state-sync receipt). */
  excluded_receipts: ExcludedReceiptResult[];
  /** Every available comparison matched. */
  is_identical: boolean;
  /** identical, different (a comparison failed), or not_verifiable (the chain or its era cannot be verified). */
  verdict: 'identical' | 'different' | 'not_verifiable';
  /** Why the verdict is not identical; null when it is. */
  reason: string | null;
}

const hex = (b: Uint8Array | undefined) => (b === undefined ? null : bytesToHex(b));

function compare(expected: Uint8Array | undefined, computed: Uint8Array | undefined, reason: string): Comparison {
  if (expected === undefined || computed === undefined) return { expected: hex(expected), computed: hex(computed), matches: null, reason };
  return { expected: hex(expected), computed: hex(computed), matches: bytesEqual(expected, computed) };
}

/** The report of a block whose chain or era cannot be verified: nothing is computed, so nothing can mismatch. */
function notVerifiableReport(block: RpcBlock, subject: NotVerifiable): BlockReport {
  const { fields } = block.header;
  const reason = describeNotVerifiable(subject, fields.number);
  const skipped = (expected: Uint8Array | undefined): Comparison => ({
    expected: hex(expected),
    computed: null,
    matches: null,
    reason: 'not computed: the block cannot be verified',
  });
  return {
    id: block.id ?? null,
    chain_id: block.chainId,
    rules: subject.chain!.rules,
    block_number: fields.number === undefined ? null : Number(fields.number),
    transaction_count: block.receipts.length,
    receipts_root: skipped(fields.receiptsRoot),
    logs_bloom: skipped(fields.logsBloom),
    block_hash: skipped(block.header.hash),
    raw_receipts: null,
    excluded_receipts: [],
    is_identical: false,
    verdict: 'not_verifiable',
    reason,
  };
}

/**
 * Verifies a block given as JSON-RPC header + complete receipts (the fixtures'
 * format): receipts root and block bloom against the header, the header against
 * its hash, and each receipt's encoding against the source's raw receipts. A block
 * of a chain, or an era, that cannot be verified gets the verdict not_verifiable.
 */
export function verifyBlock(input: unknown, context: BlockVerifyContext = {}): Result<BlockReport, BlockRefusal> {
  const problems = new Problems();
  const registry = context.registry ?? defaultRegistry;
  const block = readRpcBlock(input, problems, { registry, keccak: context.keccak });
  if (block === undefined) return err(problems.invalidInput());

  const { fields, complete } = block.header;
  const verifiability = block.chainId === null ? undefined : registry.verifiability(block.chainId, fields.number);
  let rules: RuleSet;
  if (verifiability === undefined || (verifiability.status === 'not_verifiable' && verifiability.chain === undefined)) {
    if (context.rules === undefined) {
      return err({
        kind: 'chain_not_supported',
        subject: verifiability ?? null,
        hint: `Name the rule set the chain follows with --rules (${RULE_SET_NAMES.join(', ')}).`,
      });
    }
    rules = RULE_SETS[context.rules];
  } else if (verifiability.status === 'not_verifiable') {
    return ok(notVerifiableReport(block, verifiability));
  } else {
    // The reader already required the era of receipts that name their transactions.
    const types = block.receipts.map((receipt) => receipt.type);
    if (verifiability.status === 'era_unknown' && eraMatters(verifiability, { namesTransactions: false, types })) {
      problems.add('header.number', 'missing', `the block number: ${verifiability.why}`);
    }
    rules = context.rules === undefined ? verifiability.rules : RULE_SETS[context.rules];
  }

  block.receipts.forEach((receipt, i) => checkType(receipt.type, rules, `receipts[${i}].type`, problems));
  if (!problems.empty) return err(problems.invalidInput());
  const keccak = context.keccak ?? defaultKeccak256;
  const commitment = receiptsCommitment(block.receipts, { rules, keccak });

  const computedHash = complete === undefined ? undefined : keccak(encodeHeader(complete));
  const hashReason = complete === undefined ? `the header lacks ${block.header.missing.join(', ')}` : 'the source gave no hash';
  let raw: BlockReport['raw_receipts'] = null;
  if (block.rawReceipts !== undefined) {
    const mismatch = block.rawReceipts.findIndex((r, i) => !bytesEqual(r, commitment.encodedReceipts[i] ?? new Uint8Array(0)));
    const countOk = block.rawReceipts.length === commitment.encodedReceipts.length;
    raw = { count: block.rawReceipts.length, matches: countOk && mismatch === -1, first_mismatch: mismatch === -1 ? null : mismatch };
  }

  const receiptsRoot = compare(fields.receiptsRoot, commitment.receiptsRoot, 'the header has no receiptsRoot');
  const logsBloom = compare(fields.logsBloom, commitment.logsBloom, 'the header has no logsBloom');
  const blockHash = compare(block.header.hash, computedHash, hashReason);
  const failed = Object.entries({
    receipts_root: receiptsRoot.matches,
    logs_bloom: logsBloom.matches,
    block_hash: blockHash.matches,
    raw_receipts: raw?.matches ?? null,
  })
    .filter(([, matches]) => matches === false)
    .map(([name]) => name);
  const isIdentical = failed.length === 0 && receiptsRoot.matches === true;
  return ok({
    id: block.id ?? null,
    chain_id: block.chainId,
    rules: rules.name,
    block_number: fields.number === undefined ? null : Number(fields.number),
    transaction_count: block.receipts.length,
    receipts_root: receiptsRoot,
    logs_bloom: logsBloom,
    block_hash: blockHash,
    raw_receipts: raw,
    excluded_receipts: block.excludedReceipts.map(excludedReceiptResult),
    is_identical: isIdentical,
    verdict: isIdentical ? 'identical' : 'different',
    reason: isIdentical ? null : failed.length > 0 ? `does not match: ${failed.join(', ')}` : receiptsRoot.reason!,
  });
}
