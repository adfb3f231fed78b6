import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Problems, readRpcBlock } from '../packages/core/src/index.js';
import { receiptRootBody } from '../packages/core/src/api/index.js';
import { SqliteStore } from '../packages/service/src/store/sqlite/sqlite-store.js';
import { loadFixture } from './helpers/fixtures.js';
import { PAIR_RECORD } from './helpers/lineage-bundles.js';
import { runWithoutFileSpace, withFullOutput } from './helpers/cli-process.js';
import { runWithOutputGone } from './helpers/pipe.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));

/** Runs the built CLI (npm test builds it first) as an operator would. */
function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const fixture = loadFixture('mainnet-22869878');
const block = readRpcBlock(fixture, new Problems())!;
const goodBody = receiptRootBody({
  chainId: 1,
  receiptRoot: block.header.fields.receiptsRoot!,
  receipts: block.receipts,
});

describe('the evm-integrity binary', () => {
  it('is built', () => expect(existsSync(BIN)).toBe(true));

  it.each(['20.20.2', '22.11.0'])(
    'on Node %s: one line naming the Node it needs, exit 2, no stack trace',
    (version) => {
      // The process made to report an older Node, as the machine's own `node` may be.
      const older = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });
      Object.defineProperty(process, 'version', { value: 'v${version}' });`;
      const result = spawnSync(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(older)}`, BIN, 'verify', 'block', '-'],
        { cwd: ROOT, input: JSON.stringify(fixture), encoding: 'utf8' },
      );
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `evm-integrity: needs Node 22.12 or newer (the LTS lines 22 and 24); this is Node v${version}\n`,
      );
    },
  );

  // A user check: while the checkout was rebuilt, the command printed Node's stack trace and exited 1 ("a claim is false").
  it('a build that cannot be loaded: one line, exit 3 (a fault of the program), no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-unbuilt-'));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(BIN, join(dir, 'bin', 'evm-integrity.js'));
    const result = spawnSync(process.execPath, [join(dir, 'bin', 'evm-integrity.js'), 'verify', 'block', '-'], {
      input: JSON.stringify(fixture),
      encoding: 'utf8',
    });
    expect(result.status).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^evm-integrity: its code could not be loaded \(.*main\.js.*\): install or build it again\n$/,
    );
    rmSync(dir, { recursive: true });
  });

  it('verify receipt-root from standard input: exit 0 and the endpoint JSON on stdout', () => {
    const { code, stdout } = run(['verify', 'receipt-root', '-'], JSON.stringify(goodBody));
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({
      chain_id: 1,
      cursor: null,
      count: 1,
      data: [{ is_identical: true, transaction_count: 301 }],
    });
  });

  it('a different root: exit 1', () => {
    const { code, stdout } = run(
      ['verify', 'receipt-root'],
      JSON.stringify({ ...goodBody, receipt_root: 'ab'.repeat(32) }),
    );
    expect(code).toBe(1);
    expect(JSON.parse(stdout).data[0].is_identical).toBe(false);
  });

  it("malformed JSON: exit 2 and one line on stderr in the CLI's words, nothing on stdout", () => {
    expect(run(['verify', 'receipt-root'], '{"chain_id": 1,\n  "receipt_root": "ab",\n}')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'evm-integrity: standard input: not JSON (Expected double-quoted property name at line 3 column 1)\n',
    });
  });

  it('an unsupported chain: exit 2 and a 422 envelope', () => {
    const { code, stdout } = run(['verify', 'receipt-root'], JSON.stringify({ ...goodBody, chain_id: 324 }));
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error).toMatchObject({ code: 'CHAIN_NOT_SUPPORTED', http_status: 422 });
  });

  it('verify logs-bloom from a file, pretty-printed', () => {
    const { code, stdout } = run(['verify', 'logs-bloom', 'test/data/empty-bloom.json', '--pretty']);
    expect(code).toBe(0);
    expect(stdout).toContain('\n  "data": [');
    expect(JSON.parse(stdout).data[0].is_identical).toBe(true);
  });

  it('verify block FILE on a fixture: every commitment matches', () => {
    const { code, stdout } = run(['verify', 'block', 'fixtures/blocks/mainnet-22869878.json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      chain_id: 1,
      rules: 'ethereum',
      receipts_root: { matches: true },
      logs_bloom: { matches: true },
      block_hash: { matches: true, computed: fixture.header.hash!.slice(2) },
      is_identical: true,
    });
  });

  it('verify block FILE with a withdrawal made up: different (exit 1) under a withdrawalsRoot, refused (exit 2) without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-withdrawals-'));
    const withdrawal = { index: '0x1', validatorIndex: '0x2', address: `0x${'ab'.repeat(20)}`, amount: '0x3b9aca00' };
    const write = (name: string, header: Record<string, unknown>) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ ...loadFixture(name), header }));
      return file;
    };
    const shanghai = write('mainnet-22869878', { ...fixture.header, withdrawals: [withdrawal] });
    const different = run(['verify', 'block', shanghai]);
    expect(different.code).toBe(1);
    expect(JSON.parse(different.stdout)).toMatchObject({
      verdict: 'different',
      reason: 'does not match: withdrawals',
      withdrawals: { count: 1, expected: fixture.header.withdrawalsRoot!.slice(2), matches: false },
    });
    const merge = loadFixture('mainnet-15537394');
    const refused = run(['verify', 'block', write('mainnet-15537394', { ...merge.header, withdrawals: [withdrawal] })]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('header.withdrawals: expected absent or empty: the header has no withdrawalsRoot');
    const gnosis = run(['verify', 'block', 'fixtures/blocks/gnosis-30000000.json']);
    expect([gnosis.code, JSON.parse(gnosis.stdout).withdrawals?.matches]).toEqual([0, true]);
  });

  it('verify block FILE whose logs repeat another block, or say they were removed: bad input naming each, exit 2', () => {
    const op = loadFixture('op-mainnet-154497277');
    const receipts = structuredClone(op.receipts) as Array<{ logs: Array<Record<string, unknown>> }>;
    Object.assign(receipts[2]!.logs[0]!, { removed: true, blockHash: `0x${'11'.repeat(32)}`, logIndex: '0x999' });
    const file = join(mkdtempSync(join(tmpdir(), 'cli-restated-')), 'block.json');
    writeFileSync(file, JSON.stringify({ ...op, receipts }));
    expect(run(['verify', 'block', 'fixtures/blocks/op-mainnet-154497277.json']).code).toBe(0);
    const { code, stdout, stderr } = run(['verify', 'block', file]);
    expect(code).toBe(2);
    const named = (JSON.parse(stdout).error.details.invalid_parameters as Array<{ name: string; reason: string }>).map(
      (p) => [p.name, p.reason],
    );
    expect(named).toEqual([
      ['receipts[2].logs[0].blockHash', 'conflict'],
      ['receipts[2].logs[0].logIndex', 'conflict'],
      ['receipts[2].logs[0].removed', 'conflict'],
    ]);
    expect(stderr).toContain(
      "receipts[2].logs[0].blockHash: expected 0xa12f85c9c1bfd0879f3745ecc2b968e3357139173d185c6fc1cdace08f8d4575, the header's hash, which it repeats",
    );
  });

  it("a header's list that is not the receipts' transactions, though they name none, or that says two numbers: verify block and prove receipt refuse it, naming the member, exit 2 (was: identical, a proof written)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-listed-'));
    // The receipts without their transactionHash, as in the fixtures' format (`bare`).
    const write = (name: string, base: string, change: (block: Record<string, any>) => void, bare = true) => {
      const block = loadFixture(base) as unknown as Record<string, any>;
      if (bare)
        for (const r of block.receipts) {
          delete r.transactionHash;
          for (const log of r.logs) delete log.transactionHash;
        }
      change(block);
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(block));
      return file;
    };
    const cases = [
      [
        write(
          'twice',
          'mainnet-47218',
          (b) => (b.header.transactions = [b.header.transactions[0], b.header.transactions[0]]),
        ),
        'header.transactions[1]',
      ],
      [write('zz', 'mainnet-19433903', (b) => (b.header.transactions[5] = 'zz')), 'header.transactions[5]'],
      [write('null', 'mainnet-19433903', (b) => (b.header.transactions[5] = null)), 'header.transactions[5]'],
      [write('empty', 'mainnet-19433903', (b) => (b.header.transactions[5] = {})), 'header.transactions[5].hash'],
      [
        write('log', 'mainnet-1000026', (b) => {
          b.header.transactions = [`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`];
          b.receipts[1].logs[0].transactionHash = `0x${'cc'.repeat(32)}`;
        }),
        'receipts[1].logs[0].transactionHash',
      ],
      [
        // Bor's state-sync transaction not listed, and counted.
        write(
          'two-numbers',
          'polygon-pos-10000000',
          (b) => {
            b.header.transactions = b.receipts.slice(0, 5).map((r: Record<string, unknown>) => r.transactionHash);
            b.header.transactionCount = 6;
          },
          false,
        ),
        'header.transactionCount',
      ],
      [
        write('object', 'mainnet-19433903', (b) => {
          b.header.transactions[3] = { hash: b.header.transactions[3], blockHash: `0x${'22'.repeat(32)}` };
        }),
        'header.transactions[3].blockHash',
      ],
    ] as const;
    for (const [file, member] of cases) {
      const verified = run(['verify', 'block', file]);
      expect(verified.code, file).toBe(2);
      expect(
        (JSON.parse(verified.stdout).error.details.invalid_parameters as Array<{ name: string }>).map((p) => p.name),
        file,
      ).toEqual([member]);
      const proof = join(dir, 'proof.json');
      expect(run(['prove', 'receipt', file, '--index', '0', '--out', proof])).toMatchObject({ code: 2, stdout: '' });
      expect(existsSync(proof)).toBe(false);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a block whose header lists or counts other transactions than its receipts: verify block, request receipt-root and prove receipt refuse it, naming the member and the counts, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-transaction-count-'));
    const FAKE = `0x${'ab'.repeat(32)}`;
    const write = (name: string, base: string, change: (header: Record<string, any>) => void) => {
      const block = loadFixture(base) as unknown as { header: Record<string, any> };
      change(block.header);
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(block));
      return file;
    };
    const cases = [
      [write('genesis', 'mainnet-0', (h) => (h.transactions = [FAKE])), 'header.transactions', 0, '1 transactions'],
      [
        write('appended', 'mainnet-19433903', (h) => h.transactions.push(FAKE)),
        'header.transactions',
        172,
        '173 transactions',
      ],
      [
        write('removed', 'mainnet-19433903', (h) => h.transactions.pop()),
        'header.transactions',
        172,
        '171 transactions',
      ],
      [
        write(
          'objects',
          'mainnet-19433903',
          (h) => (h.transactions = [...h.transactions, FAKE].map((hash) => ({ hash }))),
        ),
        'header.transactions',
        172,
        '173 transactions',
      ],
      [write('count', 'hoodi-411443', (h) => (h.transactionCount = 2)), 'header.transactionCount', 1, '2'],
    ] as const;
    for (const [file, member, n, got] of cases) {
      const expected =
        n === 0
          ? `${member}: expected 0 transactions, as its receipts are none: a block's transactions are verified with their receipts (eth_getBlockReceipts's result), which this block does not give, got ${got}`
          : `${member}: expected ${n} transactions, one for each of the block's ${n} receipts (a header and receipts of one block), got ${got}`;
      const verified = run(['verify', 'block', file]);
      expect(verified.code, file).toBe(2);
      expect(JSON.parse(verified.stdout).error.details.invalid_parameters).toEqual([
        { name: member, location: 'body', reason: 'conflict', expected: expected.slice(`${member}: expected `.length) },
      ]);
      expect(run(['request', 'receipt-root', file])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${file}: not a block: ${expected}\n`,
      });
      const proof = join(dir, 'proof.json');
      expect(run(['prove', 'receipt', file, '--index', '0', '--out', proof])).toMatchObject({ code: 2, stdout: '' });
      expect(existsSync(proof)).toBe(false);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  describe('verify block FILE FILE…: many blocks, on the worker pool', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-blocks-'));
    const different = join(dir, 'different.json');
    const tampered = loadFixture('mainnet-1000003');
    writeFileSync(
      different,
      JSON.stringify({ ...tampered, header: { ...tampered.header, receiptsRoot: `0x${'ab'.repeat(32)}` } }),
    );
    const files = ['mainnet-1000001', 'mainnet-22869878', 'mainnet-19426587'].map((n) => `fixtures/blocks/${n}.json`);
    files.splice(2, 0, different);
    /** What `verify block FILE` prints for each file alone, in order. */
    const oneByOne = () => files.map((file) => run(['verify', 'block', file]).stdout).join('');

    it('--workers 2: one line a block, byte for byte what each file alone gives, worked on worker threads; exit 1 for the block that differs', () => {
      const { code, stdout, stderr } = run(['verify', 'block', ...files, '--workers', '2', '--verbose']);
      expect(stdout).toBe(oneByOne());
      expect(
        stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line).verdict),
      ).toEqual(['identical', 'identical', 'different', 'identical']);
      expect(code).toBe(1);
      // Four jobs on two idle workers: each worker took one at once, so both threads did work.
      expect(stderr).toBe(
        'evm-integrity: 4 files: 3 identical, 1 different, 0 refused\nevm-integrity: 0 blocks verified inline, 4 on 2 worker threads\n',
      );
    });

    it('by default, blocks that do not pay for starting the workers stay on the main thread', () => {
      const { code, stdout, stderr } = run(['verify', 'block', ...files, '--verbose']);
      expect(stdout).toBe(oneByOne());
      expect(code).toBe(1);
      expect(stderr).toBe(
        'evm-integrity: 4 files: 3 identical, 1 different, 0 refused\nevm-integrity: 4 blocks verified inline, 0 on 0 worker threads\n',
      );
    });
    it('a block that differs is exit 1 whatever the other files gave (was: 2, a refused file hiding it), with a count line on stderr', () => {
      const notJson = join(dir, 'not-json.json');
      writeFileSync(notJson, '{');
      // hive-generated-3 is of a devnet outside the registry: not verifiable (422) without its rule set.
      const unknown = 'fixtures/blocks/hive-generated-3.json';
      for (const order of [
        [notJson, different, files[0]!, unknown],
        [files[0]!, unknown, different, notJson],
      ]) {
        const { code, stderr } = run(['verify', 'block', ...order]);
        expect(code).toBe(1);
        expect(stderr.split('\n').at(-2)).toBe(
          'evm-integrity: 4 files: 1 identical, 1 different, 1 refused, 1 not verifiable',
        );
      }
      const refused = run(['verify', 'block', files[0]!, notJson]);
      expect(refused.code).toBe(2);
      expect(refused.stderr.split('\n').at(-2)).toBe('evm-integrity: 2 files: 1 identical, 0 different, 1 refused');
      const identical = run(['verify', 'block', files[0]!, files[1]!]);
      expect(identical).toMatchObject({
        code: 0,
        stderr: 'evm-integrity: 2 files: 2 identical, 0 different, 0 refused\n',
      });
      // One file alone: its answer, and no count.
      expect(run(['verify', 'block', files[0]!])).toMatchObject({ code: 0, stderr: '' });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
  });

  it('verify block on a devnet needs its rule set: 422 without, exit 0 with --add-chain', () => {
    expect(run(['verify', 'block', 'fixtures/blocks/hive-generated-3.json']).code).toBe(2);
    const { code, stdout } = run([
      'verify',
      'block',
      'fixtures/blocks/hive-generated-3.json',
      '--add-chain',
      '3503995874084926:ethereum',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).raw_receipts).toEqual({ count: 3, matches: true, first_mismatch: null });
  });

  describe("verify block --rules R holds the block to what R's nodes restate, as --add-chain ID:R does (was: identical under --rules alone)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-rules-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    /** Hoodi 411443 (whose node gives a receipt's timestamp and gasUsed), relabelled to chain 99998 or to none. */
    const write = (name: string, change: (block: Record<string, any>) => void, chainId?: number) => {
      const block = structuredClone(loadFixture('hoodi-411443')) as Record<string, any>;
      if (chainId === undefined) delete block.chain_id;
      else block.chain_id = chainId;
      change(block);
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(block));
      return file;
    };
    it.each([
      ['timestamp', (b: Record<string, any>) => (b.receipts[0].timestamp = '0x1')],
      ['gasUsed', (b: Record<string, any>) => (b.receipts[0].gasUsed = '0x1')],
    ])("a receipt's %s of 0x1 is refused, naming it, under --rules ethereum as under --add-chain", (member, change) => {
      const devnet = write(`devnet-${member}`, change, 99998);
      const unnamed = write(`unnamed-${member}`, change);
      for (const args of [
        [devnet, '--add-chain', '99998:ethereum'],
        [devnet, '--rules', 'ethereum'],
        [unnamed, '--rules', 'ethereum'],
      ]) {
        const { code, stdout, stderr } = run(['verify', 'block', ...args]);
        expect(code).toBe(2);
        expect(JSON.parse(stdout).error.details.invalid_parameters.map((p: { name: string }) => p.name)).toEqual([
          `receipts[0].${member}`,
        ]);
        expect(stderr).toMatch(new RegExp(`Invalid parameter receipts\\[0\\]\\.${member}: expected `));
      }
    });
    it('the real block, relabelled or unnamed, is identical under --rules ethereum', () => {
      for (const file of [write('devnet', () => undefined, 99998), write('unnamed', () => undefined)]) {
        const { code, stdout } = run(['verify', 'block', file, '--rules', 'ethereum']);
        expect(code).toBe(0);
        expect(JSON.parse(stdout)).toMatchObject({ rules: 'ethereum', verdict: 'identical' });
      }
    });
  });

  it('verify block on a block without chain id: --rules names the rule set', () => {
    const { chain_id: _named, ...unnamed } = loadFixture('mainnet-22869878');
    const file = join(mkdtempSync(join(tmpdir(), 'cli-unnamed-')), 'block.json');
    writeFileSync(file, JSON.stringify(unnamed));
    expect(run(['verify', 'block', file]).code).toBe(2);
    const ruled = run(['verify', 'block', file, '--rules', 'ethereum']);
    expect(ruled.code).toBe(0);
    expect(JSON.parse(ruled.stdout)).toMatchObject({ chain_id: null, rules: 'ethereum', verdict: 'identical' });
  });

  it.each([
    [
      ['verify', 'receipt-root', 'no/such/file.json'],
      /^evm-integrity: no\/such\/file.json: cannot read it: no such file\n$/,
    ],
    [['verify', 'everything'], /cannot verify "everything"/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['verify', 'block'], /^evm-integrity: standard input: not JSON \(it is empty\)\n$/],
    [
      ['verify', 'block', 'x.json', '--rules', 'solana'],
      /^evm-integrity: --rules: "solana" names no rule set; use one of ethereum, /,
    ],
    [
      ['verify', 'receipt-root', '--add-chain', 'abc'],
      /--add-chain: "abc" is not ID:RULES; use a chain id and a rule set, such as 31337:ethereum/,
    ],
    [
      ['verify', 'block', '--chain', '31337:ethereum'],
      /^evm-integrity: --chain: "31337:ethereum" adds a chain: give it as --add-chain 31337:ethereum \(and --chain its id\)\n/,
    ],
    [['verify', 'receipt-root', '--bogus'], /unknown option '--bogus'/],
    [['verify', 'receipt-root', 'a.json', 'b.json'], /unexpected argument "b.json"/],
    [['verify', 'block', '-', 'a.json', '-'], /verify block reads standard input \(-\) once: give - at most once/],
    [
      ['verify', 'block', 'a.json', 'b.json', '--workers', 'two'],
      /--workers: "two" is not a whole number; use 0 to 256/,
    ],
    [['verify', 'block', 'a.json', '--workers', '257'], /--workers: "257" is more than 256; use 0 to 256/],
  ])('%j: exit 2 with a message on stderr', (args, message) => {
    const { code, stderr, stdout } = run(args, '');
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(stdout).toBe('');
  });

  it('accounts and keys on a store file that cannot be written (a file size limit) say so, naming it: exit 2, not a fault (was: "keys create failed: disk I/O error", exit 3; a user check)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-integrity-cli-'));
    const file = join(dataDir, 'evm-integrity.sqlite');
    // Held open, as by a running server: its write-ahead log is there, so the command opens the store and fails at
    // its first write.
    const held = new SqliteStore(file);
    try {
      expect(run(['accounts', 'create', '--name', 'Acme', '--id', 'acme', '--data-dir', dataDir]).code).toBe(0);
      for (const args of [
        ['keys', 'create', 'acme', '--label', 'x'],
        ['accounts', 'create', '--name', 'Other'],
      ]) {
        const result = runWithoutFileSpace([...args, '--data-dir', dataDir], { cwd: ROOT });
        expect(result.status).toBe(2);
        expect(result.stderr).toMatch(
          new RegExp(`^evm-integrity: the store ${file} cannot be written \\(SQLITE_IOERR_\\w+\\): disk I/O error\\n$`),
        );
      }
      expect((await held.listAccounts()).map((account) => account.id)).toEqual(['acme']);
    } finally {
      await held.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('accounts and keys work on the data directory the server uses', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-integrity-cli-'));
    await new SqliteStore(join(dataDir, 'evm-integrity.sqlite')).close(); // the store the server makes at its first start
    try {
      expect(run(['accounts', 'create', '--name', 'Acme', '--id', 'acme', '--data-dir', dataDir]).code).toBe(0);
      const created = run(['keys', 'create', 'acme', '--label', 'ci', '--data-dir', dataDir]);
      expect(created.code).toBe(0);
      const key = /evmi_[\w-]+/.exec(created.stdout)![0];
      expect(created.stdout).toMatch(/will not be shown again/);
      const listed = run(['keys', 'list', 'acme', '--json', '--data-dir', dataDir]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain(key);
      expect(JSON.parse(listed.stdout)).toHaveLength(1);
      expect(run(['accounts', 'add-cu', 'nobody', '10', '--data-dir', dataDir])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/nobody/),
      });
      expect(
        run(['accounts', 'update', 'acme', '--rps', '9', '--chains', '1,10', '--json', '--data-dir', dataDir]),
      ).toMatchObject({ code: 0 });
      const store = new SqliteStore(join(dataDir, 'evm-integrity.sqlite'));
      expect(await store.getAccount('acme')).toMatchObject({ rateLimitRps: 9, entitlements: { chains: [1, 10] } });
      await store.close();
      expect(run(['accounts', 'disable', 'acme', '--data-dir', dataDir]).stdout).toMatch(
        /^Disabled account acme: revoked 1 key/,
      );
      expect(run(['accounts', 'delete', 'acme', '--data-dir', dataDir])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/add --yes to confirm/),
      });
      expect(run(['accounts', 'delete', 'acme', '--yes', '--data-dir', dataDir])).toMatchObject({
        code: 0,
        stdout: 'Deleted account acme with its 1 key and 0 logged requests\n',
      });
      expect(JSON.parse(run(['accounts', 'list', '--json', '--data-dir', dataDir]).stdout)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.each([
    ['its reader gone (`keys create … | true`)', 141, 'gone', 'its reader has gone'],
    [
      'a file it cannot grow (ulimit -f), --json',
      2,
      'full',
      'the file is larger than this process may write (ulimit -f)',
    ],
  ] as const)(
    'keys create whose standard output cannot be written, %s: the key is revoked, said on stderr, exit %i (it stayed active, shown nowhere: a user check)',
    async (_, status, how, why) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'evm-integrity-cli-'));
      const file = join(dataDir, 'evm-integrity.sqlite');
      await new SqliteStore(file).close(); // the store the server makes at its first start
      const keysOfAcme = async () => {
        const store = new SqliteStore(file);
        try {
          return await store.listKeys('acme');
        } finally {
          await store.close();
        }
      };
      try {
        expect(run(['accounts', 'create', '--name', 'Acme', '--id', 'acme', '--data-dir', dataDir]).code).toBe(0);
        const args = ['keys', 'create', 'acme', ...(how === 'full' ? ['--json'] : []), '--data-dir', dataDir];
        const result =
          how === 'gone'
            ? await runWithOutputGone(BIN, args)
            : spawnSync(...withFullOutput(1, join(dataDir, 'out.json'), args), { encoding: 'utf8' });
        const [unshown, ...others] = await keysOfAcme();
        expect(others).toEqual([]);
        expect({ status: result.status, stderr: result.stderr }).toEqual({
          status,
          stderr: `evm-integrity: the new key ${unshown!.id} of account acme could not be shown (standard output: cannot write it: ${why}), so it was revoked: nobody has it; create another where standard output can be written\n`,
        });
        expect(unshown!.revokedAt).not.toBeNull();
        // Standard output written: the key shown, and active.
        const shown = run(['keys', 'create', 'acme', '--data-dir', dataDir]);
        expect(shown).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Created key /), stderr: '' });
        expect((await keysOfAcme()).map((key) => [key.id === unshown!.id, key.revokedAt === null])).toEqual([
          [true, false],
          [false, true],
        ]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it.each([
    ['closed (`>&-`: Node gives it /dev/null)', '>&-'],
    ['/dev/null', '>/dev/null'],
  ])(
    'keys create whose standard output is %s: refused before any key is made, exit 2 (a key was made active and shown to nobody, exit 0: a user check)',
    async (_, redirect) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'evm-integrity-cli-'));
      const file = join(dataDir, 'evm-integrity.sqlite');
      await new SqliteStore(file).close();
      try {
        expect(run(['accounts', 'create', '--name', 'Acme', '--id', 'acme', '--data-dir', dataDir]).code).toBe(0);
        const result = spawnSync(
          'bash',
          ['-c', `"$0" "$1" keys create acme --data-dir "$2" ${redirect}`, process.execPath, BIN, dataDir],
          {
            encoding: 'utf8',
          },
        );
        expect({ status: result.status, stderr: result.stderr }).toEqual({
          status: 2,
          stderr:
            'evm-integrity: keys create: standard output is /dev/null, where a key shown once is seen by nobody: run it where standard output is a terminal, a file or a pipe; no key was made\n',
        });
        const store = new SqliteStore(file);
        try {
          expect(await store.listKeys('acme')).toEqual([]);
        } finally {
          await store.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it.each([
    [['accounts', 'list'], 'flag'],
    [['keys', 'create', 'local'], 'flag'],
    [['accounts', 'create', '--name', 'Acme'], 'flag'],
    [['keys', 'list'], 'config'],
  ])('%j on a data directory that holds no store: one line naming it, exit 2, nothing created', (args, from) => {
    const parent = mkdtempSync(join(tmpdir(), 'evm-integrity-nostore-'));
    const dataDir = join(parent, 'dta');
    try {
      const config = join(parent, 'config.json');
      writeFileSync(config, JSON.stringify({ data_dir: dataDir }));
      const where = from === 'flag' ? ['--data-dir', dataDir] : ['--config', config];
      const named = from === 'flag' ? `--data-dir ${dataDir}` : `data_dir ${dataDir} (of the configuration)`;
      expect(run([...args, ...where])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${named} holds no store (no evm-integrity.sqlite in it); the server makes one at its first start: evm-integrity serve --data-dir ${dataDir}\n`,
      });
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it.each([
    [['serve', '--config', 'no/such/config.json'], /cannot read the configuration no\/such\/config.json/],
    [['serve', '--port', 'eighty'], /^evm-integrity: --port: expected a port number 0-65535, got "eighty"\n/],
    [['serve', '--host'], /^evm-integrity: --host needs a value\n/],
    [['serve', 'now'], /^evm-integrity: unexpected argument "now": serve takes only flags\n/],
    [['verify', 'block', '--pretty=yes'], /^evm-integrity: --pretty takes no value\n/],
    [
      ['lineage', '0'.repeat(36), '--chain', 'mainet', '--bundle', 'x.json'],
      /^evm-integrity: --chain: "mainet" is not a chain id or a chain's name; evm-integrity chains lists the names\n/,
    ],
    [['serve', '--store', 'redis'], /store: expected "sqlite", "postgres" or "memory"/],
    [['serve', '--store', 'postgres'], /database_url: required with store "postgres" \(or set DATABASE_URL\)/],
    [['accounts', 'list', '--store', 'memory'], /need a persistent store/],
  ])('%j: exit 2 with a clear message', (args, message) => {
    const { code, stderr } = run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('--help prints usage and exits 0', () => {
    const { code, stdout } = run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/verify receipt-root/);
  });
});

