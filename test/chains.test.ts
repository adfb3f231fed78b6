/**
 * Chains and eras: a block the verifier cannot recompute is answered "not
 * verifiable" with the reason, never reported as a mismatch.
 */
import { verifyBlockOperation } from '../packages/core/src/api/index.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerify } from '../packages/service/src/cli/verify/verify.js';
import { ChainRegistry, describeChain, defaultRegistry } from '../packages/core/src/chains/registry.js';
import { BUILTIN_CHAIN_IDS, builtinChain } from '../packages/core/src/chains/builtin.js';
import { BUILTIN_CHAINS } from '../packages/core/src/index.js';
import { encodeHeader, Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import { receiptRootBody, verifyReceiptRootOperation } from '../packages/core/src/api/index.js';
import { createApp } from '../packages/service/src/server/app.js';
import { parseConfig } from '../packages/service/src/server/config/config.js';
import { provision, startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { loadFixture } from './helpers/fixtures.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NITRO_GENESIS = 22_207_817;
const EMPTY_ROOT = '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/** A real block (Byzantium, 38 legacy receipts) whose receipts encode alike on Ethereum and Arbitrum Nitro. */
const fixture = loadFixture('mainnet-7000000');
const block = readRpcBlock(fixture, new Problems())!;
const header = block.header.complete!;
const receiptRoot = header.receiptsRoot;

/** The block's receipts as a body of `chainId` at `blockNumber`. */
const bodyAt = (chainId: number, blockNumber: number | undefined, over: Record<string, unknown> = {}) => ({
  ...receiptRootBody({
    chainId,
    receiptRoot,
    receipts: block.receipts,
    ...(blockNumber !== undefined && { blockNumber }),
  }),
  ...over,
});

/** The fixture as a block of `chainId` numbered `number`, without its (now wrong) hash. */
function blockFileAt(chainId: number, number: number) {
  const { hash: _hash, ...rest } = fixture.header;
  return { ...fixture, chain_id: chainId, header: { ...rest, number: `0x${number.toString(16)}` } };
}

function runBinary(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8' });
  return { code: result.status, json: JSON.parse(result.stdout) };
}

const CLASSIC_DETAILS = {
  chain_id: 42161,
  chain: 'Arbitrum One',
  block_number: 1_000_000,
  era: 'Arbitrum classic',
  era_first_block: 0,
  era_last_block: NITRO_GENESIS - 1,
  first_verifiable_block: NITRO_GENESIS,
  reason: expect.stringContaining('classic'),
};

describe('Arbitrum One before the Nitro genesis is not verifiable', () => {
  it('a receipt-root body of a classic block: 422 CHAIN_NOT_SUPPORTED naming the era and the first verifiable block', () => {
    const result = verifyReceiptRootOperation(bodyAt(42161, 1_000_000, { receipt_root: 'ab'.repeat(32) }));
    expect(result.status).toBe(422);
    expect(result.verdict).toBe('not_verifiable');
    const error = (result.body as any).error;
    expect(error).toMatchObject({ code: 'CHAIN_NOT_SUPPORTED', http_status: 422, details: CLASSIC_DETAILS });
    expect(error.message).toBe(
      'Block 1,000,000 of Arbitrum One (chain 42161) is in its Arbitrum classic era (blocks 0-22,207,816), which cannot be verified: ' +
        'Arbitrum classic blocks carry receipts roots that no encoding of their JSON-RPC receipts reproduces; the classic chain committed to its receipts in its own way.',
    );
    expect(error.hint).toMatch(/from 22,207,817 on can be verified/);
  });

  it('the era is taken from header_rlp when the body gives no block_number', () => {
    const classicHeader = encodeHeader({ ...header, number: 1_000_000n });
    const result = verifyReceiptRootOperation({
      ...bodyAt(42161, undefined),
      header_rlp: Buffer.from(classicHeader).toString('hex'),
    });
    expect(result.status).toBe(422);
    expect((result.body as any).error.details).toMatchObject(CLASSIC_DETAILS);
  });

  it('from the Nitro genesis on, the same receipts verify normally', () => {
    for (const n of [NITRO_GENESIS, 300_000_000]) {
      const result = verifyReceiptRootOperation(bodyAt(42161, n));
      expect(result.verdict).toBe('identical');
      expect((result.body as any).data[0]).toMatchObject({
        is_identical: true,
        block_number: n,
        transaction_count: 38,
      });
    }
  });

  it.each([
    ['matching', {}],
    ['not matching', { receipt_root: 'ab'.repeat(32) }],
  ])(
    'without block_number or header_rlp, a root %s: 400 naming block_number and why (only the era tells what is claimed)',
    (_name, over) => {
      const result = verifyReceiptRootOperation(bodyAt(42161, undefined, over));
      expect(result.status).toBe(400);
      const [problem, ...more] = (result.body as any).error.details.invalid_parameters;
      expect(more).toEqual([]);
      expect(problem).toMatchObject({ name: 'block_number', reason: 'missing' });
      expect(problem.expected).toBe(
        'the block number (or header_rlp): the receipts of Arbitrum One blocks 0-22,207,816 (Arbitrum classic) cannot be verified, those of other blocks can',
      );
    },
  );

  it('verify block: a classic block gets the verdict not_verifiable, with nothing computed; a Nitro one is verified', () => {
    const classic = verifyBlockOperation(blockFileAt(42161, 1_000_000));
    expect(classic.verdict).toBe('not_verifiable');
    expect(classic.body).toMatchObject({
      chain_id: 42161,
      block_number: 1_000_000,
      verdict: 'not_verifiable',
      is_identical: false,
      reason: expect.stringMatching(/^Block 1,000,000 of Arbitrum One \(chain 42161\) is in its Arbitrum classic era/),
      receipts_root: { computed: null, matches: null },
      logs_bloom: { computed: null, matches: null },
    });
    // --rules names rules for chains outside the registry; it does not make an era verifiable.
    expect(verifyBlockOperation(blockFileAt(42161, 1_000_000), { rules: 'arbitrum' }).verdict).toBe('not_verifiable');

    const nitro = verifyBlockOperation(loadFixture('arbitrum-one-150000000'));
    expect(nitro.verdict).toBe('identical');
    expect(nitro.body).toMatchObject({
      verdict: 'identical',
      era: 'Nitro',
      reason: null,
      receipts_root: { matches: true },
      logs_bloom: { matches: true },
    });
  });

  it('the core verifyBlock returns the report or the refusal; only the operation builds answers', () => {
    const report = verifyBlock(blockFileAt(42161, 1_000_000));
    expect(report.ok && report.value.verdict).toBe('not_verifiable');
    const { chain_id: _, ...unnamed } = blockFileAt(42161, NITRO_GENESIS) as Record<string, unknown>;
    const refused = verifyBlock(unnamed);
    expect(refused).toMatchObject({
      ok: false,
      error: {
        kind: 'chain_not_supported',
        subject: null,
        hint: expect.stringContaining(
          'the rules option (on the command line, --add-chain ID:RULES; verify block also takes --rules)',
        ),
      },
    });
    expect(verifyBlockOperation(unnamed).status).toBe(422);
  });

  it('verify block: a chain none of whose blocks can be verified gets not_verifiable with its reason', () => {
    const result = verifyBlockOperation(blockFileAt(324, 1));
    expect(result.verdict).toBe('not_verifiable');
    expect((result.body as any).reason).toMatch(/zkSync Era.*Patricia/);
  });
});

describe('OP-stack legacy eras: what no real block has shown is refused, not guessed at', () => {
  it.each([[420, 4_061_223, 4_061_224]])(
    'chain %i: the receipts of legacy block %i are 422, naming Bedrock block %i as the first whose receipts are verified',
    (chainId, legacy, bedrock) => {
      const refused = verifyReceiptRootOperation(bodyAt(chainId, legacy));
      expect(refused.status).toBe(422);
      expect((refused.body as any).error.details).toMatchObject({
        era: 'legacy (pre-Bedrock)',
        era_last_block: legacy,
        first_verifiable_block: bedrock,
      });
    },
  );

  it("OP Mainnet's legacy and Bedrock receipts are verified (real blocks show them); OP Goerli's only for blocks without receipts, as its one real block", () => {
    expect(verifyReceiptRootOperation(bodyAt(10, 105_235_062)).verdict).toBe('identical');
    expect(verifyReceiptRootOperation(bodyAt(10, 105_235_063)).verdict).toBe('identical');
    const goerli = verifyReceiptRootOperation(bodyAt(420, 4_061_224));
    expect(goerli.status).toBe(422);
    expect((goerli.body as any).error.message).toMatch(/has shown receipts of Ethereum's types yet/);
    expect(
      verifyReceiptRootOperation({ chain_id: 420, block_number: 4_061_224, receipt_root: EMPTY_ROOT, transactions: [] })
        .verdict,
    ).toBe('identical');
  });
});

describe('a block whose receipts no real block of its era has shown', () => {
  it('mainnet, a receipt that used no gas: 422 naming the block and the kind, not "the chain cannot be verified"', () => {
    const fixture = loadFixture('mainnet-7000000');
    const block = readRpcBlock(fixture, new Problems())!;
    const body = receiptRootBody({
      chainId: 1,
      receiptRoot: block.header.fields.receiptsRoot!,
      receipts: block.receipts,
      blockNumber: 7_000_000,
      blockHash: block.header.hash!,
      headerRlp: encodeHeader(block.header.complete!),
    });
    const transactions = body.transactions.map((tx, i) => (i === 0 ? { ...tx, cumulative_gas_used: 0 } : tx));
    const refused = verifyReceiptRootOperation({ ...body, transactions });
    expect(refused.status).toBe(422);
    const { message, hint } = (refused.body as any).error;
    expect(message).toMatch(
      /^Block 7,000,000 of Ethereum Mainnet \(chain 1\) cannot be verified, although the chain can: its receipts root rule is unproven: .*untyped receipt that used no gas/,
    );
    expect(hint).toMatch(
      /^Ethereum Mainnet is verified where a block's receipts are of kinds its real blocks have shown; check that these are as the node gave them/,
    );
  });
});

describe('a body that names no block is claimed only as far as every era of its chain claims it', () => {
  const receipt = { index: 0, status: 1, cumulative_gas_used: 21000, type: 2 };
  it('Gnosis: an empty block in any era is identical; receipts no era has shown are 422 for the chain, not for an era guessed at', () => {
    expect(verifyReceiptRootOperation({ chain_id: 100, receipt_root: EMPTY_ROOT, transactions: [] }).verdict).toBe(
      'identical',
    );
    const refused = verifyReceiptRootOperation({ chain_id: 100, receipt_root: EMPTY_ROOT, transactions: [receipt] });
    expect(refused.status).toBe(422);
    expect((refused.body as any).error.message).toMatch(
      /^This block of Gnosis \(chain 100\) cannot be verified, although the chain can: its receipts root rule is unproven: /,
    );
  });

  it('a chain one of whose eras has shown receipts like these and another not: 400 naming block_number', () => {
    const shown = (receipts: Array<'ethereum'>) => ({
      block_hash: 'none',
      receipts_root: [{ fixture: 'x', block: 1, receipts }],
      logs_bloom: 'none',
    });
    const registry = new ChainRegistry([
      {
        chainId: 31_337_002,
        name: 'two eras',
        rules: 'ethereum',
        verifiable: true,
        eras: [
          { name: 'old', from: 0, evidence: shown(['ethereum']) },
          { name: 'new', from: 100, evidence: shown([]) },
        ],
      },
    ]);
    expect(
      verifyReceiptRootOperation({ chain_id: 31_337_002, receipt_root: EMPTY_ROOT, transactions: [] }, { registry })
        .verdict,
    ).toBe('identical');
    const result = verifyReceiptRootOperation(
      { chain_id: 31_337_002, receipt_root: EMPTY_ROOT, transactions: [receipt] },
      { registry },
    );
    expect(result.status).toBe(400);
    expect((result.body as any).error.details.invalid_parameters[0].expected).toBe(
      'the block number (or header_rlp): receipts like these are verified in some eras of two eras, not in new',
    );
    expect(
      verifyReceiptRootOperation(
        { chain_id: 31_337_002, block_number: 5, receipt_root: EMPTY_ROOT, transactions: [receipt] },
        { registry },
      ).verdict,
    ).toBe('different');
  });

  it('Polygon PoS: receipts its Bor era has shown but its Madhugiri era has not: 400 naming block_number', () => {
    const result = verifyReceiptRootOperation({ chain_id: 137, receipt_root: EMPTY_ROOT, transactions: [receipt] });
    expect(result.status).toBe(400);
    expect((result.body as any).error.details.invalid_parameters).toEqual([
      expect.objectContaining({
        name: 'block_number',
        reason: 'missing',
        expected: expect.stringContaining('(Madhugiri) cannot be verified'),
      }),
    ]);
  });
});

describe('the registry', () => {
  it.each([
    [534351, 'Scroll Sepolia', 'scroll'],
    [59141, 'Linea Sepolia', 'ethereum'],
    [80002, 'Polygon Amoy', 'polygon'],
    [10200, 'Gnosis Chiado', 'ethereum'],
    [97, 'BNB Smart Chain Testnet', 'ethereum'],
    [43113, 'Avalanche Fuji C-Chain', 'ethereum'],
  ])(
    'knows chain %i (%s) with the %s rule set; what no real block of it has shown is 422 with the reason',
    (chainId, name, rules) => {
      expect(defaultRegistry.get(chainId)).toMatchObject({ chainId, name, rules, verifiable: true });
      expect(defaultRegistry.verifiability(chainId, 0)).toMatchObject({
        status: 'verifiable',
        checks: { receipts_root: { verified: false } },
      });
      const refused = verifyReceiptRootOperation(bodyAt(chainId, 1));
      expect(refused.status).toBe(422);
      expect((refused.body as any).error.message).toMatch(/its receipts root rule is unproven: /);
    },
  );

  it('verifiability(chainId, blockNumber): the era, its range and the first verifiable block', () => {
    expect(defaultRegistry.verifiability(42161, NITRO_GENESIS - 1)).toMatchObject({
      status: 'not_verifiable',
      era: { name: 'Arbitrum classic', firstBlock: 0, lastBlock: NITRO_GENESIS - 1 },
      firstVerifiableBlock: NITRO_GENESIS,
    });
    expect(defaultRegistry.verifiability(42161, BigInt(NITRO_GENESIS))).toMatchObject({
      status: 'verifiable',
      era: { name: 'Nitro', firstBlock: NITRO_GENESIS, lastBlock: null },
    });
    expect(defaultRegistry.verifiability(42161)).toMatchObject({ status: 'era_unknown', decidesVerifiability: true });
    expect(defaultRegistry.verifiability(1, 5)).toMatchObject({
      status: 'verifiable',
      era: { name: 'all blocks', firstBlock: 0, lastBlock: null },
      stateSync: null,
    });
    expect(defaultRegistry.verifiability(324, 5)).toMatchObject({
      status: 'not_verifiable',
      era: null,
      firstVerifiableBlock: null,
    });
    const unknown = defaultRegistry.verifiability(999_999, 5);
    expect(unknown.status === 'not_verifiable' && unknown.chain).toBe(undefined);
  });

  it('describeChain lists the eras, their layouts and what shows each check, in GET /v1/chains form', () => {
    const nitroEvidence = [{ fixture: 'arbitrum-one-150000000', block: 150_000_000, source: 'shipped' }];
    expect(describeChain(defaultRegistry.get(42161)!)).toEqual({
      chain_id: 42161,
      name: 'Arbitrum One',
      rules: 'arbitrum',
      verifiable: true,
      eras: [
        {
          name: 'Arbitrum classic',
          first_block: 0,
          last_block: NITRO_GENESIS - 1,
          verifiable: false,
          reason: expect.stringContaining('classic'),
          rules: 'arbitrum',
          header: 'ethereum',
        },
        {
          name: 'Nitro',
          first_block: NITRO_GENESIS,
          last_block: null,
          verifiable: true,
          rules: 'arbitrum',
          header: 'ethereum',
          checks: {
            block_hash: { verified: true, evidence: nitroEvidence },
            receipts_root: { verified: true, evidence: [{ ...nitroEvidence[0], receipts: [0x6a, 'ethereum'] }] },
            logs_bloom: { verified: true, evidence: [{ ...nitroEvidence[0], logs: true }] },
          },
        },
      ],
    });
    expect(
      describeChain(defaultRegistry.get(100)!).eras!.map((era) => [era.name, era.header, era.first_block]),
    ).toEqual([
      ['AuRa', 'aura', 0],
      ['proof of stake', 'ethereum', 25_349_537],
    ]);
    expect(
      describeChain(
        new ChainRegistry([{ chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true }]).get(31337)!,
      ),
    ).toEqual({
      chain_id: 31337,
      name: 'devnet',
      rules: 'ethereum',
      verifiable: true,
      checks: {
        block_hash: { verified: true, evidence: 'configured' },
        receipts_root: { verified: true, evidence: 'configured' },
        logs_bloom: { verified: true, evidence: 'configured' },
      },
    });
  });
});

describe('the verdict covers every claim the body made', () => {
  const flipped = (bytes: Uint8Array) => Uint8Array.from(bytes, (b, i) => (i === 0 ? b ^ 1 : b));
  const withHeader = (over: Partial<typeof header>, blockHash?: Uint8Array) =>
    receiptRootBody({
      chainId: 1,
      receiptRoot,
      receipts: block.receipts,
      ...(blockHash !== undefined && { blockHash }),
      headerRlp: encodeHeader({ ...header, ...over }),
    });

  it('logs_bloom_matches_header false: is_identical stays true, the verdict is different (exit 1)', () => {
    const result = verifyReceiptRootOperation(withHeader({ logsBloom: flipped(header.logsBloom) }));
    expect((result.body as any).data[0]).toMatchObject({
      is_identical: true,
      header_verified: true,
      logs_bloom_matches_header: false,
    });
    expect(result.verdict).toBe('different');
  });

  it('header_verified false: is_identical stays true, the verdict is different (exit 1)', async () => {
    const result = verifyReceiptRootOperation(withHeader({}, flipped(block.header.hash!)));
    expect((result.body as any).data[0]).toMatchObject({
      is_identical: true,
      header_verified: false,
      logs_bloom_matches_header: true,
    });
    expect(result.verdict).toBe('different');
    let out = '';
    expect(
      await runVerify(['receipt-root', '-'], {
        stdout: (t) => (out += t),
        stderr: () => undefined,
        read: () => new TextEncoder().encode(JSON.stringify(withHeader({}, flipped(block.header.hash!)))),
      }),
    ).toBe(1);
    expect(JSON.parse(out).data[0].is_identical).toBe(true);
  });

  it('every claim true: identical (exit 0)', () => {
    expect(verifyReceiptRootOperation(withHeader({}, block.header.hash)).verdict).toBe('identical');
  });
});

describe('the evm-integrity binary on eras and claims', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'evm-integrity-chains-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verify receipt-root of a classic block: exit 2 and the 422 envelope with the era', () => {
    const { code, json } = runBinary(['verify', 'receipt-root', '-'], JSON.stringify(bodyAt(42161, 1_000_000)));
    expect(code).toBe(2);
    expect(json.error).toMatchObject({ code: 'CHAIN_NOT_SUPPORTED', details: CLASSIC_DETAILS });
  });

  it('verify block of a classic block: exit 2, verdict not_verifiable; of a Nitro block: exit 0', () => {
    const classic = join(dir, 'classic.json');
    writeFileSync(classic, JSON.stringify(blockFileAt(42161, 1_000_000)));
    const refused = runBinary(['verify', 'block', classic]);
    expect(refused.code).toBe(2);
    expect(refused.json).toMatchObject({ verdict: 'not_verifiable', reason: expect.stringContaining('22,207,816') });
    const nitro = join(dir, 'nitro.json');
    writeFileSync(nitro, JSON.stringify(loadFixture('arbitrum-one-150000000')));
    expect(runBinary(['verify', 'block', nitro])).toMatchObject({ code: 0, json: { verdict: 'identical' } });
  });

  it("Gnosis AuRa: a seal field under both its names must give one value (Nethermind's step, signature)", () => {
    const gnosis = loadFixture('gnosis-10000000');
    const { auraStep, auraSeal } = gnosis.header as { auraStep: string; auraSeal: string };
    const verifyWith = (names: Record<string, unknown>) => {
      const file = join(dir, 'gnosis.json');
      writeFileSync(file, JSON.stringify({ ...gnosis, header: { ...gnosis.header, ...names } }));
      return runBinary(['verify', 'block', file]);
    };
    // The same value, spelled otherwise: one field given twice alike.
    const same = verifyWith({ step: Number(auraStep), signature: auraSeal.toUpperCase().replace('0X', '0x') });
    expect(same).toMatchObject({ code: 0, json: { verdict: 'identical' } });

    const otherStep = verifyWith({ step: `0x${(BigInt(auraStep) + 1n).toString(16)}` });
    expect(otherStep.code).toBe(2);
    expect(otherStep.json.error.details.invalid_parameters).toEqual([
      {
        name: 'header.step',
        location: 'body',
        reason: 'conflict',
        expected: 'the same value as auraStep (step and auraStep name one header field), got another',
      },
    ]);
    const otherSeal = verifyWith({ signature: `${auraSeal.slice(0, -2)}${auraSeal.endsWith('00') ? '01' : '00'}` });
    expect(otherSeal.code).toBe(2);
    expect(otherSeal.json.error.details.invalid_parameters).toMatchObject([
      { name: 'header.signature', reason: 'conflict' },
    ]);
  });

  it('a body whose header bloom is not the receipts bloom: exit 1 although is_identical is true', () => {
    const body = receiptRootBody({
      chainId: 1,
      receiptRoot,
      receipts: block.receipts,
      headerRlp: encodeHeader({ ...header, logsBloom: new Uint8Array(256) }),
    });
    const { code, json } = runBinary(['verify', 'receipt-root', '-'], JSON.stringify(body));
    expect(code).toBe(1);
    expect(json.data[0]).toMatchObject({ is_identical: true, logs_bloom_matches_header: false });
  });
});

describe('the service answers a classic block 422 with the era', () => {
  const KEY = 'evmi_chains-test-key-0123456789abcdefghijklmnopq';
  const config = testConfig({
    host: '127.0.0.1',
    accounts: [
      {
        id: 'auditor',
        name: 'Auditor',
        plan: 'pro',
        cuLimit: 1000,
        rateLimitRps: 1000,
        entitlements: null,
        keys: [{ label: 't', key: KEY }],
      },
    ],
  });
  const request = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: JSON.stringify(bodyAt(42161, 1_000_000)),
  };

  it('via app.request', async () => {
    const store = new MemoryStore();
    await provision(store, config, new Date());
    const app = createApp({ config, store, logger: capturingLogger().logger });
    const res = await app.request('/v1/evm/verify/receipt-root', request);
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.details).toMatchObject(CLASSIC_DETAILS);
  });

  it('over HTTP on loopback', async () => {
    let server: RunningServer | undefined;
    try {
      server = await startServer({ ...config, port: 0 }, { logger: capturingLogger().logger });
      const res = await fetch(`${server.url}/v1/evm/verify/receipt-root`, request);
      expect(res.status).toBe(422);
      const error = ((await res.json()) as any).error;
      expect(error).toMatchObject({ code: 'CHAIN_NOT_SUPPORTED', details: CLASSIC_DETAILS });
      expect(error.docs_url).toMatch(/#error-chain_not_supported$/);
    } finally {
      await server?.close();
    }
  });
});

