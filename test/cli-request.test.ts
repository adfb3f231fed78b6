/**
 * `evm-integrity request receipt-root|logs-bloom FILE`: a JSON-RPC block turned into the body of
 * the endpoint, by the CLI, then POSTed to the real server on loopback. For every fixture block
 * that `verify block` finds identical, both bodies verify identical over HTTP; for every fixture,
 * the server answers the body exactly as the library's operation does. The bodies of the 125
 * fixtures are made by the CLI's `main` in this process; its inputs and mistakes, by the built
 * command in a process of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  borStateSyncTxHash,
  bytesToHex,
  ChainRegistry,
  Problems,
  readRpcBlock,
  verifyBlock,
} from '../packages/core/src/index.js';
import {
  receiptRootBody,
  verifyLogsBloomOperation,
  verifyReceiptRootOperation,
} from '../packages/core/src/api/index.js';
import { main } from '../packages/service/src/cli/main.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { consensusFieldsOnly, FIXTURES_DIR, fixtureNames, HIVE_CHAIN_ID, loadFixture } from './helpers/fixtures.js';
import { capturingLogger, testConfig } from './helpers/server.js';
import { TEST_CHAINS, testRegistry } from './helpers/test-chains.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const DEVNET = { chainId: HIVE_CHAIN_ID, name: 'hive devnet', rules: 'ethereum' as const, verifiable: true };
const registry = new ChainRegistry([DEVNET]);
/** A chain added under Polygon's rules, as `--add-chain 99999:polygon` and a server's `chains` add it: no era places Bor's state-sync receipt. */
const POLYGON_LIKE = { chainId: 99999, name: 'chain 99999', rules: 'polygon' as const, verifiable: true };