describe('command-line conventions', () => {
  const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

  it.each([['--version'], ['-V'], ['version']])('%s prints the package version, exit 0', (flag) => {
    expect(run([flag])).toEqual({ code: 0, stdout: `evm-integrity ${PKG.version}\n`, stderr: '' });
  });

  it.each([
    [
      ['help'],
      /Commands: verify, request, prove, lineage, anchor, audit, audit-logs,\naudit-worker, audit-status, audit-export, evidence, chains, serve,\naccounts, keys\./,
    ],
    [['help', 'verify'], /verify block \[FILE\|-\]…/],
    [['help', 'serve'], /evm-integrity serve \[--config FILE\]/],
    [['help', 'lineage'], /--chain C/],
    [['help', 'anchor'], /evm-integrity anchor verify FILE\|- --checkpoint ROOT \[--json\]/],
    [['help', 'keys'], /keys revoke ID_OR_HINT/],
    [['verify', '--help'], /verify logs-bloom/],
    [['verify', 'receipt-root', '--help'], /verify receipt-root/],
    [['verify', 'block', '-h'], /verify block \[FILE\|-\]…/],
    [['help', '--help'], /^evm-integrity: offline proofs/],
    [['help', '-h'], /^evm-integrity: offline proofs/],
    [['serve', '--help'], /evm-integrity serve \[--config FILE\]/],
    [['serve', '--port', '1', '--help'], /evm-integrity serve/],
    [['lineage', '--help'], /TRACING_ID --chain C/],
    [['accounts', '--help'], /accounts add-cu ID CU/],
    [['accounts', 'create', '--help'], /^usage: evm-integrity accounts create --name N/],
    [['keys', 'revoke', '--help'], /^usage: evm-integrity keys revoke ID_OR_HINT/],
  ])('%j prints its usage on stdout, exit 0, and touches no store', (args, text) => {
    const cwd = mkdtempSync(join(tmpdir(), 'evm-integrity-help-'));
    try {
      const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
      expect(result.status).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(text);
      expect(readdirSync(cwd)).toEqual([]); // help created no ./data
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it.each([
    [
      ['verify', 'everything'],
      'cannot verify "everything": expected receipt-root, logs-bloom, receipt-proof, block or logs-proof',
      'verify',
    ],
    [['verify', 'receipt-root', '--bogus'], "unknown option '--bogus'", 'verify'],
    [['serve', '--bogus'], "unknown option '--bogus'", 'serve'],
    [['lineage', 'abc'], 'a tracing id is 36 hex characters, got "abc"', 'lineage'],
  ])("%j: a usage error is one line, then where that command's help is", (args, message, command) => {
    expect(run(args, '')).toEqual({
      code: 2,
      stdout: '',
      stderr: `evm-integrity: ${message}\ntry 'evm-integrity ${command} --help'\n`,
    });
  });

  it('an unknown command is one line naming the commands', () => {
    expect(run(['frobnicate'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'evm-integrity: unknown command "frobnicate"; expected one of verify, request, prove, lineage, anchor, audit, audit-logs, audit-worker, audit-status, audit-export, evidence, chains, serve, accounts, keys\ntry \'evm-integrity --help\'\n',
    });
    expect(run(['help', 'frobnicate'])).toMatchObject({
      code: 2,
      stderr:
        'evm-integrity: no command "frobnicate"; expected one of verify, request, prove, lineage, anchor, audit, audit-logs, audit-worker, audit-status, audit-export, evidence, chains, serve, accounts, keys\ntry \'evm-integrity --help\'\n',
    });
  });

  it('no message says "got undefined": a missing member is reported as missing', () => {
    const { code, stdout } = run(['verify', 'receipt-root'], '{"chain_id": 1}');
    expect(code).toBe(2);
    const problems = JSON.parse(stdout).error.details.invalid_parameters;
    expect(problems.map((p: { name: string; reason: string }) => [p.name, p.reason])).toEqual([
      ['receipt_root', 'missing'],
      ['transactions', 'missing'],
    ]);
    expect(stdout).not.toMatch(/undefined/);
  });

  it("an error's docs_url is a file that exists and has the code's section", () => {
    const { stdout } = run(['verify', 'receipt-root'], '{"chain_id": 1}');
    const url = new URL(JSON.parse(stdout).error.docs_url);
    expect(url.protocol).toBe('file:');
    expect(url.hash).toBe('#error-bad_request');
    const page = readFileSync(fileURLToPath(url), 'utf8');
    expect(page).toContain('<a id="error-bad_request"></a>');
  });

  it('a body saved with a UTF-8 byte order mark is read as the server reads it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-bom-'));
    try {
      const file = join(dir, 'body.json');
      writeFileSync(file, `\uFEFF${JSON.stringify(goodBody)}`);
      const { code, stdout } = run(['verify', 'receipt-root', file]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).data[0].is_identical).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a chain id with a leading zero is refused, never read as another number (was: --chain 010 read as chain 10)', () => {
  const BLOCK = 'fixtures/blocks/mainnet-1000001.json';
  const NODE = ['--rpc', 'http://127.0.0.1:1'];
  /** Every command that takes --chain, the chain given last. */
  const COMMANDS: string[][] = [
    ['verify', 'block', BLOCK, '--chain'],
    ['verify', 'receipt-root', BLOCK, '--chain'],
    ['verify', 'logs-proof', 'x.elp', '--head-hash', `0x${'ab'.repeat(32)}`, '--chain'],
    ['prove', 'receipt', BLOCK, '--index', '0', '--chain'],
    ['prove', 'logs', ...NODE, '--from', '1', '--to', '2', '--chain'],
    ['request', 'receipt-root', BLOCK, '--chain'],
    ['lineage', PAIR_RECORD, '--bundle', 'x.json', '--chain'],
    ['audit', ...NODE, '--from', '1', '--to', '2', '--chain'],
    ['audit-logs', ...NODE, '--from', '1', '--to', '2', '--chain'],
  ];

  it.each(COMMANDS)('%s %s: --chain 010 is one line naming the flag and the value, exit 2', (...args) => {
    const result = run([...args, '010']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr.split('\n')[0]).toBe(
      'evm-integrity: --chain: "010" is not a chain id: it has a leading zero; write it without one (10), or in 0x hex',
    );
  });

  it('--add-chain 010:ethereum is refused the same way, offered no hex, which its ID does not take (was: "or in 0x hex"); 10, 0xa and 0x0a stay chain 10', () => {
    const added = run(['verify', 'block', BLOCK, '--add-chain', '010:ethereum']);
    expect(added).toMatchObject({ code: 2, stdout: '' });
    expect(added.stderr.split('\n')[0]).toBe(
      'evm-integrity: --add-chain: "010" is not a chain id: it has a leading zero; write it without one (10)',
    );
    for (const chain of ['10', '0xa', '0x0a'])
      expect(run(['verify', 'block', BLOCK, '--chain', chain]).stderr).toMatch(
        /names chain_id 1, not the --chain 10 given/,
      );
  });
});
