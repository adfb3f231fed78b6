import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runVerify } from '../packages/service/src/cli/verify/verify.js';
import {
  bytesToHex,
  ChainRegistry,
  defaultRegistry,
  decodeHeader,
  encodeHeader,
  headerHash,
  parseHex,
  Problems,
  readRpcBlock,
  receiptsCommitment,
  RULE_SETS,
  type RpcBlock,
} from '../packages/core/src/index.js';
import { receiptRootBody, verifyBlockOperation } from '../packages/core/src/api/index.js';
import { fixtureNames, HIVE_CHAIN_ID, loadFixture } from './helpers/fixtures.js';

const strip = (hex: string) => hex.replace(/^0x/, '').toLowerCase();

function readBlock(name: string): RpcBlock {
  const problems = new Problems();
  const block = readRpcBlock(loadFixture(name), problems);
  expect(problems.list).toEqual([]);
  return block!;
}

/** Chain id to send for a fixture: t8n outputs name none and follow Ethereum's rules. */
const requestChainId = (block: RpcBlock) => block.chainId ?? 1;
const hiveRegistry = new ChainRegistry([{ chainId: HIVE_CHAIN_ID, name: 'hive', rules: 'ethereum', verifiable: true }]);

/** Runs the CLI in-process on a body, as `evm-integrity verify <what> -` would. */
async function cli(args: string[], body: unknown): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runVerify(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
    read: () => new TextEncoder().encode(JSON.stringify(body)),
  });
  return { code, json: JSON.parse(out) };
}

describe('every fixture block reproduces its header', () => {
  it('has all 127 fixture blocks', () => {
    expect(fixtureNames).toHaveLength(127);
  });

  describe.each(fixtureNames)('%s', (name) => {
    const fixture = loadFixture(name);
    const block = readBlock(name);
    const era =
      block.chainId === null ? undefined : defaultRegistry.verifiability(block.chainId, block.header.fields.number);
    const rules = era?.status === 'verifiable' ? era.rules : RULE_SETS.ethereum;
    /**
     * Whether the era claims the receipts root, block hash and bloom that a receipt-root body with its header asks for.
     */
    const claimsAll =
      era === undefined || era.status !== 'verifiable'
        ? block.chainId === null || block.chainId === HIVE_CHAIN_ID
        : Object.values(era.checks).every((c) => c.verified);
    const { receiptsRoot, logsBloom, encodedReceipts } = receiptsCommitment(block.receipts, { rules });

    it('receipts root and block bloom equal the header', () => {
      expect(bytesToHex(receiptsRoot)).toBe(strip(fixture.header.receiptsRoot!));
      expect(bytesToHex(logsBloom)).toBe(strip(fixture.header.logsBloom!));
    });

    it('each receipt encodes to the raw consensus receipt, byte for byte', () => {
      if (fixture.raw_receipts === undefined) return;
      expect(encodedReceipts.map(bytesToHex)).toEqual(fixture.raw_receipts.map(strip));
    });

    it('the header hashes to the block hash, and its RLP decodes back', () => {
      if (!fixture.header_hash_recomputable) return;
      const header = block.header.complete!;
      const { layout } = block.header;
      expect(bytesToHex(headerHash(header, { layout }))).toBe(strip(fixture.header.hash!));
      expect(decodeHeader(encodeHeader(header, layout), layout)).toEqual(header);
    });

    it('as a receipt-root request body, the CLI code path answers is_identical: true', async () => {
      const header = block.header.complete;
      const body = receiptRootBody({
        chainId: requestChainId(block),
        receiptRoot: block.header.fields.receiptsRoot!,
        receipts: block.receipts,
        ...(header !== undefined && {
          blockNumber: Number(header.number),
          blockHash: block.header.hash!,
          headerRlp: encodeHeader(header, block.header.layout),
        }),
      });
      const args = [
        'receipt-root',
        '-',
        ...(block.chainId === HIVE_CHAIN_ID ? ['--add-chain', `${HIVE_CHAIN_ID}:ethereum`] : []),
      ];
      const { code, json } = await cli(args, body);
      if (!claimsAll) {
        // A check the era does not claim is not run: 422, never a verdict.
        expect(code).toBe(2);
        expect(json.error.code).toBe('CHAIN_NOT_SUPPORTED');
        return;
      }
      expect(code).toBe(0);
      expect(json.count).toBe(1);
      expect(json.data[0]).toMatchObject({
        is_identical: true,
        computed_receipt_root: strip(fixture.header.receiptsRoot!),
        computed_logs_bloom: strip(fixture.header.logsBloom!),
        transaction_count: block.receipts.length,
        header_verified: header === undefined ? null : true,
        logs_bloom_matches_header: header === undefined ? null : true,
      });
      if (header !== undefined) expect(json.data[0].parent_block_hash).toBe(strip(fixture.header.parentHash!));
    });

    it('verify block: every check its era claims matches; a header without its commitments is refused, naming them', () => {
      const result = verifyBlockOperation(
        fixture,
        block.chainId === HIVE_CHAIN_ID
          ? { registry: hiveRegistry }
          : block.chainId === null
            ? { rules: 'ethereum' }
            : {},
      );
      if (!fixture.header_hash_recomputable) {
        // The t8n outputs carry receiptsRoot and logsBloom only: no block hash to check, so no verdict.
        expect(result.status).toBe(400);
        expect((result.body as any).error.details.invalid_parameters.map((p: { name: string }) => p.name)).toContain(
          'header.hash',
        );
        return;
      }
      const report = result.body as any;
      expect(result.verdict).not.toBe('different');
      for (const check of ['receipts_root', 'logs_bloom', 'block_hash'])
        expect(report[check].matches, check).toBe(report[check].reason === undefined ? true : null);
      // A receipt no commitment covers (Bor's state-sync receipt) leaves the block not proven, its commitments matching.
      expect(result.verdict).toBe(
        ['receipts_root', 'logs_bloom', 'block_hash'].every((c) => report[c].matches) &&
          report.excluded_receipts.length === 0
          ? 'identical'
          : 'not_verifiable',
      );
      expect(report.raw_receipts?.matches ?? null).toBe(
        fixture.raw_receipts && report.receipts_root.matches ? true : null,
      );
    });
  });
});