/** Runs the built CLI as a process, with standard input when given. */
function run(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Runs the CLI's `main` in this process: what it writes and its exit status. */
async function runHere(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

let server: RunningServer;
beforeAll(async () => {
  server = await startServer(
    testConfig({
      store: 'memory',
      auth: false,
      host: '127.0.0.1',
      chains: [DEVNET, testRegistry.get(TEST_CHAINS.polygon)!, POLYGON_LIKE],
      bodyLimitBytes: 64 * 1024 * 1024,
    }),
    {
      logger: capturingLogger().logger,
    },
  );
});
afterAll(() => server?.close());

/** POSTs a body to an endpoint of the real server: its status and JSON. */
async function post(endpoint: string, body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}/v1/evm/verify/${endpoint}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

const devnet = ['--add-chain', `${HIVE_CHAIN_ID}:ethereum`];

describe('request receipt-root|logs-bloom FILE, POSTed to the server', () => {
  it.each(fixtureNames)(
    '%s: the bodies verify identical where verify block does, and the server answers as the library',
    async (name) => {
      const file = join(FIXTURES_DIR, name);
      const fixture = loadFixture(name);
      const report = verifyBlock(fixture, { registry });
      const identical = report.ok && report.value.verdict === 'identical';
      const leftOut = report.ok ? report.value.excluded_receipts.length : 0;
      const context = { docsUrl: `${server.url}/v1/docs` };
      for (const [endpoint, operation] of [
        ['receipt-root', (body: unknown) => verifyReceiptRootOperation(body, { ...context, registry })],
        ['logs-bloom', (body: unknown) => verifyLogsBloomOperation(body, context)],
      ] as const) {
        // A block that names no chain (geth's t8n output) gets it from --chain: mainnet's rules.
        const made = await runHere([
          'request',
          endpoint,
          file,
          ...devnet,
          ...(fixture.chain_id === null ? ['--chain', '1'] : []),
        ]);
        if (endpoint === 'logs-bloom' && leftOut > 0) {
          // Bor's state-sync receipt, left out of the bloom, is one a logs-bloom body cannot carry: refused, naming it.
          expect(made).toMatchObject({ code: 2, stderr: expect.stringContaining('a logs-bloom body cannot carry it') });
          continue;
        }
        expect(made.stderr).toBe('');
        expect(made.code).toBe(0);
        const answer = await post(endpoint, made.stdout);
        const expected = operation(JSON.parse(made.stdout));
        expect({ status: answer.status, body: answer.json }).toEqual({ status: expected.status, body: expected.body });
        if (!identical) continue;
        expect(answer.status).toBe(200);
        expect(answer.json.data[0].is_identical).toBe(true);
        if (endpoint === 'receipt-root') expect(answer.json.data[0].header_verified).toBe(true);
      }
    },
  );
});

describe('request: inputs and mistakes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-request-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const mainnet = join(FIXTURES_DIR, 'mainnet-22869878.json');

  it('reads standard input (- or no FILE) as it reads the file; --pretty indents', async () => {
    const fromFile = await run(['request', 'receipt-root', mainnet]);
    const text = JSON.stringify(loadFixture('mainnet-22869878'));
    expect((await run(['request', 'receipt-root', '-'], text)).stdout).toBe(fromFile.stdout);
    expect((await run(['request', 'receipt-root'], text)).stdout).toBe(fromFile.stdout);
    const pretty = await run(['request', 'logs-bloom', mainnet, '--pretty']);
    expect(pretty.stdout).toContain('\n  "expected_bloom": "');
  });

  it('the body verify receipt-root takes: piped from request, exit 0', async () => {
    const body = (await run(['request', 'receipt-root', mainnet])).stdout;
    const verified = await run(['verify', 'receipt-root'], body);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout).data[0]).toMatchObject({ is_identical: true, header_verified: true });
  });

  it('a block without chain_id: one line naming the member, exit 2', async () => {
    const { chain_id: _chain, ...unnamed } = loadFixture('mainnet-22869878');
    const file = join(dir, 'unnamed.json');
    writeFileSync(file, JSON.stringify(unnamed));
    expect(await run(['request', 'receipt-root', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `evm-integrity: ${file}: chain_id is missing; the body names its chain (add "chain_id" to the block, or give --chain ID)\n`,
    });
    const named = await run(['request', 'receipt-root', file, '--chain', '1']);
    expect(named.code).toBe(0);
    expect(named.stdout).toBe((await run(['request', 'receipt-root', mainnet])).stdout);
    expect((await run(['request', 'receipt-root', mainnet, '--chain', 'optimism'])).stderr).toBe(
      `evm-integrity: ${mainnet}: the block names chain_id 1, not the --chain 10 given\n`,
    );
  });

  it('a file that is not a block, not JSON, or missing: one line naming it, exit 2', async () => {
    const notBlock = join(dir, 'not-block.json');
    writeFileSync(notBlock, JSON.stringify({ chain_id: 1, header: { receiptsRoot: '0x12' }, receipts: [] }));
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, '{"chain_id": 1,}');
    expect(await run(['request', 'receipt-root', notBlock])).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(
        new RegExp(`^evm-integrity: ${notBlock}: not a block: header\\.receiptsRoot: expected .+\n$`),
      ),
    });
    expect((await run(['request', 'logs-bloom', notJson])).stderr).toBe(
      `evm-integrity: ${notJson}: not JSON (Expected double-quoted property name at line 1 column 16)\n`,
    );
    expect((await run(['request', 'logs-bloom', join(dir, 'nope.json')])).stderr).toBe(
      `evm-integrity: ${join(dir, 'nope.json')}: cannot read it: no such file\n`,
    );
  });

  it('a header verify block refuses (a field it hashes missing): no body, one line naming the member, exit 2 (built without its header_rlp, the body passed a header altered besides: a user check)', async () => {
    const block = loadFixture('mainnet-22869878');
    const { nonce: _nonce, ...header } = block.header as Record<string, unknown>;
    header.stateRoot = `0x${'11'.repeat(32)}`;
    const file = join(dir, 'no-nonce.json');
    writeFileSync(file, JSON.stringify({ ...block, header }));
    for (const what of ['receipt-root', 'logs-bloom'])
      expect(await run(['request', what, file])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${file}: not a block: header.nonce: expected present: the header hashes nonce into the block hash\n`,
      });
  });

  it("a receipt's own logsBloom, or a raw receipt, that is not what its fields make: no body (none carries either), one line naming it, exit 2", async () => {
    const withBloom = loadFixture('mainnet-22869878');
    (withBloom.receipts[0] as { logsBloom: string }).logsBloom = `0x${'ff'.repeat(256)}`;
    const withRaw = loadFixture('mainnet-15040641');
    const raw = withRaw.raw_receipts![1]!;
    withRaw.raw_receipts![1] = `${raw.slice(0, -1)}${raw.endsWith('0') ? '1' : '0'}`;
    const why = 'and no request body carries it; verify block reports the block different';
    for (const [name, block, line] of [
      ['bloom.json', withBloom, 'the logsBloom of the receipt of transaction 0 is not the bloom of its logs'],
      ['raw.json', withRaw, 'raw_receipts[1] is not the consensus encoding of the receipt of transaction 1'],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(block));
      expect(JSON.parse((await run(['verify', 'block', file])).stdout).verdict).toBe('different');
      for (const endpoint of ['receipt-root', 'logs-bloom'])
        expect(await run(['request', endpoint, file])).toEqual({
          code: 2,
          stdout: '',
          stderr: `evm-integrity: ${file}: ${line}, ${why}\n`,
        });
      // Without its hash (a header verify block refuses), and as geth's t8n gives it (the commitments alone, on a
      // devnet): the receipts are verified alone, their own claims too (was: a body, and verify receipt-root identical).
      const { hash: _hash, ...unhashed } = block.header as Record<string, unknown>;
      const { receiptsRoot, logsBloom } = unhashed;
      const { chain_id: _chain, ...t8n } = { ...block, header: { receiptsRoot, logsBloom } };
      for (const [variant, content, args] of [
        ['nohash', { ...block, header: unhashed }, []],
        ['t8n', t8n, ['--add-chain', '424242:ethereum', '--chain', '424242']],
      ] as const) {
        const other = join(dir, `${variant}-${name}`);
        writeFileSync(other, JSON.stringify(content));
        for (const endpoint of ['receipt-root', 'logs-bloom'])
          expect(await run(['request', endpoint, other, ...args])).toEqual({
            code: 2,
            stdout: '',
            stderr: `evm-integrity: ${other}: ${line}, ${why.replace('verify block reports the block different', 'its receipts, verified alone (the header claims no hash), are different')}\n`,
          });
      }
    }
  });

  it('a withdrawal made up in a block: no body (none carries the withdrawals), one line naming it, exit 2', async () => {
    const block = loadFixture('mainnet-22869878') as Record<string, any>;
    block.header.withdrawals = [
      { index: '0x1', validatorIndex: '0x2', address: `0x${'ab'.repeat(20)}`, amount: '0x3b9aca00' },
    ];
    const file = join(dir, 'withdrawal.json');
    writeFileSync(file, JSON.stringify(block));
    expect(JSON.parse((await run(['verify', 'block', file])).stdout).reason).toBe('does not match: withdrawals');
    for (const endpoint of ['receipt-root', 'logs-bloom']) {
      const { code, stdout, stderr } = await run(['request', endpoint, file]);
      expect([code, stdout]).toEqual([2, '']);
      expect(stderr).toMatch(
        /^evm-integrity: .*withdrawal\.json: header\.withdrawals do not hash to header\.withdrawalsRoot \(they give 0x[0-9a-f]{64}\), and no request body carries it; verify block reports the block different\n$/,
      );
    }
  });

  it('a header without its hash whose receipts are what their own claims say: a body, verified identical', async () => {
    const block = loadFixture('mainnet-15040641');
    const { hash: _hash, ...header } = block.header as Record<string, unknown>;
    const file = join(dir, 'nohash-whole.json');
    writeFileSync(file, JSON.stringify({ ...block, header }));
    const body = await run(['request', 'receipt-root', file]);
    expect(body.code).toBe(0);
    const verified = await run(['verify', 'receipt-root'], body.stdout);
    expect(JSON.parse(verified.stdout).data[0]).toMatchObject({ is_identical: true });
  });

  it('a header claim the body does not carry, found false: no body, one line naming it, exit 2; the body that carries it says different (was: header.logsBloom of zeros under a header of the commitments alone, request | verify receipt-root identical)', async () => {
    const block = loadFixture('mainnet-14764013') as Record<string, any>;
    const { receiptsRoot, logsBloom } = block.header;
    const zeros = `0x${'00'.repeat(256)}`;
    const otherRoot = `0x${'22'.repeat(32)}`;
    const why = 'its receipts, verified alone (the header claims no hash), are different';
    const cases = [
      // The header's bloom: a receipt-root body without header_rlp does not carry it; a logs-bloom body does.
      [
        'bloom',
        { receiptsRoot, logsBloom: zeros },
        'receipt-root',
        `header.logsBloom is not the bloom of the block's logs (they give another bloom), and a receipt-root body without header_rlp (the header lacks fields it hashes) does not carry it; ${why}`,
        'logs-bloom',
      ],
      // The header's root: a logs-bloom body does not carry it; a receipt-root body does.
      [
        'root',
        { receiptsRoot: otherRoot, logsBloom },
        'logs-bloom',
        `header.receiptsRoot is not the root of the block's receipts (they give ${receiptsRoot}), and a logs-bloom body does not carry it; ${why}`,
        'receipt-root',
      ],
    ] as const;
    for (const [name, header, refusedBody, line, carried] of cases) {
      const file = join(dir, `claim-${name}.json`);
      writeFileSync(file, JSON.stringify({ ...block, header }));
      expect(await run(['request', refusedBody, file])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${file}: ${line}\n`,
      });
      const body = await run(['request', carried, file]);
      expect(body.code).toBe(0);
      const verified = await run(['verify', carried], body.stdout);
      expect(verified.code).toBe(1);
      expect(JSON.parse(verified.stdout).data[0]).toMatchObject(
        carried === 'logs-bloom' ? { is_identical: false } : { is_identical: false, logs_bloom_matches_header: null },
      );
    }
    // A header with its hash whose root is altered: a logs-bloom body carries neither the root nor the hash.
    const hashed = join(dir, 'claim-root-hashed.json');
    writeFileSync(hashed, JSON.stringify({ ...block, header: { ...block.header, receiptsRoot: otherRoot } }));
    expect(await run(['request', 'logs-bloom', hashed])).toEqual({
      code: 2,
      stdout: '',
      stderr: `evm-integrity: ${hashed}: header.receiptsRoot is not the root of the block's receipts (they give ${receiptsRoot}), and a logs-bloom body does not carry it; verify block reports the block different\n`,
    });
    // The real block as the commitments alone: both bodies built, both identical.
    const real = join(dir, 'claim-real.json');
    writeFileSync(real, JSON.stringify({ ...block, header: { receiptsRoot, logsBloom } }));
    for (const endpoint of ['receipt-root', 'logs-bloom']) {
      const body = await run(['request', endpoint, real]);
      expect(body.code).toBe(0);
      expect((await run(['verify', endpoint], body.stdout)).code).toBe(0);
    }
  });

  it('receipts or logs that name another block than a header without its hash: no body, one line naming it, exit 2 (was: request | verify receipt-root identical, header_verified true)', async () => {
    const block = loadFixture('base-2000000') as Record<string, any>;
    const { hash, ...unhashed } = block.header;
    const other = `0x${'11'.repeat(32)}`;
    // Its header whole: the receipts repeat the hash of its fields.
    const named: Record<string, any> = structuredClone({ ...block, header: unhashed });
    named.receipts[0].blockHash = other;
    const namedFile = join(dir, 'nohash-other-block.json');
    writeFileSync(namedFile, JSON.stringify(named));
    // The commitments alone: the receipts and logs must name one block.
    const mixed: Record<string, any> = structuredClone({
      ...block,
      header: { receiptsRoot: unhashed.receiptsRoot, logsBloom: unhashed.logsBloom },
    });
    mixed.receipts[3].blockHash = other;
    const mixedFile = join(dir, 'commitments-mixed-blocks.json');
    writeFileSync(mixedFile, JSON.stringify(mixed));
    for (const endpoint of ['receipt-root', 'logs-bloom']) {
      expect(await run(['request', endpoint, namedFile])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${namedFile}: not a block: receipts[0].blockHash: expected ${hash}, the hash of the header's fields (it gives no hash), which it repeats, got ${other}\n`,
      });
      expect(await run(['request', endpoint, mixedFile])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${mixedFile}: not a block: receipts[3].blockHash: expected ${hash}, receipts[0].blockHash, the first block hash the block's members give (its header gives none), which it repeats, got ${other}\n`,
      });
    }
  });

  it.each([
    [['request'], 'request needs which body to build: receipt-root or logs-bloom'],
    [['request', 'block'], 'cannot build a "block" body: expected receipt-root or logs-bloom'],
    [
      ['request', 'receipt-root', 'a.json', 'b.json'],
      'unexpected argument "b.json": request receipt-root reads one FILE',
    ],
  ])('%j: a usage error, exit 2: one line and where the help is', async (args, message) => {
    const { code, stdout, stderr } = await run(args);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(`evm-integrity: ${message}\ntry 'evm-integrity request --help'\n`);
  });
});

