/**
 * The on-chain checks of a lineage: a genesis log's block (header hash, receipts roots), once
 * per block, and the log itself in that block (position and content, bloom, block time).
 */
import { bytesEqual, bytesToHex, hexToBytes, parseHex } from '../bytes/hex.js';
import { bloomContains } from '../bloom/bloom.js';
import { encodeHeader } from '../header/encode.js';
import { isObject } from '../input/fields.js';
import { readRpcBlock, type RpcBlock } from '../input/json-rpc.js';
import { Problems } from '../input/problems.js';
import { describeRuleSet, describeTypes, type RuleSet } from '../receipts/rules.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { describeNotVerifiable, type ChainRegistry } from '../chains/registry.js';
import { receiptsCommitment } from '../receipts/root.js';
import type { Log } from '../receipts/types.js';
import { err, ok, type Result } from '../result.js';
import { check, type Check } from './report.js';
import { show } from './show.js';
import { SourceError, type BlockJson, type BlockSource, type LineageSource } from './source.js';
import type { BlockVerifier } from './verifier.js';

/** A genesis log as the service sends it (spec "Genesis artifacts"). */
export interface GenesisLog {
  block_number: number;
  tx_index: number;
  log_index: number;
  contract_address: string;
  topics: string[];
  data: string;
  block_time?: unknown;
}

export const hexOf = (v: unknown) => (typeof v === 'string' ? parseHex(v) : null);

/** Reads a genesis log's members: the log, or the problem, naming the member. */
export function readGenesisLog(value: unknown): Result<GenesisLog, string> {
  if (!isObject(value)) return err('not an object');
  for (const member of ['block_number', 'tx_index', 'log_index'] as const) {
    if (!Number.isSafeInteger(value[member]) || (value[member] as number) < 0) return err(`${member} is not a non-negative integer`);
  }
  if (hexOf(value.contract_address)?.length !== 20) return err('contract_address is not a 20-byte hex address');
  if (!Array.isArray(value.topics) || value.topics.some((t) => hexOf(t)?.length !== 32)) return err('topics is not an array of 32-byte hex topics');
  if (typeof value.data !== 'string' || hexOf(value.data) === null) return err('data is not hex');
  return ok(value as unknown as GenesisLog);
}

/** Verified facts about one block, computed once however many logs point into it. */
export interface BlockFacts {
  block: RpcBlock;
  rootsMatch: boolean;
  /** Why the block's receipts cannot be verified (an era or a chain that cannot be), when they cannot. */
  notVerifiable?: string;
  /** Every log of the block in order, with its transaction: for a block-wide `log_index`; built on first need. */
  blockWide?: Array<{ log: Log; tx: number }>;
}

export interface BlockContext {
  chainId: number;
  /** Which blocks of the chain can be verified, and under which rules. */
  registry: ChainRegistry;
  source: LineageSource;
  blocks?: BlockSource;
  /** Computes the receipts root elsewhere (a pool of worker threads); absent, it is computed here. */
  verify?: BlockVerifier;
}

/**
 * The root the receipts give under `rules`: from the context's verifier when it has one and its
 * report was computed under the same rules (a verifier with another registry, or a header without
 * its number, may see another era or none), else computed here.
 */
async function computedReceiptsRoot(json: BlockJson, block: RpcBlock, rules: RuleSet, context: BlockContext): Promise<Uint8Array> {
  const report = context.verify === undefined ? null : await context.verify(json);
  const computed = report?.ok && report.value.rules === rules.name ? report.value.receipts_root.computed : null;
  return computed === null ? receiptsCommitment(block.receipts, { rules }).receiptsRoot : hexToBytes(computed);
}

