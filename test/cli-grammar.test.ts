/**
 * The command line's one grammar (docs/cli.md, "Grammar"), command by command of main's table: `--chain` by id or
 * name, a bad flag or value as one line and where the help is (exit 2), `--json` where the output can be JSON, and a
 * block tag where a block number goes, against a loopback JSON-RPC node. In-process (main), so it stays fast.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../packages/service/src/cli/main.js';
import { runAdmin } from '../packages/service/src/cli/admin/admin.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { fixtureChain, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { buildHeldBundle, PAIR_RECORD } from './helpers/lineage-bundles.js';
import { loadFixture } from './helpers/fixtures.js';

/** Runs `evm-integrity ARGS` in this process: its exit status and output. */
async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** Exit 2, nothing on stdout, one line that says what is wrong, then where the help is. */
function expectOneLine(result: Awaited<ReturnType<typeof cli>>, command: string, message?: RegExp) {
  const lines = result.stderr.split('\n');
  expect({ code: result.code, stdout: result.stdout, lines: lines.length }).toEqual({ code: 2, stdout: '', lines: 3 });
  expect(lines[0]).toMatch(/^evm-integrity: \S/);
  if (message !== undefined) expect(lines[0]).toMatch(message);
  expect(lines.slice(1)).toEqual([`try 'evm-integrity ${command} --help'`, '']);
}