/**
 * polygon-pos-9013760 with Bor's state-sync receipt appended as bor's eth_getBlockReceipts returns it (its transaction
 * hash derived from the block's number and hash, a log of the StateReceiver), under `chainId`.
 */
function withStateSync(chainId: number) {
  const real = loadFixture('polygon-pos-9013760');
  const header = real.header as { number: string; hash: string };
  const txHash = borStateSyncTxHash(BigInt(header.number), Buffer.from(header.hash.slice(2), 'hex'));
  const stateSync = {
    transactionIndex: `0x${real.receipts.length.toString(16)}`,
    transactionHash: `0x${bytesToHex(txHash)}`,
    type: '0x0',
    status: '0x1',
    cumulativeGasUsed: '0x0',
    logs: [{ address: '0x0000000000000000000000000000000000001001', topics: [`0x${'11'.repeat(32)}`], data: '0x' }],
  };
  return { ...real, chain_id: chainId, receipts: [...real.receipts, stateSync] };
}

describe("request on a block holding Bor's state-sync receipt: the answer verify block gives", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-request-state-sync-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'polygon-state-sync.json');
  writeFileSync(file, JSON.stringify(withStateSync(137)));

  it('built-in Polygon PoS (polygon-pos-10000000 shows the rule): the body carries the receipt by its tx_hash; verify receipt-root and the server leave it out, naming it, as verify block does; each not_verifiable, exit 2, as no commitment covers it (was: identical, exit 0)', async () => {
    const block = await run(['verify', 'block', file]);
    expect(block.code).toBe(2);
    const report = JSON.parse(block.stdout);
    expect(report).toMatchObject({ verdict: 'not_verifiable', receipts_root: { matches: true } });
    expect(report.excluded_receipts).toHaveLength(1);
    expect(report.reason).toContain(
      `the receipt at index 4 (transaction hash 0x${report.excluded_receipts[0].tx_hash})`,
    );

    const made = await run(['request', 'receipt-root', file]);
    expect(made.code).toBe(0);
    const body = JSON.parse(made.stdout);
    expect(body.transactions).toHaveLength(5);
    expect(body.transactions[4]).toMatchObject({ index: 4, tx_hash: report.excluded_receipts[0].tx_hash });

    const verified = await run(['verify', 'receipt-root'], made.stdout);
    expect(verified.code).toBe(2);
    expect(JSON.parse(verified.stdout).data[0]).toMatchObject({
      is_identical: true,
      excluded_receipts: report.excluded_receipts,
    });

    const answer = await post('receipt-root', made.stdout);
    expect(answer.status).toBe(200);
    const expected = verifyReceiptRootOperation(body, { docsUrl: `${server.url}/v1/docs` });
    expect({ status: answer.status, body: answer.json }).toEqual({ status: expected.status, body: expected.body });
  });

  it("the real block's state-sync receipt of a type its era has not (0x55): verify block and request refuse it, exit 2, naming it as verify receipt-root names it in the body (was: identical, and a body verify receipt-root refused: a user check)", async () => {
    const typed = structuredClone(loadFixture('polygon-pos-10000000')) as { receipts: Array<Record<string, unknown>> };
    typed.receipts[5]!.type = '0x55';
    const typedFile = join(dir, 'polygon-state-sync-type-0x55.json');
    writeFileSync(typedFile, JSON.stringify(typed));
    const why =
      'expected a receipt type of the polygon rule set before state sync became a 0x7f transaction (Madhugiri): 0, 1, 2, 4; got 85';
    const verified = await run(['verify', 'block', typedFile]);
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({
      code: 2,
      stderr: `evm-integrity: ${typedFile}: Invalid parameter receipts[5].type: ${why}.\n`,
    });
    expect(await run(['request', 'receipt-root', typedFile])).toEqual({
      code: 2,
      stdout: '',
      stderr: `evm-integrity: ${typedFile}: not a block: receipts[5].type: ${why}\n`,
    });
    // The body of the real block, its state-sync receipt given that type: the endpoint names the same receipt and type.
    const body = JSON.parse(
      (await run(['request', 'receipt-root', join(FIXTURES_DIR, 'polygon-pos-10000000.json')])).stdout,
    );
    body.transactions[5].type = 0x55;
    const endpoint = await run(['verify', 'receipt-root'], JSON.stringify(body));
    expect(endpoint.code).toBe(2);
    expect(JSON.parse(endpoint.stdout).error.message).toBe(`Invalid parameter transactions[5].type: ${why}.`);
  });

  it('request logs-bloom: refused in one line naming the receipt, exit 2 (a logs-bloom body cannot carry it)', async () => {
    const txHash = JSON.parse((await run(['verify', 'block', file])).stdout).excluded_receipts[0].tx_hash;
    expect(await run(['request', 'logs-bloom', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `evm-integrity: ${file}: the receipt of transaction 4 (0x${txHash}) is left out of the logs bloom (Bor's state-sync receipt: in blocks 0-80,084,799 (Bor before Madhugiri) it is in neither the receipts root nor the logs bloom, and no hash of the block commits to it), and a logs-bloom body cannot carry it; request receipt-root carries it, verify block reports it\n`,
    });
  });

  it('the real block in consensus fields alone (no transactionHash to tell the receipt apart): request logs-bloom refused, exit 2 (its body was different on the server: a user check)', async () => {
    const bare = join(dir, 'polygon-consensus-fields.json');
    writeFileSync(bare, JSON.stringify(consensusFieldsOnly('polygon-pos-10000000')));
    const made = await run(['request', 'logs-bloom', bare]);
    expect({ code: made.code, stdout: made.stdout }).toEqual({ code: 2, stdout: '' });
    expect(made.stderr).toBe(
      `evm-integrity: ${bare}: verify block cannot verify this block's logs bloom (not verifiable: no real block of this era in the project's fixtures has shown an untyped receipt that used no gas (a system transaction) yet, nor has an operator's evidence), and a logs-bloom body, a bare list of logs, would not show why\n`,
    );
  });

  it('the real block (polygon-pos-10000000), by the real process: verify block and verify receipt-root exit 2, the server answers 200 not_verifiable naming the receipt; another receipt altered: exit 1; under --rules polygon and --add-chain ID:polygon, where its placement is unknown: exit 2, altered exit 1 (was: 0, and 1 or 2 there)', async () => {
    const real = join(FIXTURES_DIR, 'polygon-pos-10000000.json');
    expect((await run(['verify', 'block', real])).code).toBe(2);
    const made = await run(['request', 'receipt-root', real]);
    expect(made.code).toBe(0);
    const verified = await run(['verify', 'receipt-root'], made.stdout);
    expect(verified.code).toBe(2);
    expect(JSON.parse(verified.stdout).data[0]).toMatchObject({
      is_identical: true,
      excluded_receipts: [{ index: 5 }],
    });
    const answer = await post('receipt-root', made.stdout);
    expect(answer.status).toBe(200);
    expect(answer.json.data[0]).toMatchObject({ is_identical: true, excluded_receipts: [{ index: 5 }] });

    const block = structuredClone(loadFixture('polygon-pos-10000000')) as Record<string, any>;
    const other = structuredClone(block);
    other.receipts[2].status = other.receipts[2].status === '0x1' ? '0x0' : '0x1';
    const otherFile = join(dir, 'polygon-other-receipt-altered.json');
    writeFileSync(otherFile, JSON.stringify(other));
    expect((await run(['verify', 'block', otherFile])).code).toBe(1);

    const { chain_id: _id, ...unnamed } = block;
    const unnamedFile = join(dir, 'polygon-unnamed.json');
    writeFileSync(unnamedFile, JSON.stringify(unnamed));
    const added = join(dir, 'polygon-added.json');
    writeFileSync(added, JSON.stringify({ ...block, chain_id: 31337137 }));
    const { chain_id: _otherId, ...otherUnnamed } = other;
    const otherUnnamedFile = join(dir, 'polygon-other-unnamed.json');
    writeFileSync(otherUnnamedFile, JSON.stringify(otherUnnamed));
    const otherAdded = join(dir, 'polygon-other-added.json');
    writeFileSync(otherAdded, JSON.stringify({ ...other, chain_id: 31337137 }));
    const rules = await run(['verify', 'block', '--rules', 'polygon', unnamedFile]);
    expect(rules.code).toBe(2);
    expect(JSON.parse(rules.stdout)).toMatchObject({ verdict: 'not_verifiable', excluded_receipts: [{ index: 5 }] });
    expect((await run(['verify', 'block', '--add-chain', '31337137:polygon', added])).code).toBe(2);
    expect((await run(['verify', 'block', '--rules', 'polygon', otherUnnamedFile])).code).toBe(1);
    expect((await run(['verify', 'block', '--add-chain', '31337137:polygon', otherAdded])).code).toBe(1);
  });

  it("the real block (polygon-pos-10000000) in the compact form (no chain, no transactionHash on receipts and logs, no gasUsed), by the real process: under --rules polygon and --add-chain 99999:polygon its last receipt has the state-sync receipt's shape: exit 2 naming it, another receipt altered exit 1; its receipt-root body without the receipt's tx_hash: exit 2 and 200 over HTTP, without a block hash: 400 naming block_hash (was: different, exit 1: a user check)", async () => {
    const {
      chain_id: _id,
      chain: _chain,
      ...block
    } = structuredClone(loadFixture('polygon-pos-10000000')) as Record<string, any>;
    block.receipts = block.receipts.map(({ transactionHash: _h, gasUsed: _g, ...receipt }: Record<string, any>) => ({
      ...receipt,
      logs: receipt.logs.map(({ transactionHash: _t, ...log }: Record<string, unknown>) => log),
    }));
    const compact = join(dir, 'polygon-compact.json');
    writeFileSync(compact, JSON.stringify(block));
    const other = structuredClone(block);
    other.receipts[1].status = other.receipts[1].status === '0x1' ? '0x0' : '0x1';
    const otherFile = join(dir, 'polygon-compact-other-altered.json');
    writeFileSync(otherFile, JSON.stringify(other));
    const added = ['--add-chain', '99999:polygon', '--chain', '99999'];
    for (const how of [['--rules', 'polygon'], added]) {
      const verified = await run(['verify', 'block', ...how, compact]);
      expect(verified.code, how.join(' ')).toBe(2);
      expect(JSON.parse(verified.stdout)).toMatchObject({
        verdict: 'not_verifiable',
        receipts_root: { matches: true },
        logs_bloom: { matches: true },
        excluded_receipts: [{ index: 5, reason: expect.stringContaining('by its shape') }],
      });
      expect((await run(['verify', 'block', ...how, otherFile])).code, how.join(' ')).toBe(1);
    }
    // On the built-in chain the era has not shown such a receipt in the root: not verifiable, as before.
    expect((await run(['verify', 'block', '--chain', '137', compact])).code).toBe(2);

    const made = await run(['request', 'receipt-root', join(FIXTURES_DIR, 'polygon-pos-10000000.json')]);
    const { chain_id: _bodyChain, ...body } = JSON.parse(made.stdout);
    const unnamed = structuredClone(body);
    delete unnamed.transactions[5].tx_hash;
    const endpoint = await run(['verify', 'receipt-root', ...added], JSON.stringify(unnamed));
    expect(endpoint.code).toBe(2);
    expect(JSON.parse(endpoint.stdout).data[0]).toMatchObject({
      is_identical: true,
      excluded_receipts: [{ index: 5 }],
    });
    const answer = await post('receipt-root', JSON.stringify({ ...unnamed, chain_id: 99999 }));
    expect(answer.status).toBe(200);
    expect(answer.json.data[0]).toMatchObject({ is_identical: true, excluded_receipts: [{ index: 5 }] });
    const altered = structuredClone(unnamed);
    altered.transactions[1].status = altered.transactions[1].status === 1 ? 0 : 1;
    expect((await run(['verify', 'receipt-root', ...added], JSON.stringify(altered))).code).toBe(1);
    for (const sent of [unnamed, body]) {
      const { block_hash: _hash, header_rlp: _rlp, ...hashless } = sent;
      const refused = await run(['verify', 'receipt-root', ...added], JSON.stringify(hashless));
      expect(refused.code).toBe(2);
      expect(JSON.parse(refused.stdout).error.details.invalid_parameters).toMatchObject([{ name: 'block_hash' }]);
      const overHttp = await post('receipt-root', JSON.stringify({ ...hashless, chain_id: 99999 }));
      expect(overHttp.status).toBe(400);
    }
  });

  it('a chain whose era claims the rule: the server leaves the receipt out and lists it, as verify block does', async () => {
    const json = withStateSync(TEST_CHAINS.polygon);
    const report = verifyBlock(json, { registry: testRegistry });
    expect(report).toMatchObject({ ok: true, value: { verdict: 'not_verifiable', transaction_count: 4 } });
    // The body request builds: the block as verify block reads it, into the library's builder.
    const block = readRpcBlock(json, new Problems(), { registry: testRegistry })!;
    const body = receiptRootBody({
      chainId: TEST_CHAINS.polygon,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
      excludedReceipts: block.excludedReceipts,
      blockNumber: Number(block.header.fields.number),
      blockHash: block.header.hash!,
    });
    const answer = await post('receipt-root', JSON.stringify(body));
    expect(answer.status).toBe(200);
    expect(answer.json.data[0]).toMatchObject({
      is_identical: true,
      transaction_count: 4,
      excluded_receipts: report.ok ? report.value.excluded_receipts : null,
    });
  });
});