/** Block-level checks: the header hashes to its hash, the receipts reproduce the claimed roots. */
export async function checkBlock(n: number, context: BlockContext): Promise<{ facts: BlockFacts | null; checks: Check[] }> {
  const subject = `block ${n}`;
  const json = context.blocks === undefined ? null : await context.blocks.block(context.chainId, n);
  if (json === null)
    return { facts: null, checks: [check('block.available', 'skipped', subject, 'the source has no such block (give a bundle with blocks, or --rpc)')] };
  const problems = new Problems();
  // The walk's chain applies to a bundle block that names none (for its eras and state-sync receipt).
  const named = json.chain_id === undefined ? { ...json, chain_id: context.chainId } : json;
  const block = readRpcBlock(named, problems, { registry: context.registry });
  if (block === undefined)
    return {
      facts: null,
      checks: [check('block.available', 'fail', subject, `the block does not parse: ${problems.list[0]?.name}: ${problems.list[0]?.expected}`)],
    };
  const checks: Check[] = [];
  const { complete, hash, fields } = block.header;
  if (complete === undefined || hash === undefined)
    checks.push(check('block.header_hash', 'skipped', subject, `the header lacks ${complete === undefined ? block.header.missing.join(', ') : 'its hash'}`));
  else {
    const computed = defaultKeccak256(encodeHeader(complete));
    checks.push(
      bytesEqual(computed, hash)
        ? check('block.header_hash', 'pass', subject, 'the header hashes to the block hash')
        : check('block.header_hash', 'fail', subject, `the header hashes to ${bytesToHex(computed)}, not ${bytesToHex(hash)}`),
    );
  }
  const verifiability = context.registry.verifiability(context.chainId, fields.number ?? n);
  if (verifiability.status !== 'verifiable') {
    const why = verifiability.status === 'not_verifiable' ? describeNotVerifiable(verifiability, fields.number ?? BigInt(n)) : verifiability.why;
    checks.push(check('block.receipts_root', 'skipped', subject, `not verifiable: ${why}`));
    return { facts: { block, rootsMatch: false, notVerifiable: why }, checks };
  }
  const unknownType = block.receipts.findIndex((receipt) => !verifiability.rules.layouts.has(receipt.type));
  if (unknownType !== -1) {
    const { rules } = verifiability;
    const why = `receipt ${unknownType} has type ${block.receipts[unknownType]!.type}, which ${describeRuleSet(rules)} does not know (it knows ${describeTypes(rules)})`;
    checks.push(check('block.receipts_root', 'skipped', subject, `not verifiable: ${why}`));
    return { facts: { block, rootsMatch: false, notVerifiable: why }, checks };
  }
  const computedRoot = await computedReceiptsRoot(named, block, verifiability.rules, context);
  // The raw block record is optional evidence: a source that cannot give it does not stop the walk.
  const raw = await (context.source.rawBlock?.(context.chainId, n) ?? Promise.resolve(null)).catch((error: unknown) => {
    if (error instanceof SourceError) return null;
    throw error;
  });
  const claimed: Array<[string, Uint8Array | null]> = [['header receiptsRoot', fields.receiptsRoot ?? null]];
  if (raw !== null) claimed.push(['raw block record receipt_root', hexOf(raw.receipt_root)]);
  const wrong = claimed.filter(([, root]) => root === null || !bytesEqual(root, computedRoot));
  const rootsMatch = wrong.length === 0;
  checks.push(
    rootsMatch
      ? check('block.receipts_root', 'pass', subject, `${block.receipts.length} receipts reproduce the ${claimed.map(([what]) => what).join(' and the ')}`)
      : check(
          'block.receipts_root',
          'fail',
          subject,
          `the ${block.receipts.length} receipts give ${bytesToHex(computedRoot)}, not the ${wrong.map(([what]) => what).join(' nor the ')}`,
        ),
  );
  return { facts: { block, rootsMatch }, checks };
}

/** Per-log checks: position and content, bloom, block time. A block-wide `log_index` is located with a warning. */
export function checkLog(log: GenesisLog, subject: string, facts: BlockFacts, warn: (warning: string) => void): Check[] {
  const { block, rootsMatch } = facts;
  const checks: Check[] = [];
  const address = hexOf(log.contract_address)!;
  const topics = log.topics.map((t) => hexOf(t)!);
  const data = hexOf(log.data)!;
  const same = (l: Log | undefined) =>
    l !== undefined &&
    bytesEqual(l.address, address) &&
    l.topics.length === topics.length &&
    l.topics.every((t, i) => bytesEqual(t, topics[i]!)) &&
    bytesEqual(l.data, data);
  let found = false;
  if (facts.notVerifiable !== undefined)
    checks.push(
      check('log.position', 'skipped', subject, `the block's receipts cannot be verified, so positions in them prove nothing: ${facts.notVerifiable}`),
    );
  else if (!rootsMatch)
    checks.push(check('log.position', 'skipped', subject, "the block's receipts do not reproduce its root, so positions in them prove nothing"));
  else {
    const receipt = block.receipts[log.tx_index];
    if (same(receipt?.logs[log.log_index])) {
      found = true;
      checks.push(check('log.position', 'pass', subject, `transaction ${log.tx_index}, log ${log.log_index} has this address, topics and data`));
    } else {
      facts.blockWide ??= block.receipts.flatMap((r, tx) => r.logs.map((l) => ({ log: l, tx })));
      const blockWide = facts.blockWide[log.log_index];
      if (blockWide !== undefined && blockWide.tx === log.tx_index && same(blockWide.log)) {
        found = true;
        warn(`${subject}: log_index ${log.log_index} is the block-wide position (JSON-RPC logIndex), not the position within the transaction`);
        checks.push(check('log.position', 'pass', subject, `transaction ${log.tx_index} has this log at block-wide index ${log.log_index}`));
      } else {
        checks.push(
          check(
            'log.position',
            'fail',
            subject,
            receipt === undefined
              ? `the block has no transaction ${log.tx_index}`
              : `transaction ${log.tx_index} has no log ${log.log_index} with this address, topics and data`,
          ),
        );
      }
    }
  }
  const bloom = block.header.fields.logsBloom;
  if (!found || bloom === undefined)
    checks.push(
      check(
        'log.bloom',
        'skipped',
        subject,
        bloom === undefined ? 'the header has no logsBloom' : "the log is not the chain's, so its bloom bits prove nothing",
      ),
    );
  else {
    const missing = [address, ...topics].findIndex((item) => !bloomContains(bloom, item));
    checks.push(
      missing === -1
        ? check('log.bloom', 'pass', subject, 'its address and topics are in the block bloom')
        : check('log.bloom', 'fail', subject, `${missing === 0 ? 'its address' : `topic ${missing - 1}`} is not in the block bloom`),
    );
  }
  const timestamp = block.header.fields.timestamp;
  if (log.block_time === undefined || timestamp === undefined)
    checks.push(check('log.block_time', 'skipped', subject, 'no block_time, or no header timestamp'));
  else {
    const expected = new Date(Number(timestamp) * 1000).toISOString();
    const seconds = typeof log.block_time === 'string' ? Date.parse(log.block_time) / 1000 : Number.NaN;
    checks.push(
      seconds === Number(timestamp)
        ? check('log.block_time', 'pass', subject, `block_time is the header timestamp ${expected}`)
        : check('log.block_time', 'fail', subject, `block_time ${show(log.block_time)} is not the header timestamp ${expected}`),
    );
  }
  return checks;
}