const dir = mkdtempSync(join(tmpdir(), 'cli-grammar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BLOCK_FILE = 'fixtures/blocks/mainnet-1000001.json';
const HASH = '0x' + 'ab'.repeat(32);

/** For each command of main's table: a flag it does not know, and a flag value it refuses (each one line). */
const BAD: Record<string, { unknown: string[]; value: string[]; message: RegExp }> = {
  verify: {
    unknown: ['verify', 'block', '--bogus'],
    value: ['verify', 'block', '--workers', 'two'],
    message: /--workers: "two" is not a whole number/,
  },
  request: {
    unknown: ['request', 'receipt-root', '--bogus'],
    value: ['request', 'receipt-root', BLOCK_FILE, '--chain', 'mainet'],
    message: /--chain: "mainet" is not a chain id or a chain's name; evm-integrity chains lists the names/,
  },
  prove: {
    unknown: ['prove', 'logs', '--bogus'],
    value: ['prove', 'logs', '--chain', '1', '--rpc', 'http://127.0.0.1:1', '--from', 'yesterday', '--to', '2'],
    message: /--from: "yesterday" is not a block; use a block number \(decimal or 0x hex\) or latest, finalized, safe/,
  },
  lineage: {
    unknown: ['lineage', PAIR_RECORD, '--bogus'],
    value: ['lineage', PAIR_RECORD, '--chain', '0', '--bundle', 'x.json'],
    message: /--chain: "0" is not a chain id/,
  },
  anchor: {
    unknown: ['anchor', 'verify', 'fixtures/anchor/mainnet-checkpoint-11635710.jsonl', '--bogus'],
    value: ['anchor', 'verify', 'fixtures/anchor/mainnet-checkpoint-11635710.jsonl', '--checkpoint', '0x12'],
    message: /--checkpoint: "0x12" is not a beacon block root \(2 hex digits\); use 64 hex digits, with or without 0x/,
  },
  audit: {
    unknown: ['audit', '--bogus'],
    value: ['audit', '--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--batch', '0'],
    message: /--batch: "0" is not a positive whole number/,
  },
  'audit-logs': {
    unknown: ['audit-logs', '--bogus'],
    value: [
      'audit-logs',
      '--chain',
      'base',
      '--rpc',
      'http://127.0.0.1:1',
      '--from',
      '1',
      '--to',
      '2',
      '--window',
      'x',
    ],
    message: /--window: "x" is not a positive whole number/,
  },
  'audit-worker': {
    unknown: ['audit-worker', '--bogus'],
    value: ['audit-worker', '--queue', 'mysql://db/x'],
    message: /--queue: "mysql:\/\/db\/x" is not a PostgreSQL URL/,
  },
  'audit-status': {
    unknown: ['audit-status', '--bogus'],
    value: ['audit-status', 'x', '--queue', 'nowhere'],
    message: /not a PostgreSQL URL|audit id/,
  },
  'audit-export': {
    unknown: ['audit-export', '--bogus'],
    value: ['audit-export', 'x', '--queue', 'nowhere'],
    message: /not a PostgreSQL URL|audit id/,
  },
  evidence: {
    unknown: ['evidence', 'list', '--bogus'],
    value: ['evidence', 'capture', '--rpc', 'http://127.0.0.1:1', '--block', 'yesterday', '--trusted-hash', HASH],
    message: /--block: "yesterday" is not a block/,
  },
  chains: { unknown: ['chains', '--bogus'], value: ['chains', 'all'], message: /unexpected argument "all"/ },
  serve: { unknown: ['serve', '--bogus'], value: ['serve', '--port', 'eighty'], message: /--port: / },
};

/** The admin commands parse their flags with the store open: run on a store in memory. */
const ADMIN = new Set(['accounts', 'keys']);

describe('every command of the table', () => {
  let commands: string[] = [];
  beforeAll(async () => {
    const unknown = await cli(['frobnicate']);
    commands = /expected one of (.*)\n/.exec(unknown.stderr)![1]!.split(', ');
  });

  it('has a row here', () => {
    expect(commands.filter((c) => !ADMIN.has(c)).sort()).toEqual(Object.keys(BAD).sort());
  });

  it.each(Object.entries(BAD))(
    '%s: a flag it does not know is one line and where the help is, exit 2',
    async (command, { unknown }) => {
      expectOneLine(await cli(unknown), command, /^evm-integrity: unknown option '--bogus'$/);
    },
  );

  it.each(Object.entries(BAD))('%s: a bad value is one line naming the flag, exit 2', async (command, bad) => {
    expectOneLine(await cli(bad.value), command, bad.message);
  });

  it.each([
    ['accounts', 'list'],
    ['keys', 'list'],
  ])(
    '%s %s: a flag it does not know, or a bad value, is one line and where the help is, exit 2',
    async (group, command) => {
      for (const [flags, message] of [
        [['--bogus'], "unknown option '--bogus'"],
        [['--json=yes'], '--json takes no value'],
      ] as const) {
        let stderr = '';
        const code = await runAdmin(
          [group, command, ...flags],
          { stdout: () => {}, stderr: (t) => (stderr += t) },
          new MemoryStore(),
        );
        expect({ code, stderr }).toEqual({
          code: 2,
          stderr: `evm-integrity: ${message}\ntry 'evm-integrity ${group} ${command} --help'\n`,
        });
      }
    },
  );

  it.each([
    [['verify', 'block', BLOCK_FILE, '--chain', '1:ethereum'], 'verify', /give it as --add-chain 1:ethereum/],
    [
      ['prove', 'receipt', BLOCK_FILE, '--index', '0', '--chain', '31337:ethereum'],
      'prove',
      /give it as --add-chain 31337:ethereum/,
    ],
    [['evidence', 'list', '--chain', '31337:ethereum'], 'evidence', /evidence takes the chain from the block/],
    [
      ['request', 'receipt-root', BLOCK_FILE, '--chain', '31337:ethereum'],
      'request',
      /give it as --add-chain 31337:ethereum/,
    ],
    [['lineage', PAIR_RECORD, '--chain-id', '1', '--bundle', 'x.json'], 'lineage', /'--chain-id': give --chain/],
    [['verify', 'block', BLOCK_FILE, '--chain-id', '1'], 'verify', /'--chain-id': give --chain/],
    [['verify', 'receipt-proof', BLOCK_FILE, '--chain-id', '1'], 'verify', /'--chain-id': give --chain/],
    [['prove', 'receipt', BLOCK_FILE, '--index', '0', '--chain-id', '1'], 'prove', /'--chain-id': give --chain/],
    [['evidence', 'list', '--chain-id', '1'], 'evidence', /'--chain-id': evidence takes the chain from the block/],
    [['chains', '--chain-id', '1'], 'chains', /^evm-integrity: unknown option '--chain-id'$/],
    [
      ['audit', '--chain', '31337', '--rules', 'ethereum', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      'audit',
      /'--rules': a chain outside the registry is added with --add-chain ID:RULES/,
    ],
  ])(
    '%j: a flag of the old grammar, or of another command, says what this one takes',
    async (args, command, message) => {
      expectOneLine(await cli(args), command, message);
    },
  );

  /** A command of each kind that takes --add-chain, with the flag's value last. */
  const ADD_CHAIN: Array<[string, (value: string) => string[]]> = [
    ['verify', (v) => ['verify', 'block', BLOCK_FILE, '--add-chain', v]],
    ['verify', (v) => ['verify', 'logs-proof', 'x.elp', '--head-hash', HASH, '--add-chain', v]],
    ['prove', (v) => ['prove', 'receipt', BLOCK_FILE, '--index', '0', '--add-chain', v]],
    [
      'prove',
      (v) => [
        'prove',
        'logs',
        '--chain',
        '1',
        '--rpc',
        'http://127.0.0.1:1',
        '--from',
        '1',
        '--to',
        '2',
        '--add-chain',
        v,
      ],
    ],
    ['request', (v) => ['request', 'receipt-root', BLOCK_FILE, '--add-chain', v]],
    ['lineage', (v) => ['lineage', PAIR_RECORD, '--chain', '1', '--bundle', 'x.json', '--add-chain', v]],
    [
      'audit',
      (v) => ['audit', '--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--add-chain', v],
    ],
    [
      'audit-logs',
      (v) => [
        'audit-logs',
        '--chain',
        '1',
        '--rpc',
        'http://127.0.0.1:1',
        '--from',
        '1',
        '--to',
        '2',
        '--add-chain',
        v,
      ],
    ],
  ];

  it.each(ADD_CHAIN)("%s: a bad --add-chain is one line in the flag's form, exit 2", async (command, args) => {
    expectOneLine(
      await cli(args('31337:nosuch')),
      command,
      /^evm-integrity: --add-chain: "31337:nosuch" names no rule set; use one of ethereum, /,
    );
    expectOneLine(
      await cli(args('1:ethereum')),
      command,
      /^evm-integrity: --add-chain: "1:ethereum" is chain 1, built in \(Ethereum Mainnet\); an added chain needs an id of its own$/,
    );
    expectOneLine(
      await cli([...args('31337:ethereum'), '--add-chain', '31337:optimism']),
      command,
      /^evm-integrity: --add-chain: chain 31337 is given twice/,
    );
  });

  it('evidence takes no --add-chain: evidence counts only for the built-in chains', async () => {
    expectOneLine(
      await cli(['evidence', 'list', '--add-chain', '31337:ethereum']),
      'evidence',
      /counts only for the built-in chains/,
    );
  });

  it('audit: --add-chain of a chain other than the audited one is refused, not ignored', async () => {
    expectOneLine(
      await cli([
        'audit',
        '--chain',
        '31337',
        '--from',
        '1',
        '--to',
        '2',
        '--rpc',
        'http://127.0.0.1:1',
        '--add-chain',
        '31338:ethereum',
      ]),
      'audit',
      /--add-chain adds chain 31338, but the audit is of chain 31337 \(--chain\)/,
    );
  });

  it('an unknown command is one line, then where the help is', async () => {
    const result = await cli(['nosuch']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^evm-integrity: unknown command "nosuch"; expected one of verify, [^\n]*\ntry 'evm-integrity --help'\n$/,
    );
  });

  it("the overview's and every command's help fit a terminal of 80 columns", async () => {
    const listed = /expected one of (.*)\n/.exec((await cli(['frobnicate'])).stderr)![1]!.split(', ');
    expect(listed).toContain('accounts');
    const subcommands = ['create', 'list', 'add-cu', 'update', 'disable', 'delete'].map((c) => ['accounts', c]);
    subcommands.push(...['create', 'list', 'revoke'].map((c) => ['keys', c]));
    const pages = [['--help'], ...listed.map((c) => ['help', c]), ...subcommands.map((c) => [...c, '--help'])];
    for (const args of pages) {
      const page = await cli(args);
      expect(page.code, args.join(' ')).toBe(0);
      const wide = page.stdout.split('\n').filter((line) => line.length > 80);
      expect(wide, args.join(' ')).toEqual([]);
    }
  });

  it('help help is the overview, as help --help is', async () => {
    const [help, helpHelp] = [await cli(['help', '--help']), await cli(['help', 'help'])];
    expect(helpHelp).toEqual({ ...help, code: 0 });
    expect(helpHelp.stdout).toMatch(/^evm-integrity: offline proofs/);
  });

  it('accounts checks its command line before it opens the store', async () => {
    expectOneLine(
      await cli(['accounts', '--data-dir', join(dir, 'no-store')]),
      'accounts',
      /^evm-integrity: accounts needs a command: /,
    );
  });

  it('evidence list of a directory not made yet lists nothing, exit 0 (--json: [])', async () => {
    const absent = join(dir, 'no-evidence-yet');
    const text = await cli(['evidence', 'list', '--evidence-dir', absent]);
    expect({ code: text.code, stdout: text.stdout }).toEqual({ code: 0, stdout: '' });
    expect(text.stderr).toMatch(/no evidence yet/);
    const json = await cli(['evidence', 'list', '--evidence-dir', absent, '--json']);
    expect({ code: json.code, stdout: json.stdout }).toEqual({ code: 0, stdout: '[]\n' });
    // --evidence DIR, which a run stands on, must exist: a typo is not passed over.
    const verify = await cli(['verify', 'block', BLOCK_FILE, '--evidence', absent]);
    expect(verify.code).toBe(2);
    expect(verify.stderr).toMatch(/no-evidence-yet/);
  });

  it('verify block, verify receipt-root and prove receipt take --chain as the chain of a block that names none', async () => {
    const { chain_id: _, ...unnamed } = JSON.parse(readFileSync(BLOCK_FILE, 'utf8')) as Record<string, unknown>;
    const file = join(dir, 'unnamed.json');
    writeFileSync(file, JSON.stringify(unnamed));
    for (const chain of ['1', 'mainnet']) {
      const verified = await cli(['verify', 'block', file, '--chain', chain]);
      expect(verified.code).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ chain_id: 1 });
      expect((await cli(['prove', 'receipt', file, '--index', '0', '--chain', chain])).code).toBe(0);
    }
    // chain_id null names none either, as the verifier reads it (t8n's blocks give it): the same for each command,
    // written once or, beside a null of its header, twice (verify block refused it: "names chain_id null").
    const block = JSON.parse(readFileSync(BLOCK_FILE, 'utf8')) as Record<string, unknown>;
    const nulled = join(dir, 'null-chain.json');
    const nulledTwice = join(dir, 'null-chains.json');
    writeFileSync(nulled, JSON.stringify({ ...block, chain_id: null }, null, 1));
    writeFileSync(
      nulledTwice,
      JSON.stringify({ ...block, chain_id: null, header: { ...(block.header as object), chain_id: null } }),
    );
    for (const input of [nulled, nulledTwice]) {
      const verified = await cli(['verify', 'block', input, '--chain', '1']);
      expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(verified.stdout)).toMatchObject({ chain_id: 1, verdict: 'identical' });
      expect((await cli(['prove', 'receipt', input, '--index', '0', '--chain', '1'])).code).toBe(0);
    }
    const body = join(dir, 'body.json');
    const { chain_id: __, ...unnamedBody } = JSON.parse(
      (await cli(['request', 'receipt-root', BLOCK_FILE])).stdout,
    ) as Record<string, unknown>;
    writeFileSync(body, JSON.stringify(unnamedBody));
    expect((await cli(['verify', 'receipt-root', body, '--chain', 'mainnet'])).code).toBe(0);
    // A block that names another chain is never read as --chain's: one line naming both.
    const other = await cli(['verify', 'block', BLOCK_FILE, '--chain', 'base']);
    expect({ code: other.code, stdout: other.stdout }).toEqual({ code: 2, stdout: '' });
    expect(other.stderr).toBe(`evm-integrity: ${BLOCK_FILE}: the block names chain_id 1, not the --chain 8453 given\n`);
    const proved = await cli(['prove', 'receipt', BLOCK_FILE, '--index', '0', '--chain', 'base']);
    expect(proved).toEqual({
      code: 2,
      stdout: '',
      stderr: `evm-integrity: ${BLOCK_FILE}: the block names chain_id 1, not the --chain 8453 given\n`,
    });
  });
});