/**
 * A root that differs is a mismatch (200 is_identical false, exit 1) only where nothing the server assumed may explain
 * it; else the answer asks for what it needs (a user check found each as a false verdict, or tampering hidden as 422).
 */
describe('a root that differs is asserted only where the computation assumed nothing that may not hold', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-request-doubt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const context = { docsUrl: '' };
  /** The body `request receipt-root` makes of a fixture (or of `block`, a changed one). */
  const requestBody = async (name: string, block?: unknown) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(block ?? loadFixture(name)));
    const made = await run(['request', 'receipt-root', file]);
    expect(made.stderr).toBe('');
    return JSON.parse(made.stdout);
  };
  /** A body in the hosted specification's members only: no type, no header_rlp. */
  const specOnly = (body: any, top: string[] = ['chain_id', 'block_number', 'block_hash', 'receipt_root']): any => ({
    ...Object.fromEntries(top.filter((member) => body[member] !== undefined).map((member) => [member, body[member]])),
    transactions: body.transactions.map((t: any) => ({
      index: t.index,
      ...(t.root === undefined ? { status: t.status } : { root: t.root }),
      cumulative_gas_used: t.cumulative_gas_used,
      logs: t.logs,
    })),
  });
  /** The server's answer to `body`, which must be the library's, and the CLI's exit status on it. */
  const answered = async (body: unknown) => {
    const text = JSON.stringify(body);
    const answer = await post('receipt-root', text);
    const expected = verifyReceiptRootOperation(body, { ...context, docsUrl: `${server.url}/v1/docs` });
    expect({ status: answer.status, body: answer.json }).toEqual({ status: expected.status, body: expected.body });
    const cli = await run(['verify', 'receipt-root', '-'], text);
    return { status: answer.status, json: answer.json, exit: cli.code };
  };

  it.each(['mainnet-19426587', 'mainnet-22869878', 'base-2000000'])(
    '%s in the hosted spec members (no type): 422 asking for each type, not a root that differs (was: 200 is_identical false, exit 1)',
    async (name) => {
      const body = specOnly(await requestBody(name));
      for (const sent of [body, { ...body, block_number: undefined, block_hash: undefined }]) {
        if (name.startsWith('mainnet') && sent.block_number === undefined) continue; // before Byzantium: below
        const answer = await answered(sent);
        expect(answer).toMatchObject({ status: 422, exit: 2, json: { error: { code: 'CHAIN_NOT_SUPPORTED' } } });
        expect(answer.json.error.message).toContain('no transaction gives its type');
        expect(answer.json.error.hint).toContain("Send each transaction's `type`");
      }
    },
  );

  it('without types, a root that matches stays identical, a block before Berlin that differs stays different, and with types an altered receipt is different', async () => {
    // Before Berlin every transaction is legacy: the default is right there.
    const preBerlin = specOnly(await requestBody('mainnet-7000000'));
    expect(await answered(preBerlin)).toMatchObject({ status: 200, exit: 0, json: { data: [{ is_identical: true }] } });
    const altered = structuredClone(preBerlin);
    altered.transactions[0].status = 1 - altered.transactions[0].status;
    expect(await answered(altered)).toMatchObject({ status: 200, exit: 1, json: { data: [{ is_identical: false }] } });
    // After Berlin, a body that gives its types (request always does, 0 too) asserts the difference.
    const typed = await requestBody('mainnet-19426587');
    expect(typed.transactions.every((t: any) => typeof t.type === 'number')).toBe(true);
    typed.transactions[0].status = 1 - typed.transactions[0].status;
    expect(await answered(typed)).toMatchObject({ status: 200, exit: 1, json: { data: [{ is_identical: false }] } });
    // Without types, altered receipts are never identical either.
    const stripped = specOnly(typed);
    expect((await answered(stripped)).status).toBe(422);
  });

  it("mainnet-1000010's receipts as reth gives them (status, no root) without block_number: 400 naming block_number (was: 200 is_identical false); with it, 422", async () => {
    const body = specOnly(await requestBody('mainnet-1000010'), ['chain_id', 'receipt_root']);
    body.transactions = body.transactions.map(({ root: _root, ...t }: any) => ({ ...t, status: 1 }));
    const answer = await answered(body);
    expect(answer).toMatchObject({
      status: 400,
      exit: 2,
      json: {
        error: { code: 'BAD_REQUEST', details: { invalid_parameters: [{ name: 'block_number', reason: 'missing' }] } },
      },
    });
    expect(answer.json.error.message).toContain('before Byzantium (block 4,370,000)');
    expect(await answered({ ...body, block_number: 1000010 })).toMatchObject({ status: 422, exit: 2 });
    // A block after Byzantium sent so verifies: the status is what it hashes, and a root that matches is no doubt.
    const later = specOnly(await requestBody('mainnet-7000000'), ['chain_id', 'receipt_root']);
    expect(await answered(later)).toMatchObject({ status: 200, exit: 0, json: { data: [{ is_identical: true }] } });
  });

  /** Every mainnet fixture whose receipts give a post-state root (a block before Byzantium, as geth gives it). */
  const withRoots = fixtureNames
    .map((file) => file.replace(/\.json$/, ''))
    .filter((name) => name.startsWith('mainnet-') && loadFixture(name).receipts.some((r: any) => r.root != null));

  it('receipts that give a post-state root, without block_number or types: the root that differs is different (was: 422 "the block may be from Berlin on")', async () => {
    expect(withRoots).toEqual(expect.arrayContaining(['mainnet-1000010', 'mainnet-990016', 'mainnet-47218']));
    // A post-state root dates the block before Byzantium, so before Berlin: no transaction can be typed.
    const bare = (body: any) => specOnly(body, ['chain_id', 'receipt_root']);
    const body = bare(await requestBody('mainnet-1000010'));
    expect(await answered(body)).toMatchObject({ status: 200, exit: 0, json: { data: [{ is_identical: true }] } });
    const altered = structuredClone(body);
    altered.transactions[0].cumulative_gas_used += 1;
    expect(await answered(altered)).toMatchObject({ status: 200, exit: 1, json: { data: [{ is_identical: false }] } });
    for (const name of withRoots) {
      const made = await runHere(['request', 'receipt-root', join(FIXTURES_DIR, `${name}.json`)]);
      const sent = bare(JSON.parse(made.stdout));
      const verdict = (b: unknown) => verifyReceiptRootOperation(b, context);
      expect(verdict(sent), name).toMatchObject({ status: 200, verdict: 'identical' });
      sent.transactions[0].cumulative_gas_used = Number(sent.transactions[0].cumulative_gas_used) + 1;
      expect(verdict(sent), name).toMatchObject({ status: 200, verdict: 'different' });
    }
  });

  describe('mainnet-17034870 from a source that gives no type (was: request wrote type 0, so verify receipt-root and verify block said different)', () => {
    const untyped = (edit?: (block: any) => void) => {
      const block = structuredClone(loadFixture('mainnet-17034870')) as any;
      for (const receipt of block.receipts) delete receipt.type;
      edit?.(block);
      return block;
    };
    const alterLog = (block: any) => {
      const receipt = block.receipts.find((r: any) => r.logs.length > 0);
      receipt.logs[0].data += '00';
    };

    it.each<[string, ((block: any) => void) | undefined]>([
      ['as sent', undefined],
      ['a log altered', alterLog],
    ])(
      '%s: request writes no type, the server asks for the types (422), verify block says not_verifiable naming them',
      async (variant, edit) => {
        const block = untyped(edit);
        const body = await requestBody(`mainnet-17034870-untyped-${variant.replace(/ /g, '-')}`, block);
        expect(body.transactions.some((t: any) => 'type' in t)).toBe(false);
        const answer = await answered(body);
        expect(answer).toMatchObject({ status: 422, exit: 2, json: { error: { code: 'CHAIN_NOT_SUPPORTED' } } });
        expect(answer.json.error.message).toContain('no transaction gives its type');
        const file = join(dir, `mainnet-17034870-untyped-${variant.replace(/ /g, '-')}.json`);
        const verified = await run(['verify', 'block', file]);
        expect(verified.code).toBe(2);
        const report = JSON.parse(verified.stdout);
        expect(report).toMatchObject({ verdict: 'not_verifiable', receipts_root: { matches: null } });
        expect(report.receipts_root.reason).toContain('no receipt gives its type');
        expect(report.receipts_root.reason).toContain('from Berlin (block 12,244,000) on');
      },
    );

    it('where the era shows no typed transaction, or a receipt gives its type, the receipts altered stay different', async () => {
      // mainnet-7000000 is before Berlin: each receipt read as legacy is right.
      const before = structuredClone(loadFixture('mainnet-7000000')) as any;
      for (const receipt of before.receipts) delete receipt.type;
      before.receipts[0].status = before.receipts[0].status === '0x1' ? '0x0' : '0x1';
      const file = join(dir, 'mainnet-7000000-untyped-altered.json');
      writeFileSync(file, JSON.stringify(before));
      expect((await run(['verify', 'block', file])).code).toBe(1);
      // The source gives types: request writes each, 0 too, and a log altered is different.
      const typed = structuredClone(loadFixture('mainnet-17034870')) as any;
      alterLog(typed);
      const body = await requestBody('mainnet-17034870-typed-altered', typed);
      expect(body.transactions.every((t: any) => typeof t.type === 'number')).toBe(true);
      expect(await answered(body)).toMatchObject({ status: 200, exit: 1, json: { data: [{ is_identical: false }] } });
      expect((await run(['verify', 'block', join(dir, 'mainnet-17034870-typed-altered.json')])).code).toBe(1);
    });

    it('no receipt at all (a source that answers [] for a block with transactions) is different, not a doubt of types left out (was: verify block said not_verifiable where the server said different)', async () => {
      const block = untyped((b) => {
        b.receipts = [];
        delete b.header.transactions;
      });
      const body = await requestBody('mainnet-17034870-no-receipts', block);
      expect(body.transactions).toEqual([]);
      expect(await answered(body)).toMatchObject({ status: 200, exit: 1, json: { data: [{ is_identical: false }] } });
      const verified = await run(['verify', 'block', join(dir, 'mainnet-17034870-no-receipts.json')]);
      expect(verified.code).toBe(1);
      expect(JSON.parse(verified.stdout)).toMatchObject({ verdict: 'different', receipts_root: { matches: false } });
    });
  });

  describe('polygon-pos-10000000 (its Bor state-sync receipt, unrecognised once the header changes)', () => {
    const name = 'polygon-pos-10000000';
    const flip = (hex: string, at: number) =>
      hex.slice(0, at) + (Number.parseInt(hex[at]!, 16) ^ 1).toString(16) + hex.slice(at + 1);
    const bump = (quantity: string) => `0x${(BigInt(quantity) + 1n).toString(16)}`;
    const header = (edit: (h: Record<string, string>) => void) => {
      const block = structuredClone(loadFixture(name)) as any;
      edit(block.header);
      return block;
    };

    it.each<[string, (h: Record<string, string>) => void]>([
      ['receiptsRoot', (h) => (h['receiptsRoot'] = flip(h['receiptsRoot']!, 9))],
      ['logsBloom', (h) => (h['logsBloom'] = flip(h['logsBloom']!, 11))],
      ['timestamp', (h) => (h['timestamp'] = bump(h['timestamp']!))],
      ['gasUsed', (h) => (h['gasUsed'] = bump(h['gasUsed']!))],
    ])(
      'its header altered (%s): verify block, the server and request | verify receipt-root all say different (was: 422 blaming the receipts)',
      async (field, edit) => {
        const block = header(edit);
        const file = join(dir, `${name}-${field}.json`);
        writeFileSync(file, JSON.stringify(block));
        expect((await run(['verify', 'block', file])).code).toBe(1);
        const body = await requestBody(`${name}-${field}`, block);
        const answer = await answered(body);
        expect(answer).toMatchObject({ status: 200, exit: 1, json: { data: [{ header_verified: false }] } });
        expect(answer.json.data[0].unproven_receipt).toMatchObject({
          index: 5,
          reason: expect.stringContaining('header_rlp does not verify'),
        });
        if (field === 'receiptsRoot') expect(answer.json.data[0].is_identical).toBe(false);
      },
    );

    it('any byte of header_rlp altered: different, not 422', async () => {
      const body = await requestBody(name);
      for (const at of [10, 100, 300, 1000, body.header_rlp.length - 4]) {
        const answer = await answered({ ...body, header_rlp: flip(body.header_rlp, at) });
        expect(answer.status === 400 || (answer.status === 200 && answer.exit === 1), `byte ${at}`).toBe(true);
      }
    });

    it('without its header: unaltered, still 422 (nothing tells the receipt); a receipt altered, different whatever the receipt is', async () => {
      const body = await requestBody(name);
      const bare = { ...body, header_rlp: undefined, block_hash: flip(body.block_hash, 3) };
      expect(await answered(bare)).toMatchObject({ status: 422, exit: 2 });
      const altered = structuredClone(bare);
      altered.transactions[0].status = 1 - altered.transactions[0].status;
      const answer = await answered(altered);
      expect(answer).toMatchObject({ status: 200, exit: 1, json: { data: [{ is_identical: false }] } });
      expect(answer.json.data[0].unproven_receipt.reason).toContain(
        "in the root or left out as Bor's state-sync receipt, the root differs from receipt_root",
      );
    });
  });
});
