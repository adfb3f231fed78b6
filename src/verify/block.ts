import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { defaultRegistry, type ChainRegistry } from '../chains/registry.js';
import { encodeHeader } from '../header/encode.js';
import { readRpcBlock } from '../input/json-rpc.js';
import { Problems } from '../input/problems.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { describeTypes, RULE_SETS, type RuleSetName } from '../receipts/rules.js';
import { receiptsCommitment } from '../receipts/root.js';
import { badRequest, errorEnvelope, type OperationContext, type OperationResult } from '../api/envelope.js';

export interface BlockVerifyContext extends OperationContext, HashOptions {
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

export interface BlockReport {
  id: string | null;
  chain_id: number | null;
  rules: RuleSetName;
  block_number: number | null;
  transaction_count: number;
  receipts_root: Comparison;
  logs_bloom: Comparison;
  block_hash: Comparison;
  /** Our encoding of each receipt against the source's raw consensus receipts, when it had them. */
  raw_receipts: { count: number; matches: boolean; first_mismatch: number | null } | null;
  /** Every available comparison matched. */
  is_identical: boolean;
}

function compare(expected: Uint8Array | undefined, computed: Uint8Array | undefined, reason: string): Comparison {
  const hex = (b: Uint8Array | undefined) => (b === undefined ? null : bytesToHex(b));
  if (expected === undefined || computed === undefined) return { expected: hex(expected), computed: hex(computed), matches: null, reason };
  return { expected: hex(expected), computed: hex(computed), matches: bytesEqual(expected, computed) };
}

/**
 * Verifies a block given as JSON-RPC header + complete receipts (the fixtures'
 * format): receipts root and block bloom against the header, the header against
 * its hash, and each receipt's encoding against the source's raw receipts.
 */
export function verifyBlock(input: unknown, context: BlockVerifyContext = {}): OperationResult {
  const problems = new Problems();
  const block = readRpcBlock(input, problems);
  if (block === undefined) return { status: 400, verdict: 'invalid', body: badRequest(problems.list, problems.count, context) };

  const chain = block.chainId === null ? undefined : (context.registry ?? defaultRegistry).get(block.chainId);
  const rulesName = context.rules ?? (chain?.verifiable ? chain.rules : undefined);
  if (rulesName === undefined) {
    const message =
      block.chainId === null
        ? 'The block names no chain_id, so its receipt rules are unknown.'
        : `Chain ${block.chainId} ${chain === undefined ? 'is not in the chain registry' : `(${chain.name}) cannot be verified: ${chain.reason}`}.`;
    return {
      status: 422,
      verdict: 'invalid',
      body: errorEnvelope({ code: 'CHAIN_NOT_SUPPORTED', http_status: 422, message, hint: 'Name the rule set the chain follows with --rules (ethereum, optimism, arbitrum, scroll, polygon).', details: null }, context),
    };
  }

  const rules = RULE_SETS[rulesName];
  block.receipts.forEach((receipt, i) => {
    if (!rules.layouts.has(receipt.type)) {
      problems.add(`receipts[${i}].type`, 'unknown_type', `a receipt type of the ${rulesName} rule set: ${describeTypes(rules)}; got ${receipt.type}`);
    }
  });
  if (!problems.empty) return { status: 400, verdict: 'invalid', body: badRequest(problems.list, problems.count, context) };
  const keccak = context.keccak ?? defaultKeccak256;
  const commitment = receiptsCommitment(block.receipts, { rules, keccak });

  const { fields, complete } = block.header;
  const computedHash = complete === undefined ? undefined : keccak(encodeHeader(complete));
  const hashReason = complete === undefined ? `the header lacks ${block.header.missing.join(', ')}` : 'the source gave no hash';
  let raw: BlockReport['raw_receipts'] = null;
  if (block.rawReceipts !== undefined) {
    const mismatch = block.rawReceipts.findIndex((r, i) => !bytesEqual(r, commitment.encodedReceipts[i] ?? new Uint8Array(0)));
    const countOk = block.rawReceipts.length === commitment.encodedReceipts.length;
    raw = { count: block.rawReceipts.length, matches: countOk && mismatch === -1, first_mismatch: mismatch === -1 ? null : mismatch };
  }

  const report: BlockReport = {
    id: block.id ?? null,
    chain_id: block.chainId,
    rules: rulesName,
    block_number: fields.number === undefined ? null : Number(fields.number),
    transaction_count: block.receipts.length,
    receipts_root: compare(fields.receiptsRoot, commitment.receiptsRoot, 'the header has no receiptsRoot'),
    logs_bloom: compare(fields.logsBloom, commitment.logsBloom, 'the header has no logsBloom'),
    block_hash: compare(block.header.hash, computedHash, hashReason),
    raw_receipts: raw,
    is_identical: false,
  };
  const verdicts = [report.receipts_root.matches, report.logs_bloom.matches, report.block_hash.matches, raw?.matches ?? null];
  report.is_identical = verdicts.every((v) => v !== false) && report.receipts_root.matches === true;
  return { status: 200, verdict: report.is_identical ? 'identical' : 'different', body: report };
}