describe('the built-in chains, each made at its first lookup', () => {
  it('each id is given once, and its chain carries it, the same object at every lookup', () => {
    expect(new Set(BUILTIN_CHAIN_IDS).size).toBe(BUILTIN_CHAIN_IDS.length);
    for (const chainId of BUILTIN_CHAIN_IDS) {
      const chain = builtinChain(chainId);
      expect(chain?.chainId).toBe(chainId);
      expect(builtinChain(chainId)).toBe(chain);
    }
    expect(builtinChain(31337)).toBeUndefined();
  });

  it('the exported list and the registry hold the same chains', () => {
    expect(BUILTIN_CHAINS.map((chain) => chain.chainId)).toEqual(BUILTIN_CHAIN_IDS);
    expect(defaultRegistry.list()).toEqual([...BUILTIN_CHAINS].sort((a, b) => a.chainId - b.chainId));
    const devnet = { chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true } as const;
    expect(new ChainRegistry([devnet]).list().map((chain) => chain.chainId)).toEqual(
      [...BUILTIN_CHAIN_IDS, 31337].sort((a, b) => a - b),
    );
  });
});

describe('added chains never replace a built-in one', () => {
  it('the registry refuses a built-in id (its eras would be lost) and an id given twice', () => {
    expect(() => new ChainRegistry([{ chainId: 42161, name: 'mine', rules: 'arbitrum', verifiable: true }])).toThrow(
      'chain 42161 is built in (Arbitrum One, rules arbitrum, with its eras): an added chain needs an id of its own',
    );
    const devnet = { chainId: 31337, name: 'devnet', rules: 'ethereum', verifiable: true } as const;
    expect(() => new ChainRegistry([devnet, devnet])).toThrow('chain 31337 is given twice');
    expect(new ChainRegistry([devnet]).get(31337)).toEqual(devnet);
  });

  it('so does the configuration (one line, nothing started) and the CLI (exit 2)', () => {
    expect(() => parseConfig({ chains: [{ chain_id: 137, rules: 'ethereum' }] })).toThrow(
      /^chains: chain 137 is built in \(Polygon PoS/,
    );
    const { status, stderr } = spawnSync(
      process.execPath,
      [BIN, 'verify', 'block', 'fixtures/blocks/mainnet-19426587.json', '--add-chain', '1:ethereum'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(status).toBe(2);
    expect(stderr).toMatch(
      /^evm-integrity: --add-chain: "1:ethereum" is chain 1, built in \(Ethereum Mainnet\); an added chain needs an id of its own\ntry 'evm-integrity verify --help'\n$/,
    );
  });
});