describe('against a node of chain 1 (blocks 1000001 and 1000002; latest is 1000002)', () => {
  let node: LoopbackNode;
  const latestHash = loadFixture('mainnet-1000002').header['hash'] as string;
  beforeAll(async () => {
    node = await startLoopbackNode(1, fixtureChain(1_000_001, 1_000_002));
  });
  afterAll(() => node.close());

  const proof = join(dir, 'range.elp');
  const bundle = join(dir, 'held.json');
  writeFileSync(bundle, JSON.stringify(buildHeldBundle()));

  /** The commands that take a chain, each run whole with `--chain C`, a tag where a block goes, and `--json`. */
  const RUNS: Array<[string, (chain: string) => string[]]> = [
    [
      'prove logs',
      (c) => ['prove', 'logs', '--chain', c, '--rpc', node.url, '--from', 'latest', '--to', 'latest', '--out', proof],
    ],
    [
      'verify logs-proof',
      (c) => [
        'verify',
        'logs-proof',
        proof,
        '--head-hash',
        latestHash,
        '--chain',
        c,
        '--out',
        join(dir, 'logs.ndjson'),
        '--json',
      ],
    ],
    ['audit', (c) => ['audit', '--chain', c, '--from', '1000001', '--to', 'latest', '--rpc', node.url, '--json']],
    [
      'audit-logs',
      (c) => ['audit-logs', '--chain', c, '--rpc', node.url, '--from', '0xf4241', '--to', 'finalized', '--json'],
    ],
    ['lineage', (c) => ['lineage', PAIR_RECORD, '--chain', c, '--bundle', bundle, '--json']],
    ['request', (c) => ['request', 'receipt-root', BLOCK_FILE, '--chain', c, '--json']],
  ];

  describe.each(['mainnet', 'Ethereum', 'ethereum-mainnet', '1', '0x1'])('--chain %s', (chain) => {
    it.each(RUNS)('%s: exit 0', async (_, args) => {
      const result = await cli(args(chain));
      expect(result.stderr).not.toMatch(/try 'evm-integrity/);
      expect(result.code).toBe(0);
    });
  });

  it('lineage with a chain added: its blocks are still verified (by a registry that has the added chain too)', async () => {
    const result = await cli([
      'lineage',
      PAIR_RECORD,
      '--chain',
      '1',
      '--bundle',
      bundle,
      '--add-chain',
      '31337:ethereum',
    ]);
    expect(result.code).toBe(0);
  });

  it('a name is the chain it names: --chain base is 8453, not the node’s chain', async () => {
    const audit = await cli(['audit', '--chain', 'base', '--from', '1000001', '--to', 'latest', '--rpc', node.url]);
    expect(audit.code).toBe(2);
    expect(audit.stderr).toMatch(/8453/);
    const request = await cli(['request', 'receipt-root', BLOCK_FILE, '--chain', 'BASE']);
    expect(request.stderr).toBe(
      `evm-integrity: ${BLOCK_FILE}: the block names chain_id 1, not the --chain 8453 given\n`,
    );
  });

  it('a tag is asked of the node once and named as its number: prove logs, audit, audit-logs', async () => {
    const proved = await cli([
      'prove',
      'logs',
      '--chain',
      '1',
      '--rpc',
      node.url,
      '--from',
      'safe',
      '--to',
      'latest',
      '--out',
      proof,
    ]);
    expect(proved.stderr).toMatch(/blocks 1,000,002 to 1,000,002/);
    const audit = await cli(['audit', '--chain', '1', '--from', 'latest', '--to', 'latest', '--rpc', node.url]);
    expect(JSON.parse(audit.stdout.split('\n')[0]!)).toMatchObject({ audit: { from: 1_000_002, to: 1_000_002 } });
    const logs = await cli(['audit-logs', '--chain', '1', '--rpc', node.url, '--from', 'latest', '--to', 'latest']);
    expect(JSON.parse(logs.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      summary: { from: 1_000_002, to: 1_000_002 },
    });
  });

  it('a tag that resolves before --from: one line naming both, exit 2', async () => {
    const result = await cli([
      'prove',
      'logs',
      '--chain',
      '1',
      '--rpc',
      node.url,
      '--from',
      '1000003',
      '--to',
      'latest',
      '--out',
      proof,
    ]);
    expectOneLine(result, 'prove', /--to \(latest: block 1000002\) must not be before --from \(1000003\)/);
  });

  it('evidence capture --block latest: the node’s latest block, admitted', async () => {
    const evidenceDir = join(dir, 'evidence');
    const result = await cli([
      'evidence',
      'capture',
      '--rpc',
      node.url,
      '--block',
      'latest',
      '--trusted-hash',
      latestHash,
      '--evidence-dir',
      evidenceDir,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^evm-integrity: chain 1 block 1000002 admitted as evidence/);
    const listed = await cli(['evidence', 'list', '--evidence-dir', evidenceDir, '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ chain_id: 1, block: 1_000_002, block_hash: latestHash, receipts: expect.any(Array) }),
    ]);
  });

  it('a command with no node refuses a tag in one line: audit --bundle', async () => {
    const result = await cli(['audit', '--chain', '1', '--from', 'latest', '--to', 'latest', '--bundle', bundle]);
    expectOneLine(result, 'audit', /--from: "latest" needs a node to resolve it, and --bundle has none/);
  });
});

describe('--json', () => {
  it.each([
    [['verify', 'block', BLOCK_FILE, '--json']],
    [['prove', 'receipt', BLOCK_FILE, '--index', '0', '--json']],
    [['request', 'logs-bloom', BLOCK_FILE, '--json']],
  ])('%j: accepted where the output is JSON already', async (args) => {
    const result = await cli(args);
    expect(result.stderr).not.toMatch(/unknown option/);
    if (result.code === 0) expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it.each([[['audit-status', '--json']], [['audit-export', '--json']]])(
    '%j: accepted (the queue commands)',
    async (args) => {
      const result = await cli(args);
      expect(result.stderr).not.toMatch(/unknown option/);
      expect(result.stderr).toMatch(/takes one audit id/);
    },
  );

  it('chains --json: every chain with the names --chain takes', async () => {
    const result = await cli(['chains', '--json']);
    expect(result.code).toBe(0);
    const chains = JSON.parse(result.stdout) as Array<{ chain_id: number; names: string[] }>;
    expect(chains.find((c) => c.chain_id === 8453)).toEqual({
      chain_id: 8453,
      names: ['base'],
      name: 'Base',
      verifiable: true,
    });
    expect(chains.find((c) => c.chain_id === 1)!.names).toEqual(['ethereum-mainnet', 'mainnet', 'ethereum']);
    const names = chains.flatMap((c) => c.names);
    expect(new Set(names).size).toBe(names.length); // a name names one chain
  });

  it('chains: one line a chain, its id, its names and its name', async () => {
    const result = await cli(['chains']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ +1 {2}ethereum-mainnet, mainnet, ethereum +Ethereum Mainnet$/m);
    expect(result.stdout).toMatch(/^ +8453 {2}base +Base$/m);
  });
});

describe('a devnet: chain 31337 added with --add-chain 31337:ethereum (mainnet blocks 1000001 and 1000002)', () => {
  let node: LoopbackNode;
  const latestHash = loadFixture('mainnet-1000002').header['hash'] as string;
  const proof = join(dir, 'devnet.elp');
  const DEVNET = ['--chain', '31337', '--add-chain', '31337:ethereum'];
  beforeAll(async () => {
    node = await startLoopbackNode(31337, fixtureChain(1_000_001, 1_000_002));
  });
  afterAll(() => node.close());

  const range = () => ['--rpc', node.url, '--from', '1000001', '--to', '1000002'];

  it('prove logs, verify logs-proof, audit-logs (built and given the proof) and audit: exit 0', async () => {
    const proved = await cli(['prove', 'logs', ...DEVNET, ...range(), '--out', proof]);
    expect(proved.stderr).toMatch(/proved chain 31337, blocks/);
    expect(proved.code).toBe(0);
    const checked = await cli([
      'verify',
      'logs-proof',
      proof,
      '--head-hash',
      latestHash,
      ...DEVNET,
      '--out',
      join(dir, 'devnet.ndjson'),
    ]);
    expect(checked).toMatchObject({ code: 0 });
    expect(await cli(['audit-logs', ...DEVNET, ...range(), '--head-hash', latestHash])).toMatchObject({ code: 0 });
    const given = await cli(['audit-logs', ...DEVNET, ...range(), '--proof', proof]);
    expect(given).toMatchObject({ code: 0 });
    // Without --head-hash the headers are the proof file's, its head matched to the node's hash: said so.
    expect(given.stderr).toMatch(
      /the headers are the proof file's \(.*devnet\.elp\), its head matched to the node's hash of block 1000002/,
    );
    const audit = await cli(['audit', ...DEVNET, ...range()]);
    expect(audit.stderr).not.toMatch(/try 'evm-integrity/);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.stdout.split('\n')[0]!)).toMatchObject({ audit: { chain_id: 31337 } });
  });

  it('without --add-chain the chain is outside the registry, and the line says how to add it', async () => {
    const result = await cli(['prove', 'logs', '--chain', '31337', ...range(), '--out', proof]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not in the chain registry; a devnet is added with --add-chain 31337:RULES/);
    // audit: the blocks of a chain outside the registry are not verifiable (exit 2) until --add-chain gives its rules.
    expect((await cli(['audit', '--chain', '31337', ...range()])).code).toBe(2);
  });
});
