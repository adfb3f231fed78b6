/**
 * `prove receipt` and `verify receipt-proof`, run as the built binary on real fixtures of several
 * chains and rule sets: every proof made verifies and names its receipt; a proof altered anywhere
 * is refused with the reason and the node; bad input is exit 2 naming what is wrong.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';
import { FIXTURES_DIR, loadFixture } from './helpers/fixtures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-proof-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built CLI as an operator would. */
function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const fixtureFile = (name: string) => join(FIXTURES_DIR, `${name}.json`);

/** The proof of receipt `index` of a fixture, written by `prove receipt --out`. */
function prove(name: string, index: number): { file: string; proof: Record<string, any> } {
  const file = join(dir, `${name}-${index}.json`);
  const result = run(['prove', 'receipt', fixtureFile(name), '--index', String(index), '--out', file]);
  expect(result, result.stderr).toMatchObject({ code: 0, stdout: '', stderr: '' });
  return { file, proof: JSON.parse(readFileSync(file, 'utf8')) };
}

/** A proof document written to a file of its own. */
function writeProof(name: string, proof: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof proof === 'string' ? proof : JSON.stringify(proof));
  return file;
}

/** The position of the first receipt of `type` in a fixture (its receipts in transaction order). */
function indexOfType(name: string, type: number): number {
  const block = readRpcBlock(loadFixture(name), new Problems())!;
  const index = block.receipts.findIndex((receipt) => receipt.type === type);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

/** The fixture's JSON-RPC receipt at transaction index `index`. */
function fixtureReceipt(name: string, index: number): Record<string, any> {
  const receipts = loadFixture(name).receipts as Array<Record<string, any>>;
  return receipts.find((r, i) => Number(r.transactionIndex ?? i) === index)!;
}

describe('prove receipt, then verify receipt-proof', () => {
  const cases: Array<{ what: string; name: string; index: () => number }> = [
    { what: 'mainnet before Byzantium (post-state root)', name: 'mainnet-3000026', index: () => 5 },
    {
      what: 'mainnet, Cancun: a blob (type 3) receipt',
      name: 'mainnet-19433903',
      index: () => indexOfType('mainnet-19433903', 3),
    },
    {
      what: 'OP mainnet: a deposit (0x7e) receipt',
      name: 'op-mainnet-154497277',
      index: () => indexOfType('op-mainnet-154497277', 0x7e),
    },
    {
      what: 'Arbitrum One: an internal (0x6a) receipt',
      name: 'arbitrum-one-150000000',
      index: () => indexOfType('arbitrum-one-150000000', 0x6a),
    },
    {
      what: 'Arbitrum One: an EIP-1559 receipt',
      name: 'arbitrum-one-150000000',
      index: () => indexOfType('arbitrum-one-150000000', 2),
    },
    { what: 'Polygon PoS', name: 'polygon-pos-9013760', index: () => 3 },
  ];
  it.each(cases)('$what: the proof holds and gives the fixture’s receipt', ({ name, index: indexOf }) => {
    const index = indexOf();
    const { file, proof } = prove(name, index);
    const fixture = loadFixture(name);
    const header = fixture.header;
    expect(proof).toMatchObject({
      format: 'evm-integrity/receipt-proof',
      version: 1,
      chain_id: Number(fixture.chain_id),
      block_number: Number(header.number),
      block_hash: header.hash,
      index,
      receipt_root: header.receiptsRoot,
    });
    const verified = run(['verify', 'receipt-proof', file]);
    // Bound to no hash, it holds, and stderr says what that shows (it said nothing: a user check).
    expect(verified.stderr).toBe(
      `evm-integrity: consistent: the proof holds under the block hash it states (${header.hash}, block ${BigInt(header.number!)}), with no --block-hash or --anchor-proof: this shows the receipt is in that block, not that the block is the chain's; give --block-hash, the hash of block ${BigInt(header.number!)} from a source you trust, or --anchor-proof\n`,
    );
    expect(verified.code).toBe(0);
    const receipt = JSON.parse(verified.stdout);
    const expected = fixtureReceipt(name, index);
    expect(receipt).toMatchObject({
      blockHash: header.hash,
      blockNumber: header.number,
      transactionIndex: `0x${index.toString(16)}`,
      cumulativeGasUsed: expected.cumulativeGasUsed,
      logsBloom: expected.logsBloom,
    });
    expect(BigInt(receipt.type)).toBe(BigInt(expected.type ?? 0));
    if (expected.status !== undefined && expected.status !== null) expect(receipt.status).toBe(expected.status);
    else expect(receipt.root).toBe(expected.root);
    expect(receipt.logs).toEqual(
      (expected.logs as Array<Record<string, unknown>>).map(({ address, topics, data }) => ({ address, topics, data })),
    );
    // The bound block hash is the proof's own: it holds, and nothing more is said.
    expect(run(['verify', 'receipt-proof', file, '--block-hash', header.hash!.slice(2)])).toMatchObject({
      code: 0,
      stderr: '',
    });
  });

  it('an OP deposit receipt keeps its deposit nonce and receipt version', () => {
    const name = 'op-mainnet-154497277';
    const index = indexOfType(name, 0x7e);
    const { file } = prove(name, index);
    const receipt = JSON.parse(run(['verify', 'receipt-proof', file]).stdout);
    const expected = fixtureReceipt(name, index);
    expect(receipt.depositNonce).toBe(expected.depositNonce);
    expect(receipt.depositReceiptVersion).toBe(expected.depositReceiptVersion);
  });

  it('a devnet added with --add-chain ID:R: proven and verified under the rules named, refused without them', () => {
    const devnet = ['--add-chain', '3503995874084926:ethereum'];
    const block = fixtureFile('hive-generated-1');
    const refused = run(['prove', 'receipt', block, '--index', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'Chain 3503995874084926 is not in the chain registry; a devnet is added with --add-chain 3503995874084926:RULES',
    );
    const proved = run(['prove', 'receipt', block, '--index', '1', ...devnet]);
    expect(proved.code).toBe(0);
    const file = writeProof('devnet.json', proved.stdout);
    expect(run(['verify', 'receipt-proof', file]).code).toBe(2);
    const verified = run(['verify', 'receipt-proof', file, ...devnet]);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout).transactionIndex).toBe('0x1');
  });

  it('writes the proof to stdout without --out, the same document', () => {
    const { proof } = prove('mainnet-47218', 1);
    const result = run(['prove', 'receipt', fixtureFile('mainnet-47218'), '--index', '1']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(proof);
  });
});

describe('verify receipt-proof refuses a proof that does not hold (exit 1)', () => {
  const { file, proof } = prove('mainnet-19433903', 7);

  it('a byte of any node changed: the reason and the node', () => {
    expect(proof.proof.length).toBeGreaterThan(1);
    for (const [node, hex] of (proof.proof as string[]).entries()) {
      const at = 40;
      const tampered = structuredClone(proof);
      tampered.proof[node] = `${hex.slice(0, at)}${hex[at] === '0' ? '1' : '0'}${hex.slice(at + 1)}`;
      const result = run(['verify', 'receipt-proof', writeProof(`tampered-${node}.json`, tampered)]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('the proof does not hold (hash-mismatch');
      expect(result.stderr).toContain(`Proof node ${node}:`);
    }
  });

  it('a node missing: missing-node', () => {
    const cut = { ...proof, proof: proof.proof.slice(0, -1) };
    const result = run(['verify', 'receipt-proof', writeProof('cut.json', cut)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(missing-node');
  });

  it('a proof of another index: the path does not lead to it', () => {
    const result = run(['verify', 'receipt-proof', writeProof('other-index.json', { ...proof, index: 8 })]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the proof does not hold \((path-mismatch|hash-mismatch|extra-node)/);
  });

  it('a header altered: block-hash-mismatch', () => {
    const header = proof.header_rlp as string;
    const tampered = { ...proof, header_rlp: `${header.slice(0, -2)}${header.endsWith('00') ? '01' : '00'}` };
    const result = run(['verify', 'receipt-proof', writeProof('header.json', tampered)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(block-hash-mismatch): The header does not hash to the block hash');
  });

  it('another receipt_root: root-mismatch', () => {
    const result = run([
      'verify',
      'receipt-proof',
      writeProof('root.json', { ...proof, receipt_root: `0x${'11'.repeat(32)}` }),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("(root-mismatch): The receipt proof's root is not the header's receiptsRoot");
  });

  it('--block-hash of another block: refused, naming both hashes', () => {
    const other = `0x${'ab'.repeat(32)}`;
    const result = run(['verify', 'receipt-proof', file, '--block-hash', other]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`The proof is of block ${proof.block_hash}, not of the expected block ${other}.`);
  });
});

describe('verify receipt-proof: bad input is exit 2, naming what is wrong', () => {
  const { proof } = prove('mainnet-47218', 0);
  const refuse = (name: string, document: unknown) => {
    const result = run(['verify', 'receipt-proof', writeProof(name, document)]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    return result.stderr;
  };

  it('not JSON', () => {
    expect(refuse('not-json.json', '{"format": }')).toMatch(/not-json\.json: not JSON \(/);
  });

  it.each([
    ['index', 'index: expected zero-based transaction index (JSON integer)'],
    ['proof', 'proof: expected an array of trie node RLPs as hex'],
    ['header_rlp', 'header_rlp: expected the block header RLP as hex'],
    ['format', 'format: expected "evm-integrity/receipt-proof"'],
  ])('%s missing', (member, expected) => {
    const { [member]: _, ...rest } = proof;
    expect(refuse(`no-${member}.json`, rest)).toContain(`not a receipt proof: ${expected}`);
  });

  it('members of the wrong type or value', () => {
    expect(refuse('index-string.json', { ...proof, index: '0' })).toContain(
      'index: expected zero-based transaction index (JSON integer), got "0"',
    );
    expect(refuse('node-not-hex.json', { ...proof, proof: ['0xzz'] })).toContain(
      'proof[0]: expected a trie node RLP as hex',
    );
    expect(refuse('version-2.json', { ...proof, version: 2 })).toContain('version: expected version 1');
    expect(refuse('array.json', [proof])).toContain('not a receipt proof: body: expected a JSON object, got an array');
  });

  it('a block_number that is not the header’s', () => {
    expect(refuse('number.json', { ...proof, block_number: 1 })).toContain(
      "block_number: expected header_rlp's number 47218, got 1",
    );
  });

  it('a chain outside the registry: refused with the registry’s reason', () => {
    expect(refuse('chain.json', { ...proof, chain_id: 999_999 })).toContain(
      'Chain 999999 is not in the chain registry; a devnet is added with --add-chain 999999:RULES',
    );
  });

  it("a mainnet block's proof relabelled as Base's: header_rlp named with the field its fork has, as verify block names it (it verified: a user check)", () => {
    expect(refuse('as-base.json', { ...proof, chain_id: 8453 })).toBe(
      `evm-integrity: ${join(dir, 'as-base.json')}: not a receipt proof: header_rlp: expected a header with baseFeePerGas: Base block 47218 is in Bedrock (from block 0), which has it\n`,
    );
  });

  it('--block-hash that is not a hash', () => {
    const result = run(['verify', 'receipt-proof', writeProof('ok.json', proof), '--block-hash', '0x12']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--block-hash: "0x12" is not a block hash');
  });
});

describe('prove receipt refuses what it cannot prove', () => {
  it('--index beyond the receipts: exit 2, saying how many there are', () => {
    const result = run(['prove', 'receipt', fixtureFile('mainnet-3000026'), '--index', '7']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('--index: no receipt at index 7: the block has 7 receipts (indexes 0 to 6)');
  });

  it('--index missing or not a number: a usage error', () => {
    expect(run(['prove', 'receipt', fixtureFile('mainnet-3000026')]).stderr).toContain('--index is required');
    expect(run(['prove', 'receipt', fixtureFile('mainnet-3000026'), '--index', 'x']).stderr).toContain(
      '--index: "x" is not a whole number',
    );
  });

  it('a block of a chain outside the registry: the registry’s reason, exit 2', () => {
    const fixture = { ...loadFixture('mainnet-3000026'), chain_id: 999_999 };
    const result = run(['prove', 'receipt', writeProof('block-unknown-chain.json', fixture), '--index', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Chain 999999 is not in the chain registry; a devnet is added with --add-chain 999999:RULES',
    );
  });

  it('a block in an era that cannot be verified (Arbitrum classic): the registry’s reason, exit 2', () => {
    const fixture = structuredClone(loadFixture('arbitrum-one-150000000')) as Record<string, any>;
    fixture.header.number = '0x3e8';
    // The receipts and logs repeat the block's number: the block stays one a node could give.
    for (const receipt of fixture.receipts) {
      receipt.blockNumber = '0x3e8';
      for (const log of receipt.logs) log.blockNumber = '0x3e8';
    }
    const result = run(['prove', 'receipt', writeProof('classic.json', fixture), '--index', '0']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/classic era \(blocks 0-22,207,816\), which cannot be verified/);
  });

  it('a block whose receipts do not give its receiptsRoot: exit 1, and no file written', () => {
    const fixture = structuredClone(loadFixture('mainnet-3000026')) as Record<string, any>;
    fixture.receipts[0].cumulativeGasUsed = '0x1';
    const out = join(dir, 'never.json');
    const result = run(['prove', 'receipt', writeProof('block-altered.json', fixture), '--index', '0', '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The block's receipts_root does not match");
    expect(existsSync(out)).toBe(false);
  });

  // A user check: both were proved (exit 0), where verify block calls them different.
  it.each([
    [
      'a receipt whose own logsBloom is not its logs',
      'mainnet-22869878',
      5,
      (block: Record<string, any>) => (block.receipts[5].logsBloom = `0x${'00'.repeat(256)}`),
      'does not match: receipt_blooms',
    ],
    [
      'a raw receipt changed',
      'mainnet-1000002',
      1,
      (block: Record<string, any>) => (block.raw_receipts[1] = `${block.raw_receipts[1].slice(0, -2)}00`),
      'does not match: raw_receipts',
    ],
  ])(
    'a block whose other data differ from its commitments (%s): exit 1, and no file written',
    (_, name, index, change, reason) => {
      const fixture = structuredClone(loadFixture(name)) as Record<string, any>;
      change(fixture);
      const out = join(dir, 'never.json');
      const result = run([
        'prove',
        'receipt',
        writeProof(`${name}-other.json`, fixture),
        '--index',
        String(index),
        '--out',
        out,
      ]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`The block ${reason} (verify block names the mismatch); no proof is made`);
      expect(existsSync(out)).toBe(false);
      // As written, the block is proved.
      expect(run(['prove', 'receipt', fixtureFile(name), '--index', String(index)]).code).toBe(0);
    },
  );

  it('an --out that cannot be written: exit 2, and nothing left beside it', () => {
    const out = join(dir, 'no-such-dir', 'proof.json');
    const result = run(['prove', 'receipt', fixtureFile('mainnet-3000026'), '--index', '0', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${out}: cannot write it: no such directory`);
  });

  it('a file that is not a block: the member at fault', () => {
    const result = run(['prove', 'receipt', writeProof('not-a-block.json', { chain_id: 1 }), '--index', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not-a-block.json: not a block: header: expected');
  });
});