describe("receipts in go-ethereum's own JSON (types.Receipt marshalled directly)", () => {
  it('an empty root ("0x") beside status is no post-state root, a missing type is 0: the real block stays identical', () => {
    const fixture = loadFixture('mainnet-22869878');
    const receipts = fixture.receipts.map((r) => {
      const { type, ...rest } = r;
      return { ...rest, root: '0x', ...(type === '0x0' ? {} : { type }) };
    });
    expect(receipts.filter((r) => !('type' in r)).length).toBeGreaterThan(0);
    const result = verifyBlockOperation({ ...fixture, receipts, raw_receipts: undefined });
    expect(result.verdict).toBe('identical');
    // A root that is not empty, beside status, is still a conflict, not a guess.
    const both = verifyBlockOperation({
      ...fixture,
      receipts: receipts.map((r, i) => (i === 0 ? { ...r, root: `0x${'11'.repeat(32)}` } : r)),
      raw_receipts: undefined,
    });
    expect(both.status).toBe(400);
  });

  it('the same empty root in a receipt-root request body is no root either: identical, as verify block says', async () => {
    const block = readBlock('mainnet-22869878');
    const body = receiptRootBody({
      chainId: 1,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
    });
    for (const empty of ['0x', '']) {
      const transactions = body.transactions.map((tx) => ({ ...tx, root: empty }));
      const { code, json } = await cli(['receipt-root', '-'], { ...body, transactions });
      expect(code, empty).toBe(0);
      expect(json.data[0].is_identical).toBe(true);
    }
    const transactions = body.transactions.map((tx, i) => (i === 0 ? { ...tx, root: `0x${'11'.repeat(32)}` } : tx));
    const both = await cli(['receipt-root', '-'], { ...body, transactions });
    expect(both.code).toBe(2);
    expect(both.json.error.details.invalid_parameters[0]).toMatchObject({
      name: 'transactions[0].root',
      reason: 'conflict',
    });
  });
});

describe('fixtures altered by one byte are caught', () => {
  it('a changed receipts root is reported as not identical (exit 1)', async () => {
    const block = readBlock('mainnet-22869878');
    const root = block.header.fields.receiptsRoot!.slice();
    root[31]! ^= 1;
    const { code, json } = await cli(
      ['receipt-root'],
      receiptRootBody({ chainId: 1, receiptRoot: root, receipts: block.receipts }),
    );
    expect(code).toBe(1);
    expect(json.data[0].is_identical).toBe(false);
    expect(json.data[0].computed_receipt_root).toBe(bytesToHex(block.header.fields.receiptsRoot!));
  });

  it('a changed log byte in a block changes the root and the verdict', () => {
    const fixture = loadFixture('mainnet-15040641');
    const receipt = fixture.receipts.find((r) => (r.logs as unknown[]).length > 0)!;
    const log = (receipt.logs as Array<{ data: string }>)[0]!;
    log.data =
      log.data === '0x'
        ? '0x00'
        : `0x${(parseHex(log.data)![0]! ^ 1).toString(16).padStart(2, '0')}${log.data.slice(4)}`;
    const result = verifyBlockOperation(fixture);
    expect(result.verdict).toBe('different');
    expect((result.body as any).receipts_root.matches).toBe(false);
  });
});

describe('the README example request', () => {
  it('fixtures/requests/receipt-root-mainnet-19426587.json is the block as a request body, with its header', () => {
    const block = readBlock('mainnet-19426587');
    const header = block.header.complete!;
    const expected = receiptRootBody({
      chainId: 1,
      receiptRoot: header.receiptsRoot,
      receipts: block.receipts,
      blockNumber: Number(header.number),
      blockHash: block.header.hash!,
      headerRlp: encodeHeader(header),
    });
    const committed = JSON.parse(
      readFileSync(new URL('../fixtures/requests/receipt-root-mainnet-19426587.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(JSON.parse(JSON.stringify(expected)));
  });
});
